/* site_tree.c - see site_tree.h. The tree's machinery and the allocation
 * rows' walk; the CPU rows' walk is cpu_tree.c. */
#include "site_tree_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

void ht_tree_init(ht_site_tree *t)
{
    memset(t, 0, sizeof *t);
    ht_map_init(&t->index);
    ht_map_init(&t->expanded);
}

void ht_tree_free(ht_site_tree *t)
{
    free(t->nodes);
    ht_map_free(&t->index);
    ht_map_free(&t->expanded);
    free(t->visible);
    free(t->forks);
    memset(t, 0, sizeof *t);
}

int ht_tree_is_expanded(const ht_site_tree *t, uint32_t node)
{
    return node == 0 || ht_map_get(&t->expanded, t->nodes[node].path, NULL);
}

void ht_tree_set_expanded(ht_site_tree *t, uint32_t node, int on)
{
    if (node == 0) return;
    if (on)
        ht_map_put(&t->expanded, t->nodes[node].path, 1); /* out of memory: stays folded */
    else
        ht_map_del(&t->expanded, t->nodes[node].path);
}

void ht_tree_expand_all(ht_site_tree *t, uint32_t node)
{
    ht_tree_set_expanded(t, node, 1);
    for (uint32_t c = t->nodes[node].first_child; c; c = t->nodes[c].next_sibling)
        ht_tree_expand_all(t, c);
}

/* --- building --- */

static uint64_t node_key(uint8_t kind, uint32_t id, int32_t line)
{
    return ((uint64_t)kind << 62) ^ ((uint64_t)id << 24) ^ (uint32_t)line;
}

/* Child of parent with this key, created if missing; 0 on out of memory.
 * Nodes are found by their path; two paths that hash alike (never seen, but
 * possible) are told apart by probing on with a salted key. */
uint32_t ht_tree_child(ht_site_tree *t, uint32_t parent, uint8_t kind, uint32_t id, int32_t line)
{
    uint64_t path = mix(t->nodes[parent].path, node_key(kind, id, line)), key = path, at;
    for (uint32_t salt = 1; ht_map_get(&t->index, key, &at); salt++) {
        const ht_node *n = &t->nodes[at];
        if (n->parent == parent && n->kind == kind && n->id == id && n->line == line)
            return (uint32_t)at;
        key = ht_map_salt(path, salt);
    }
    if (t->nnodes == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 1024;
        ht_node *nodes = realloc(t->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) return 0;
        t->nodes = nodes;
        t->cap = cap;
    }
    uint32_t n = t->nnodes;
    if (ht_map_put(&t->index, key, n) != 0) return 0;
    t->nnodes++;
    ht_node *nd = &t->nodes[n];
    memset(nd, 0, sizeof *nd);
    nd->parent = parent;
    nd->kind = kind;
    nd->id = id;
    nd->line = line;
    nd->path = path;
    nd->depth = (uint16_t)(t->nodes[parent].depth + 1);
    nd->next_sibling = t->nodes[parent].first_child;
    t->nodes[parent].first_child = n;
    t->nodes[parent].nchildren++;
    return n;
}

_Static_assert(HT_COL_HEAP_RETAINED == HT_COL_HEAP_OBJECTS + 1, "heap_of fills the two in a row");

void ht_tree_add(ht_node *n, const double *fig, int cut)
{
    n->truncated |= (uint8_t)cut;
    for (int c = 0; c < HT_TREE_FIGS; c++)
        n->v[c] += fig[c];
}

int ht_tree_frames_pass(const ht_store *s, const ht_strace *tr, const ht_filter *f)
{
    if (!f || !ht_filter_active(f)) return 1;
    char name[1024];
    int included = f->ninclude == 0;
    for (uint16_t i = 0; tr && i < tr->depth; i++) {
        ht_store_frame_name(s, &tr->frames[i], name, sizeof name);
        for (int k = 0; k < f->nexclude; k++)
            if (strstr(name, f->exclude[k])) return 0;
        for (int k = 0; !included && k < f->ninclude; k++)
            if (strstr(name, f->include[k])) included = 1;
    }
    return included;
}

/* Where column c's figure sits in a node of a tree built from `source`
 * (site_tree.h), or -1: none. */
static int fig_of(ht_tree_source source, ht_col c)
{
    if (source == HT_SOURCE_CPU)
        return c >= HT_COL_CPU_FIRST && c <= HT_COL_CPU_LAST ? (int)(c - HT_COL_CPU_FIRST) : -1;
    return (int)c < HT_TREE_FIGS ? (int)c : -1;
}

double ht_node_value(const ht_site_tree *t, const ht_node *n, ht_col col)
{
    int at = fig_of(t->source, ht_col_sort_key(col));
    if (at < 0) return 0;
    if (ht_col_info_of(col)->flags & HT_COLF_SHARE)
        return t->total > 0 ? 100.0 * n->v[at] / t->total : 0;
    return n->v[at];
}

void ht_node_values(const ht_site_tree *t, const ht_node *n, double v[HT_COL_COUNT])
{
    for (int c = 0; c < HT_COL_COUNT; c++)
        v[c] = ht_node_value(t, n, (ht_col)c);
}

unsigned ht_tree_view(const ht_site_tree *t)
{
    return t->source == HT_SOURCE_CPU ? HT_VIEW_CPU : HT_VIEW_TREE;
}

/* Where a column's figure sits in a node (a share sorts as what it is a
 * share of; a column a node has no figure for, as the weight). */
static size_t col_offset(ht_tree_source source, ht_col col)
{
    int k = fig_of(source, ht_col_sort_key(col));
    return offsetof(ht_node, v) + sizeof(double) * (size_t)(k >= 0 ? k : 0);
}

/* How children are ordered: qsort_r's context. */
typedef struct order {
    const ht_node *nodes;
    size_t off; /* the column's figure in a node */
    int asc;
} order;

static int by_column(const void *a, const void *b, void *ctx)
{
    const order *o = ctx;
    const ht_node *x = &o->nodes[*(const uint32_t *)a];
    const ht_node *y = &o->nodes[*(const uint32_t *)b];
    double vx = *(const double *)((const char *)x + o->off);
    double vy = *(const double *)((const char *)y + o->off);
    int c = vx < vy ? -1 : vx > vy;
    double bx = x->v[0], by = y->v[0]; /* the weight */
    if (c == 0) c = bx < by ? -1 : bx > by;
    if (c != 0) return o->asc ? c : -c;
    return x->path < y->path ? -1 : x->path > y->path; /* a fixed order for ties */
}

/* Fold node n's figures into the column extremes (for the column layout;
 * the shares' is 100, set once). */
static void note_extremes(ht_site_tree *t, const ht_node *nd)
{
    for (int c = 0; c < HT_COL_NAME; c++) {
        int at = fig_of(t->source, (ht_col)c);
        if (at < 0 || (ht_col_info_of((ht_col)c)->flags & HT_COLF_SHARE)) continue;
        double v = nd->v[at], a = v < 0 ? -v : v;
        if (a > t->max_abs[c]) t->max_abs[c] = a;
        if (v < 0) t->has_neg[c] = 1;
    }
}

/* Append p's run to the forks list: p, its child count k, its k children.
 * The run, or NULL out of memory. */
static uint32_t *note_fork(ht_site_tree *t, uint32_t p)
{
    uint32_t k = t->nodes[p].nchildren;
    if ((size_t)t->forks_len + 2 + k > t->forks_cap) {
        size_t cap = t->forks_cap ? t->forks_cap : 4096;
        while (cap < (size_t)t->forks_len + 2 + k)
            cap *= 2;
        if (cap > UINT32_MAX) return NULL;
        uint32_t *f = realloc(t->forks, cap * sizeof *f);
        if (!f) return NULL;
        t->forks = f;
        t->forks_cap = (uint32_t)cap;
    }
    uint32_t *run = t->forks + t->forks_len, i = 0;
    for (uint32_t c = t->nodes[p].first_child; c && i < k; c = t->nodes[c].next_sibling)
        run[2 + i++] = c;
    run[0] = p;
    run[1] = i;
    t->forks_len += 2 + i;
    return run;
}

/* Order a fork's run of children by the column and re-link them so. */
static void order_run(ht_site_tree *t, uint32_t *run, const order *o)
{
    uint32_t p = run[0], k = run[1], *kids = run + 2;
    qsort_r(kids, k, sizeof *kids, by_column, (void *)o);
    t->nodes[p].first_child = kids[0];
    for (uint32_t j = 0; j + 1 < k; j++)
        t->nodes[kids[j]].next_sibling = kids[j + 1];
    t->nodes[kids[k - 1]].next_sibling = 0;
}

/* After a build: walk every node once, find each column's largest magnitude
 * (every node is some node's child), list the forks with their children and
 * order them. 0, 1 when should_stop abandoned it, -1 out of memory. */
static int sort_all(ht_site_tree *t, ht_col col, int asc, int (*should_stop)(void *), void *ctx)
{
    order o = {t->nodes, col_offset(t->source, col), asc};
    memset(t->max_abs, 0, sizeof t->max_abs);
    memset(t->has_neg, 0, sizeof t->has_neg);
    for (int c = 0; c < HT_COL_NAME; c++)
        if (ht_col_info_of((ht_col)c)->flags & HT_COLF_SHARE) t->max_abs[c] = 100;
    t->forks_len = 0;
    for (uint32_t p = 0; p < t->nnodes; p++) {
        if ((p & 8191) == 8191 && should_stop && should_stop(ctx)) return 1;
        for (uint32_t c = t->nodes[p].first_child; c; c = t->nodes[c].next_sibling)
            note_extremes(t, &t->nodes[c]);
        if (t->nodes[p].nchildren < 2) continue;
        uint32_t *run = note_fork(t, p);
        if (!run) return -1;
        order_run(t, run, &o);
    }
    return 0;
}

void ht_tree_sort(ht_site_tree *t, ht_col col, int ascending)
{
    if (!t->nnodes) return;
    /* Only the forks, from their list: the tree of a large store has millions
     * of nodes, most with one child, scattered over hundreds of megabytes. A
     * walk over all of them, or along each fork's sibling links (one cache
     * miss waiting for the last), was most of the cost of a sort key (45 ms
     * of 46 in tests/bench/tui_keypress). The next run's children are fetched
     * while this one sorts. The same nodes: the column extremes stand. */
    order o = {t->nodes, col_offset(t->source, col), ascending};
    for (uint32_t at = 0; at < t->forks_len;) {
        uint32_t *run = t->forks + at;
        at += 2 + run[1];
        if (at < t->forks_len)
            for (uint32_t j = 0; j < t->forks[at + 1]; j++)
                __builtin_prefetch(&t->nodes[t->forks[at + 2 + j]]);
        order_run(t, run, &o);
    }
    ht_tree_flatten(t);
}

uint32_t ht_tree_add_stack(ht_site_tree *t, const ht_store *s, uint32_t at, uint32_t trace_id,
                           ht_tree_shape shape, const double *fig, const double *leaf)
{
    const ht_strace *tr = ht_store_trace(s, trace_id);
    /* as deep as the agent keeps: the outermost frames may be missing */
    int cut = ht_store_trace_cut(s, trace_id);
    if (!tr || tr->depth == 0) {
        /* reserved traces (overflow, none) are one pseudo-frame */
        at = ht_tree_child(t, at, HT_NODE_FRAME, trace_id, INT32_MIN);
        if (!at) return 0;
        ht_tree_add(&t->nodes[at], fig, cut);
        if (leaf) ht_tree_add(&t->nodes[at], leaf, 0);
        return at;
    }
    if (cut && shape == HT_TREE_TOP_DOWN) {
        at = ht_tree_child(t, at, HT_NODE_CUT, s->info.depth, 0);
        if (!at) return 0;
        ht_tree_add(&t->nodes[at], fig, cut);
    }
    for (uint16_t k = 0; k < tr->depth; k++) {
        /* frames are stored leaf first */
        uint16_t f = shape == HT_TREE_TOP_DOWN ? (uint16_t)(tr->depth - 1 - k) : k;
        at = ht_tree_child(t, at, HT_NODE_FRAME, tr->frames[f].method_id, tr->frames[f].line);
        if (!at) return 0;
        ht_tree_add(&t->nodes[at], fig, cut);
        if (leaf && f == 0) ht_tree_add(&t->nodes[at], leaf, 0);
    }
    if (cut && shape == HT_TREE_HOT_SPOTS) {
        at = ht_tree_child(t, at, HT_NODE_CUT, s->info.depth, 0);
        if (!at) return 0;
        ht_tree_add(&t->nodes[at], fig, cut);
    }
    return at;
}

/* The allocation rows: (trace, class), the class a level of its own. */
static int alloc_rows(ht_site_tree *t, const ht_store *s, const ht_tree_opts *o)
{
    for (uint32_t r = 0; r < s->nrows; r++) {
        if ((r & 1023) == 0 && o->should_stop && o->should_stop(o->stop_ctx)) return 1;
        const ht_agg_rec *row = &s->rows[r];
        if (o->only_class && row->class_id != o->only_class) continue;
        const char *cname = ht_store_class(s, row->class_id);
        if (o->class_filter && !ht_filter_match(o->class_filter, cname)) continue;
        if (!ht_tree_frames_pass(s, ht_store_trace(s, row->trace_id), o->frame_filter)) continue;
        int cut = ht_store_trace_cut(s, row->trace_id);
        t->total += row->est_bytes;
        double fig[HT_COL_COUNT] = {0};
        ht_col_from_agg(row, fig);
        if (o->heap_of) /* the heap snapshot's objects and retained bytes */
            o->heap_of(o->heap_ctx, row->trace_id, row->class_id, fig + HT_COL_HEAP_OBJECTS);
        ht_tree_add(&t->nodes[0], fig, cut);
        uint32_t at = 0;
        if (o->group == HT_GROUP_TOP) {
            at = ht_tree_child(t, at, HT_NODE_CLASS, row->class_id, 0);
            if (!at) return -1;
            ht_tree_add(&t->nodes[at], fig, cut);
        }
        at = ht_tree_add_stack(t, s, at, row->trace_id, o->shape, fig, NULL);
        if (!at) return -1;
        if (o->group == HT_GROUP_LEAVES) {
            at = ht_tree_child(t, at, HT_NODE_CLASS, row->class_id, 0);
            if (!at) return -1;
            ht_tree_add(&t->nodes[at], fig, cut);
        }
    }
    return 0;
}

int ht_tree_build(ht_site_tree *t, const ht_store *s, const ht_tree_opts *o)
{
    t->nnodes = 0;
    t->forks_len = 0;
    ht_map_clear(&t->index);
    if (!t->nodes) {
        t->nodes = malloc(1024 * sizeof *t->nodes);
        if (!t->nodes) return -1;
        t->cap = 1024;
    }
    memset(&t->nodes[0], 0, sizeof t->nodes[0]);
    t->nodes[0].path = 0x5eed;
    t->nnodes = 1;
    t->total = 0;
    t->source = o->source;
    int rc = o->source == HT_SOURCE_CPU ? ht_tree_cpu_rows(t, s, o) : alloc_rows(t, s, o);
    if (rc != 0) return rc;
    rc = sort_all(t, o->sort_col, o->ascending, o->should_stop, o->stop_ctx);
    if (rc != 0) return rc;
    ht_tree_flatten(t);
    return 0;
}

int ht_tree_rebuild(ht_site_tree *cur, ht_site_tree *next, const ht_store *s, const ht_tree_opts *o)
{
    /* The fold state moves with the tree; nodes, index and rows are per build.
     * Only `cur` owns the set of expanded paths once this returns, built or
     * not, so freeing both trees never frees it twice. */
    next->expanded = cur->expanded;
    int rc = ht_tree_build(next, s, o);
    ht_map fold = next->expanded;
    ht_map_init(&next->expanded);
    cur->expanded = fold;
    if (rc != 0) return rc;
    ht_site_tree old = *cur;
    *cur = *next;
    cur->expanded = fold;
    /* keep the old buffers for the next build, without the set */
    *next = old;
    ht_map_init(&next->expanded);
    return 0;
}

int ht_tree_copy(ht_site_tree *dst, const ht_site_tree *src)
{
    size_t n = src->nnodes ? src->nnodes : 1;
    ht_node *nodes = realloc(dst->nodes, n * sizeof *nodes);
    if (!nodes) return -1;
    if (src->nnodes) memcpy(nodes, src->nodes, src->nnodes * sizeof *nodes);
    dst->nodes = nodes;
    dst->cap = (uint32_t)n;
    dst->nnodes = src->nnodes;
    dst->nvisible = 0;
    dst->forks_len = 0; /* a copy is walked, never sorted */
    dst->source = src->source;
    dst->total = src->total;
    memcpy(dst->max_abs, src->max_abs, sizeof dst->max_abs);
    memcpy(dst->has_neg, src->has_neg, sizeof dst->has_neg);
    return 0;
}

static void push_visible(ht_site_tree *t, uint32_t n)
{
    if (t->nvisible == t->cap_visible) {
        uint32_t cap = t->cap_visible ? t->cap_visible * 2 : 1024;
        uint32_t *v = realloc(t->visible, (size_t)cap * sizeof *v);
        if (!v) return;
        t->visible = v;
        t->cap_visible = cap;
    }
    t->visible[t->nvisible++] = n;
}

void ht_tree_flatten(ht_site_tree *t)
{
    t->nvisible = 0;
    if (!t->nnodes) return;
    /* iterative pre-order walk over expanded nodes (stacks can be 2048 deep) */
    uint32_t n = t->nodes[0].first_child;
    while (n) {
        push_visible(t, n);
        if (t->nodes[n].first_child && ht_tree_is_expanded(t, n)) {
            n = t->nodes[n].first_child;
            continue;
        }
        while (n && !t->nodes[n].next_sibling)
            n = t->nodes[n].parent;
        if (n) n = t->nodes[n].next_sibling;
    }
}

uint32_t ht_tree_preorder_next(const ht_site_tree *t, uint32_t n)
{
    if (!t->nnodes) return 0;
    if (t->nodes[n].first_child) return t->nodes[n].first_child;
    while (n && !t->nodes[n].next_sibling)
        n = t->nodes[n].parent;
    return n ? t->nodes[n].next_sibling : 0;
}

/* The last node of n's subtree in pre-order: its last child, repeatedly. */
static uint32_t last_descendant(const ht_site_tree *t, uint32_t n)
{
    for (uint32_t c = t->nodes[n].first_child; c; c = t->nodes[n].first_child) {
        while (t->nodes[c].next_sibling)
            c = t->nodes[c].next_sibling;
        n = c;
    }
    return n;
}

uint32_t ht_tree_preorder_prev(const ht_site_tree *t, uint32_t n)
{
    if (!t->nnodes) return 0;
    if (n == 0) return last_descendant(t, 0);
    uint32_t parent = t->nodes[n].parent;
    uint32_t c = t->nodes[parent].first_child;
    if (c == n) return parent; /* the root (0) means: before the first */
    while (t->nodes[c].next_sibling != n)
        c = t->nodes[c].next_sibling;
    return last_descendant(t, c);
}

void ht_tree_node_name(const ht_site_tree *t, const ht_store *s, uint32_t node, char *out, size_t n)
{
    const ht_node *nd = &t->nodes[node];
    if (nd->kind == HT_NODE_CLASS) {
        snprintf(out, n, "%s", ht_store_class(s, nd->id));
    } else if (nd->kind == HT_NODE_THREAD) {
        ht_store_cpu_thread_name(s, nd->id, out, n);
    } else if (nd->kind == HT_NODE_BUCKET) {
        const char *b = ht_cpu_bucket_name((int)nd->id);
        if (b)
            snprintf(out, n, "[%s]", b);
        else
            snprintf(out, n, "[bucket %u]", (unsigned)nd->id);
    } else if (nd->kind == HT_NODE_CUT) {
        snprintf(out, n, "[stack cut at depth %u]", (unsigned)nd->id);
    } else if (nd->line == INT32_MIN) {
        ht_store_site_name(s, nd->id, out, n);
    } else {
        ht_frame_rec f = {nd->id, nd->line};
        ht_store_frame_name(s, &f, out, n);
    }
}

uint32_t ht_tree_find_frame(const ht_site_tree *t, uint32_t method_id, int32_t line)
{
    uint32_t other = 0;
    for (uint32_t n = ht_tree_preorder_next(t, 0); n; n = ht_tree_preorder_next(t, n)) {
        const ht_node *nd = &t->nodes[n];
        if (nd->kind != HT_NODE_FRAME || nd->line == INT32_MIN || nd->id != method_id) continue;
        if (nd->line == line) return n;
        if (!other) other = n;
    }
    return other;
}

void ht_tree_reveal(ht_site_tree *t, uint32_t n)
{
    for (uint32_t p = n < t->nnodes ? t->nodes[n].parent : 0; p; p = t->nodes[p].parent)
        ht_tree_set_expanded(t, p, 1);
    ht_tree_flatten(t);
}

void ht_tree_show_hot_path(ht_site_tree *t, int ascending)
{
    /* the path first, read against the fold state it replaces */
    uint32_t *path = NULL;
    size_t np = 0, cap = 0;
    for (uint32_t p = 0; t->nnodes && t->nodes[p].first_child;) {
        uint32_t lead = t->nodes[p].first_child, kept = 0;
        for (uint32_t c = lead; c; c = t->nodes[c].next_sibling) {
            if (ascending && t->nodes[c].v[0] > t->nodes[lead].v[0]) lead = c;
            if (!kept && t->nodes[c].first_child && ht_tree_is_expanded(t, c)) kept = c;
        }
        uint32_t go = kept && t->nodes[lead].v[0] <= 1.2 * t->nodes[kept].v[0] ? kept : lead;
        if (!t->nodes[go].first_child) break; /* a leaf: nothing to unfold */
        if (np == cap) {
            size_t c2 = cap ? cap * 2 : 64;
            uint32_t *more = realloc(path, c2 * sizeof *more);
            if (!more) break; /* out of memory: the path stops here */
            path = more;
            cap = c2;
        }
        path[np++] = go;
        p = go;
    }
    ht_map_clear(&t->expanded);
    for (size_t i = 0; i < np; i++)
        ht_tree_set_expanded(t, path[i], 1);
    free(path);
    ht_tree_flatten(t);
}

/* --- frame names in a narrow column --- */

int ht_tree_indent(int level, int width, int *numbered)
{
    int cap = width / 4 > 8 ? width / 4 : 8;
    int full = cap * 2 / 3 / 2; /* levels two columns wide */
    int at = level <= full ? 2 * level : 2 * full + (level - full);
    *numbered = at > cap;
    return at > cap ? cap : at;
}

int ht_text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void ht_name_shorten(const char *name, int width, char *out, size_t n)
{
    snprintf(out, n, "%s", name);
    if (name[0] == '[' || (width > 0 && ht_text_width(name) <= width)) return;
    /* the dotted part ends at a frame's ":line" or " [native]"; there the
     * last two segments are class and method, else the last is the class */
    size_t end = strcspn(name, ": ");
    int keep = name[end] ? 2 : 1;
    size_t seg[256];
    int nseg = 0;
    for (size_t i = 0; i < end && nseg < 256;) {
        seg[nseg++] = i;
        const char *dot = memchr(name + i, '.', end - i);
        if (!dot) break;
        i = (size_t)(dot - name) + 1;
    }
    int npkg = 0;
    while (npkg < nseg - keep && name[seg[npkg]] >= 'a' && name[seg[npkg]] <= 'z')
        npkg++;
    for (int k = 1; k <= npkg; k++) {
        size_t len = 0;
        for (int j = 0; j < k && len + 3 < n; j++) {
            out[len++] = name[seg[j]];
            out[len++] = '.';
        }
        snprintf(out + len, n - len, "%s", name + seg[k]);
        if (width > 0 && ht_text_width(out) <= width) return;
    }
}
