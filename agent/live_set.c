/* live_set.c - see live_set.h. */
#include "live_set.h"

#include <stdlib.h>
#include <string.h>

int ht_live_init(ht_live_set *s, size_t max_count)
{
    memset(s, 0, sizeof *s);
    s->max_count = max_count;
    return 0;
}

void ht_live_destroy(ht_live_set *s)
{
    free(s->young.v);
    free(s->live.v);
    memset(s, 0, sizeof *s);
}

static int push(ht_live_list *l, const ht_live_entry *e)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 1024;
        ht_live_entry *v = realloc(l->v, ncap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = ncap;
    }
    l->v[l->n++] = *e;
    return 0;
}

size_t ht_live_count(const ht_live_set *s)
{
    return s->young.n + s->live.n;
}

int ht_live_full(const ht_live_set *s)
{
    return ht_live_count(s) >= s->max_count;
}

int ht_live_add(ht_live_set *s, uint64_t ref, uint32_t agg, uint32_t epoch, double bytes,
                double instances, uint64_t serial)
{
    if (ref == 0 || ht_live_full(s)) return -1;
    ht_live_entry e = {.ref = ref,
                       .serial = serial,
                       .agg = agg,
                       .epoch = epoch,
                       .bytes = bytes,
                       .instances = instances};
    return push(&s->young, &e);
}

/* a before b, modulo 2^32: epochs are pause counters that may wrap */
static int epoch_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

ht_sweep_result ht_live_sweep(ht_live_set *s, const ht_live_ops *ops, uint32_t proven_before,
                              int live_too)
{
    ht_sweep_result r = {0, 0, 0, 0};
    /* Live first, so entries proven below are not tested twice. Swap-remove:
     * the last entry fills the hole and is tested next. */
    ht_live_list *l = &s->live;
    for (size_t i = 0; live_too && i < l->n;) {
        r.tested++;
        if (ops->is_dead(ops->ctx, l->v[i].ref)) {
            ops->dead(ops->ctx, &l->v[i], 0);
            l->v[i] = l->v[--l->n];
            r.live_dead++;
        } else {
            i++;
        }
    }
    ht_live_list *y = &s->young;
    size_t kept = 0;
    for (size_t i = 0; i < y->n; i++) {
        ht_live_entry *e = &y->v[i];
        r.tested++;
        if (ops->is_dead(ops->ctx, e->ref)) {
            ops->dead(ops->ctx, e, 1);
            r.young_dead++;
        } else if (epoch_before(e->epoch, proven_before) && push(&s->live, e) == 0) {
            ops->proven(ops->ctx, e);
            r.proven++;
        } else {
            y->v[kept++] = *e; /* too young to judge, or no room: stays young */
        }
    }
    y->n = kept;
    return r;
}

void ht_gc_proof_init(ht_gc_proof *p, uint32_t concurrent, uint32_t late, const uint64_t *counts,
                      int n)
{
    memset(p, 0, sizeof *p);
    p->concurrent = concurrent | late; /* a late kind's cycles are concurrent */
    p->late = late;
    for (int k = 0; k < HT_GC_KINDS; k++) {
        /* collections finished before the agent watched prove nothing, and
         * the cycle running now may have begun before it loaded */
        p->counts[k] = k < n ? counts[k] : 0;
        p->window[k] = p->window2[k] = HT_GC_NO_WINDOW;
    }
}

/* proven_before moves forward only (modulo 2^32) */
static void prove(ht_gc_proof *p, uint64_t start)
{
    /* epochs count pauses started before a sample: pause start+1 began after
     * every sample with an epoch up to start */
    uint32_t pb = (uint32_t)(start + 1);
    if ((int32_t)(pb - p->proven_before) > 0) p->proven_before = pb;
}

uint32_t ht_gc_proof_update(ht_gc_proof *p, uint64_t pauses, const uint64_t *counts, int n)
{
    if (n <= 0) { /* no counts: every pause counts as a collection */
        if (pauses != p->swept_pauses) prove(p, p->swept_pauses);
    }
    for (int k = 0; k < n && k < HT_GC_KINDS; k++) {
        if (counts[k] <= p->counts[k]) continue;
        /* a collection of kind k finished at a pause after p->swept_pauses */
        uint64_t seen = p->swept_pauses, ended = counts[k] - p->counts[k];
        uint64_t start = seen;
        if ((p->late >> k) & 1) {
            /* what predates the cycle before the last one: that cycle began
             * after the one before it ended (inside window2 when only one
             * cycle ended since the last sweep, inside window when two did) */
            if (ended == 1)
                start = p->window2[k];
            else if (ended == 2)
                start = p->window[k];
        } else if ((p->concurrent >> k) & 1 && ended == 1) {
            /* the cycle may have begun before the last sweep, but not before
             * this kind's previous cycle ended, inside its previous window */
            start = p->window[k];
        }
        p->window2[k] = ended >= 2 ? seen : p->window[k];
        p->window[k] = seen;
        if (start != HT_GC_NO_WINDOW) prove(p, start);
        p->counts[k] = counts[k];
    }
    p->swept_pauses = pauses;
    return p->proven_before;
}
