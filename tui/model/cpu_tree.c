/* cpu_tree.c - the CPU rows' walk of site_tree.h's tree (site_tree_int.h).
 *
 * One (thread, stack) row of the CPU sampler becomes a path as an
 * allocation row does (ht_tree_add_stack: the same shapes, cut stacks and
 * placeholders), its CPU ms added to every node on it and to the leaf
 * frame's SELF ms; the thread a level of its own at the top or the leaves
 * (or none: threads merged); a sample without a stack a "[bucket]"
 * pseudo-frame of its own, never charged to a frame. The filters: frames
 * (the stack's), thread names, one thread. */
#include "site_tree_int.h"

#include <string.h>

/* A thread's name passes the thread filter (NULL or inactive: yes). */
static int thread_passes(const ht_store *s, uint32_t id, const ht_filter *f)
{
    if (!f || !ht_filter_active(f)) return 1;
    char name[HT_STORE_CPU_NAME_MAX + 32];
    ht_store_cpu_thread_name(s, id, name, sizeof name);
    return ht_filter_match(f, name);
}

/* A column's figure of a CPU row in its place in a node (site_tree.h). */
#define FIG(c) ((c)-HT_COL_CPU_FIRST)

int ht_tree_cpu_rows(ht_site_tree *t, const ht_store *s, const ht_tree_opts *o)
{
    for (uint32_t r = 0; r < s->ncpu_rows; r++) {
        if ((r & 1023) == 0 && o->should_stop && o->should_stop(o->stop_ctx)) return 1;
        const ht_cpu_row_rec *row = &s->cpu_rows[r];
        if (o->only_thread && row->thread_id != o->only_thread) continue;
        if (!thread_passes(s, row->thread_id, o->thread_filter)) continue;
        int bucket = row->bucket != HT_CPUB_NONE;
        /* a sample without a stack has no frame to pass an include term */
        const ht_strace *tr = bucket ? NULL : ht_store_trace(s, row->trace_id);
        if (!ht_tree_frames_pass(s, tr, o->frame_filter)) continue;
        double col[HT_COL_COUNT] = {0}, fig[HT_TREE_FIGS] = {0}, leaf[HT_TREE_FIGS] = {0};
        ht_col_from_cpu_row(row, col);
        for (int c = HT_COL_CPU_FIRST; c <= HT_COL_CPU_LAST; c++)
            fig[FIG(c)] = col[c];
        leaf[FIG(HT_COL_SELF_MS)] = col[HT_COL_CPU_MS];
        int cut = bucket ? 0 : ht_store_trace_cut(s, row->trace_id);
        t->total += col[HT_COL_CPU_MS];
        ht_tree_add(&t->nodes[0], fig, cut);
        uint32_t at = 0;
        if (o->group == HT_GROUP_TOP) { /* a thread has no SELF: it is no frame */
            at = ht_tree_child(t, at, HT_NODE_THREAD, row->thread_id, 0);
            if (!at) return -1;
            ht_tree_add(&t->nodes[at], fig, cut);
        }
        if (bucket) {
            at = ht_tree_child(t, at, HT_NODE_BUCKET, row->bucket, 0);
            if (!at) return -1;
            ht_tree_add(&t->nodes[at], fig, 0);
            ht_tree_add(&t->nodes[at], leaf, 0);
        } else {
            at = ht_tree_add_stack(t, s, at, row->trace_id, o->shape, fig, leaf);
            if (!at) return -1;
        }
        if (o->group == HT_GROUP_LEAVES) {
            at = ht_tree_child(t, at, HT_NODE_THREAD, row->thread_id, 0);
            if (!at) return -1;
            ht_tree_add(&t->nodes[at], fig, cut);
        }
    }
    return 0;
}
