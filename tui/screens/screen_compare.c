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
    const ht_heap *x;        /* B: the snapshot on screen */
    const uint64_t *gen_now; /* the loop's generation (ht_build_ctx) */
    uint64_t gen;            /* x's */
    const ht_heap_figures *a;
    ht_heap_figures b; /* x's figures */
    ht_compare cmp;
    char filter[HT_FILTER_MAX_TEXT];
    uint32_t *rows, nrows; /* indexes into cmp.rows, as the filter leaves them, sorted */
    int sort, ascending;
    ht_list_pos pos;
    int shown; /* rows of the classes when last drawn (ht_list_fit) */
    /* the survivors view (v) */
    int survivors;
    ht_survivors sv;
    uint32_t *srows, nsrows; /* indexes into sv.v, as the filter leaves them, sorted */
    int ssort, sascending;
    ht_list_pos spos;
    int sshown;            /* rows of the survivors when last drawn */
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
    free(v->rows);
    free(v->srows);
    v->rows = v->srows = NULL;
    v->nrows = v->nsrows = 0;
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
    return v->x && v->a && v->gen_now && *v->gen_now == v->gen;
}

static int by_sort(const void *p, const void *q, void *ctx)
{
    const compare_screen *v = ctx;
    uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
    const ht_compare_row *x = &v->cmp.rows[i], *y = &v->cmp.rows[j];
    int64_t vx = 0, vy = 0;
    switch (v->sort) {
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
    int c = v->sort == BY_NAME ? strcmp(x->name, y->name) /* A to Z first */
                               : (vx < vy) - (vx > vy);   /* largest first */
    if (v->ascending) c = -c;
    if (c == 0) c = strcmp(x->name, y->name);
    return c ? c : (i > j) - (i < j);
}

static double survivor_key(const compare_screen *v, const ht_survivor_site *r)
{
    return v->ssort == BY_NEW_BYTES    ? r->fresh_bytes
           : v->ssort == BY_KEPT_BYTES ? r->kept_bytes
                                       : r->freed_bytes;
}

static int by_ssort(const void *p, const void *q, void *ctx)
{
    const compare_screen *v = ctx;
    uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
    double x = survivor_key(v, &v->sv.v[i]), y = survivor_key(v, &v->sv.v[j]);
    int c = (x < y) - (x > y); /* largest first */
    if (v->sascending) c = -c;
    return c ? c : (i > j) - (i < j); /* then the join's order */
}

static void sort_rows(compare_screen *v)
{
    if (v->nrows > 1) qsort_r(v->rows, v->nrows, sizeof *v->rows, by_sort, v);
    if (v->nsrows > 1) qsort_r(v->srows, v->nsrows, sizeof *v->srows, by_ssort, v);
}

/* The survivor sites whose class the filter leaves. */
static int filter_survivors(compare_screen *v, const ht_filter *f, const ht_store *st)
{
    free(v->srows);
    v->nsrows = 0;
    v->srows = malloc((v->sv.n ? v->sv.n : 1) * sizeof *v->srows);
    if (!v->srows) return -1;
    for (uint32_t i = 0; i < v->sv.n; i++)
        if (ht_filter_match(f, ht_store_class(st, v->sv.v[i].class_id))) v->srows[v->nsrows++] = i;
    return 0;
}

static int build(void *self, const ht_build_ctx *b)
{
    compare_screen *v = self;
    const ht_heap *x = b->heap;
    const ht_filter *f = &b->lens->class_filter;
    /* the names of B's run: the loop's store while it holds that run */
    v->names = b->store;
    if (x && !ht_heap_same_run(b->store, x)) {
        if (v->own_gen != *b->heap_gen + 1) { /* made once per snapshot */
            ht_store_clear(&v->own);
            ht_store_from_session(&v->own, x->s.sampled.session, x->s.sampled.session_len);
            v->own_gen = *b->heap_gen + 1;
        }
        v->names = &v->own;
    }
    int same =
        v->x == x && v->a == b->heap_before && v->gen_now == b->heap_gen && v->gen == *b->heap_gen;
    if (same && strcmp(v->filter, f->text) == 0) return 0;
    /* the row under the cursor stays under it when only the filter changed */
    uint32_t keep_row = same && v->pos.cursor < v->nrows ? v->rows[v->pos.cursor] : UINT32_MAX;
    if (!same) {
        drop_model(v);
        v->pos = v->spos = (ht_list_pos){0, 0};
    }
    v->x = x;
    v->gen_now = b->heap_gen;
    v->gen = *b->heap_gen;
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
    free(v->rows);
    v->nrows = 0;
    v->rows = malloc((v->cmp.nrows ? v->cmp.nrows : 1) * sizeof *v->rows);
    if (!v->rows) return -1;
    for (uint32_t i = 0; i < v->cmp.nrows; i++)
        if (ht_filter_match(f, v->cmp.rows[i].name)) v->rows[v->nrows++] = i;
    if (filter_survivors(v, f, v->names) != 0) return -1;
    sort_rows(v);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i] == keep_row) v->pos.cursor = i;
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

static void draw_survivors(compare_screen *v, const ht_draw_ctx *d)
{
    char title[2400], line[1600];
    snprintf(title, sizeof title,
             "survivors, sampled objects by site: A: %s  ->  B: %s  (%u of %u sites; sorted by %s "
             "%s; v: classes)",
             base_name(v->a->path), base_name(v->b.path), v->nsrows, v->sv.n, SSORT_NAMES[v->ssort],
             v->sascending ? "^" : "v");
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
    int rows = d->height - 2;
    ht_list_fit(&v->spos, &v->sshown, v->nsrows, rows);
    if (v->nsrows == 0) {
        say(d, 2,
            v->sv.n ? "  no site's class matches the filter"
                    : "  no sampled object in either snapshot");
        return;
    }
    char n1[32], n2[32], n3[32], b1[32], b2[32], b3[32], frame[1024];
    for (int r = 0; r < rows && v->spos.top + (uint32_t)r < v->nsrows; r++) {
        uint32_t i = v->spos.top + (uint32_t)r;
        const ht_survivor_site *s = &v->sv.v[v->srows[i]];
        est_count(s->fresh_inst, 9, n1, sizeof n1);
        est_count(s->kept_inst, 9, n2, sizeof n2);
        est_count(s->freed_inst, 9, n3, sizeof n3);
        ht_heap_bytes(d, (uint64_t)(s->fresh_bytes + 0.5), 10, b1, sizeof b1);
        ht_heap_bytes(d, (uint64_t)(s->kept_bytes + 0.5), 10, b2, sizeof b2);
        ht_heap_bytes(d, (uint64_t)(s->freed_bytes + 0.5), 11, b3, sizeof b3);
        ht_store_site_name(v->names, s->trace_id, frame, sizeof frame);
        snprintf(line, sizeof line, "%s %s %s %s %s %s  %-28s %s", n1, b1, n2, b2, n3, b3,
                 ht_store_class(v->names, s->class_id), frame);
        ht_heap_row(d, r + 2, i == v->spos.cursor, line);
    }
    ht_list_more(d, &v->spos, v->nsrows, d->top + 1, rows);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    compare_screen *v = self;
    if (!v->x || v->x != d->heap || v->gen != d->heap_gen) {
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
             base_name(v->a->path), base_name(v->b.path), v->nrows, v->cmp.nrows,
             SORT_NAMES[v->sort], v->ascending ? "^" : "v");
    ht_ui_put(stdscr, d->top, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_VALUE), title, 1);
    snprintf(line, sizeof line, "%10s %10s %9s %10s %10s %11s  CLASS", "INST A", "INST B",
             "+/-INST", "BYTES A", "BYTES B", "+/-BYTES");
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_TITLE), line, 1);
    int rows = d->height - 2;
    ht_list_fit(&v->pos, &v->shown, v->nrows, rows);
    if (v->nrows == 0) {
        say(d, 2, "  no class matches the filter");
        return;
    }
    char b1[32], b2[32], b3[40], di[32];
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        const ht_compare_row *c = &v->cmp.rows[v->rows[i]];
        ht_heap_bytes(d, c->bytes_a, 10, b1, sizeof b1);
        ht_heap_bytes(d, c->bytes_b, 10, b2, sizeof b2);
        signed_bytes(d, ht_compare_dbytes(c), 11, b3, sizeof b3);
        signed_count(ht_compare_dinst(c), 9, di, sizeof di);
        snprintf(line, sizeof line, "%10" PRIu64 " %10" PRIu64 " %s %s %s %s  %s", c->inst_a,
                 c->inst_b, di, b1, b2, b3, c->name);
        ht_heap_row(d, r + 2, i == v->pos.cursor, line);
    }
    ht_list_more(d, &v->pos, v->nrows, d->top + 1, rows);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    compare_screen *v = self;
    *n = v->survivors ? v->nsrows : v->nrows;
    return v->survivors ? &v->spos : &v->pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    compare_screen *v = self;
    if (!current(v)) return;
    /* the view on screen: its key, order, rows and cursor */
    int *key = v->survivors ? &v->ssort : &v->sort;
    int *asc = v->survivors ? &v->sascending : &v->ascending;
    uint32_t n, *rows = v->survivors ? v->srows : v->rows;
    ht_list_pos *pos = list(v, &n);
    uint32_t keep = pos->cursor < n ? rows[pos->cursor] : UINT32_MAX;
    if (op == HT_SORT_LEAK)
        *key = v->survivors ? BY_NEW_BYTES : BY_DBYTES, *asc = 0;
    else
        ht_heap_sort_step(key, asc, v->survivors ? NSSORT : NSORT, -1, op);
    sort_rows(v);
    for (uint32_t i = 0; i < n; i++)
        if (rows[i] == keep) pos->cursor = i;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const compare_screen *v = ctx;
    return strstr(v->cmp.rows[v->rows[i]].name, text) != NULL;
}

static int survivor_has_text(void *ctx, uint32_t i, const char *text)
{
    const compare_screen *v = ctx;
    const ht_survivor_site *s = &v->sv.v[v->srows[i]];
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
        return ht_list_search(&v->spos, v->nsrows, text, forward, from_cursor, survivor_has_text,
                              v);
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
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
    if (current(v) && v->nsrows) {
        c->v = malloc(v->nsrows * sizeof *c->v);
        if (!c->v) {
            free(c);
            return -1;
        }
        for (uint32_t i = 0; i < v->nsrows; i++)
            c->v[i] = v->sv.v[v->srows[i]];
        if (ht_survivor_labels(c->v, v->nsrows, v->names, &c->l) != 0) {
            free(c->v);
            free(c);
            return -1;
        }
        c->n = v->nsrows;
    }
    req->view = "survivors";
    snprintf(req->sort, sizeof req->sort, "%s %s", SSORT_NAMES[v->ssort],
             v->sascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = c;
    req->write = write_survivors;
    req->free_rows = free_survivors;
    return 0;
}

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    compare_screen *v = self;
    if (v->survivors) return export_survivors(v, h, req);
    compare_rows *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (current(v) && v->nrows) {
        c->r = calloc(v->nrows, sizeof *c->r);
        if (!c->r) {
            free(c);
            return -1;
        }
        for (uint32_t i = 0; i < v->nrows; i++, c->n++) {
            c->r[i] = v->cmp.rows[v->rows[i]];
            c->r[i].name = strdup(c->r[i].name);
            if (!c->r[i].name) {
                free_rows(c);
                return -1;
            }
        }
    }
    req->view = "compare";
    snprintf(req->sort, sizeof req->sort, "%s %s", SORT_NAMES[v->sort],
             v->ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = c;
    req->write = write_rows;
    req->free_rows = free_rows;
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
