/*
 * screen_drag.c - the Drag screen: allocation sites ranked by drag, the
 * memory their objects held after their last use (byte-seconds), from drag
 * mode's rows (store_drag.c; docs/drag.md).
 *
 * Owns: the sites shown (ht_row_key of (trace, class), in order), their sort
 * (DRAG's upper bound by default: the column help says so), the cursor
 * (kept on its site as rows move), and the histogram of one site's drag
 * times (Enter; Esc back). A site is named as the allocation screens name
 * one: its class, then its allocating frame, "(cut)" when its stack may have
 * been cut at the agent's depth. Columns: SAMPLES, TRACK% (of the samples,
 * tracked for last use), DEAD, VOID, LAG, USE, DRAG lo-hi, DRAG/OBJ (the mean
 * drag time of a dead object, from the interval's midpoint), and while a mark
 * is on the mark's DIFF DRAG and DIFF DEAD; on a narrow terminal columns give
 * way to the name (screen_drag_cols.c). The title line says drag mode's
 * state: on or off, the filter, classes and methods instrumented, those left
 * alone, the share of samples tracked, why it is off. Keys: Enter the
 * histogram, x the allocation tree at the site's frame, o its source line;
 * D (global) turns drag mode on or off. The lens's class filter narrows it.
 * UI thread only.
 */
#include "screen_drag.h"

#include "export_drag.h"
#include "hash.h"
#include "list.h"
#include "screen_tree.h"
#include "tree_jump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const ht_screen ht_screen_drag;

static void *create(void)
{
    drag_screen *v = calloc(1, sizeof *v);
    if (v) v->sort = DRAG_SORT_DRAG;
    return v;
}

static void destroy(void *self)
{
    drag_screen *v = self;
    free(v->sites);
    free(v);
}

static uint64_t cursor_site(const drag_screen *v)
{
    return v->pos.cursor < v->n ? v->sites[v->pos.cursor] : UINT64_MAX;
}

static void find_site(drag_screen *v, uint64_t key)
{
    for (uint32_t i = 0; key != UINT64_MAX && i < v->n; i++)
        if (v->sites[i] == key) v->pos.cursor = i;
}

typedef struct sort_ctx {
    const ht_store *s;
    int sort, ascending;
} sort_ctx;

static int by_sort(const void *a, const void *b, void *ctx)
{
    const sort_ctx *c = ctx;
    uint64_t ka = *(const uint64_t *)a, kb = *(const uint64_t *)b;
    const ht_drag_row_rec *x = ht_store_drag_row(c->s, (uint32_t)(ka >> 32), (uint32_t)ka);
    const ht_drag_row_rec *y = ht_store_drag_row(c->s, (uint32_t)(kb >> 32), (uint32_t)kb);
    ht_drag_row_rec ex, ey; /* ranked by the site's estimates, as shown */
    ht_drag_row_estimate(x, &ex);
    ht_drag_row_estimate(y, &ey);
    x = &ex;
    y = &ey;
    int r = 0;
    if (c->sort == DRAG_SORT_NAME) {
        char nx[1200], ny[1200];
        ht_drag_site_name(c->s, x, nx, sizeof nx);
        ht_drag_site_name(c->s, y, ny, sizeof ny);
        r = strcmp(nx, ny);
        return c->ascending ? r : -r;
    }
    double vx = ht_drag_sort_value(x, c->sort), vy = ht_drag_sort_value(y, c->sort);
    if (vx != vy)
        r = vx < vy ? -1 : 1;
    else if (x->drag_hi != y->drag_hi)
        r = x->drag_hi < y->drag_hi ? -1 : 1;
    else
        r = ka < kb ? 1 : ka > kb ? -1 : 0; /* a fixed order among equals */
    return c->ascending ? r : -r;
}

static void sort_rows(drag_screen *v, const ht_store *s)
{
    uint64_t keep = cursor_site(v);
    sort_ctx c = {.s = s, .sort = v->sort, .ascending = v->ascending};
    qsort_r(v->sites, v->n, sizeof *v->sites, by_sort, &c);
    find_site(v, keep);
}

static int build(void *self, const ht_build_ctx *b)
{
    drag_screen *v = self;
    const ht_store *s = b->store;
    uint64_t keep = cursor_site(v);
    if (s->ndrag_rows > v->cap) {
        uint64_t *n = realloc(v->sites, (size_t)s->ndrag_rows * sizeof *n);
        if (!n) return -1;
        v->sites = n;
        v->cap = s->ndrag_rows;
    }
    v->n = 0;
    const ht_filter *f = &b->lens->class_filter;
    for (uint32_t i = 0; i < s->ndrag_rows; i++) {
        const ht_drag_row_rec *r = &s->drag_rows[i];
        if (ht_filter_active(f) && !ht_filter_match(f, ht_store_class(s, r->class_id))) continue;
        v->sites[v->n++] = ht_row_key(r->trace_id, r->class_id);
    }
    sort_rows(v, s);
    find_site(v, keep);
    if (v->hist && !ht_store_drag_row(s, (uint32_t)(v->hist_site >> 32), (uint32_t)v->hist_site))
        v->hist = 0; /* a sync without it */
    return 0;
}

/* --- drawing --- */

/* Why there is no row. */
static void empty_text(const ht_draw_ctx *d, char *out, size_t n)
{
    const ht_store *s = d->store;
    if (s->ndrag_rows) {
        snprintf(out, n, "  no site matches the class filter");
    } else if (ht_store_drag_on(s)) {
        snprintf(out, n,
                 "  drag mode is on (%s): no sampled object of the filter's classes yet "
                 "(rows come as they are sampled, figures as they die)",
                 s->drag.filter);
    } else if (d->no_jvm) {
        snprintf(out, n, "  this dump's run had drag mode off: no drag rows");
    } else {
        snprintf(
            out, n,
            "  drag mode is off: D turns it on for class-name prefixes (org.h2.:com.example.), "
            "as do the agent option drag=PREFIX[:PREFIX...] and: heaptop control PID drag "
            "PREFIX");
    }
}

static void draw_list(drag_screen *v, const ht_draw_ctx *d)
{
    const ht_ui *ui = d->ui;
    const ht_store *s = d->store;
    int top = d->top;
    char line[2000];
    ht_drag_state_line(d, line, sizeof line);
    ht_ui_put(stdscr, top, 0, ui->cols, ht_ui_attr(ui, HT_C_HEADER), line, 1);
    if (d->height < 2) return;
    ht_drag_cols cols;
    ht_drag_cols_fit(&cols, d);
    ht_drag_title_row(&cols, v->sort, v->ascending, v->n, line, sizeof line);
    ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    int rows = d->height - 2;
    if (v->n == 0) {
        empty_text(d, line, sizeof line);
        char fit[2000];
        ht_ui_fit(ui, line, ui->cols, fit, sizeof fit);
        if (rows > 0) ht_ui_put(stdscr, top + 2, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM), fit, 1);
        return;
    }
    int whole = rows > 4; /* the selected site whole, under the list */
    rows -= whole;
    ht_list_fit(&v->pos, &v->shown, v->n, rows);
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= v->n) break;
        const ht_drag_row_rec *row =
            ht_store_drag_row(s, (uint32_t)(v->sites[i] >> 32), (uint32_t)v->sites[i]);
        if (!row) continue;
        ht_drag_row_rec est;
        ht_drag_row_estimate(row, &est);
        ht_drag_row_text(&cols, d, &est, line, sizeof line);
        ht_color role = row->dead ? HT_C_NORMAL : HT_C_DIM;
        ht_ui_put(stdscr, top + 2 + r, 0, ui->cols,
                  ht_ui_attr(ui, i == v->pos.cursor ? HT_C_SELECTED : role), line, 1);
    }
    ht_list_more(d, &v->pos, v->n, top + 1, rows);
    if (whole) {
        uint64_t k = cursor_site(v);
        const ht_drag_row_rec *row = ht_store_drag_row(s, (uint32_t)(k >> 32), (uint32_t)k);
        char name[1200];
        if (row) ht_drag_site_name(s, row, name, sizeof name);
        snprintf(line, sizeof line, " %s", row ? name : "");
        ht_ui_put(stdscr, top + 2 + rows, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    }
}

static void draw(void *self, const ht_draw_ctx *d)
{
    drag_screen *v = self;
    const ht_drag_row_rec *row =
        v->hist
            ? ht_store_drag_row(d->store, (uint32_t)(v->hist_site >> 32), (uint32_t)v->hist_site)
            : NULL;
    if (row)
        ht_drag_hist_draw(d, row);
    else
        draw_list(v, d);
}

/* --- keys --- */

static ht_list_pos *list(void *self, uint32_t *n)
{
    drag_screen *v = self;
    if (v->hist) {
        *n = 0;
        return &v->hpos;
    }
    *n = v->n;
    return &v->pos;
}

/* The site under the cursor's row, or NULL (said on the status line). */
static const ht_drag_row_rec *cursor_row(const drag_screen *v, ht_host *h, const char *what)
{
    uint64_t k = v->hist ? v->hist_site : cursor_site(v);
    const ht_drag_row_rec *r =
        k == UINT64_MAX ? NULL
                        : ht_store_drag_row(ht_host_store(h), (uint32_t)(k >> 32), (uint32_t)k);
    if (!r) ht_host_status(h, "%s: select a site first", what);
    return r;
}

/* The site's allocating frame, or 0 (said on the status line). */
static int site_frame(const drag_screen *v, ht_host *h, const char *what, ht_frame_rec *f)
{
    const ht_drag_row_rec *r = cursor_row(v, h, what);
    if (!r) return 0;
    const ht_strace *t = ht_store_trace(ht_host_store(h), r->trace_id);
    if (!t || t->depth == 0) {
        ht_host_status(h, "%s: this site has no Java frame", what);
        return 0;
    }
    *f = t->frames[0];
    return 1;
}

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    drag_screen *v = self;
    if (v->hist) {
        v->hist = 0;
        return;
    }
    const ht_drag_row_rec *r = cursor_row(v, h, "Enter shows a site's drag times");
    if (!r) return;
    v->hist = 1;
    v->hist_site = ht_row_key(r->trace_id, r->class_id);
}

static void back(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ((drag_screen *)self)->hist = 0;
}

static void to_tree(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_frame_rec f;
    if (!site_frame(self, h, "x shows a site in the allocation tree", &f)) return;
    if (!ht_jump_has_method(ht_host_store(h), HT_SOURCE_ALLOC, f.method_id)) {
        ht_host_status(h, "no allocation samples through this site's frame");
        return;
    }
    ((drag_screen *)self)->hist = 0;
    ht_jump_send(h, &(ht_jump){.to = &ht_screen_tree, .has_frame = 1, .frame = f});
}

static void open_source(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_frame_rec f;
    if (site_frame(self, h, "o opens a site's source", &f))
        ht_host_open_source(h, ht_host_store(h), &f);
}

/* --- sort, search, export --- */

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)by;
    drag_screen *v = self;
    if (op == HT_SORT_LEAK) {
        ht_host_status(h, "no growth here: sort by DIFF DRAG (>) while a mark runs");
        return;
    }
    if (op == HT_SORT_REVERSE || op == HT_SORT_BY) {
        v->ascending = !v->ascending;
    } else {
        int step = op == HT_SORT_PREV ? DRAG_NSORT - 1 : 1;
        v->sort = (v->sort + step) % DRAG_NSORT;
        v->ascending = v->sort == DRAG_SORT_NAME; /* names A to Z, figures largest first */
    }
    sort_rows(v, ht_host_store(h));
    ht_host_status(h, "sorted by %s %s", ht_drag_sort_name(v->sort),
                   v->ascending ? "ascending" : "descending");
}

typedef struct has_ctx {
    const drag_screen *v;
    const ht_store *s;
} has_ctx;

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const has_ctx *c = ctx;
    uint64_t k = c->v->sites[i];
    const ht_drag_row_rec *r = ht_store_drag_row(c->s, (uint32_t)(k >> 32), (uint32_t)k);
    char name[1200];
    if (!r) return 0;
    ht_drag_site_name(c->s, r, name, sizeof name);
    return strstr(name, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    drag_screen *v = self;
    if (v->hist) return 0;
    has_ctx c = {v, s};
    return ht_list_search(&v->pos, v->n, text, forward, from_cursor, has_text, &c);
}

/* What the export job writes: the sites shown, in their order. */
typedef struct drag_rows {
    ht_drag_export how;
    uint64_t sites[];
} drag_rows;

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    return ht_export_drag(s, path, &((const drag_rows *)rows)->how, p);
}

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    drag_screen *v = self;
    drag_rows *e = malloc(sizeof *e + ((size_t)v->n + 1) * sizeof e->sites[0]);
    if (!e) return -1;
    if (v->n) memcpy(e->sites, v->sites, (size_t)v->n * sizeof e->sites[0]);
    e->how = (ht_drag_export){.sites = e->sites, .nsites = v->n};
    req->view = "drag";
    snprintf(req->sort, sizeof req->sort, "%s %s", ht_drag_sort_name(v->sort),
             v->ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = e;
    req->write = write_rows;
    req->free_rows = free;
    return 0;
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "the selected site's drag times, a histogram (Enter or Esc: back)", .act = enter_key},
    {HT_KEYS(27, KEY_BACKSPACE), HT_ALSO(127, 8), .help = "back to the sites", .act = back,
     .flags = HT_KEY_RIGHT, .col = 38, .help_col = 49},
    {HT_KEYS('x'), .help = "the allocation tree (1) at the site's allocating frame",
     .act = to_tree},
    {HT_KEYS('o'), .help = "open the site's allocating frame at its line (--source)",
     .act = open_source},
    {.flags = HT_KEY_NOTE,
     .label = "DRAG",
     .help = "memory held after its last use, byte-seconds: from the last use to the\n"
             "last collection that saw the object alive (lo) or to the one that found it\n"
             "dead (hi); sorted by hi. DRAG/OBJ: mean drag time of a dead object, from\n"
             "the midpoint. The last use is the last entry into an instance method of\n"
             "its class: field uses from other classes, arrays, reflection and JNI are\n"
             "not seen (docs/drag.md). Estimates for the whole site: the figures of its\n"
             "tracked objects times samples / tracked (TRACK%'s inverse)"},
    {.flags = HT_KEY_NOTE,
     .label = "LAG, USE, VOID",
     .help = "allocation to first use, first to last use (byte-seconds); VOID: dead\n"
             "objects never used after their constructor (all scaled as DRAG is)"},
    {.flags = HT_KEY_NOTE,
     .label = "TRACK%",
     .help = "share of the site's samples tracked for last use (the rest found every\n"
             "slot of their class taken); DEAD: objects found dead so far, scaled by\n"
             "samples / tracked as DRAG is; the histogram counts the tracked ones"},
    {.flags = HT_KEY_NOTE,
     .label = "D",
     .help = "drag mode on or off: a filter of class-name prefixes, ':' between\n"
             "(org.h2.:com.example.Cache), empty for off"},
    HT_KEYS_END,
};

const ht_screen ht_screen_drag = {
    .name = "drag",
    .title = "drag (memory held after its last use)",
    .help_title = "Drag",
    .filter = HT_FILTER_CLASSES,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .sort = sort,
    .search = search,
    .export = export,
};
