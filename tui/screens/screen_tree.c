/*
 * screen_tree.c - the allocation tree screen (top-down call tree or hot spots).
 *
 * Owns: the site tree (shown, and the one being built), its shape, grouping
 * and sort, the cursor, and the column layout last drawn. Draws the flattened
 * visible rows: the numeric columns that fit (list.c decides, the sorted one
 * always among them), then the frame or class name indented by depth with a
 * fold marker. Numbers first and the name last, as htop puts the command
 * last; the name keeps half the line, at least 40 columns. Deep stacks stay
 * readable: the indentation narrows with depth and past a quarter of the
 * name column rows carry their level as a number instead; a name that does
 * not fit has its package shortened from the left, and if still too wide
 * keeps its end (method and line); s shows names in full, which [ and ]
 * scroll; and the selected row is shown whole on the lines
 * under the list (level, full name, source file). The hot path of the data
 * as it is now is unfolded, rebuild after rebuild, until the user folds or
 * unfolds something. How sure each row is: SAMPLES and LIVE SMP (the first
 * columns a narrow line drops), a row whose sorted figure rests on fewer
 * than HT_FEW_SAMPLES dimmed, and a figure above the bound the data give
 * (columns.h: LIVE and GROWTH above the heap's used bytes, a site's
 * RETAINED above the snapshot's bytes) shown as HT_COL_OVER_MARK, said in
 * the title row. UI thread only; the lens's filters and its one class
 * narrow what it builds.
 */
#include "screen_tree.h"

#include "analysis.h"
#include "heap_rows.h"
#include "list.h"
#include "tree_jump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numeric columns in display order, and the ones < > step through;
 * with a heap snapshot whose sampled objects the agent marked, its figures
 * per site beside the live ones (the sites in the heap). */
static int is_heap_col(ht_col c)
{
    return (ht_col_info_of(c)->flags & HT_COLF_HEAP) != 0;
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
    v->heap = b->heap && b->heap->sites.n && ht_heaprow_same_run(b->store, b->heap);
    v->opts.heap_of = v->heap ? heap_of : NULL;
    v->opts.heap_ctx = v->heap ? &b->heap->sites : NULL;
    /* no site retains more than the snapshot holds (heap_sites.h) */
    v->bounds.snapshot_bytes = v->heap ? b->heap->sites.bound : 0;
    if (!v->heap && is_heap_col(v->opts.sort_col)) v->opts.sort_col = HT_COL_BYTES;
    /* the cursor stays on its node as rows come and go above it, on the
     * same line of the screen; on the first row it stays on the first row */
    uint64_t keep = v->pos.cursor && v->pos.cursor < v->tree.nvisible
                        ? v->tree.nodes[v->tree.visible[v->pos.cursor]].path
                        : 0;
    uint32_t line = v->pos.cursor >= v->pos.top ? v->pos.cursor - v->pos.top : 0;
    int rc = ht_tree_rebuild(&v->tree, &v->next, b->store, &v->opts);
    if (rc != 0) return rc; /* 1: a key is waiting, served on the tree we have */
    const ht_jump *j = ht_jump_pending(&ht_screen_tree); /* x on a CPU frame */
    if (j) {
        if (ht_jump_select(&v->tree, j, &v->pos)) v->user_folded = 1;
        ht_jump_clear();
        return 0;
    }
    /* the hot path of the data as it is now, until the user folds or unfolds */
    if (!v->user_folded) ht_tree_show_hot_path(&v->tree, v->opts.ascending);
    for (uint32_t i = 0; keep && i < v->tree.nvisible; i++)
        if (v->tree.nodes[v->tree.visible[i]].path == keep) {
            v->pos.cursor = i;
            v->pos.top = i > line ? i - line : 0;
            break;
        }
    return 0;
}

/* --- drawing --- */

#define DETAIL_LINES 3 /* the selected row whole: at most this many lines */
#define HSCROLL_STEP 10

/* The byte offset of column k of UTF-8 text. */
static size_t column_offset(const char *s, int k)
{
    size_t i = 0;
    for (; s[i] && k > 0; k--)
        for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++)
            ;
    return i;
}

/* The selected row whole, wrapped at `width` on a dot or a space where one
 * is near: its level, its name in full and a frame's source file. Lines
 * into out; how many (0 when nothing is selected). */
static int detail(const ht_tree_screen *v, const ht_store *s, int width,
                  char out[DETAIL_LINES][512])
{
    const ht_site_tree *t = &v->tree;
    if (!t->nvisible || width < 20) return 0;
    uint32_t n = t->visible[v->pos.cursor < t->nvisible ? v->pos.cursor : t->nvisible - 1];
    const ht_node *nd = &t->nodes[n];
    char name[1024], text[1600];
    ht_tree_node_name(t, s, n, name, sizeof name);
    const ht_smethod *m =
        nd->kind == HT_NODE_FRAME && nd->line != INT32_MIN ? ht_store_method(s, nd->id) : NULL;
    snprintf(text, sizeof text, "level %u: %s%s%s%s%s", (unsigned)nd->depth,
             nd->kind == HT_NODE_CLASS ? "[class] " : "", name, m && m->src ? "  (" : "",
             m && m->src ? m->src : "", m && m->src ? ")" : "");
    int k = 0;
    for (const char *p = text; *p && k < DETAIL_LINES; k++) {
        size_t end = column_offset(p, width);
        if (p[end] && k + 1 < DETAIL_LINES) {
            /* break after the last dot or space of the line's second half */
            size_t half = column_offset(p, width / 2), at = end;
            while (at > half && p[at - 1] != '.' && p[at - 1] != ' ')
                at--;
            if (at > half) end = at;
        }
        snprintf(out[k], sizeof out[k], "%.*s", (int)end, p);
        p += end;
    }
    return k;
}

/* A row's name as drawn in `room` columns. Shortened to fit (the package
 * from the left), and when even that is too wide its end kept, the method
 * and line that tell siblings apart ("..": cut on the left). In full
 * (names in full), scrolled left by hscroll columns, at most as far as its
 * end. *over: how far the name reaches past room before any cut. */
static void row_name(const ht_tree_screen *v, const char *name, int room, char *out, size_t n,
                     int *over)
{
    char fit[1024];
    if (v->full_names)
        snprintf(fit, sizeof fit, "%s", name);
    else
        ht_name_shorten(name, room, fit, sizeof fit);
    *over = ht_text_width(fit) - room;
    int shift = !v->full_names ? *over : v->hscroll < *over ? v->hscroll : *over;
    if (shift > 0 && room > 4)
        snprintf(out, n, "..%s", fit + column_offset(fit, shift + 2));
    else
        snprintf(out, n, "%s", fit);
}

/* The title row: the shape and grouping, what the mark in place of a
 * figure means when a row shown has one (over: the columns marked), and
 * with a snapshot what its columns are. */
static void tree_title(const ht_tree_screen *v, const ht_draw_ctx *d, unsigned over)
{
    unsigned retained = over & 1u << HT_COL_HEAP_RETAINED, heap = over & ~retained;
    const char *why = heap && retained ? "the heap's used bytes, RETAINED the snapshot's"
                      : heap           ? "the heap's used bytes"
                                       : "the snapshot's bytes";
    char title[512];
    snprintf(title, sizeof title, " %s%s%s%s%s",
             v->opts.shape == HT_TREE_TOP_DOWN ? "CALL TREE (top-down)"
                                               : "HOT SPOTS (callers below)",
             v->opts.group == HT_GROUP_LEAVES ? ", classes at leaves"
             : v->opts.group == HT_GROUP_TOP  ? ", classes at top"
                                              : "",
             over ? "  (" HT_COL_OVER_MARK ": above " : "", over ? why : "", over ? ")" : "");
    size_t len = strlen(title);
    if (v->heap)
        snprintf(title + len, sizeof title - len,
                 "; HEAP OBJ, RETAINED: the heap snapshot's objects of each site");
    ht_list_title(d, &v->cols, v->opts.sort_col, v->opts.ascending, title);
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
    ht_col columns[HT_COL_COUNT]; /* the tree's, from columns.h's table */
    int ncolumns = ht_col_view(HT_VIEW_TREE, v->heap, columns, HT_COL_COUNT);
    ht_list_layout(d, &v->cols, columns, ncolumns, t->max_abs, t->has_neg, v->opts.sort_col,
                   name_min);
    const ht_telemetry_rec *tel = ht_store_last_telemetry(s);
    v->bounds.heap_used = tel ? (double)tel->heap_used : 0;
    int rows = d->height - 1, top = d->top;
    ht_list_clamp(&v->pos, t->nvisible, rows);
    if (t->nvisible == 0) {
        tree_title(v, d, 0);
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  s->nrows ? "  nothing matches the filters" : ht_no_samples_text(d), 1);
        return;
    }
    /* the selected row whole at the bottom, when the list keeps 3 rows */
    char whole[DETAIL_LINES][512];
    int nwhole = detail(v, s, ui->cols - 2, whole);
    if (rows - nwhole < 3) nwhole = 0;
    rows -= nwhole;
    ht_list_fit(&v->pos, &v->shown, t->nvisible, rows);
    int width = v->cols.name_w - 1, widest = 0; /* after the space that starts the name */
    unsigned over_shown = 0;                    /* the figures drawn above their bound */
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= t->nvisible) break;
        uint32_t n = t->visible[i];
        const ht_node *nd = &t->nodes[n];
        double val[HT_COL_COUNT] = {0};
        for (int c = 0; c < ncolumns; c++)
            val[columns[c]] = ht_node_value(t, nd, columns[c]);
        char name[1024], shown[1100], lead[32], line[1700];
        size_t len = ht_list_cells(d, &v->cols, val, line, sizeof line);
        unsigned over = ht_col_over_mask(&v->bounds, val);
        ht_col_mark_over(&v->cols, over, line, len);
        over_shown |= over;
        ht_tree_node_name(t, s, n, name, sizeof name);
        /* indentation that narrows with depth; past its cap, the level */
        int numbered, indent = ht_tree_indent(nd->depth > 1 ? nd->depth - 1 : 0, width, &numbered);
        if (numbered)
            snprintf(lead, sizeof lead, "%*u ", indent - 1, (unsigned)nd->depth);
        else
            snprintf(lead, sizeof lead, "%*s", indent, "");
        const char *tag = nd->kind == HT_NODE_CLASS ? "[class] " : "";
        int reach;
        row_name(v, name, width - indent - 2 - (int)strlen(tag), shown, sizeof shown, &reach);
        if (reach > widest) widest = reach;
        char marker = nd->first_child ? (ht_tree_is_expanded(t, n) ? '-' : '+') : ' ';
        snprintf(line + len, sizeof line - len, " %s%c %s%s", lead, marker, tag, shown);
        int sel = i == v->pos.cursor;
        /* a cut stack's pseudo-frame, and few samples behind the figure
         * sorted by: dimmed */
        ht_color role = nd->kind == HT_NODE_CUT || ht_col_few(val, v->opts.sort_col) ? HT_C_DIM
                        : nd->kind == HT_NODE_CLASS                                  ? HT_C_HEADER
                                                                                     : HT_C_NORMAL;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols, ht_ui_attr(ui, sel ? HT_C_SELECTED : role),
                  line, 1);
    }
    /* no scrolling past the end of the longest name shown */
    if (v->full_names && v->hscroll > widest) v->hscroll = widest > 0 ? widest : 0;
    tree_title(v, d, over_shown);
    ht_list_more(d, &v->pos, t->nvisible, top, rows);
    for (int k = 0; k < nwhole; k++) {
        char l[1600];
        snprintf(l, sizeof l, " %s", whole[k]);
        ht_ui_put(stdscr, top + 1 + rows + k, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), l, 1);
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

/* --- folding: every key keeps the cursor on its node; from the first
 * fold or unfold on, the fold state is the user's (the hot path no longer
 * follows the data) --- */

static void refold(ht_tree_screen *v, uint32_t keep)
{
    ht_tree_flatten(&v->tree);
    select_node(v, keep);
}

static void unfold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    v->user_folded = 1;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, 1);
    refold(v, n);
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    v->user_folded = 1;
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
    v->user_folded = 1;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, !ht_tree_is_expanded(&v->tree, n));
    refold(v, n);
}

static void unfold_all(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_tree_screen *v = self;
    v->user_folded = 1;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_expand_all(&v->tree, n);
    refold(v, n);
}

/* --- long names: scrolled, shortened or in full --- */

static void scroll_names(void *self, ht_host *h, int ch)
{
    ht_tree_screen *v = self;
    if (!v->full_names) {
        /* shortened names show their end already: scrolling is for names in full */
        v->full_names = 1;
        v->hscroll = 0;
        ht_host_status(h, "frame names in full: [ ] scroll them, s shortens them again");
    }
    if (ch == '[' || ch == KEY_SLEFT)
        v->hscroll = v->hscroll > HSCROLL_STEP ? v->hscroll - HSCROLL_STEP : 0;
    else
        v->hscroll += HSCROLL_STEP; /* the next draw stops it at the longest name's end */
}

static void names(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_tree_screen *v = self;
    v->full_names = !v->full_names;
    ht_host_status(h, "%s",
                   v->full_names
                       ? "frame names in full ([ ] scroll them)"
                       : "packages shortened where a frame name does not fit (o.a.c.Class)");
}

/* The selected frame's file at its line (the Source screen). */
static void open_source(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_tree_screen *v = self;
    uint32_t n = cursor_node(v);
    const ht_node *nd = n ? &v->tree.nodes[n] : NULL;
    if (!nd || nd->kind != HT_NODE_FRAME) {
        ht_host_status(h, "o opens a frame's source: select a frame, not a class");
        return;
    }
    ht_frame_rec f = {.method_id = nd->id, .line = nd->line};
    ht_host_open_source(h, ht_host_store(h), &f);
}

/* x: the CPU tree (hot spots from hot spots) at the selected frame. */
static void to_cpu(void *self, ht_host *h, int ch)
{
    (void)ch;
    extern const ht_screen ht_screen_cpu_tree, ht_screen_cpu_hot;
    ht_tree_screen *v = self;
    uint32_t n = cursor_node(v);
    const ht_node *nd = n ? &v->tree.nodes[n] : NULL;
    if (!nd || nd->kind != HT_NODE_FRAME || nd->line == INT32_MIN) {
        ht_host_status(h, "x shows a frame in the CPU tree: select a frame, not a class");
    } else if (!ht_jump_has_method(ht_host_store(h), HT_SOURCE_CPU, nd->id)) {
        ht_host_status(h, "no CPU samples through this frame's method");
    } else {
        ht_jump j = {.to = v->opts.shape == HT_TREE_HOT_SPOTS ? &ht_screen_cpu_hot
                                                              : &ht_screen_cpu_tree,
                     .has_frame = 1,
                     .frame = {.method_id = nd->id, .line = nd->line}};
        ht_jump_send(h, &j);
    }
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
    ht_col sorts[HT_COL_COUNT];
    int nsorts = ht_col_view_sorts(HT_VIEW_TREE, v->heap, sorts, HT_COL_COUNT);
    ht_list_sort_op(&v->opts.sort_col, &v->opts.ascending, op, by, sorts, nsorts);
    uint32_t n = cursor_node(v);
    ht_tree_sort(&v->tree, v->opts.sort_col, v->opts.ascending);
    if (!v->user_folded) ht_tree_show_hot_path(&v->tree, v->opts.ascending);
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
            v->user_folded = 1;
            refold(v, n);
            return 1;
        }
        n = forward ? wrap_next(t, n) : wrap_prev(t, n);
    }
    return 0;
}

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    return ht_export_tree(rows, s, path, p);
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
    {HT_KEYS('[', ']'), HT_ALSO(KEY_SLEFT, KEY_SRIGHT),
     .help = "names in full, scrolled left/right (the selected row is whole below)",
     .act = scroll_names},
    {HT_KEYS('s'), .help = "frame names: packages shortened to fit (o.a.c.Class), or in full",
     .act = names},
    {HT_KEYS('o'), .help = "open the selected frame's source file at its line (--source)",
     .act = open_source},
    {HT_KEYS('x'), .help = "the CPU tree (or CPU hot spots) at the selected frame", .act = to_cpu},
    {HT_KEYS('R'),
     .help = "sites in the heap: sort by RETAINED, the bytes the heap snapshot's objects of\n"
             "each site retain (estimated from the samples the agent marked in it)",
     .act = by_retained},
    {.flags = HT_KEY_NOTE,
     .help = "[stack cut at depth N]: stacks that deep may miss outer frames (agent's depth=)"},
    {.flags = HT_KEY_NOTE, .help = "Class.method [native]: a native method, which has no line"},
    {.flags = HT_KEY_NOTE,
     .label = "SAMPLES",
     .help = "the samples BYTES and INST rest on (LIVE SMP: LIVE's and GROWTH's):\n"
             "n samples, about +-100/sqrt(n)%; a row on under 10 is dimmed;\n" HT_COL_OVER_MARK
             ": an estimate above the heap's used bytes (too few samples), or a\n"
             "RETAINED above the snapshot's bytes (retained sets nest: each node of\n"
             "a list retains the rest of it)"},
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
