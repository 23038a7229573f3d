/*
 * dominators.h - the dominator tree of a snapshot and every object's retained
 * size.
 *
 * Owns: the immediate dominator of each object and its retained size, from a
 * virtual root whose successors are the objects of every GC root. Object d
 * dominates o when every path from the roots to o passes through d; o's
 * retained size is the shallow size of all it dominates, itself included:
 * what a collector would free if o's references were gone.
 *
 * Algorithm: semi-NCA (Georgiadis and Tarjan's refinement of
 * Lengauer-Tarjan): an iterative depth-first search numbers the reachable
 * objects, semidominators are computed in reverse preorder with a link-eval
 * forest whose path compression uses an explicit stack, and each immediate
 * dominator is the nearest common ancestor of its parent and its
 * semidominator. Nothing recurses, so a linked list of millions of elements
 * cannot overflow a stack. Every reference counts (weak referents included,
 * as Eclipse MAT does for retained sizes).
 *
 * Threads: none of its own; runs on the caller's (a job). Reads the snapshot
 * only.
 *
 * Must never: recurse, or take quadratic time on a chain.
 */
#ifndef HEAPTOP_DOMINATORS_H
#define HEAPTOP_DOMINATORS_H

#include "snapshot.h"

typedef struct ht_dominators {
    uint32_t n;         /* objects in the snapshot */
    uint32_t *idom;     /* immediate dominator; HT_ROOT for the virtual root, HT_NONE unreachable */
    uint64_t *retained; /* bytes; 0 for unreachable objects */
    uint32_t reachable; /* objects reachable from a root */
    uint64_t unreachable_bytes;
    uint64_t reachable_bytes;
    /* the tree's children: of object o in child[child_start[o] ..
     * child_start[o+1]), of the virtual root at index n; in no order until
     * ht_dominators_children sorts them */
    uint32_t *child_start; /* n + 2 */
    uint32_t *child;
    uint8_t *sorted; /* bit per parent: its children are sorted */
} ht_dominators;

/* Sort the children of o (HT_ROOT: the virtual root's) biggest retained
 * first, once: a screen calls it for what it shows, on its own thread. */
void ht_dominators_children(ht_dominators *d, uint32_t o);

/* HT_HPROF_OK, HT_HPROF_ERR_NOMEM or HT_HPROF_ERR_CANCELLED (h->err set). */
int ht_dominators_build(ht_dominators *d, const ht_snapshot *s, const ht_snapshot_opts *opts);

/* The retained bytes of sets of objects, each set taken together: objects
 * are put in sets by key(ctx, o) (< nkeys; HT_NONE: in none), and sum[k]
 * (nkeys, zeroed here) gets the retained size of every object of set k that
 * no other object of set k dominates: what a collector would free with the
 * whole set. One iterative walk of the tree with a count per key of the
 * set's objects on the current path (two words an object for its stack).
 * 0, or -1 out of memory (sum untouched). */
int ht_dominators_keyed_retained(const ht_dominators *d,
                                 uint32_t (*key)(const void *ctx, uint32_t o), const void *ctx,
                                 uint32_t nkeys, uint64_t *sum);
void ht_dominators_free(ht_dominators *d);

#endif
