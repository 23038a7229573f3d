/*
 * screen_tree.c - the allocation tree screen (top-down call tree or hot spots).
 *
 * Owns: the site tree (shown, and the one being built), its shape, grouping
 * and sort, the cursor, and the column layout last drawn. Draws the flattened
 * visible rows: the numeric columns that fit (list.c decides, the sorted one
 * always among them), then the frame or class name indented by depth with a
 * fold marker. Numbers first and the name last, as htop puts the command
 * last; the name keeps half the line, at least 40 columns. It opens on the
 * hot path, unfolded. UI thread only; the lens's filters and its one class
 * narrow what it builds.
 */
#include "screen_tree.h"

#include "analysis.h"
#include "heap_rows.h"
#include "list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numeric columns in display order, and the ones < > step through;
 * with a heap snapshot whose sampled objects the agent marked, its figures
 * per site beside the live ones (the sites in the heap). */
static const ht_col COLUMNS[] = {HT_COL_BYTES,          HT_COL_PCT,         HT_COL_INSTANCES,
                                 HT_COL_LIVE_BYTES,     HT_COL_YOUNG_BYTES, HT_COL_DIFF_BYTES,
                                 HT_COL_DIFF_INSTANCES, HT_COL_GROWTH_BYTES};
static const ht_col SORTS[] = {HT_COL_BYTES,       HT_COL_INSTANCES,  HT_COL_LIVE_BYTES,
                               HT_COL_YOUNG_BYTES, HT_COL_DIFF_BYTES, HT_COL_DIFF_INSTANCES,
                               HT_COL_GROWTH_BYTES};
static const ht_col HEAP_COLUMNS[] = {
    HT_COL_BYTES,          HT_COL_PCT,           HT_COL_INSTANCES,   HT_COL_LIVE_BYTES,
    HT_COL_HEAP_OBJECTS,   HT_COL_HEAP_RETAINED, HT_COL_YOUNG_BYTES, HT_COL_DIFF_BYTES,
    HT_COL_DIFF_INSTANCES, HT_COL_GROWTH_BYTES};
static const ht_col HEAP_SORTS[] = {
    HT_COL_BYTES,        HT_COL_INSTANCES,      HT_COL_LIVE_BYTES,
    HT_COL_HEAP_OBJECTS, HT_COL_HEAP_RETAINED,  HT_COL_YOUNG_BYTES,
    HT_COL_DIFF_BYTES,   HT_COL_DIFF_INSTANCES, HT_COL_GROWTH_BYTES};
#define N(a) (int)(sizeof a / sizeof a[0])

static int is_heap_col(ht_col c)
{
    return c == HT_COL_HEAP_OBJECTS || c == HT_COL_HEAP_RETAINED;
}

/* ht_tree_opts.heap_of: a site's figures in the snapshot on screen. */
static void heap_of(void *ctx, uint32_t trace, uint32_t cls, double *out)
{
    const ht_heap_site *site = ht_heap_sites_find(ctx, trace, cls);
    if (site) out[0] = site->instances, out[1] = site->retained;
}

static void *create(void)
{
    ht_tree_screen *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    ht_tree_init(&v->tree);
    ht_tree_init(&v->next);
    return v;
}

static void destroy(void *self)
{
    ht_tree_screen *v = self;
    ht_tree_free(&v->tree);
    ht_tree_free(&v->next);
    free(v);
}

static void enter(void *self, int drilled)
{
    ht_tree_screen *v = self;
    if (drilled) v->pos.cursor = v->pos.top = 0;
}

static int build(void *self, const ht_build_ctx *b)
{
    ht_tree_screen *v = self;
    v->opts.class_filter = &b->lens->class_filter;
    v->opts.frame_filter = &b->lens->frame_filter;
    v->opts.only_class = b->lens->only_class;
    v->opts.should_stop = b->should_stop;
    v->opts.stop_ctx = b->stop_ctx;
    /* a snapshot of another run (a detach and a new attach since) would
     * join its sites to this run's ids, which name other sites */
    v->heap = b->heap && b->heap->sites.n && ht_heap_same_run(b->store, b->heap);
    v->opts.heap_of = v->heap ? heap_of : NULL;
    v->opts.heap_ctx = v->heap ? &b->heap->sites : NULL;
    if (!v->heap && is_heap_col(v->opts.sort_col)) v->opts.sort_col = HT_COL_BYTES;
    int rc = ht_tree_rebuild(&v->tree, &v->next, b->store, &v->opts);
    if (rc != 0) return rc; /* 1: a key is waiting, served on the tree we have */
    if (!v->hot_path_shown && v->tree.nnodes > 1) {
        /* open on the hot path: unfold the heaviest child, level by level */
        uint32_t n = v->tree.nodes[0].first_child;
        for (int depth = 0; n && depth < 12; depth++) {
            ht_tree_set_expanded(&v->tree, n, 1);
            n = v->tree.nodes[n].first_child; /* children are sorted: first is heaviest */
        }
        ht_tree_flatten(&v->tree);
        v->hot_path_shown = 1;
    }
    return 0;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    ht_tree_screen *v = self;
    const ht_ui *ui = d->ui;
    const ht_store *s = d->store;
    ht_site_tree *t = &v->tree;
    /* indented frame names need room: half the line, at least 40 columns */
    int name_min = ui->cols / 2 > 40 ? ui->cols / 2 : 40;
    if (ui->cols < 80) name_min = ui->cols / 2;
    const ht_col *columns = v->heap ? HEAP_COLUMNS : COLUMNS;
    int ncolumns = v->heap ? N(HEAP_COLUMNS) : N(COLUMNS);
    ht_list_layout(d, &v->cols, columns, ncolumns, t->max_abs, t->has_neg, v->opts.sort_col,
                   name_min);
    char title[256];
    snprintf(title, sizeof title, " %s%s%s",
             v->opts.shape == HT_TREE_TOP_DOWN ? "CALL TREE (top-down)"
                                               : "HOT SPOTS (callers below)",
             v->opts.group == HT_GROUP_LEAVES ? ", classes at leaves"
             : v->opts.group == HT_GROUP_TOP  ? ", classes at top"
                                              : "",
             v->heap ? "; HEAP OBJ, RETAINED: the heap snapshot's objects of each site" : "");
    ht_list_title(d, &v->cols, v->opts.sort_col, v->opts.ascending, title);
    int rows = d->height - 1, top = d->top;
    ht_list_clamp(&v->pos, t->nvisible, rows);
    if (t->nvisible == 0) {
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  s->nrows ? "  nothing matches the filters" : "  no samples yet", 1);
        return;
    }
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= t->nvisible) break;
        uint32_t n = t->visible[i];
        const ht_node *nd = &t->nodes[n];
        double val[HT_COL_COUNT] = {0};
        for (int c = 0; c < ncolumns; c++)
            val[columns[c]] = ht_node_value(t, nd, columns[c]);
        char name[1024], line[1600];
        size_t len = ht_list_cells(d, &v->cols, val, line, sizeof line);
        ht_tree_node_name(t, s, n, name, sizeof name);
        int depth = nd->depth > 1 ? nd->depth - 1 : 0;
        if (depth > 40) depth = 40;
        char marker = nd->first_child ? (ht_tree_is_expanded(t, n) ? '-' : '+') : ' ';
        snprintf(line + len, sizeof line - len, " %*s%c %s%s", depth * 2, "", marker,
                 nd->kind == HT_NODE_CLASS ? "[class] " : "", name);
        int sel = i == v->pos.cursor;
        ht_color role = nd->kind == HT_NODE_CLASS ? HT_C_HEADER
                        : nd->kind == HT_NODE_CUT ? HT_C_DIM
                                                  : HT_C_NORMAL;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols, ht_ui_attr(ui, sel ? HT_C_SELECTED : role),
                  line, 1);
    }
}

/* --- the cursor --- */

static uint32_t cursor_node(const ht_tree_screen *v)
{
    return v->tree.nvisible ? v->tree.visible[v->pos.cursor] : 0;
}

static void select_node(ht_tree_screen *v, uint32_t node)
{
    for (uint32_t i = 0; i < v->tree.nvisible; i++)
        if (v->tree.visible[i] == node) {
            v->pos.cursor = i;
            return;
        }
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    ht_tree_screen *v = self;
    *n = v->tree.nvisible;
    return &v->pos;
}

/* --- folding: every key keeps the cursor on its node --- */

static void refold(ht_tree_screen *v, uint32_t keep)
{
    ht_tree_flatten(&v->tree);
    select_node(v, keep);
}

static void unfold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, 1);
    refold(v, n);
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    ht_site_tree *t = &v->tree;
    uint32_t n = cursor_node(v);
    if (n && ht_tree_is_expanded(t, n) && t->nodes[n].first_child) {
        ht_tree_set_expanded(t, n, 0);
    } else if (n && t->nodes[n].parent) {
        /* on a leaf or a folded node: fold the parent and go there */
        ht_tree_set_expanded(t, t->nodes[n].parent, 0);
        refold(v, t->nodes[n].parent);
        return;
    }
    refold(v, n);
}

static void toggle(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, !ht_tree_is_expanded(&v->tree, n));
    refold(v, n);
}

static void unfold_all(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_expand_all(&v->tree, n);
    refold(v, n);
}

static void shape(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_tree_screen *v = self;
    v->opts.shape = v->opts.shape == HT_TREE_TOP_DOWN ? HT_TREE_HOT_SPOTS : HT_TREE_TOP_DOWN;
    v->pos.cursor = v->pos.top = 0;
    ht_host_rebuild(h);
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by);

/* The sites in the heap: sorted by the bytes each site's objects retain. */
static void by_retained(void *self, ht_host *h, int ch)
{
    (void)ch;
    sort(self, h, HT_SORT_BY, HT_COL_HEAP_RETAINED);
}

static void group(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_tree_screen *v = self;
    v->opts.group = (ht_tree_group)((v->opts.group + 1) % 3);
    v->pos.cursor = v->pos.top = 0;
    ht_host_rebuild(h);
}

/* --- sort, search, export --- */

static ht_col column_at(void *self, int x)
{
    return ht_col_layout_at(&((ht_tree_screen *)self)->cols, x);
}

/* Children by the column at every level; the cursor stays on its node. */
static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h;
    ht_tree_screen *v = self;
    if (op == HT_SORT_BY && by == HT_COL_PCT) by = HT_COL_BYTES;
    if (op == HT_SORT_BY && by >= HT_COL_NAME) return; /* frames have no name order */
    if (op == HT_SORT_BY && is_heap_col(by) && !v->heap) {
        ht_host_status(h, "no heap snapshot with sampled objects: take one with H");
        return;
    }
    ht_list_sort_op(&v->opts.sort_col, &v->opts.ascending, op, by, v->heap ? HEAP_SORTS : SORTS,
                    v->heap ? N(HEAP_SORTS) : N(SORTS));
    uint32_t n = cursor_node(v);
    ht_tree_sort(&v->tree, v->opts.sort_col, v->opts.ascending);
    select_node(v, n);
}

/* Search walks the whole tree, folded or not, wrapping at either end. */
static uint32_t wrap_next(const ht_site_tree *t, uint32_t n)
{
    uint32_t m = ht_tree_preorder_next(t, n);
    return m ? m : ht_tree_preorder_next(t, 0);
}

static uint32_t wrap_prev(const ht_site_tree *t, uint32_t n)
{
    uint32_t m = ht_tree_preorder_prev(t, n);
    return m ? m : ht_tree_preorder_prev(t, 0);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    ht_tree_screen *v = self;
    ht_site_tree *t = &v->tree;
    if (t->nnodes < 2) return 0;
    uint32_t start = cursor_node(v);
    if (!start) start = t->nodes[0].first_child;
    uint32_t n = from_cursor ? start : (forward ? wrap_next(t, start) : wrap_prev(t, start));
    char name[1024];
    for (uint32_t k = 0; k < t->nnodes; k++) {
        ht_tree_node_name(t, s, n, name, sizeof name);
        if (strstr(name, text)) {
            /* unfold the way to it */
            for (uint32_t p = t->nodes[n].parent; p; p = t->nodes[p].parent)
                ht_tree_set_expanded(t, p, 1);
            refold(v, n);
            return 1;
        }
        n = forward ? wrap_next(t, n) : wrap_prev(t, n);
    }
    return 0;
}

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    return ht_export_tree_with(rows, s, path, p);
}

static void free_rows(void *rows)
{
    ht_tree_free(rows);
    free(rows);
}

/* One row per node in the order shown, filters applied. */
static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    ht_tree_screen *v = self;
    const ht_lens *lens = ht_host_lens(h);
    ht_site_tree *copy = malloc(sizeof *copy);
    if (!copy) return -1;
    ht_tree_init(copy);
    if (ht_tree_copy(copy, &v->tree) != 0) {
        free_rows(copy);
        return -1;
    }
    req->view = v->opts.shape == HT_TREE_HOT_SPOTS ? "hotspots" : "tree";
    snprintf(req->sort, sizeof req->sort, "%s %s", ht_col_title(v->opts.sort_col),
             v->opts.ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", lens->class_filter.text);
    snprintf(req->frame_filter, sizeof req->frame_filter, "%s", lens->frame_filter.text);
    if (lens->only_class)
        snprintf(req->only_class, sizeof req->only_class, "%s",
                 ht_store_class(ht_host_store(h), lens->only_class));
    req->rows = copy;
    req->write = write_rows;
    req->free_rows = free_rows;
    return 0;
}

static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_RIGHT, '+'), .help = "unfold", .act = unfold},
    {HT_KEYS(KEY_LEFT, '-'), .help = "fold (or go to the parent)", .act = fold,
     .flags = HT_KEY_RIGHT, .col = 38, .help_col = 49},
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER), .help = "fold/unfold", .act = toggle},
    {HT_KEYS('*'), .help = "unfold everything below", .act = unfold_all, .flags = HT_KEY_RIGHT,
     .col = 38, .help_col = 49},
    {HT_KEYS('t', KEY_F(5)),
     .help = "top-down tree <-> hot spots (allocating frames, callers below)", .bar = "Tree",
     .act = shape},
    {HT_KEYS('g'), .help = "group by class: none, at the leaves, at the top", .act = group},
    {HT_KEYS('R'),
     .help = "sites in the heap: sort by RETAINED, the bytes the heap snapshot's objects of\n"
             "each site retain (estimated from the samples the agent marked in it)",
     .act = by_retained},
    {.flags = HT_KEY_NOTE,
     .help = "[stack cut at depth N]: stacks that deep may miss outer frames (agent's depth=)"},
    {.flags = HT_KEY_NOTE, .help = "Class.method [native]: a native method, which has no line"},
    HT_KEYS_END,
};

const ht_screen ht_screen_tree = {
    .name = "tree",
    .title = "allocation tree",
    .help_title = "Allocation tree",
    .key = '1',
    .filter = HT_FILTER_FRAMES,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .enter = enter,
    .build = build,
    .draw = draw,
    .list = list,
    .column_at = column_at,
    .sort = sort,
    .search = search,
    .export = export,
};
