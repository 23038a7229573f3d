/*
 * screen_heap.c - the heap classes screen: the snapshot's classes, and the
 * instances of one.
 *
 * Owns: the rows of the class table built from the snapshot on screen (one
 * per class object with instances: two loaders' classes of one name are two
 * rows; the lens's class filter applied), their sort (retained, shallow,
 * instances, name), and, after Enter on a class, that class's instances,
 * biggest retained first (Enter opens one in the reference browser, Esc
 * returns to the classes); those heaptop's agent sampled are marked '*' and
 * come first on 's' (the browser shows where each was allocated). A class's retained size is that
 * of its instances taken together, counted as what none of its other instances dominates: a lower
 * bound, hence the ">=" in the title. UI thread only.
 */
#include "heap_rows.h"
#include "list.h"
#include "screen_refs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BY_RETAINED, BY_SHALLOW, BY_INSTANCES, BY_NAME, NSORT };
static const char *const SORT_NAMES[NSORT] = {"RETAINED", "SHALLOW", "INSTANCES", "CLASS"};
#define MAX_INSTANCES 100000 /* rows of one class's instances */

typedef struct heap_screen {
    const ht_heap *x;        /* the snapshot the rows are of */
    const uint64_t *gen_now; /* the loop's generation (ht_build_ctx) */
    uint64_t gen;            /* x's */
    char filter[HT_FILTER_MAX_TEXT];
    uint32_t *rows, nrows; /* class indexes */
    int sort, ascending;
    ht_list_pos pos;
    int shown; /* rows of the classes when last drawn (ht_list_fit) */
    /* one class's instances */
    uint32_t cls; /* HT_NONE: the classes */
    uint32_t *inst, ninst;
    ht_list_pos ipos;
    int ishown;        /* rows of the instances when last drawn */
    int sampled_first; /* 's': the sampled instances first */
} heap_screen;

static void *create(void)
{
    heap_screen *v = calloc(1, sizeof *v);
    if (v) v->cls = HT_NONE;
    return v;
}

static void destroy(void *self)
{
    heap_screen *v = self;
    free(v->rows);
    free(v->inst);
    free(v);
}

/* The rows are of the snapshot on screen (a new one frees the old). */
static int current(const heap_screen *v)
{
    return v->x && v->gen_now && *v->gen_now == v->gen;
}

static int by_sort(const void *a, const void *b, void *ctx)
{
    const heap_screen *v = ctx;
    const ht_snapshot *s = &v->x->s;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c;
    uint64_t vx = 0, vy = 0;
    if (v->sort == BY_RETAINED)
        vx = v->x->class_retained[x], vy = v->x->class_retained[y];
    else if (v->sort == BY_SHALLOW)
        vx = s->classes[x].shallow, vy = s->classes[y].shallow;
    else if (v->sort == BY_INSTANCES)
        vx = s->classes[x].instances, vy = s->classes[y].instances;
    if (v->sort == BY_NAME)
        c = strcmp(s->classes[x].name, s->classes[y].name);
    else
        c = vx < vy ? 1 : vx > vy ? -1 : 0; /* largest first */
    if (v->ascending && v->sort != BY_NAME) c = -c;
    if (!v->ascending && v->sort == BY_NAME) c = -c;
    return c ? c : (x > y) - (x < y);
}

/* Biggest retained first; with sampled_first the agent's sampled ones ahead. */
static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const heap_screen *v = ctx;
    const uint64_t *r = v->x->d.retained;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (v->sampled_first) {
        int sx = ht_sampled_of(&v->x->s, x) != NULL, sy = ht_sampled_of(&v->x->s, y) != NULL;
        if (sx != sy) return sy - sx;
    }
    return r[x] < r[y] ? 1 : r[x] > r[y] ? -1 : (x > y) - (x < y);
}

static void sort_rows(heap_screen *v)
{
    if (v->x && v->nrows > 1) qsort_r(v->rows, v->nrows, sizeof *v->rows, by_sort, v);
}

static int build(void *self, const ht_build_ctx *b)
{
    heap_screen *v = self;
    const ht_heap *x = b->heap;
    const ht_filter *f = &b->lens->class_filter;
    int same = v->x == x && v->gen_now == b->heap_gen && v->gen == *b->heap_gen;
    if (same && strcmp(v->filter, f->text) == 0 && (v->rows || !x)) return 0;
    uint32_t keep = same && v->pos.cursor < v->nrows ? v->rows[v->pos.cursor] : HT_NONE;
    if (!same) {
        v->cls = HT_NONE;
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
    v->rows = malloc((x->s.nclasses ? x->s.nclasses : 1) * sizeof *v->rows);
    if (!v->rows) return -1;
    for (uint32_t c = 0; c < x->s.nclasses; c++)
        if (x->s.classes[c].instances && ht_filter_match(f, x->s.classes[c].name))
            v->rows[v->nrows++] = c;
    sort_rows(v);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i] == keep) v->pos.cursor = i;
    return 0;
}

static int open_instances(heap_screen *v, uint32_t c)
{
    const ht_heap *x = v->x;
    free(v->inst);
    v->inst = NULL;
    v->ninst = 0;
    v->cls = c;
    v->ipos = (ht_list_pos){0, 0};
    uint64_t count = x->s.classes[c].instances;
    uint32_t *all = malloc(((size_t)count + 1) * sizeof *all);
    if (!all) return -1;
    uint32_t n = 0;
    for (uint32_t o = 0; o < x->s.nobjects && n < count; o++) {
        uint32_t oc = x->s.kind[o] == HT_OBJ_CLASS ? x->s.class_class : x->s.cls[o];
        if (oc == c) all[n++] = o;
    }
    qsort_r(all, n, sizeof *all, by_retained_desc, v);
    v->ninst = n < MAX_INSTANCES ? n : MAX_INSTANCES;
    v->inst = all;
    return 0;
}

static void draw_classes(heap_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->x;
    char line[1024], b1[32], b2[32], title[160];
    snprintf(title, sizeof title, "%12s %10s %11s %-10s CLASS  (%u classes; sorted by %s %s)",
             "INSTANCES", "SHALLOW", "RETAINED>=", "LOADER", v->nrows, SORT_NAMES[v->sort],
             v->ascending ? "^" : "v");
    ht_heap_row(d, 0, 0, title);
    int rows = d->height - 1;
    ht_list_fit(&v->pos, &v->shown, v->nrows, rows);
    if (v->nrows == 0) {
        ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM),
                  "  no class matches the filter", 1);
        return;
    }
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r, c = v->rows[i];
        const ht_class *k = &x->s.classes[c];
        ht_heap_bytes(d, k->shallow, 10, b1, sizeof b1);
        ht_heap_bytes(d, x->class_retained[c], 11, b2, sizeof b2);
        char loader[64];
        ht_heap_loader_text(x, c, loader, sizeof loader);
        snprintf(line, sizeof line, "%12" PRIu64 " %s %s %-10.10s %s", k->instances, b1, b2, loader,
                 k->name);
        ht_heap_row(d, r + 1, i == v->pos.cursor, line);
    }
    ht_list_more(d, &v->pos, v->nrows, d->top, rows);
}

static void draw_instances(heap_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->x;
    char line[1024], b1[32], b2[32], obj[800], title[600];
    snprintf(title, sizeof title,
             "%10s %11s  INSTANCE OF %s  (%u%s, %sbiggest retained first; %sEsc: "
             "the classes)",
             "SHALLOW", "RETAINED", x->s.classes[v->cls].name, v->ninst,
             v->ninst == MAX_INSTANCES ? " shown" : "", v->sampled_first ? "sampled, then " : "",
             x->s.sampled.present ? "*: sampled by the agent, s: those first; " : "");
    ht_heap_row(d, 0, 0, title);
    int rows = d->height - 1;
    ht_list_fit(&v->ipos, &v->ishown, v->ninst, rows);
    for (int r = 0; r < rows && v->ipos.top + (uint32_t)r < v->ninst; r++) {
        uint32_t i = v->ipos.top + (uint32_t)r, o = v->inst[i];
        ht_heap_bytes(d, ht_snapshot_shallow(&x->s, o), 10, b1, sizeof b1);
        ht_heap_bytes(d, x->d.retained[o], 11, b2, sizeof b2);
        ht_heap_object_text(x, o, obj, sizeof obj);
        snprintf(line, sizeof line, "%s %s %s%s", b1, b2, ht_sampled_of(&x->s, o) ? "*" : " ", obj);
        ht_heap_row(d, r + 1, i == v->ipos.cursor, line);
    }
    ht_list_more(d, &v->ipos, v->ninst, d->top, rows);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    heap_screen *v = self;
    if (!v->x || v->x != d->heap || v->gen != d->heap_gen) {
        ht_heap_none(d);
        return;
    }
    if (v->cls != HT_NONE)
        draw_instances(v, d);
    else
        draw_classes(v, d);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    heap_screen *v = self;
    if (v->cls != HT_NONE) {
        *n = v->ninst;
        return &v->ipos;
    }
    *n = v->nrows;
    return &v->pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    heap_screen *v = self;
    if (!current(v) || v->cls != HT_NONE) return;
    uint32_t keep = v->pos.cursor < v->nrows ? v->rows[v->pos.cursor] : HT_NONE;
    ht_heap_sort_step(&v->sort, &v->ascending, NSORT, BY_NAME, op);
    sort_rows(v);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i] == keep) v->pos.cursor = i;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const heap_screen *v = ctx;
    return strstr(v->x->s.classes[v->rows[i]].name, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    heap_screen *v = self;
    if (!current(v) || v->cls != HT_NONE) return 0;
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
}

/* --- export: the class rows as shown (histogram.csv's columns) --- */

typedef struct class_rows {
    uint32_t n;
    struct {
        char *name;
        uint64_t instances, shallow, retained;
        char loader[64];
    } * r;
} class_rows;

static void free_rows(void *p)
{
    class_rows *c = p;
    for (uint32_t i = 0; c->r && i < c->n; i++)
        free(c->r[i].name);
    free(c->r);
    free(c);
}

static void class_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const class_rows *c = ctx;
    ht_csv_field(o, c->r[i].name);
    ht_csv_u64(o, c->r[i].instances);
    ht_csv_u64(o, c->r[i].shallow);
    ht_csv_u64(o, c->r[i].retained);
    ht_csv_field(o, c->r[i].loader);
}

static int write_rows(const void *p, const ht_store *s, const char *path, const ht_progress *pr)
{
    (void)s;
    static const char *const cols[] = {"class",          "instances", "shallow_bytes",
                                       "retained_bytes", "loader",    NULL};
    return ht_csv_write_rows(path, cols, ((const class_rows *)p)->n, class_row, p, pr);
}

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    heap_screen *v = self;
    class_rows *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (current(v) && v->nrows) {
        c->r = calloc(v->nrows, sizeof *c->r);
        if (!c->r) {
            free(c);
            return -1;
        }
        for (uint32_t i = 0; i < v->nrows; i++, c->n++) {
            const ht_class *k = &v->x->s.classes[v->rows[i]];
            c->r[i].name = strdup(k->name);
            if (!c->r[i].name) {
                free_rows(c);
                return -1;
            }
            c->r[i].instances = k->instances;
            c->r[i].shallow = k->shallow;
            c->r[i].retained = v->x->class_retained[v->rows[i]];
            ht_heap_loader_text(v->x, v->rows[i], c->r[i].loader, sizeof c->r[i].loader);
        }
    }
    req->view = "heap-classes";
    snprintf(req->sort, sizeof req->sort, "%s %s", SORT_NAMES[v->sort],
             v->ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = c;
    req->write = write_rows;
    req->free_rows = free_rows;
    return 0;
}

/* --- keys --- */

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    heap_screen *v = self;
    if (!current(v) || v->x != ht_host_heap(h)) return;
    if (v->cls == HT_NONE) {
        if (v->pos.cursor < v->nrows && open_instances(v, v->rows[v->pos.cursor]) != 0)
            ht_host_status(h, "out of memory");
    } else if (v->ipos.cursor < v->ninst) {
        ht_host_browse(h, v->inst[v->ipos.cursor]);
    }
}

static void back(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    heap_screen *v = self;
    v->cls = HT_NONE;
}

static void sampled_first(void *self, ht_host *h, int ch)
{
    (void)ch;
    heap_screen *v = self;
    if (!current(v) || !v->x->s.sampled.present) {
        ht_host_status(h, "no object of this snapshot was sampled by heaptop's agent");
        return;
    }
    v->sampled_first = !v->sampled_first;
    if (v->cls != HT_NONE && open_instances(v, v->cls) != 0) /* all of them, sorted anew */
        ht_host_status(h, "out of memory listing the instances");
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "a class: its instances; an instance: its references", .act = enter_key},
    {HT_KEYS('s'),
     .help = "instances the agent sampled (*) first: the browser shows where each was "
             "allocated",
     .act = sampled_first},
    {HT_KEYS(27, KEY_BACKSPACE), HT_ALSO(127, 8), .help = "back", .act = back,
     .flags = HT_KEY_RIGHT, .col = 70, .help_col = 80},
    HT_KEYS_END,
};

const ht_screen ht_screen_heap = {
    .name = "heap",
    .title = "heap classes",
    .help_title = "Heap classes",
    .key = '4',
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
