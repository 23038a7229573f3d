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
    free(s->old.v);
    memset(s, 0, sizeof *s);
}

static int push(ht_live_gen *g, const ht_live_entry *e)
{
    if (g->n == g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 1024;
        ht_live_entry *v = realloc(g->v, ncap * sizeof *v);
        if (!v) return -1;
        g->v = v;
        g->cap = ncap;
    }
    g->v[g->n++] = *e;
    return 0;
}

size_t ht_live_count(const ht_live_set *s)
{
    return s->young.n + s->old.n;
}

int ht_live_full(const ht_live_set *s)
{
    return ht_live_count(s) >= s->max_count;
}

int ht_live_add(ht_live_set *s, uint64_t ref, uint32_t agg, double bytes, double instances)
{
    if (ref == 0 || ht_live_full(s)) return -1;
    ht_live_entry e = {ref, agg, 0, bytes, instances};
    return push(&s->young, &e);
}

size_t ht_live_sweep_young(ht_live_set *s, const ht_live_ops *ops)
{
    size_t deaths = 0;
    size_t kept = 0; /* survivors that found no room in old stay young */
    for (size_t i = 0; i < s->young.n; i++) {
        ht_live_entry *e = &s->young.v[i];
        if (ops->is_dead(ops->ctx, e->ref)) {
            ops->dead(ops->ctx, e);
            deaths++;
        } else if (push(&s->old, e) != 0) {
            s->young.v[kept++] = *e;
        }
    }
    s->young.n = kept;
    return deaths;
}

void ht_live_begin_old_pass(ht_live_set *s)
{
    s->cursor = 0;
    s->passing = 1;
}

size_t ht_live_sweep_old(ht_live_set *s, const ht_live_ops *ops, size_t budget, int *done)
{
    size_t deaths = 0;
    ht_live_gen *g = &s->old;
    /* Swap-remove: the last entry fills the hole and is tested next, since
     * everything at or past the cursor is still to be tested in this pass. */
    while (s->passing && budget > 0 && s->cursor < g->n) {
        budget--;
        ht_live_entry *e = &g->v[s->cursor];
        if (ops->is_dead(ops->ctx, e->ref)) {
            ops->dead(ops->ctx, e);
            *e = g->v[--g->n];
            deaths++;
        } else {
            s->cursor++;
        }
    }
    if (s->cursor >= g->n) s->passing = 0;
    *done = !s->passing;
    return deaths;
}
