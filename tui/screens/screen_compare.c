/*
 * screen_compare.c - the Compare screen: the snapshot on screen (B) against
 * the one before it (A), class by class: instances and shallow bytes in
 * each, and their change.
 *
 * Owns: the figures of B (compare.h, made from the snapshot on screen), the
 * join with A's (what the loop kept of the snapshot before: `heaptop open A
 * B`, or the snapshot a new one replaced), the rows the class filter leaves
 * (two loaders' classes of one name are one row: compare.h), their sort
 * (the change of bytes, largest growth first, by default; I reverses: the
 * largest shrink first), and the export of the rows as shown (compare.csv's
 * columns). With one snapshot or none it says how to get a second. UI
 * thread only.
 *
 * Its second view (v): the survivors, the agent's sampled objects of the
 * two snapshots joined by sample serial (compare.h, ht_survivors), per
 * allocation site: new since A and alive in B (a mark-and-compare's leak
 * suspects; most new bytes first), alive in both, freed; named from the
 * store (the live run's, or the one `heaptop open` adopted from B's marker),
 * filtered by class name, exported as survivors.csv's columns.
 */
#include "compare.h"
#include "export_compare.h"
#include "heap_list.h"
#include "heap_rows.h"
#include "list.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BY_DBYTES, BY_BYTES_B, BY_DINST, BY_INST_B, BY_NAME, NSORT };
static const char *const SORT_NAMES[NSORT] = {"+/-BYTES", "BYTES B", "+/-INST", "INST B", "CLASS"};
enum { BY_NEW_BYTES, BY_KEPT_BYTES, BY_FREED_BYTES, NSSORT };
static const char *const SSORT_NAMES[NSSORT] = {"NEW BYTES", "KEPT BYTES", "FREED BYTES"};

typedef struct compare_screen {
    ht_heaplist_src src; /* B: the snapshot on screen */
    const ht_heap_figures *a;
    ht_heap_figures b; /* B's figures */
    ht_compare cmp;
    char filter[HT_FILTER_MAX_TEXT];
    ht_heaplist list; /* indexes into cmp.rows */
    /* the survivors view (v) */
    int survivors;
    ht_survivors sv;
    ht_heaplist slist;     /* indexes into sv.v */
    const ht_store *names; /* the sites' names: the loop's store, or own */
    ht_store own;     /* B's run's names from its marker, when the loop's store is another run */
    uint64_t own_gen; /* the heap generation own was made for, + 1 (0: none) */
} compare_screen;

static void *create(void)
{
    compare_screen *v = calloc(1, sizeof *v);
    if (v) ht_store_init(&v->own);
    return v;
}

static void drop_model(compare_screen *v)
{
    ht_compare_free(&v->cmp);
    ht_survivors_free(&v->sv);
    ht_heap_figures_free(&v->b);
    ht_heaplist_free(&v->list);
    ht_heaplist_free(&v->slist);
    v->a = NULL;
}

static void destroy(void *self)
{
    compare_screen *v = self;
    drop_model(v);
    ht_store_free(&v->own);
    free(v);
}

/* The model is of the snapshots the loop holds (a new one frees the old). */
static int current(const compare_screen *v)
{
    return v->a && ht_heaplist_current(&v->src);
}

/* A row's class name: what the filter and the search match. */
static const char *row_name(const void *ctx, uint32_t i)
{
    return ((const compare_screen *)ctx)->cmp.rows[i].name;
}

static const char *site_class(const void *ctx, uint32_t i)
{
    const compare_screen *v = ctx;
    return ht_store_class(v->names, v->sv.v[i].class_id);
}

static int by_sort(const void *p, const void *q, void *ctx)
{
    const compare_screen *v = ctx;
    uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
    const ht_compare_row *x = &v->cmp.rows[i], *y = &v->cmp.rows[j];
    int64_t vx = 0, vy = 0;
    switch (v->list.sort) {
    case BY_DBYTES:
        vx = ht_compare_dbytes(x), vy = ht_compare_dbytes(y);
        break;
    case BY_BYTES_B:
        vx = (int64_t)x->bytes_b, vy = (int64_t)y->bytes_b;
        break;
    case BY_DINST:
        vx = ht_compare_dinst(x), vy = ht_compare_dinst(y);
        break;
    case BY_INST_B:
        vx = (int64_t)x->inst_b, vy = (int64_t)y->inst_b;
        break;
    }
    int c = v->list.sort == BY_NAME ? strcmp(x->name, y->name) /* A to Z first */
                                    : (vx < vy) - (vx > vy);   /* largest first */
    if (v->list.ascending) c = -c;
    if (c == 0) c = strcmp(x->name, y->name);
    return c ? c : (i > j) - (i < j);
}

static double survivor_key(const compare_screen *v, const ht_survivor_site *r)
{
    return v->slist.sort == BY_NEW_BYTES    ? r->fresh_bytes
           : v->slist.sort == BY_KEPT_BYTES ? r->kept_bytes
                                            : r->freed_bytes;
}

static int by_ssort(const void *p, const void *q, void *ctx)
{
    const compare_screen *v = ctx;
    uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
    double x = survivor_key(v, &v->sv.v[i]), y = survivor_key(v, &v->sv.v[j]);
    int c = (x < y) - (x > y); /* largest first */
    if (v->slist.ascending) c = -c;
    return c ? c : (i > j) - (i < j); /* then the join's order */
}

static int build(void *self, const ht_build_ctx *b)
{
    compare_screen *v = self;
    ht_heap *x = b->heap;
    const ht_filter *f = &b->lens->class_filter;
    /* the names of B's run: the loop's store while it holds that run */
    v->names = b->store;
    if (x && !ht_heaprow_same_run(b->store, x)) {
        if (v->own_gen != *b->heap_gen + 1) { /* made once per snapshot */
            ht_store_clear(&v->own);
            ht_store_from_session(&v->own, x->s.sampled.session, x->s.sampled.session_len);
            v->own_gen = *b->heap_gen + 1;
        }
        v->names = &v->own;
    }
    int same = v->a == b->heap_before && ht_heaplist_is(&v->src, x, b->heap_gen);
    if (same && strcmp(v->filter, f->text) == 0) return 0;
    /* the row under the cursor stays under it when only the filter changed */
    uint32_t keep_row = same ? ht_heaplist_at(&v->list) : HT_NONE;
    if (!same) {
        drop_model(v);
        v->list.pos = v->slist.pos = (ht_list_pos){0, 0};
    }
    ht_heaplist_take(&v->src, x, b->heap_gen);
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    if (!x || !b->heap_before) return 0;
    if (!same) {
        v->a = b->heap_before;
        if (ht_heap_figures_of(&v->b, &x->s, x->path) != 0 ||
            ht_compare_build(&v->cmp, v->a, &v->b) != 0 ||
            ht_survivors_build(&v->sv, v->a, &v->b) != 0) {
            drop_model(v);
            return -1;
        }
    }
    if (ht_heaplist_fill(&v->list, v->cmp.nrows, f, row_name, by_sort, v, keep_row) != 0 ||
        ht_heaplist_fill(&v->slist, v->sv.n, f, site_class, by_ssort, v, HT_NONE) != 0)
        return -1;
    return 0;
}

/* A signed figure: "+12", "-3", "0". */
static void signed_count(int64_t d, int width, char *buf, size_t cap)
{
    char t[32];
    snprintf(t, sizeof t, d > 0 ? "+%" PRId64 : "%" PRId64, d);
    snprintf(buf, cap, "%*s", width, t);
}

static void signed_bytes(const ht_draw_ctx *d, int64_t v, int width, char *buf, size_t cap)
{
    char t[32], u[40];
    ht_ui_bytes((double)v, d->unit, t, sizeof t);
    snprintf(u, sizeof u, "%s%s", v > 0 ? "+" : "", t);
    snprintf(buf, cap, "%*s", width, u);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void say(const ht_draw_ctx *d, int r, const char *text)
{
    ht_ui_put(stdscr, d->top + r, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), text, 1);
}

/* An estimate of objects, as a whole number. */
static void est_count(double n, int width, char *buf, size_t cap)
{
    snprintf(buf, cap, "%*.0f", width, n);
}

static void survivor_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const compare_screen *v = ctx;
    const ht_survivor_site *s = &v->sv.v[v->slist.rows[i]];
    char n1[32], n2[32], n3[32], b1[32], b2[32], b3[32], frame[1024];
    est_count(s->fresh_inst, 9, n1, sizeof n1);
    est_count(s->kept_inst, 9, n2, sizeof n2);
    est_count(s->freed_inst, 9, n3, sizeof n3);
    ht_heaprow_bytes(d, (uint64_t)(s->fresh_bytes + 0.5), 10, b1, sizeof b1);
    ht_heaprow_bytes(d, (uint64_t)(s->kept_bytes + 0.5), 10, b2, sizeof b2);
    ht_heaprow_bytes(d, (uint64_t)(s->freed_bytes + 0.5), 11, b3, sizeof b3);
    ht_store_site_name(v->names, s->trace_id, frame, sizeof frame);
    snprintf(line, cap, "%s %s %s %s %s %s  %-28s %s", n1, b1, n2, b2, n3, b3,
             ht_store_class(v->names, s->class_id), frame);
}

static void draw_survivors(compare_screen *v, const ht_draw_ctx *d)
{
    char title[2400], line[1600];
    snprintf(title, sizeof title,
             "survivors, sampled objects by site: A: %s  ->  B: %s  (%u of %u sites; sorted by %s "
             "%s; v: classes)",
             base_name(v->a->path), base_name(v->b.path), v->slist.n, v->sv.n,
             SSORT_NAMES[v->slist.sort], v->slist.ascending ? "^" : "v");
    ht_ui_put(stdscr, d->top, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_VALUE), title, 1);
    if (v->sv.why) {
        say(d, 2, "  no sampled object to follow between these snapshots:");
        char why[600];
        snprintf(why, sizeof why, "  %s", v->sv.why);
        say(d, 3, why);
        return;
    }
    snprintf(line, sizeof line, "%9s %10s %9s %10s %9s %10s  %-28s %s", "NEW OBJ", "NEW BYTES",
             "KEPT OBJ", "KEPT BYTES", "FREED OBJ", "FREED BYTES", "CLASS", "ALLOCATED AT");
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_TITLE), line, 1);
    ht_heaplist_draw(d, &v->slist.pos, &v->slist.shown, v->slist.n, 2,
                     v->sv.n ? "  no site's class matches the filter"
                             : "  no sampled object in either snapshot",
                     survivor_line, v);
}

static void class_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const compare_screen *v = ctx;
    const ht_compare_row *c = &v->cmp.rows[v->list.rows[i]];
    char b1[32], b2[32], b3[40], di[32];
    ht_heaprow_bytes(d, c->bytes_a, 10, b1, sizeof b1);
    ht_heaprow_bytes(d, c->bytes_b, 10, b2, sizeof b2);
    signed_bytes(d, ht_compare_dbytes(c), 11, b3, sizeof b3);
    signed_count(ht_compare_dinst(c), 9, di, sizeof di);
    snprintf(line, cap, "%10" PRIu64 " %10" PRIu64 " %s %s %s %s  %s", c->inst_a, c->inst_b, di, b1,
             b2, b3, c->name);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    compare_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        say(d, 1,
            "  no heap snapshot: press H to take one from the JVM (then H again for a "
            "second to compare), or run heaptop open A.hprof B.hprof");
        return;
    }
    if (!v->a) {
        /* what this kind of session can do: a dump file has no JVM for H */
        say(d, 1, "  one snapshot only; a compare needs two:");
        if (d->no_jvm) {
            say(d, 2, "  heaptop open A.hprof B.hprof (A the older one) compares two files.");
        } else {
            say(d, 2, "  H takes a second one (this one becomes A),");
            say(d, 3, "  or m, then b and E: the marks take one each.");
        }
        return;
    }
    if (v->survivors) {
        draw_survivors(v, d);
        return;
    }
    char title[2400], line[1200];
    snprintf(title, sizeof title, "A: %s  ->  B: %s  (%u of %u classes; sorted by %s %s)",
             base_name(v->a->path), base_name(v->b.path), v->list.n, v->cmp.nrows,
             SORT_NAMES[v->list.sort], v->list.ascending ? "^" : "v");
    ht_ui_put(stdscr, d->top, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_VALUE), title, 1);
    snprintf(line, sizeof line, "%10s %10s %9s %10s %10s %11s  CLASS", "INST A", "INST B",
             "+/-INST", "BYTES A", "BYTES B", "+/-BYTES");
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_TITLE), line, 1);
    ht_heaplist_draw(d, &v->list.pos, &v->list.shown, v->list.n, 2, "  no class matches the filter",
                     class_line, v);
}

/* The view on screen's list: the classes, or the survivors. */
static ht_heaplist *shown(compare_screen *v)
{
    return v->survivors ? &v->slist : &v->list;
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    ht_heaplist *l = shown(self);
    *n = l->n;
    return &l->pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    compare_screen *v = self;
    if (!current(v)) return;
    ht_heaplist *l = shown(v);
    if (op == HT_SORT_LEAK)
        l->sort = v->survivors ? BY_NEW_BYTES : BY_DBYTES, l->ascending = 0;
    else
        ht_heaplist_step(l, op, v->survivors ? NSSORT : NSORT, -1);
    ht_heaplist_resort(l, v->survivors ? by_ssort : by_sort, v);
}

static int survivor_has_text(void *ctx, uint32_t i, const char *text)
{
    const compare_screen *v = ctx;
    const ht_survivor_site *s = &v->sv.v[v->slist.rows[i]];
    char frame[1024];
    ht_store_site_name(v->names, s->trace_id, frame, sizeof frame);
    return strstr(ht_store_class(v->names, s->class_id), text) || strstr(frame, text);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    compare_screen *v = self;
    if (!current(v)) return 0;
    if (v->survivors)
        return ht_list_search(&v->slist.pos, v->slist.n, text, forward, from_cursor,
                              survivor_has_text, v);
    return ht_heaplist_search(&v->list, text, forward, from_cursor, row_name, v);
}

/* --- export: the rows as shown, compare.csv's columns --- */

typedef struct compare_rows {
    uint32_t n;
    ht_compare_row *r; /* names owned: strdup'd */
} compare_rows;

static void free_rows(void *p)
{
    compare_rows *c = p;
    for (uint32_t i = 0; c->r && i < c->n; i++)
        free((char *)c->r[i].name);
    free(c->r);
    free(c);
}

static int write_rows(const void *p, const ht_store *s, const char *path, const ht_progress *pr)
{
    (void)s;
    const compare_rows *c = p;
    return ht_export_compare(c->r, c->n, path, pr);
}

typedef struct survivor_rows {
    uint32_t n;
    ht_survivor_site *v;
    ht_survivor_label *l; /* named here: the job's store has no stacks */
} survivor_rows;

static void free_survivors(void *p)
{
    survivor_rows *c = p;
    ht_survivor_labels_free(c->l, c->n);
    free(c->v);
    free(c);
}

static int write_survivors(const void *p, const ht_store *s, const char *path,
                           const ht_progress *pr)
{
    (void)s;
    const survivor_rows *c = p;
    return ht_export_survivors(c->v, c->l, c->n, path, pr);
}

/* The survivors view's rows as shown, survivors.csv's columns. */
static int export_survivors(compare_screen *v, ht_host *h, ht_export_req *req)
{
    survivor_rows *c = calloc(1, sizeof *c);
    if (!c) return -1;
    uint32_t n = v->slist.n;
    if (current(v) && n) {
        c->v = malloc(n * sizeof *c->v);
        if (!c->v) {
            free(c);
            return -1;
        }
        for (uint32_t i = 0; i < n; i++)
            c->v[i] = v->sv.v[v->slist.rows[i]];
        if (ht_survivor_labels(c->v, n, v->names, &c->l) != 0) {
            free(c->v);
            free(c);
            return -1;
        }
        c->n = n;
    }
    ht_heaplist_export(req, h, "survivors", SSORT_NAMES[v->slist.sort], v->slist.ascending, c,
                       write_survivors, free_survivors);
    return 0;
}

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    compare_screen *v = self;
    if (v->survivors) return export_survivors(v, h, req);
    compare_rows *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (current(v) && v->list.n) {
        c->r = calloc(v->list.n, sizeof *c->r);
        if (!c->r) {
            free(c);
            return -1;
        }
        for (uint32_t i = 0; i < v->list.n; i++, c->n++) {
            c->r[i] = v->cmp.rows[v->list.rows[i]];
            c->r[i].name = strdup(c->r[i].name);
            if (!c->r[i].name) {
                free_rows(c);
                return -1;
            }
        }
    }
    ht_heaplist_export(req, h, "compare", SORT_NAMES[v->list.sort], v->list.ascending, c,
                       write_rows, free_rows);
    return 0;
}

static void key_marks(void *self, ht_host *h, int ch)
{
    (void)self, (void)ch;
    ht_host_toggle_mark_snapshots(h);
}

static void key_view(void *self, ht_host *h, int ch)
{
    (void)ch;
    compare_screen *v = self;
    v->survivors = !v->survivors;
    ht_host_status(h, v->survivors ? "survivors: the agent's sampled objects by allocation site"
                                   : "classes: instances and bytes by class name");
}

static const ht_binding KEYS[] = {
    {HT_KEYS('v'),
     .help = "view: classes, or survivors: the agent's sampled objects by site,\n"
             "new since A and alive in B (leak suspects), kept, freed",
     .act = key_view},
    {HT_KEYS('m'),
     .help = "marks take snapshots, on/off: b and E each take one, E's compared\n"
             "with b's (a full GC each; no asking first)",
     .act = key_marks},
    {.flags = HT_KEY_NOTE,
     .label = "rows",
     .help = "per class name, A (the snapshot before) and B (the one on screen);\n"
             "a new snapshot (H) becomes B, the one it replaces A"},
    HT_KEYS_END,
};

const ht_screen ht_screen_compare = {
    .name = "compare",
    .title = "compare snapshots",
    .help_title = "Compare snapshots",
    .key = '8',
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
