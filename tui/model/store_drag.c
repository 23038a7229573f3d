/*
 * store_drag.c - the drag part of the store: drag mode's last state and its
 * rows per allocation site (see store.h and store_int.h).
 *
 * Owns: the copy of the last HT_MSG_DRAG_STATE (its filter and why as owned
 * strings, cut to HT_DRAG_FILTER_MAX bytes, NUL bytes kept out: the agent's
 * bytes are outside input) and the drag rows keyed by (trace, class), the
 * last copy of each winning, as the CPU rows are kept. A sync clears the
 * store first and then brings the state and every row again. Same thread
 * rules as store.h: one thread at a time, no I/O. Also the scaling that
 * makes a row's figures estimates for its whole site (ht_drag_row_estimate):
 * the screen, drag.csv and heaptop record all go through it.
 */
#include "store_int.h"

#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A copy of an agent's string: at most HT_DRAG_FILTER_MAX bytes, never cut
 * inside a UTF-8 sequence, a NUL byte read as '?'. */
static char *text_copy(ht_str t)
{
    size_t n = t.len < HT_DRAG_FILTER_MAX ? t.len : HT_DRAG_FILTER_MAX;
    if (n < t.len)
        while (n > 0 && ((unsigned char)t.s[n] & 0xc0) == 0x80)
            n--;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = t.s[i] ? t.s[i] : '?';
    d[n] = '\0';
    return d;
}

static int put_state(ht_store *s, const ht_drag_state_rec *rec)
{
    char *filter = text_copy(rec->filter), *why = text_copy(rec->why);
    if (!filter || !why) {
        free(filter);
        free(why);
        return HT_EINTERNAL;
    }
    free(s->drag.filter);
    free(s->drag.why);
    s->drag = (ht_store_drag){.known = 1, .rec = *rec, .filter = filter, .why = why};
    s->drag.rec.filter = s->drag.rec.why = (ht_str){0};
    return HT_OK;
}

static int put_row(ht_store *s, const ht_drag_row_rec *row)
{
    uint64_t key = ht_row_key(row->trace_id, row->class_id), at;
    if (ht_map_get(&s->drag_index, key, &at) && at < s->ndrag_rows) {
        s->drag_rows[at] = *row;
        return HT_OK;
    }
    if (s->ndrag_rows >= HT_STORE_DRAG_ROWS_MAX) {
        s->drag_refused++;
        return HT_OK;
    }
    if (s->ndrag_rows == s->cap_drag_rows) {
        uint32_t ncap = s->cap_drag_rows ? s->cap_drag_rows * 2 : 256;
        ht_drag_row_rec *n = realloc(s->drag_rows, (size_t)ncap * sizeof *n);
        if (!n) return HT_EINTERNAL;
        s->drag_rows = n;
        s->cap_drag_rows = ncap;
    }
    if (ht_map_put(&s->drag_index, key, s->ndrag_rows) != 0) return HT_EINTERNAL;
    s->drag_rows[s->ndrag_rows++] = *row;
    return HT_OK;
}

int ht_store_drag_apply(ht_store *s, int type, ht_reader *r)
{
    if (type == HT_MSG_DRAG_STATE) {
        ht_drag_state_rec rec;
        ht_dec_drag_state(r, &rec);
        return r->failed ? HT_OK : put_state(s, &rec); /* the caller says HT_EBODY */
    }
    int rc = HT_OK;
    uint32_t n = ht_get_u32(r);
    for (uint32_t i = 0; i < n && rc == HT_OK && !r->failed; i++) {
        ht_drag_row_rec row;
        ht_dec_drag_row(r, &row);
        if (!r->failed) rc = put_row(s, &row);
    }
    return rc;
}

void ht_store_drag_clear(ht_store *s)
{
    free(s->drag.filter);
    free(s->drag.why);
    s->drag = (ht_store_drag){0};
    s->ndrag_rows = 0;
    ht_map_clear(&s->drag_index);
    s->drag_refused = 0;
}

void ht_store_drag_free(ht_store *s)
{
    free(s->drag_rows);
    s->drag_rows = NULL;
    s->cap_drag_rows = 0;
    ht_map_free(&s->drag_index);
}

int ht_store_drag_copy(ht_store *dst, const ht_store *src)
{
    if (src->drag.known) {
        ht_drag_state_rec rec = src->drag.rec;
        rec.filter = (ht_str){.s = src->drag.filter, .len = (uint32_t)strlen(src->drag.filter)};
        rec.why = (ht_str){.s = src->drag.why, .len = (uint32_t)strlen(src->drag.why)};
        if (put_state(dst, &rec) != HT_OK) return -1;
    }
    if (src->ndrag_rows && src->cap_traces && !dst->traces) {
        dst->traces = calloc(src->cap_traces, sizeof *dst->traces);
        if (!dst->traces) return -1;
        dst->cap_traces = src->cap_traces;
    }
    for (uint32_t i = 0; i < src->ndrag_rows; i++) {
        if (put_row(dst, &src->drag_rows[i]) != HT_OK) return -1;
        if (ht_store_copy_trace(dst, src, src->drag_rows[i].trace_id) != 0) return -1;
    }
    dst->drag_refused = src->drag_refused;
    return 0;
}

const ht_drag_row_rec *ht_store_drag_row(const ht_store *s, uint32_t trace_id, uint32_t class_id)
{
    uint64_t at;
    if (ht_map_get(&s->drag_index, ht_row_key(trace_id, class_id), &at) && at < s->ndrag_rows)
        return &s->drag_rows[at];
    return NULL;
}

int ht_store_drag_on(const ht_store *s)
{
    return s->drag.known && s->drag.rec.on;
}

double ht_drag_row_scale(const ht_drag_row_rec *r)
{
    if (!r->tracked || r->samples <= r->tracked) return 1.0; /* protocol.c: never more tracked */
    return (double)r->samples / (double)r->tracked;
}

/* A count scaled, to the nearest whole object. */
static uint64_t scaled(uint64_t n, double k)
{
    double v = round((double)n * k); /* halves up */
    return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

void ht_drag_row_estimate(const ht_drag_row_rec *r, ht_drag_row_rec *out)
{
    double k = ht_drag_row_scale(r);
    *out = *r;
    out->dead = scaled(r->dead, k);
    out->void_ = scaled(r->void_, k);
    out->bytes = r->bytes * k;
    out->drag_lo = r->drag_lo * k;
    out->drag_hi = r->drag_hi * k;
    out->lag = r->lag * k;
    out->use = r->use * k;
    out->diff_dead = scaled(r->diff_dead, k);
    out->diff_void = scaled(r->diff_void, k);
    out->diff_bytes = r->diff_bytes * k;
    out->diff_drag_lo = r->diff_drag_lo * k;
    out->diff_drag_hi = r->diff_drag_hi * k;
    out->diff_lag = r->diff_lag * k;
    out->diff_use = r->diff_use * k;
}

/* dst += src, figure by figure (the histogram's counts too). */
static void add_row(ht_drag_row_rec *dst, const ht_drag_row_rec *src)
{
    dst->samples += src->samples;
    dst->tracked += src->tracked;
    dst->dead += src->dead;
    dst->void_ += src->void_;
    dst->bytes += src->bytes;
    dst->drag_lo += src->drag_lo;
    dst->drag_hi += src->drag_hi;
    dst->lag += src->lag;
    dst->use += src->use;
    for (int k = 0; k < HT_DRAG_HIST; k++)
        dst->hist[k] =
            dst->hist[k] > UINT32_MAX - src->hist[k] ? UINT32_MAX : dst->hist[k] + src->hist[k];
    dst->diff_samples += src->diff_samples;
    dst->diff_tracked += src->diff_tracked;
    dst->diff_dead += src->diff_dead;
    dst->diff_void += src->diff_void;
    dst->diff_bytes += src->diff_bytes;
    dst->diff_drag_lo += src->diff_drag_lo;
    dst->diff_drag_hi += src->diff_drag_hi;
    dst->diff_lag += src->diff_lag;
    dst->diff_use += src->diff_use;
}

int ht_drag_class_sums(const ht_store *s, int (*keep)(void *ctx, uint32_t class_id), void *ctx,
                       ht_drag_class_sum **out)
{
    *out = NULL;
    ht_drag_class_sum *c = malloc(((size_t)s->ndrag_rows + 1) * sizeof *c);
    ht_map at;
    ht_map_init(&at);
    if (!c) return -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->ndrag_rows; i++) {
        const ht_drag_row_rec *r = &s->drag_rows[i];
        if (keep && !keep(ctx, r->class_id)) continue;
        uint64_t k;
        if (!ht_map_get(&at, r->class_id, &k)) {
            if (ht_map_put(&at, r->class_id, n) != 0) {
                free(c);
                ht_map_free(&at);
                return -1;
            }
            k = n++;
            memset(&c[k], 0, sizeof c[k]);
            c[k].raw.trace_id = c[k].est.trace_id = HT_TRACE_OVERFLOW;
            c[k].raw.class_id = c[k].est.class_id = r->class_id;
        }
        ht_drag_row_rec e;
        ht_drag_row_estimate(r, &e);
        add_row(&c[k].raw, r);
        add_row(&c[k].est, &e);
        c[k].sites++;
    }
    ht_map_free(&at);
    *out = c;
    return (int)n;
}
