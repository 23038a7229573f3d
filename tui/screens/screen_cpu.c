/*
 * screen_cpu.c - the CPU tree (top-down) and CPU hot spots (running frames,
 * callers below): two screens of one file, the same tree (site_tree.h over
 * the CPU rows) in its two shapes.
 *
 * Owns: each screen's tree (shown, and the one being built), its grouping
 * (threads at the top or merged), sort, cursor, the column layout last drawn,
 * and the one thread it shows when the threads table opened it (Esc goes
 * back). Draws as the allocation tree does (list.c's columns: CPU ms, CPU %,
 * SELF ms, SELF %, SAMPLES, the mark's DIFF ms and DIFF SMP; then the frame
 * name indented by depth, its package shortened from the left to fit, the
 * hot path unfolded until the user folds), the selected row whole below.
 * The title says what the figures are worth: in cpu=on, frames are taken at
 * safepoints (a frame between two polls is charged to the next poll's);
 * with sampling off it says so. Keys: t the other shape at the same frame,
 * x the allocation tree at the same frame, o the frame's source, g threads
 * at the top or merged. UI thread only; the lens's frame and thread filters
 * narrow what it builds.
 */
#include "list.h"
#include "screen.h"
#include "screen_tree.h"
#include "site_tree.h"
#include "tree_jump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_screen {
    ht_site_tree tree, next;
    ht_tree_opts opts; /* the shape is the screen's; filters come from the lens */
    ht_list_pos pos;
    ht_col_layout cols;
    int user_folded; /* the user folded or unfolded: the hot path no longer follows the data */
    int shown;       /* rows of the list when last drawn (ht_list_fit) */
    const ht_screen *back; /* opened on one thread from here: Esc returns */
} cpu_screen;

extern const ht_screen ht_screen_cpu_tree, ht_screen_cpu_hot;

static void *create_shape(ht_tree_shape shape)
{
    cpu_screen *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    ht_tree_init(&v->tree);
    ht_tree_init(&v->next);
    v->opts =
        (ht_tree_opts){.source = HT_SOURCE_CPU,
                       .shape = shape,
                       .sort_col = shape == HT_TREE_HOT_SPOTS ? HT_COL_SELF_MS : HT_COL_CPU_MS};
    return v;
}

static void *create_tree(void)
{
    return create_shape(HT_TREE_TOP_DOWN);
}

static void *create_hot(void)
{
    return create_shape(HT_TREE_HOT_SPOTS);
}

static void destroy(void *self)
{
    cpu_screen *v = self;
    ht_tree_free(&v->tree);
    ht_tree_free(&v->next);
    free(v);
}

static const ht_screen *me(const cpu_screen *v)
{
    return v->opts.shape == HT_TREE_HOT_SPOTS ? &ht_screen_cpu_hot : &ht_screen_cpu_tree;
}

static int build(void *self, const ht_build_ctx *b)
{
    cpu_screen *v = self;
    const ht_jump *j = ht_jump_pending(me(v));
    if (j) {
        v->opts.only_thread = j->thread;
        v->back = j->from;
    }
    v->opts.frame_filter = &b->lens->frame_filter;
    v->opts.thread_filter = &b->lens->thread_filter;
    v->opts.should_stop = b->should_stop;
    v->opts.stop_ctx = b->stop_ctx;
    /* the cursor stays on its node as rows come and go above it */
    uint64_t keep =
        v->pos.cursor < v->tree.nvisible ? v->tree.nodes[v->tree.visible[v->pos.cursor]].path : 0;
    uint32_t line = v->pos.cursor >= v->pos.top ? v->pos.cursor - v->pos.top : 0;
    int rc = ht_tree_rebuild(&v->tree, &v->next, b->store, &v->opts);
    if (rc != 0) return rc; /* 1: a key is waiting; a jump waits for the next build */
    if (j) {
        v->pos.cursor = v->pos.top = 0;
        if (ht_jump_select(&v->tree, j, &v->pos)) v->user_folded = 1;
        ht_jump_clear();
        if (v->user_folded) return 0;
    }
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

/* What the CPU figures are worth, for the title row. */
static const char *mode_note(const ht_store *s)
{
    switch (s->info.cpu_mode) {
    case HT_CPU_ON:
        return " (cpu=on: frames at safepoints)";
    case HT_CPU_ASYNC:
        return " (cpu=async)";
    default:
        return " (CPU sampling is off)";
    }
}

static void title(const cpu_screen *v, const ht_draw_ctx *d)
{
    char t[600], thread[300] = "";
    if (v->opts.only_thread) {
        char name[256];
        ht_store_cpu_thread_name(d->store, v->opts.only_thread, name, sizeof name);
        snprintf(thread, sizeof thread, ", thread %s (Esc)", name);
    }
    snprintf(t, sizeof t, " %s%s%s%s",
             v->opts.shape == HT_TREE_TOP_DOWN ? "CPU TREE" : "CPU HOT SPOTS", mode_note(d->store),
             v->opts.group == HT_GROUP_TOP ? ", threads at top" : "", thread);
    ht_list_title(d, &v->cols, v->opts.sort_col, v->opts.ascending, t);
}

/* Why there is no row: sampling off, nothing yet, or the filters. */
static const char *empty_text(const ht_draw_ctx *d)
{
    const ht_store *s = d->store;
    if (d->no_jvm && !s->ncpu_rows) return "  a dump file has no CPU samples";
    if (s->info.cpu_mode == HT_CPU_OFF)
        return "  CPU sampling is off (start the agent with cpu=on, or: heaptop control PID cpu "
               "on)";
    return s->ncpu_rows ? "  nothing matches the filters" : "  no CPU samples yet";
}

/* The selected row whole on the line under the list. */
static void detail(const cpu_screen *v, const ht_draw_ctx *d, int y)
{
    const ht_site_tree *t = &v->tree;
    uint32_t n = t->visible[v->pos.cursor < t->nvisible ? v->pos.cursor : t->nvisible - 1];
    const ht_node *nd = &t->nodes[n];
    char name[1024], text[1400];
    ht_tree_node_name(t, d->store, n, name, sizeof name);
    const ht_smethod *m = nd->kind == HT_NODE_FRAME && nd->line != INT32_MIN
                              ? ht_store_method(d->store, nd->id)
                              : NULL;
    snprintf(text, sizeof text, " level %u: %s%s%s%s%s", (unsigned)nd->depth,
             nd->kind == HT_NODE_THREAD ? "[thread] " : "", name, m && m->src ? "  (" : "",
             m && m->src ? m->src : "", m && m->src ? ")" : "");
    ht_ui_put(stdscr, y, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_TITLE), text, 1);
}

/* A name in `room` columns: its package shortened, then its end kept. */
static void fit_name(const char *name, int room, char *out, size_t n)
{
    char fit[1024];
    ht_name_shorten(name, room, fit, sizeof fit);
    int over = ht_text_width(fit) - room;
    if (over > 0 && room > 4) {
        const char *p = fit;
        for (int k = over + 2; *p && k > 0; k--)
            for (p++; ((unsigned char)*p & 0xC0) == 0x80; p++)
                ;
        snprintf(out, n, "..%s", p);
    } else {
        snprintf(out, n, "%s", fit);
    }
}

static void draw(void *self, const ht_draw_ctx *d)
{
    cpu_screen *v = self;
    const ht_ui *ui = d->ui;
    ht_site_tree *t = &v->tree;
    int name_min = ui->cols / 2 > 40 ? ui->cols / 2 : 40;
    if (ui->cols < 80) name_min = ui->cols / 2;
    ht_col columns[HT_COL_COUNT];
    int ncolumns = ht_col_view(HT_VIEW_CPU, 0, columns, HT_COL_COUNT);
    ht_list_layout(d, &v->cols, columns, ncolumns, t->max_abs, t->has_neg, v->opts.sort_col,
                   name_min);
    title(v, d);
    int rows = d->height - 1, top = d->top;
    if (t->nvisible == 0) {
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM), empty_text(d), 1);
        return;
    }
    int whole = rows > 4; /* the selected row whole, under the list */
    rows -= whole;
    ht_list_fit(&v->pos, &v->shown, t->nvisible, rows);
    int width = v->cols.name_w - 1;
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= t->nvisible) break;
        uint32_t n = t->visible[i];
        const ht_node *nd = &t->nodes[n];
        double val[HT_COL_COUNT];
        ht_node_values(t, nd, val);
        char name[1024], shown[1100], lead[32], line[1700];
        size_t len = ht_list_cells(d, &v->cols, val, line, sizeof line);
        ht_tree_node_name(t, d->store, n, name, sizeof name);
        int numbered, indent = ht_tree_indent(nd->depth > 1 ? nd->depth - 1 : 0, width, &numbered);
        if (numbered)
            snprintf(lead, sizeof lead, "%*u ", indent - 1, (unsigned)nd->depth);
        else
            snprintf(lead, sizeof lead, "%*s", indent, "");
        const char *tag = nd->kind == HT_NODE_THREAD ? "[thread] " : "";
        fit_name(name, width - indent - 2 - (int)strlen(tag), shown, sizeof shown);
        char marker = nd->first_child ? (ht_tree_is_expanded(t, n) ? '-' : '+') : ' ';
        snprintf(line + len, sizeof line - len, " %s%c %s%s", lead, marker, tag, shown);
        ht_color role = nd->kind == HT_NODE_CUT || nd->kind == HT_NODE_BUCKET ||
                                ht_col_few(val, v->opts.sort_col)
                            ? HT_C_DIM
                        : nd->kind == HT_NODE_THREAD ? HT_C_HEADER
                                                     : HT_C_NORMAL;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols,
                  ht_ui_attr(ui, i == v->pos.cursor ? HT_C_SELECTED : role), line, 1);
    }
    ht_list_more(d, &v->pos, t->nvisible, top, rows);
    if (whole) detail(v, d, top + 1 + rows);
}

/* --- the cursor and folding --- */

static uint32_t cursor_node(const cpu_screen *v)
{
    return v->tree.nvisible && v->pos.cursor < v->tree.nvisible ? v->tree.visible[v->pos.cursor]
                                                                : 0;
}

static void refold(cpu_screen *v, uint32_t keep)
{
    v->user_folded = 1;
    ht_tree_flatten(&v->tree);
    for (uint32_t i = 0; i < v->tree.nvisible; i++)
        if (v->tree.visible[i] == keep) v->pos.cursor = i;
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    cpu_screen *v = self;
    *n = v->tree.nvisible;
    return &v->pos;
}

static void unfold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    cpu_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, 1);
    refold(v, n);
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    cpu_screen *v = self;
    ht_site_tree *t = &v->tree;
    uint32_t n = cursor_node(v);
    if (n && ht_tree_is_expanded(t, n) && t->nodes[n].first_child) {
        ht_tree_set_expanded(t, n, 0);
    } else if (n && t->nodes[n].parent) { /* a leaf or folded: the parent */
        n = t->nodes[n].parent;
        ht_tree_set_expanded(t, n, 0);
    }
    refold(v, n);
}

static void toggle(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    cpu_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_set_expanded(&v->tree, n, !ht_tree_is_expanded(&v->tree, n));
    refold(v, n);
}

static void unfold_all(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    cpu_screen *v = self;
    uint32_t n = cursor_node(v);
    if (n) ht_tree_expand_all(&v->tree, n);
    refold(v, n);
}

/* --- the frame under the cursor, elsewhere --- */

/* The selected frame with a method and line, or 0 (said on the status line). */
static int cursor_frame(const cpu_screen *v, ht_host *h, const char *what, ht_frame_rec *f)
{
    uint32_t n = cursor_node(v);
    const ht_node *nd = n ? &v->tree.nodes[n] : NULL;
    if (!nd || nd->kind != HT_NODE_FRAME || nd->line == INT32_MIN) {
        ht_host_status(h, "%s: select a frame, not a thread or a [placeholder]", what);
        return 0;
    }
    *f = (ht_frame_rec){.method_id = nd->id, .line = nd->line};
    return 1;
}

static void open_source(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_frame_rec f;
    if (cursor_frame(self, h, "o opens a frame's source", &f))
        ht_host_open_source(h, ht_host_store(h), &f);
}

/* x: the allocation tree at the same frame. */
static void to_alloc(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_frame_rec f;
    if (!cursor_frame(self, h, "x shows a frame in the allocation tree", &f)) return;
    if (!ht_jump_has_method(ht_host_store(h), HT_SOURCE_ALLOC, f.method_id)) {
        ht_host_status(h, "no allocation samples through this frame's method");
        return;
    }
    ht_jump_send(h, &(ht_jump){.to = &ht_screen_tree, .has_frame = 1, .frame = f});
}

/* t: the other shape, at the same frame, on the same thread. */
static void shape(void *self, ht_host *h, int ch)
{
    (void)ch;
    cpu_screen *v = self;
    uint32_t n = cursor_node(v);
    const ht_node *nd = n ? &v->tree.nodes[n] : NULL;
    ht_jump j = {.to = v->opts.shape == HT_TREE_TOP_DOWN ? &ht_screen_cpu_hot : &ht_screen_cpu_tree,
                 .from = v->back,
                 .thread = v->opts.only_thread};
    if (nd && nd->kind == HT_NODE_FRAME && nd->line != INT32_MIN) {
        j.has_frame = 1;
        j.frame = (ht_frame_rec){.method_id = nd->id, .line = nd->line};
    }
    ht_jump_send(h, &j);
}

static void group(void *self, ht_host *h, int ch)
{
    (void)ch;
    cpu_screen *v = self;
    v->opts.group = v->opts.group == HT_GROUP_TOP ? HT_GROUP_NONE : HT_GROUP_TOP;
    v->pos.cursor = v->pos.top = 0;
    ht_host_rebuild(h);
}

/* Esc on one thread's stacks: all threads, back on the threads table. */
static void back(void *self, ht_host *h, int ch)
{
    (void)ch;
    cpu_screen *v = self;
    if (!v->opts.only_thread) return;
    v->opts.only_thread = 0;
    v->pos.cursor = v->pos.top = 0;
    ht_host_rebuild(h);
    if (v->back) ht_host_show(h, v->back);
    v->back = NULL;
}

/* --- sort, search, export --- */

static ht_col column_at(void *self, int x)
{
    return ht_col_layout_at(&((cpu_screen *)self)->cols, x);
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    cpu_screen *v = self;
    if (op == HT_SORT_LEAK) {
        ht_host_status(h, "no growth here: DIFF ms is the CPU used while the mark ran");
        return;
    }
    if (op == HT_SORT_BY) by = ht_col_sort_key(by);
    if (op == HT_SORT_BY && by >= HT_COL_NAME) return;
    ht_col sorts[HT_COL_COUNT];
    int nsorts = ht_col_view_sorts(HT_VIEW_CPU, 0, sorts, HT_COL_COUNT);
    ht_list_sort_op(&v->opts.sort_col, &v->opts.ascending, op, by, sorts, nsorts);
    uint32_t n = cursor_node(v);
    ht_tree_sort(&v->tree, v->opts.sort_col, v->opts.ascending);
    if (!v->user_folded) ht_tree_show_hot_path(&v->tree, v->opts.ascending);
    for (uint32_t i = 0; i < v->tree.nvisible; i++)
        if (v->tree.visible[i] == n) v->pos.cursor = i;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    cpu_screen *v = self;
    ht_site_tree *t = &v->tree;
    if (t->nnodes < 2) return 0;
    uint32_t n = cursor_node(v) ? cursor_node(v) : t->nodes[0].first_child;
    char name[1024];
    for (uint32_t k = 0; k <= t->nnodes; k++) {
        if (k || !from_cursor) {
            uint32_t m = forward ? ht_tree_preorder_next(t, n) : ht_tree_preorder_prev(t, n);
            n = m ? m : forward ? ht_tree_preorder_next(t, 0) : ht_tree_preorder_prev(t, 0);
        }
        ht_tree_node_name(t, s, n, name, sizeof name);
        if (strstr(name, text)) {
            ht_tree_reveal(t, n);
            refold(v, n);
            return 1;
        }
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
    cpu_screen *v = self;
    const ht_lens *lens = ht_host_lens(h);
    ht_site_tree *copy = malloc(sizeof *copy);
    if (!copy) return -1;
    ht_tree_init(copy);
    if (ht_tree_copy(copy, &v->tree) != 0) {
        free_rows(copy);
        return -1;
    }
    req->view = v->opts.shape == HT_TREE_HOT_SPOTS ? "cpuhotspots" : "cputree";
    snprintf(req->sort, sizeof req->sort, "%s %s", ht_col_title(v->opts.sort_col),
             v->opts.ascending ? "asc" : "desc");
    snprintf(req->frame_filter, sizeof req->frame_filter, "%s", lens->frame_filter.text);
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
    {HT_KEYS('t', KEY_F(5)), .help = "CPU tree <-> CPU hot spots, at the selected frame",
     .bar = "Tree", .act = shape},
    {HT_KEYS('g'), .help = "threads at the top, or merged", .act = group},
    {HT_KEYS('x'), .help = "the allocation tree (1) at the selected frame", .act = to_alloc},
    {HT_KEYS('o'), .help = "open the selected frame's source file at its line (--source)",
     .act = open_source},
    {HT_KEYS(27), .help = "one thread's stacks (from the threads table): all threads again",
     .act = back},
    {.flags = HT_KEY_NOTE,
     .label = "CPU ms",
     .help = "CPU time through a frame; SELF ms in the frame itself. cpu=on takes\n"
             "frames at safepoints: a loop without a poll is charged to the next\n"
             "poll's frame; [walk_failed] and other [buckets]: samples without a stack"},
    HT_KEYS_END,
};

const ht_screen ht_screen_cpu_tree = {
    .name = "cputree",
    .title = "CPU tree",
    .help_title = "CPU tree and CPU hot spots",
    .filter = HT_FILTER_FRAMES,
    .keys = KEYS,
    .create = create_tree,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .column_at = column_at,
    .sort = sort,
    .search = search,
    .export = export,
};

const ht_screen ht_screen_cpu_hot = {
    .name = "cpuhotspots",
    .title = "CPU hot spots",
    .filter = HT_FILTER_FRAMES,
    .keys = KEYS,
    .create = create_hot,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .column_at = column_at,
    .sort = sort,
    .search = search,
    .export = export,
};
