/* source_rows.c - see source_rows.h. */
#include "source_rows.h"

#include "source_find.h"

static int alloc_next(void *ctx, ht_stack *out)
{
    ht_store_stacks *st = ctx;
    const ht_store *s = st->s;
    while (st->at < s->nrows) {
        const ht_agg_rec *r = &s->rows[st->at++];
        const ht_strace *t = ht_store_trace(s, r->trace_id);
        if (!t || !t->depth) continue;
        *out = (ht_stack){.frames = t->frames, .depth = t->depth, .weight = r->est_bytes};
        return 1;
    }
    return 0;
}

ht_stacks ht_store_alloc_stacks(ht_store_stacks *st, const ht_store *s)
{
    *st = (ht_store_stacks){.s = s, .at = 0};
    return (ht_stacks){.next = alloc_next, .ctx = st};
}

int ht_store_in_file(void *ctx, uint32_t method_id)
{
    const ht_store_file *f = ctx;
    const ht_smethod *m = ht_store_method(f->s, method_id);
    return m && m->cls && ht_source_same_file(m->cls, m->src, f->rel);
}

int ht_margin_from_store(ht_margin *m, const ht_store *s, const char *rel)
{
    ht_margin_clear(m);
    ht_store_file file = {.s = s, .rel = rel};
    ht_store_stacks alloc;
    ht_stacks it = ht_store_alloc_stacks(&alloc, s);
    return ht_margin_add(m, HT_MARGIN_ALLOC, &it, ht_store_in_file, &file);
}
