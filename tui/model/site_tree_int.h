/*
 * site_tree_int.h - site_tree.c's building blocks for cpu_tree.c, the CPU
 * rows' walk; not for other callers.
 *
 * Owns nothing: the tree is one module in two files, the machinery (nodes,
 * fold state, sort, walks) and the allocation rows' walk in site_tree.c,
 * the CPU rows' walk in cpu_tree.c. Same thread rules as site_tree.h.
 */
#ifndef HEAPTOP_SITE_TREE_INT_H
#define HEAPTOP_SITE_TREE_INT_H

#include "site_tree.h"

/* Child of parent with this key, created if missing; 0 on out of memory. */
uint32_t ht_tree_child(ht_site_tree *t, uint32_t parent, uint8_t kind, uint32_t id, int32_t line);
/* Add figures (HT_TREE_FIGS) to a node on a row's path. */
void ht_tree_add(ht_node *n, const double *fig, int cut);
/* Does a stack pass the frame filter (NULL or inactive: yes)? */
int ht_tree_frames_pass(const ht_store *s, const ht_strace *tr, const ht_filter *f);
/* A row's stack below node `at` in the tree's shape: its frames, and a cut
 * stack's pseudo-frame at its outer end; fig added to each node, and `leaf`
 * (NULL: none) to the node of the stack's leaf frame. A trace the store has
 * no frames for (reserved ids, not arrived yet) is one pseudo-frame. The
 * last node, or 0 out of memory. */
uint32_t ht_tree_add_stack(ht_site_tree *t, const ht_store *s, uint32_t at, uint32_t trace_id,
                           ht_tree_shape shape, const double *fig, const double *leaf);
/* The CPU rows into t (root made, t->total 0): 0, 1 abandoned, -1 out of
 * memory (cpu_tree.c). */
int ht_tree_cpu_rows(ht_site_tree *t, const ht_store *s, const ht_tree_opts *o);

#endif
