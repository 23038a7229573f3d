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

#include <inttypes.h>
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
    free(v->classes);
    free(v);
}

/* An entry of sites[] (a site's ht_row_key, or in the class view an index
 * into classes) as counted (*raw) and as estimates (*est); 0 when its site
 * is gone (a sync without it). */
static int row_of(const drag_screen *v, const ht_store *s, uint64_t e, const ht_drag_row_rec **raw,
                  ht_drag_row_rec *est)
{
    if (v->by_class) {
        if (e >= v->nclasses) return 0;
        *raw = &v->classes[e].raw;
        *est = v->classes[e].est;
        return 1;
    }
    const ht_drag_row_rec *r = ht_store_drag_row(s, (uint32_t)(e >> 32), (uint32_t)e);
    if (!r) return 0;
    *raw = r;
    ht_drag_row_estimate(r, est);
    return 1;
}

/* A site's name, or a class's: "app.Rec  (3 sites)". */
static void name_of(const drag_screen *v, const ht_store *s, uint64_t e, const ht_drag_row_rec *raw,
                    char *out, size_t n)
{
    if (v->by_class)
        snprintf(out, n, "%s  (%" PRIu32 " site%s)", ht_store_class(s, raw->class_id),
                 v->classes[e].sites, v->classes[e].sites == 1 ? "" : "s");
    else
        ht_drag_site_name(s, raw, out, n);
}

/* Row i's key, kept across builds: a site's ht_row_key, a class's id with
 * the top bit set. */
static uint64_t row_key(const drag_screen *v, uint32_t i)
{
    if (i >= v->n) return UINT64_MAX;
    return v->by_class ? 1ull << 63 | v->classes[v->sites[i]].raw.class_id : v->sites[i];
}

static uint64_t cursor_site(const drag_screen *v)
{
    return row_key(v, v->pos.cursor);
}

static uint32_t index_of(const drag_screen *v, uint64_t key)
{
    for (uint32_t i = 0; key != UINT64_MAX && i < v->n; i++)
        if (row_key(v, i) == key) return i;
    return UINT32_MAX;
}

static void find_site(drag_screen *v, uint64_t key)
{
    uint32_t i = index_of(v, key);
    if (i != UINT32_MAX) v->pos.cursor = i;
}

typedef struct sort_ctx {
    const drag_screen *v;
    const ht_store *s;
    int sort, ascending;
} sort_ctx;

static int by_sort(const void *a, const void *b, void *ctx)
{
    const sort_ctx *c = ctx;
    uint64_t ka = *(const uint64_t *)a, kb = *(const uint64_t *)b;
    const ht_drag_row_rec *rx, *ry;
    ht_drag_row_rec ex, ey; /* ranked by the estimates, as shown */
    if (!row_of(c->v, c->s, ka, &rx, &ex)) memset(&ex, 0, sizeof ex), rx = &ex;
    if (!row_of(c->v, c->s, kb, &ry, &ey)) memset(&ey, 0, sizeof ey), ry = &ey;
    const ht_drag_row_rec *x = &ex, *y = &ey;
    int r = 0;
    if (c->sort == DRAG_SORT_NAME) {
        char nx[1200], ny[1200];
        name_of(c->v, c->s, ka, rx, nx, sizeof nx);
        name_of(c->v, c->s, kb, ry, ny, sizeof ny);
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
    uint64_t keep = v->pos.cursor ? cursor_site(v) : UINT64_MAX; /* on the first row: stay there */
    sort_ctx c = {.v = v, .s = s, .sort = v->sort, .ascending = v->ascending};
    qsort_r(v->sites, v->n, sizeof *v->sites, by_sort, &c);
    find_site(v, keep);
}

typedef struct keep_ctx {
    const ht_store *s;
    const ht_filter *f;
} keep_ctx;

static int keep_class(void *ctx, uint32_t class_id)
{
    const keep_ctx *k = ctx;
    return ht_filter_match(k->f, ht_store_class(k->s, class_id));
}

/* The rows of the view (sites, or classes) through the lens's class filter,
 * sorted, the cursor kept on its row. */
static int rebuild(drag_screen *v, const ht_store *s, const ht_lens *lens)
{
    uint64_t keep = v->pos.cursor ? cursor_site(v) : UINT64_MAX; /* on the first row: stay there */
    if (s->ndrag_rows > v->cap) {
        uint64_t *n = realloc(v->sites, (size_t)s->ndrag_rows * sizeof *n);
        if (!n) return -1;
        v->sites = n;
        v->cap = s->ndrag_rows;
    }
    v->n = 0;
    const ht_filter *f = &lens->class_filter;
    if (v->by_class) {
        free(v->classes);
        keep_ctx k = {.s = s, .f = f};
        int n = ht_drag_class_sums(s, ht_filter_active(f) ? keep_class : NULL, &k, &v->classes);
        v->nclasses = n > 0 ? (uint32_t)n : 0;
        if (n < 0) return -1;
        for (uint32_t i = 0; i < v->nclasses; i++)
            v->sites[v->n++] = i;
    }
    for (uint32_t i = 0; !v->by_class && i < s->ndrag_rows; i++) {
        const ht_drag_row_rec *r = &s->drag_rows[i];
        if (ht_filter_active(f) && !ht_filter_match(f, ht_store_class(s, r->class_id))) continue;
        v->sites[v->n++] = ht_row_key(r->trace_id, r->class_id);
    }
    sort_rows(v, s);
    find_site(v, keep);
    if (v->hist && index_of(v, v->hist_site) == UINT32_MAX) v->hist = 0; /* a sync without it */
    return 0;
}

static int build(void *self, const ht_build_ctx *b)
{
    return rebuild(self, b->store, b->lens);
}

/* --- drawing --- */

/* Why there is no row. */
static void empty_text(const ht_draw_ctx *d, char *out, size_t n)
{
    const ht_store *s = d->store;
    if (s->ndrag_rows) {
        snprintf(out, n, "  no site matches the class filter");
    } else if (!s->drag.known && !d->no_jvm) {
        snprintf(out, n, "  waiting for the agent's drag mode state");
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
    ht_drag_title_row(&cols, v->sort, v->ascending, v->n, v->by_class ? "CLASS" : "SITE", line,
                      sizeof line);
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
        const ht_drag_row_rec *row;
        ht_drag_row_rec est;
        if (!row_of(v, s, v->sites[i], &row, &est)) continue;
        char name[1200];
        name_of(v, s, v->sites[i], row, name, sizeof name);
        ht_drag_row_text(&cols, d, &est, name, v->by_class, line, sizeof line);
        ht_color role = row->dead ? HT_C_NORMAL : HT_C_DIM;
        ht_ui_put(stdscr, top + 2 + r, 0, ui->cols,
                  ht_ui_attr(ui, i == v->pos.cursor ? HT_C_SELECTED : role), line, 1);
    }
    ht_list_more(d, &v->pos, v->n, top + 1, rows);
    if (whole) {
        const ht_drag_row_rec *row;
        ht_drag_row_rec est;
        char name[1200] = "";
        if (v->pos.cursor < v->n && row_of(v, s, v->sites[v->pos.cursor], &row, &est))
            name_of(v, s, v->sites[v->pos.cursor], row, name, sizeof name);
        snprintf(line, sizeof line, " %s", name);
        ht_ui_put(stdscr, top + 2 + rows, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    }
}

static void draw(void *self, const ht_draw_ctx *d)
{
    drag_screen *v = self;
    uint32_t i = v->hist ? index_of(v, v->hist_site) : UINT32_MAX;
    const ht_drag_row_rec *row;
    ht_drag_row_rec est;
    if (i != UINT32_MAX && row_of(v, d->store, v->sites[i], &row, &est)) {
        char name[1200];
        name_of(v, d->store, v->sites[i], row, name, sizeof name);
        ht_drag_hist_draw(d, row, &est, name, v->by_class ? v->classes[v->sites[i]].sites : 0);
    } else {
        draw_list(v, d);
    }
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

/* The row under the cursor (or the histogram's), as counted, or NULL (said
 * on the status line). */
static const ht_drag_row_rec *cursor_row(const drag_screen *v, ht_host *h, const char *what)
{
    uint32_t i = v->hist ? index_of(v, v->hist_site) : v->pos.cursor;
    const ht_drag_row_rec *r;
    ht_drag_row_rec est;
    if (i < v->n && row_of(v, ht_host_store(h), v->sites[i], &r, &est)) return r;
    ht_host_status(h, "%s: select a %s first", what, v->by_class ? "class" : "site");
    return NULL;
}

/* The site's allocating frame, or 0 (said on the status line). */
static int site_frame(const drag_screen *v, ht_host *h, const char *what, ht_frame_rec *f)
{
    if (v->by_class) {
        ht_host_status(h, "%s: a class has many sites; g shows the sites", what);
        return 0;
    }
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
    if (!cursor_row(v, h, "Enter shows a row's drag times")) return;
    v->hist = 1;
    v->hist_site = cursor_site(v);
}

static void group(void *self, ht_host *h, int ch)
{
    (void)ch;
    drag_screen *v = self;
    v->by_class = !v->by_class;
    v->hist = 0;
    v->pos = (ht_list_pos){0};
    v->n = 0; /* sites[] held the other view's entries: no cursor to keep */
    if (rebuild(v, ht_host_store(h), ht_host_lens(h)) != 0) {
        ht_host_status(h, "out of memory");
        return;
    }
    ht_host_status(h, v->by_class ? "one row per class: its sites summed (g: the sites)"
                                  : "one row per allocation site (g: per class)");
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
    drag_screen *v = self;
    const ht_drag_row_rec *r = cursor_row(v, h, "x");
    const ht_strace *t = r ? ht_store_trace(ht_host_store(h), r->trace_id) : NULL;
    ht_jump j = {.to = &ht_screen_tree, .from = &ht_screen_drag, .has_frame = 1, .frame = f};
    if (t && t->depth <= HT_JUMP_STACK_MAX) { /* the site's own path, not the frame's first */
        j.depth = t->depth;
        j.class_id = r->class_id;
        memcpy(j.stack, t->frames, t->depth * sizeof *t->frames);
    }
    v->hist = 0;
    ht_host_open_next(h, &ht_screen_tree); /* Esc there comes back here */
    ht_jump_send(h, &j);
}

/* Esc in the tree x opened: back here. */
static void back_from_tree(void *self, ht_host *h, int ch)
{
    (void)self, (void)ch;
    ht_host_back(h);
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
    const ht_drag_row_rec *r;
    ht_drag_row_rec est;
    char name[1200];
    if (!row_of(c->v, c->s, c->v->sites[i], &r, &est)) return 0;
    name_of(c->v, c->s, c->v->sites[i], r, name, sizeof name);
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
    for (uint32_t i = 0; i < v->n; i++) /* class ids in the class view */
        e->sites[i] = v->by_class ? v->classes[v->sites[i]].raw.class_id : v->sites[i];
    e->how = (ht_drag_export){.sites = e->sites, .nsites = v->n, .by_class = v->by_class};
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
    {HT_KEYS('x'), .help = "the allocation tree (1) at the site's allocating frame (Esc: back)",
     .act = to_tree},
    {HT_KEYS(27), .act = back_from_tree, .flags = HT_KEY_ABOVE | HT_KEY_CHILD},
    {HT_KEYS('o'), .help = "open the site's allocating frame at its line (--source)",
     .act = open_source},
    {HT_KEYS('g'), .help = "one row per class (its sites summed), or per site", .act = group},
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
     .help = "taken in (just after the sample) to first use, first to last use\n"
             "(byte-seconds); VOID: dead objects with no use seen once taken in (the\n"
             "collector takes a sample in up to 100 ms after its allocation: uses\n"
             "before are not seen) (all scaled as DRAG is)"},
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
