/* tree_jump.c - see tree_jump.h. */
#include "tree_jump.h"

#include <stddef.h>

static ht_jump pending; /* UI thread only */

void ht_jump_send(ht_host *h, const ht_jump *j)
{
    pending = *j;
    ht_host_show(h, j->to);
    ht_host_rebuild(h);
}

const ht_jump *ht_jump_pending(const ht_screen *me)
{
    return pending.to && pending.to == me ? &pending : NULL;
}

void ht_jump_clear(void)
{
    pending = (ht_jump){0};
}

/* n's child that is frame f, or 0. */
static uint32_t child_frame(const ht_site_tree *t, uint32_t n, const ht_frame_rec *f)
{
    for (uint32_t c = t->nodes[n].first_child; c; c = t->nodes[c].next_sibling) {
        const ht_node *nd = &t->nodes[c];
        if (nd->kind == HT_NODE_FRAME && nd->id == f->method_id && nd->line == f->line) return c;
    }
    return 0;
}

/* The node at the end of j's stack walked from the root, outermost frame
 * first (a top-down tree), through a class level at the top (id j's class)
 * or a "[stack cut]" node; 0 when the tree has no such path (hot spots, a
 * filter). */
static uint32_t find_stack(const ht_site_tree *t, const ht_jump *j)
{
    uint32_t n = 0;
    for (int i = j->depth - 1; i >= 0; i--) {
        uint32_t c = child_frame(t, n, &j->stack[i]);
        for (uint32_t k = t->nodes[n].first_child; !c && n == 0 && k;
             k = t->nodes[k].next_sibling) {
            const ht_node *nd = &t->nodes[k];
            if ((nd->kind == HT_NODE_CLASS && nd->id == j->class_id) || nd->kind == HT_NODE_CUT)
                c = child_frame(t, k, &j->stack[i]);
        }
        if (!c) return 0;
        n = c;
    }
    return n;
}

int ht_jump_select(ht_site_tree *t, const ht_jump *j, ht_list_pos *pos)
{
    if (!j->has_frame) return 0;
    uint32_t n = j->depth && t->nnodes ? find_stack(t, j) : 0;
    if (!n) n = ht_tree_find_frame(t, j->frame.method_id, j->frame.line);
    if (!n) return 0;
    ht_tree_reveal(t, n);
    for (uint32_t i = 0; i < t->nvisible; i++)
        if (t->visible[i] == n) {
            pos->cursor = i;
            pos->top = i > 3 ? i - 3 : 0; /* a few of its callers above it */
            return 1;
        }
    return 0;
}

static int trace_has(const ht_store *s, uint32_t trace_id, uint32_t method_id)
{
    const ht_strace *tr = ht_store_trace(s, trace_id);
    for (uint16_t i = 0; tr && i < tr->depth; i++)
        if (tr->frames[i].method_id == method_id) return 1;
    return 0;
}

int ht_jump_has_method(const ht_store *s, ht_tree_source source, uint32_t method_id)
{
    if (source == HT_SOURCE_CPU) {
        for (uint32_t r = 0; r < s->ncpu_rows; r++)
            if (s->cpu_rows[r].bucket == HT_CPUB_NONE &&
                trace_has(s, s->cpu_rows[r].trace_id, method_id))
                return 1;
        return 0;
    }
    for (uint32_t r = 0; r < s->nrows; r++)
        if (trace_has(s, s->rows[r].trace_id, method_id)) return 1;
    return 0;
}
