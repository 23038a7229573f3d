/*
 * site_tree.h - the call tree built from the store's rows: the allocation
 * tree from the (trace, class) rows, the CPU tree from the CPU sampler's
 * (thread, stack) rows. One tree, two sources: the same nodes, fold state,
 * sort, flattening and walks; only the row walk and the figures differ.
 *
 * Owns: a tree of frame nodes, with the figures of columns.h's table summed
 * over their subtree (the allocation tree: estimated bytes, instances, live
 * and young, the mark's diff and growth, the samples they rest on; the CPU
 * tree: CPU ms through a frame and in the frame itself, samples, the mark's
 * diff), in one of two shapes:
 *   top-down  - root = thread entry (outermost frame), children = callees;
 *   hot spots - root = allocating (CPU: running) frame, children = callers;
 * with a grouping level: the allocated class (or, in the CPU tree, the
 * thread) as an extra level at the leaves, at the top, or not at all. A
 * stack as deep as the agent's depth option may have been cut: its outer end
 * gets a "[stack cut at depth N]" pseudo-frame (the first level top-down,
 * the last in hot spots) and every node on its path is flagged. A CPU
 * sample without a stack is a "[bucket]" pseudo-frame (protocol_cpu.h),
 * never charged to a frame. Children are sorted by any column (the weight,
 * bytes or CPU ms, unless told otherwise), at every level, either way. Fold
 * state is kept by node path (a hash of the keys from the root), so it
 * survives rebuilds as data arrives. The visible rows are a flattened list
 * of expanded nodes. Pure C over the store: no terminal. The CPU rows' walk
 * is cpu_tree.c (site_tree_int.h between the two).
 */
#ifndef HEAPTOP_SITE_TREE_H
#define HEAPTOP_SITE_TREE_H

#include <stdint.h>

#include "columns.h"
#include "filter.h"
#include "hashmap.h"
#include "store.h"

typedef enum ht_tree_shape { HT_TREE_TOP_DOWN = 0, HT_TREE_HOT_SPOTS = 1 } ht_tree_shape;
/* The grouping level: the class (allocation tree) or thread (CPU tree). */
typedef enum ht_tree_group { HT_GROUP_NONE = 0, HT_GROUP_LEAVES, HT_GROUP_TOP } ht_tree_group;
/* Which rows a tree is built from. */
typedef enum ht_tree_source { HT_SOURCE_ALLOC = 0, HT_SOURCE_CPU = 1 } ht_tree_source;
typedef enum ht_node_kind {
    HT_NODE_ROOT = 0,
    HT_NODE_FRAME,
    HT_NODE_CLASS,
    HT_NODE_CUT,    /* "[stack cut at depth N]": id is N */
    HT_NODE_THREAD, /* a CPU tree's thread: id is its id */
    HT_NODE_BUCKET, /* "[walk_failed]": CPU samples without a stack; id is the bucket */
} ht_node_kind;

/* A node's figures: the allocation tree's in the places of their columns
 * (0 .. HT_COL_LIVE_SAMPLES), a CPU tree's from HT_COL_CPU_FIRST on in the
 * same places from 0; figure 0 is the weight (bytes, CPU ms) that breaks
 * ties and leads the hot path. ht_node_value() reads a column either way. */
#define HT_TREE_FIGS (HT_COL_LIVE_SAMPLES + 1)
_Static_assert(HT_COL_CPU_LAST - HT_COL_CPU_FIRST < HT_TREE_FIGS, "a CPU node's figures fit");
_Static_assert(HT_COL_BYTES == 0, "the allocation tree's weight is figure 0");

typedef struct ht_node {
    uint32_t parent, first_child, next_sibling, nchildren;
    uint8_t kind;
    uint8_t truncated; /* a stack through here may have been cut at the agent's depth */
    uint16_t depth;
    uint32_t id; /* method id (frame), class id (class), trace id (reserved frames) */
    int32_t line;
    uint64_t path; /* hash of keys from the root: identity across rebuilds */
    /* its figures (HT_TREE_FIGS), summed over its subtree; the heap
     * snapshot's from ht_tree_opts.heap_of; the shares' places unused (see
     * ht_node_value) */
    double v[HT_TREE_FIGS];
} ht_node;

typedef struct ht_site_tree {
    ht_node *nodes; /* nodes[0] is the root */
    uint32_t nnodes, cap;
    ht_map index;      /* node path -> node (salted on a collision), during a build */
    ht_map expanded;   /* the set of expanded node paths (values unused) */
    uint32_t *visible; /* flattened rows: node indexes */
    uint32_t nvisible, cap_visible;
    /* the nodes with two or more children, what a sort re-orders, as runs:
     * node, its child count k, its k children (in their current order) */
    uint32_t *forks;
    uint32_t forks_len, forks_cap; /* in words */
    ht_tree_source source;         /* as last built */
    double total; /* the weight (bytes, CPU ms) of the rows that passed the filters */
    double max_abs[HT_COL_COUNT]; /* largest |value| of each column over all nodes */
    int has_neg[HT_COL_COUNT];    /* a value below zero (growth) */
} ht_site_tree;

typedef struct ht_tree_opts {
    ht_tree_source source;
    ht_tree_shape shape;
    ht_tree_group group;
    const ht_filter *class_filter;  /* NULL = none (the allocation tree's) */
    const ht_filter *frame_filter;  /* either tree's */
    const ht_filter *thread_filter; /* thread names (the CPU tree's) */
    uint32_t only_class;            /* 0 = all classes, else only rows of this class id */
    uint32_t only_thread;           /* CPU tree: 0 = all threads, else only this thread's rows */
    /* Polled now and then during a build; non-zero abandons it (returns 1). */
    int (*should_stop)(void *ctx);
    void *stop_ctx;
    ht_col sort_col; /* children ordered by this column (one the source has not: the weight) */
    /* The heap snapshot's figures of a site (trace, class), when one is on
     * screen: out[0] its estimated objects, out[1] their retained bytes. */
    void (*heap_of)(void *ctx, uint32_t trace, uint32_t cls, double *out);
    void *heap_ctx;
    int ascending; /* smallest first instead of largest first */
} ht_tree_opts;

void ht_tree_init(ht_site_tree *t);
void ht_tree_free(ht_site_tree *t);
/* Rebuild from the store; keeps fold state. 0, 1 when should_stop abandoned it
 * (the tree is then incomplete), or -1 (out of memory). */
int ht_tree_build(ht_site_tree *t, const ht_store *s, const ht_tree_opts *o);
/* Build into `next` with the fold state of `cur`, and on success put it in
 * place of `cur`: an abandoned or failed build leaves `cur` untouched. */
int ht_tree_rebuild(ht_site_tree *cur, ht_site_tree *next, const ht_store *s,
                    const ht_tree_opts *o);
/* Make dst (initialised) a copy of src's nodes and totals, for a job that
 * walks the tree (ht_tree_preorder_*, ht_node_value) while src changes; no
 * fold state, no visible rows, and no list of forks: a copy is walked in the
 * order it was copied in, never sorted. 0, or -1 out of memory. */
int ht_tree_copy(ht_site_tree *dst, const ht_site_tree *src);
/* Re-order every node's children by a column (a share sorts as what it is a
 * share of; ties by weight, then a fixed order), then recompute the visible
 * rows. */
void ht_tree_sort(ht_site_tree *t, ht_col col, int ascending);
/* A node's figure in a column (a share, HT_COL_PCT, HT_COL_CPU_PCT: of the
 * tree's total); 0 for a column its source has no figure for. */
double ht_node_value(const ht_site_tree *t, const ht_node *n, ht_col col);
/* Every column's figure of a node, into v (indexed by ht_col). */
void ht_node_values(const ht_site_tree *t, const ht_node *n, double v[HT_COL_COUNT]);
/* The columns of a tree's list (HT_VIEW_TREE, HT_VIEW_CPU). */
unsigned ht_tree_view(const ht_site_tree *t);
/* Recompute the visible rows after folding. */
void ht_tree_flatten(ht_site_tree *t);
int ht_tree_is_expanded(const ht_site_tree *t, uint32_t node);
void ht_tree_set_expanded(ht_site_tree *t, uint32_t node, int on);
/* Expand a node and everything below it (the '*' key). */
void ht_tree_expand_all(ht_site_tree *t, uint32_t node);
/* Pre-order over every node, folded or not, children in sort order: the node
 * after n (n = 0: the first node), or 0 after the last; and the node before n
 * (n = 0: the last node), or 0 before the first. */
uint32_t ht_tree_preorder_next(const ht_site_tree *t, uint32_t n);
uint32_t ht_tree_preorder_prev(const ht_site_tree *t, uint32_t n);
/* Name of a node: "pkg.Class.method:line", a class or thread name, or a
 * bracketed placeholder ("[stack cut at depth 64]", "[no Java stack]",
 * "[walk_failed]"). */
void ht_tree_node_name(const ht_site_tree *t, const ht_store *s, uint32_t node, char *out,
                       size_t n);

/* The first node in pre-order (the heaviest way first, in the current
 * order) that is frame (method, line), else one of the method at another
 * line; 0 when the method is in no node. */
uint32_t ht_tree_find_frame(const ht_site_tree *t, uint32_t method_id, int32_t line);
/* Unfold every node above n, so that it is a visible row; recomputes them. */
void ht_tree_reveal(ht_site_tree *t, uint32_t n);

/* The hot path alone unfolded (what the tree shows until the user folds or
 * unfolds something): everything folded, then from the top, level by level
 * to a leaf, the child that leads unfolded: the first in the current order,
 * or the heaviest by weight when sorted smallest first. A child unfolded
 * before (the path shown) stays on the path unless the leader has a fifth
 * more weight than it, so two paths of about the same weight do not take
 * turns as data arrives. Recomputes the visible rows. */
void ht_tree_show_hot_path(ht_site_tree *t, int ascending);

/* --- drawing frame names in a narrow column (pure text, no terminal) --- */

/* Indentation of a row at level `level` (0: the top level) in a name column
 * `width` wide: two columns a level for the first levels, then one, up to a
 * cap of a quarter of the width (8 at least); rows deeper than that stay at
 * the cap and carry their level as a number (*numbered set), so the names
 * of a 60-frame stack keep three quarters of the column. */
int ht_tree_indent(int level, int width, int *numbered);
/* Display width of UTF-8 text (one column a character). */
int ht_text_width(const char *s);
/* A frame or class name made to fit `width` columns by shortening its
 * package from the left, one segment to its initial at a time (logback's
 * way): "org.apache.catalina.connector.CoyoteAdapter.service:357" becomes
 * "o.a.c.connector.CoyoteAdapter.service:357", then "o.a.c.c.Coyote...";
 * width <= 0 shortens every segment. The package is the lowercase dotted
 * segments before the class; bracketed placeholders are left alone. Still
 * too wide, it is returned as short as it gets (the caller cuts it). */
void ht_name_shorten(const char *name, int width, char *out, size_t n);

#endif
