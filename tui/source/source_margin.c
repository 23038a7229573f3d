/* source_margin.c - see source_margin.h. */
#include "source_margin.h"

#include <stdlib.h>
#include <string.h>

int ht_margin_init(ht_margin *m, uint32_t nlines)
{
    memset(m, 0, sizeof *m);
    ht_map_init(&m->methods);
    size_t n = nlines ? nlines : 1;
    m->lines = calloc(n, sizeof *m->lines);
    m->seen = calloc(n, sizeof *m->seen);
    if (!m->lines || !m->seen) {
        ht_margin_free(m);
        return -1;
    }
    m->nlines = nlines;
    return 0;
}

void ht_margin_free(ht_margin *m)
{
    free(m->lines);
    free(m->seen);
    ht_map_free(&m->methods);
    memset(m, 0, sizeof *m);
}

void ht_margin_clear(ht_margin *m)
{
    if (m->lines) memset(m->lines, 0, (m->nlines ? m->nlines : 1) * sizeof *m->lines);
    if (m->seen) memset(m->seen, 0, (m->nlines ? m->nlines : 1) * sizeof *m->seen);
    m->stack = 0;
    ht_map_clear(&m->methods);
    memset(m->total, 0, sizeof m->total);
    memset(m->has, 0, sizeof m->has);
}

/* Is the frame's method in the file? 1, 0, or -1 out of memory. */
static int in_file(ht_margin *m, uint32_t id, ht_in_file ask, void *ctx)
{
    uint64_t v;
    if (ht_map_get(&m->methods, id, &v)) return v == 1;
    int yes = ask(ctx, id) != 0;
    if (ht_map_put(&m->methods, id, yes ? 1 : 2) != 0) return -1;
    return yes;
}

int ht_margin_add(ht_margin *m, ht_margin_col col, const ht_stacks *it, ht_in_file ask, void *fctx)
{
    m->has[col] = 1;
    ht_stack s;
    while (it->next(it->ctx, &s)) {
        m->total[col] += s.weight;
        if (++m->stack == 0) { /* wrapped: the stamps start again */
            memset(m->seen, 0, (m->nlines ? m->nlines : 1) * sizeof *m->seen);
            m->stack = 1;
        }
        for (uint32_t k = 0; k < s.depth; k++) {
            int32_t line = s.frames[k].line;
            if (line < 1 || (uint32_t)line > m->nlines) continue;
            int yes = in_file(m, s.frames[k].method_id, ask, fctx);
            if (yes < 0) return -1;
            if (!yes) continue;
            ht_margin_line *l = &m->lines[line - 1];
            if (k == 0) l->self[col] += s.weight;
            if (m->seen[line - 1] == m->stack) continue; /* this stack is counted here */
            m->seen[line - 1] = m->stack;
            l->incl[col] += s.weight;
        }
    }
    return 0;
}
