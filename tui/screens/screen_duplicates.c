/*
 * screen_duplicates.c - the groups of duplicate objects of the snapshot on
 * screen (duplicates.h): objects of one class whose content is deeply equal.
 *
 * Owns: the rows shown (one per group, the lens's class filter applied),
 * their sort (wasted bytes, copies, bytes each, class), and, after Enter on a
 * group, who holds its copies (one row per referring class and field: "4,998
 * copies held by demo.Cache$Entry.value") followed by the copies themselves;
 * Enter on a holder opens one of the copies it holds in the reference
 * browser, Enter on a copy opens that copy, Esc returns to the groups; e
 * exports the groups shown with duplicates.csv's columns. UI thread only;
 * the groups were found when the snapshot was read (a job), and the holders
 * of one group are counted on Enter (one pass over its copies' referrers).
 */
#include "heap_rows.h"
#include "list.h"
#include "screen_refs.h"

#include "bytesize.h"
#include "export_csv.h"
#include "values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BY_WASTED, BY_COPIES, BY_EACH, BY_NAME, NSORT };
static const char *const SORT_NAMES[NSORT] = {"WASTED", "COPIES", "EACH", "CLASS"};
#define MAX_COPIES 100000 /* rows of one group's copies */

typedef struct dup_screen {
    const ht_heap *x;
    const uint64_t *gen_now; /* the loop's generation (ht_build_ctx) */
    uint64_t gen;            /* x's */
    char filter[HT_FILTER_MAX_TEXT];
    uint32_t *rows, nrows; /* group indexes */
    int sort, ascending;
    ht_list_pos pos;
    int shown; /* rows of the groups when last drawn (ht_list_fit) */
    /* one group: its holders, then its copies */
    uint32_t group; /* HT_NONE: the groups */
    ht_dup_holder *hold;
    uint32_t nhold, ncopies;
    ht_list_pos dpos;
    int dshown; /* rows of the group when last drawn */
} dup_screen;

static void *create(void)
{
    dup_screen *v = calloc(1, sizeof *v);
    if (v) v->group = HT_NONE;
    return v;
}

static void close_group(dup_screen *v)
{
    free(v->hold);
    v->hold = NULL;
    v->nhold = v->ncopies = 0;
    v->group = HT_NONE;
}

static void destroy(void *self)
{
    dup_screen *v = self;
    close_group(v);
    free(v->rows);
    free(v);
}

static int current(const dup_screen *v)
{
    return v->x && v->gen_now && *v->gen_now == v->gen;
}

static int by_sort(const void *a, const void *b, void *ctx)
{
    const dup_screen *v = ctx;
    const ht_dup_group *g = v->x->dups.groups;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    int c = 0;
    if (v->sort == BY_NAME) {
        c = strcmp(v->x->s.classes[g[i].cls].name, v->x->s.classes[g[j].cls].name);
        if (!v->ascending) c = -c;
    } else {
        uint64_t p = v->sort == BY_WASTED   ? g[i].wasted
                     : v->sort == BY_COPIES ? g[i].copies
                                            : g[i].bytes_each;
        uint64_t q = v->sort == BY_WASTED   ? g[j].wasted
                     : v->sort == BY_COPIES ? g[j].copies
                                            : g[j].bytes_each;
        c = p < q ? 1 : p > q ? -1 : 0;
        if (v->ascending) c = -c;
    }
    return c ? c : (i > j) - (i < j); /* then as found: most wasted first */
}

static void sort_rows(dup_screen *v)
{
    if (v->x && v->nrows > 1) qsort_r(v->rows, v->nrows, sizeof *v->rows, by_sort, v);
}

static int build(void *self, const ht_build_ctx *b)
{
    dup_screen *v = self;
    const ht_heap *x = b->heap;
    const ht_filter *f = &b->lens->class_filter;
    int same = v->x == x && v->gen_now == b->heap_gen && v->gen == *b->heap_gen;
    if (same && strcmp(v->filter, f->text) == 0 && (v->rows || !x)) return 0;
    uint32_t keep = same && v->pos.cursor < v->nrows ? v->rows[v->pos.cursor] : HT_NONE;
    if (!same) {
        close_group(v);
        v->pos = (ht_list_pos){0, 0};
    }
    v->x = x;
    v->gen_now = b->heap_gen;
    v->gen = *b->heap_gen;
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    free(v->rows);
    v->rows = NULL;
    v->nrows = 0;
    if (!x) return 0;
    v->rows = malloc((x->dups.ngroups ? x->dups.ngroups : 1) * sizeof *v->rows);
    if (!v->rows) return -1;
    for (uint32_t i = 0; i < x->dups.ngroups; i++)
        if (ht_filter_match(f, x->s.classes[x->dups.groups[i].cls].name)) v->rows[v->nrows++] = i;
    sort_rows(v);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i] == keep) v->pos.cursor = i;
    return 0;
}

static void draw_groups(dup_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->x;
    uint64_t wasted = 0;
    for (uint32_t i = 0; i < v->nrows; i++)
        wasted += x->dups.groups[v->rows[i]].wasted;
    char title[300], w[32];
    ht_ui_bytes((double)wasted, d->unit, w, sizeof w);
    snprintf(title, sizeof title,
             "%10s %10s %11s  CLASS  CONTENT  (%u groups of equal objects, %s wasted in all, "
             "groups overlap; sorted by %s %s)",
             "COPIES", "EACH", "WASTED", v->nrows, w, SORT_NAMES[v->sort],
             v->ascending ? "^" : "v");
    ht_heap_row(d, 0, 0, title);
    int rows = d->height - 1;
    ht_list_fit(&v->pos, &v->shown, v->nrows, rows);
    if (v->nrows == 0) {
        ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM),
                  x->dups.ngroups ? "  no group's class matches the filter"
                                  : "  no duplicates: no two objects of a class are equal",
                  1);
        return;
    }
    char line[1024], b1[32], b2[32], c[32], label[200], content[400];
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        const ht_dup_group *g = &x->dups.groups[v->rows[i]];
        uint32_t first = x->dups.members[g->first];
        ht_format_count(g->copies, c, sizeof c);
        ht_heap_bytes(d, g->bytes_each, 10, b1, sizeof b1);
        ht_heap_bytes(d, g->wasted, 11, b2, sizeof b2);
        ht_object_label(&x->s, first, label, sizeof label);
        ht_object_content(&x->s, first, content, sizeof content);
        snprintf(line, sizeof line, "%10s %s %s  %s  %s", c, b1, b2, label, content);
        ht_heap_row(d, r + 1, i == v->pos.cursor, line);
    }
    ht_list_more(d, &v->pos, v->nrows, d->top, rows);
}

static uint32_t detail_rows(const dup_screen *v)
{
    return v->nhold + v->ncopies;
}

static void draw_group(dup_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->x;
    const ht_dup_group *g = &x->dups.groups[v->group];
    char title[400], c[32], label[200], b1[32], line[1200], obj[900];
    ht_format_count(g->copies, c, sizeof c);
    ht_object_label(&x->s, x->dups.members[g->first], label, sizeof label);
    snprintf(title, sizeof title,
             "%s copies of one %s: who holds them, then the copies%s  (Enter: open one; Esc: "
             "the groups)",
             c, label, v->ncopies < g->copies ? " (the first shown)" : "");
    ht_heap_row(d, 0, 0, title);
    int rows = d->height - 1;
    uint32_t n = detail_rows(v);
    ht_list_fit(&v->dpos, &v->dshown, n, rows);
    for (int r = 0; r < rows && v->dpos.top + (uint32_t)r < n; r++) {
        uint32_t i = v->dpos.top + (uint32_t)r;
        if (i < v->nhold) {
            ht_format_count(v->hold[i].copies, c, sizeof c);
            snprintf(line, sizeof line, "%10s %s held by %s", c,
                     v->hold[i].copies == 1 ? "copy" : "copies", v->hold[i].name);
        } else {
            uint32_t o = x->dups.members[g->first + (i - v->nhold)];
            ht_heap_bytes(d, x->d.retained[o], 11, b1, sizeof b1);
            ht_heap_object_text(x, o, obj, sizeof obj);
            snprintf(line, sizeof line, "%s  %s", b1, obj);
        }
        ht_heap_row(d, r + 1, i == v->dpos.cursor, line);
    }
    ht_list_more(d, &v->dpos, n, d->top, rows);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    dup_screen *v = self;
    if (!v->x || v->x != d->heap || v->gen != d->heap_gen) {
        ht_heap_none(d);
        return;
    }
    if (v->group != HT_NONE)
        draw_group(v, d);
    else
        draw_groups(v, d);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    dup_screen *v = self;
    if (v->group != HT_NONE) {
        *n = detail_rows(v);
        return &v->dpos;
    }
    *n = v->nrows;
    return &v->pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    dup_screen *v = self;
    if (!current(v) || v->group != HT_NONE) return;
    uint32_t keep = v->pos.cursor < v->nrows ? v->rows[v->pos.cursor] : HT_NONE;
    ht_heap_sort_step(&v->sort, &v->ascending, NSORT, BY_NAME, op);
    sort_rows(v);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i] == keep) v->pos.cursor = i;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const dup_screen *v = ctx;
    return strstr(v->x->s.classes[v->x->dups.groups[v->rows[i]].cls].name, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    dup_screen *v = self;
    if (!current(v) || v->group != HT_NONE) return 0;
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
}

/* --- export: the groups shown, with duplicates.csv's columns --- */

typedef struct dup_export {
    uint32_t n;
    struct {
        char *name, *preview;
        uint64_t copies, each, wasted;
    } * r;
} dup_export;

static void free_export(void *p)
{
    dup_export *e = p;
    for (uint32_t i = 0; e->r && i < e->n; i++)
        free(e->r[i].name), free(e->r[i].preview);
    free(e->r);
    free(e);
}

static void export_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const dup_export *e = ctx;
    ht_csv_field(o, e->r[i].name);
    ht_csv_u64(o, e->r[i].copies);
    ht_csv_u64(o, e->r[i].each);
    ht_csv_u64(o, e->r[i].wasted);
    ht_csv_field(o, e->r[i].preview);
}

static int write_export(const void *p, const ht_store *st, const char *path, const ht_progress *pr)
{
    (void)st;
    static const char *const cols[] = {"class",        "copies",  "bytes_each",
                                       "wasted_bytes", "preview", NULL};
    return ht_csv_write_rows(path, cols, ((const dup_export *)p)->n, export_row, p, pr);
}

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    dup_screen *v = self;
    dup_export *e = calloc(1, sizeof *e);
    if (!e) return -1;
    int live = current(v);
    if (live && v->nrows && !(e->r = calloc(v->nrows, sizeof *e->r))) {
        free(e);
        return -1;
    }
    char preview[200];
    for (uint32_t i = 0; live && i < v->nrows; i++, e->n++) {
        const ht_dup_group *g = &v->x->dups.groups[v->rows[i]];
        ht_object_content(&v->x->s, v->x->dups.members[g->first], preview, sizeof preview);
        e->r[i].name = strdup(v->x->s.classes[g->cls].name);
        e->r[i].preview = strdup(preview);
        e->r[i].copies = g->copies, e->r[i].each = g->bytes_each, e->r[i].wasted = g->wasted;
        if (!e->r[i].name || !e->r[i].preview) {
            e->n++;
            free_export(e);
            return -1;
        }
    }
    req->view = "duplicates";
    snprintf(req->sort, sizeof req->sort, "%s %s", SORT_NAMES[v->sort],
             v->ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = e;
    req->write = write_export;
    req->free_rows = free_export;
    return 0;
}

/* --- keys --- */

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    dup_screen *v = self;
    if (!current(v) || v->x != ht_host_heap(h)) return;
    const ht_dups *g = &v->x->dups;
    if (v->group == HT_NONE) {
        if (v->pos.cursor >= v->nrows) return;
        uint32_t gi = v->rows[v->pos.cursor];
        close_group(v);
        if (ht_dups_holders(&v->x->s, g, gi, &v->hold, &v->nhold) != 0) {
            ht_host_status(h, "out of memory");
            return;
        }
        v->group = gi;
        v->ncopies = g->groups[gi].copies < MAX_COPIES ? g->groups[gi].copies : MAX_COPIES;
        v->dpos = (ht_list_pos){0, 0};
    } else if (v->dpos.cursor < v->nhold) {
        ht_host_browse(h, v->hold[v->dpos.cursor].example);
    } else if (v->dpos.cursor < detail_rows(v)) {
        ht_host_browse(h, g->members[g->groups[v->group].first + v->dpos.cursor - v->nhold]);
    }
}

static void back(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    close_group(self);
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "a group: who holds its copies; a holder or a copy: its references", .act = enter_key},
    {HT_KEYS(27, KEY_BACKSPACE), HT_ALSO(127, 8), .help = "back", .act = back,
     .flags = HT_KEY_RIGHT, .col = 70, .help_col = 80},
    HT_KEYS_END,
};

const ht_screen ht_screen_duplicates = {
    .name = "duplicates",
    .title = "duplicates",
    .help_title = "Duplicate objects",
    .key = '9',
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
