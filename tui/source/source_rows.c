/* source_rows.c - see source_rows.h. */
#include "source_rows.h"

#include "source_find.h"

int ht_store_stack_at(const ht_store *s, ht_margin_col col, uint32_t i, ht_stack *out)
{
    uint32_t trace;
    double weight;
    if (col == HT_MARGIN_ALLOC) {
        if (i >= s->nrows) return 0;
        trace = s->rows[i].trace_id;
        weight = s->rows[i].est_bytes;
    } else {
        if (i >= s->ncpu_rows) return 0;
        const ht_cpu_row_rec *r = &s->cpu_rows[i];
        if (r->bucket != HT_CPUB_NONE) return 0; /* no stack: in no file */
        trace = r->trace_id;
        weight = (double)r->cpu_ns / 1e6;
    }
    const ht_strace *t = ht_store_trace(s, trace);
    if (!t || !t->depth) return 0;
    *out = (ht_stack){.frames = t->frames, .depth = t->depth, .weight = weight};
    return 1;
}

uint32_t ht_store_stack_rows(const ht_store *s, ht_margin_col col)
{
    return col == HT_MARGIN_ALLOC ? s->nrows : s->ncpu_rows;
}

static int rows_next(void *ctx, ht_stack *out)
{
    ht_store_stacks *st = ctx;
    while (st->at < ht_store_stack_rows(st->s, st->col))
        if (ht_store_stack_at(st->s, st->col, st->at++, out)) return 1;
    return 0;
}

ht_stacks ht_store_alloc_stacks(ht_store_stacks *st, const ht_store *s)
{
    *st = (ht_store_stacks){.s = s, .col = HT_MARGIN_ALLOC, .at = 0};
    return (ht_stacks){.next = rows_next, .ctx = st};
}

ht_stacks ht_store_cpu_stacks(ht_store_stacks *st, const ht_store *s)
{
    *st = (ht_store_stacks){.s = s, .col = HT_MARGIN_CPU, .at = 0};
    return (ht_stacks){.next = rows_next, .ctx = st};
}

int ht_store_has_cpu(const ht_store *s)
{
    return s->ncpu_rows > 0 || s->info.cpu_mode != HT_CPU_OFF;
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
    ht_store_stacks rows;
    ht_stacks it = ht_store_alloc_stacks(&rows, s);
    if (ht_margin_add(m, HT_MARGIN_ALLOC, &it, ht_store_in_file, &file) != 0) return -1;
    if (!ht_store_has_cpu(s)) return 0; /* the screen says "CPU: not sampled" */
    it = ht_store_cpu_stacks(&rows, s);
    return ht_margin_add(m, HT_MARGIN_CPU, &it, ht_store_in_file, &file);
}
