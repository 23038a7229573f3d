/* drag_track.c - see drag_track.h. */
#include "drag_track.h"

#include <stdlib.h>
#include <string.h>

int ht_drag_track_init(ht_drag_track *t, uint32_t max_rows)
{
    memset(t, 0, sizeof *t);
    t->max_rows = max_rows ? max_rows : 1;
    t->free_head = UINT32_MAX;
    ht_map_init(&t->by_serial);
    ht_map_init(&t->by_site);
    return 0;
}

void ht_drag_track_destroy(ht_drag_track *t)
{
    free(t->objs);
    free(t->free_next);
    free(t->rows);
    free(t->dirty_flag);
    free(t->dirty);
    free(t->base);
    ht_map_free(&t->by_serial);
    ht_map_free(&t->by_site);
    memset(t, 0, sizeof *t);
}

static void mark_dirty(ht_drag_track *t, uint32_t r)
{
    if (!t->dirty_flag[r]) {
        t->dirty_flag[r] = 1;
        t->dirty[t->ndirty++] = r;
    }
}

static int grow_rows(ht_drag_track *t)
{
    uint32_t cap = t->caprows ? t->caprows * 2 : 64;
    ht_drag_row_rec *rows = realloc(t->rows, (size_t)cap * sizeof *rows);
    if (!rows) return -1;
    t->rows = rows;
    uint8_t *flag = realloc(t->dirty_flag, cap);
    if (!flag) return -1;
    t->dirty_flag = flag;
    uint32_t *dirty = realloc(t->dirty, (size_t)cap * sizeof *dirty);
    if (!dirty) return -1;
    t->dirty = dirty;
    t->caprows = cap;
    return 0;
}

static uint32_t row_for(ht_drag_track *t, uint32_t trace, uint32_t cls)
{
    uint64_t key = (uint64_t)trace << 32 | cls, v;
    if (ht_map_get(&t->by_site, key, &v)) return (uint32_t)v;
    /* past the cap a site's figures go to its class's overflow row */
    if (t->nrows >= t->max_rows && trace != HT_TRACE_OVERFLOW)
        return row_for(t, HT_TRACE_OVERFLOW, cls);
    if (t->nrows == t->caprows && grow_rows(t) != 0) return UINT32_MAX;
    if (ht_map_put(&t->by_site, key, t->nrows) != 0) return UINT32_MAX;
    uint32_t r = t->nrows++;
    memset(&t->rows[r], 0, sizeof t->rows[r]);
    t->rows[r].trace_id = trace;
    t->rows[r].class_id = cls;
    t->dirty_flag[r] = 0;
    return r;
}

uint32_t ht_drag_track_sample(ht_drag_track *t, uint32_t trace, uint32_t cls)
{
    uint32_t r = row_for(t, trace, cls);
    if (r == UINT32_MAX) return r;
    t->rows[r].samples++;
    t->samples++;
    mark_dirty(t, r);
    return r;
}

static int free_slot(const ht_drag_track *t, uint16_t cid)
{
    uint8_t m = t->taken[cid];
    for (int k = 0; k < HT_DRAG_SLOTS; k++)
        if (!(m & (1u << k))) return k;
    return -1;
}

static uint32_t new_obj(ht_drag_track *t)
{
    if (t->free_head != UINT32_MAX) {
        uint32_t i = t->free_head;
        t->free_head = t->free_next[i];
        return i;
    }
    if (t->nobjs == t->capobjs) {
        uint32_t cap = t->capobjs ? t->capobjs * 2 : 256;
        ht_drag_obj *o = realloc(t->objs, (size_t)cap * sizeof *o);
        if (!o) return UINT32_MAX;
        t->objs = o;
        uint32_t *f = realloc(t->free_next, (size_t)cap * sizeof *f);
        if (!f) return UINT32_MAX;
        t->free_next = f;
        t->capobjs = cap;
    }
    return t->nobjs++;
}

static void free_obj(ht_drag_track *t, uint32_t i)
{
    ht_drag_obj *o = &t->objs[i];
    for (int k = 0; k < o->n; k++)
        t->taken[o->cid[k]] &= (uint8_t) ~(1u << o->slot[k]);
    ht_map_del(&t->by_serial, o->serial);
    memset(o, 0, sizeof *o);
    t->free_next[i] = t->free_head;
    t->free_head = i;
}

const ht_drag_obj *ht_drag_track_take(ht_drag_track *t, uint32_t row, uint64_t serial,
                                      uint64_t alloc_ns, double bytes, const uint16_t *cids, int n)
{
    if (row >= t->nrows || serial == 0 || ht_map_get(&t->by_serial, serial, NULL)) return NULL;
    ht_drag_obj o = {.serial = serial, .alloc_ns = alloc_ns, .bytes = bytes, .row = row};
    for (int k = 0; k < n && o.n < HT_DRAG_CHAIN; k++) {
        if (cids[k] == 0 || cids[k] > HT_DRAG_MAX_CID) continue;
        int s = free_slot(t, cids[k]);
        if (s < 0) continue;
        o.cid[o.n] = cids[k];
        o.slot[o.n] = (uint8_t)s;
        o.n++;
    }
    if (o.n == 0) {
        t->untracked++;
        return NULL;
    }
    uint32_t i = new_obj(t);
    if (i == UINT32_MAX) return NULL;
    if (ht_map_put(&t->by_serial, serial, i) != 0) {
        t->free_next[i] = t->free_head;
        t->free_head = i;
        return NULL;
    }
    for (int k = 0; k < o.n; k++)
        t->taken[o.cid[k]] |= (uint8_t)(1u << o.slot[k]);
    t->objs[i] = o;
    t->tracked++;
    t->rows[row].tracked++;
    mark_dirty(t, row);
    return &t->objs[i];
}

const ht_drag_obj *ht_drag_track_find(const ht_drag_track *t, uint64_t serial)
{
    uint64_t i;
    if (!ht_map_get(&t->by_serial, serial, &i)) return NULL;
    return &t->objs[i];
}

/* w·(to − from) in byte-seconds, 0 when to is not after from */
static double byte_s(double w, uint64_t from, uint64_t to)
{
    return to > from ? w * (double)(to - from) / 1e9 : 0.0;
}

void ht_drag_track_died(ht_drag_track *t, uint64_t serial, uint64_t first, uint64_t last,
                        uint64_t t_alive, uint64_t t_detect)
{
    uint64_t i;
    if (!ht_map_get(&t->by_serial, serial, &i)) return;
    const ht_drag_obj *o = &t->objs[i];
    ht_drag_row_rec *row = &t->rows[o->row];
    double w = o->bytes;
    if (t_alive < o->alloc_ns) t_alive = o->alloc_ns;
    if (t_detect < t_alive) t_detect = t_alive;
    /* a use before the object was taken in cannot be told apart: the slot
     * was empty then; the figures count from the later of the two */
    if (last && last < o->alloc_ns) last = o->alloc_ns;
    if (first && first < o->alloc_ns) first = o->alloc_ns;
    if (first > last) first = last;
    row->dead++;
    row->bytes += w;
    uint64_t since = last ? last : o->alloc_ns; /* drag counts from the last use, or the start */
    if (!last) {
        row->void_++;
    } else {
        row->lag += byte_s(w, o->alloc_ns, first);
        row->use += byte_s(w, first, last);
    }
    row->drag_lo += byte_s(w, since, t_alive);
    row->drag_hi += byte_s(w, since, t_detect);
    if (row->drag_lo > row->drag_hi) row->drag_lo = row->drag_hi; /* rounding */
    int b = ht_drag_hist_bucket(t_detect > since ? t_detect - since : 0);
    if (row->hist[b] < UINT32_MAX) row->hist[b]++;
    mark_dirty(t, o->row);
    free_obj(t, (uint32_t)i);
}

void ht_drag_track_forget(ht_drag_track *t, uint64_t serial)
{
    uint64_t i;
    if (ht_map_get(&t->by_serial, serial, &i)) free_obj(t, (uint32_t)i);
}

void ht_drag_track_untrack(ht_drag_track *t, uint64_t serial)
{
    uint64_t i;
    if (!ht_map_get(&t->by_serial, serial, &i)) return;
    ht_drag_row_rec *row = &t->rows[t->objs[i].row];
    if (row->tracked) row->tracked--;
    if (t->tracked) t->tracked--;
    t->untracked++;
    mark_dirty(t, t->objs[i].row);
    free_obj(t, (uint32_t)i);
}

void ht_drag_track_forget_all(ht_drag_track *t)
{
    memset(t->taken, 0, sizeof t->taken);
    ht_map_clear(&t->by_serial);
    t->nobjs = 0;
    t->free_head = UINT32_MAX;
}

uint32_t ht_drag_track_count(const ht_drag_track *t)
{
    return ht_map_count(&t->by_serial);
}

/* The 9 diff figures of a row, in the base layout. */
static void totals(const ht_drag_row_rec *r, double v[9])
{
    v[0] = (double)r->samples;
    v[1] = (double)r->tracked;
    v[2] = (double)r->dead;
    v[3] = (double)r->void_;
    v[4] = r->bytes;
    v[5] = r->drag_lo;
    v[6] = r->drag_hi;
    v[7] = r->lag;
    v[8] = r->use;
}

/* What the mark shows for row r now (mark.c's rule). */
static void current(const ht_drag_track *t, uint32_t r, double out[9])
{
    const double *b = r < t->nbase ? t->base[r] : NULL;
    if (t->mark_state == HT_MARK_RUNNING) {
        totals(&t->rows[r], out);
        if (b)
            for (int k = 0; k < 9; k++)
                out[k] -= b[k];
    } else if (t->mark_state == HT_MARK_STOPPED && b) {
        memcpy(out, b, 9 * sizeof *out);
    } else {
        memset(out, 0, 9 * sizeof *out);
    }
}

int ht_drag_track_mark(ht_drag_track *t, int op)
{
    int to;
    if (op == HT_MARK_BEGIN || op == HT_MARK_CONTINUE)
        to = HT_MARK_RUNNING;
    else if (op == HT_MARK_END)
        to = t->mark_state == HT_MARK_RUNNING ? HT_MARK_STOPPED : t->mark_state;
    else
        return 0;
    if (op != HT_MARK_BEGIN && to == t->mark_state) return 0;
    double(*base)[9] = malloc(((size_t)t->nrows + 1) * sizeof *base);
    if (!base) return -1;
    for (uint32_t r = 0; r < t->nrows; r++) {
        double tot[9], cur[9];
        totals(&t->rows[r], tot);
        if (op == HT_MARK_END) {
            current(t, r, base[r]); /* the frozen diff */
        } else if (op == HT_MARK_CONTINUE && t->mark_state == HT_MARK_STOPPED) {
            current(t, r, cur); /* totals minus the frozen diff */
            for (int k = 0; k < 9; k++)
                base[r][k] = tot[k] - cur[k];
        } else {
            memcpy(base[r], tot, sizeof tot);
        }
        mark_dirty(t, r);
    }
    free(t->base);
    t->base = base;
    t->nbase = t->nrows;
    t->mark_state = to;
    return 0;
}

void ht_drag_track_row(const ht_drag_track *t, uint32_t r, ht_drag_row_rec *out)
{
    *out = t->rows[r];
    double d[9];
    current(t, r, d);
    for (int k = 0; k < 9; k++)
        if (d[k] < 0) d[k] = 0;
    out->diff_samples = (uint64_t)d[0];
    out->diff_tracked = (uint64_t)d[1];
    out->diff_dead = (uint64_t)d[2];
    out->diff_void = (uint64_t)d[3];
    out->diff_bytes = d[4];
    out->diff_drag_lo = d[5];
    out->diff_drag_hi = d[6];
    out->diff_lag = d[7];
    out->diff_use = d[8];
}

void ht_drag_track_clear_dirty(ht_drag_track *t)
{
    for (uint32_t k = 0; k < t->ndirty; k++)
        t->dirty_flag[t->dirty[k]] = 0;
    t->ndirty = 0;
}
