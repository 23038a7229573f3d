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
#include "export_heap.h"
#include "heap_list.h"
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
    ht_heaplist_src src; /* the snapshot the rows are of */
    char filter[HT_FILTER_MAX_TEXT];
    ht_heaplist list; /* class indexes */
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
    ht_heaplist_free(&v->list);
    free(v->inst);
    free(v);
}

/* A class's name, when it has instances (the others are not listed). */
static const char *class_name(const void *ctx, uint32_t c)
{
    const ht_snapshot *s = &((const heap_screen *)ctx)->src.x->s;
    return s->classes[c].instances ? s->classes[c].name : NULL;
}

static int by_sort(const void *a, const void *b, void *ctx)
{
    const heap_screen *v = ctx;
    const ht_heap *h = v->src.x;
    const ht_snapshot *s = &h->s;
    int sort = v->list.sort, ascending = v->list.ascending;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c;
    uint64_t vx = 0, vy = 0;
    if (sort == BY_RETAINED)
        vx = h->class_retained[x], vy = h->class_retained[y];
    else if (sort == BY_SHALLOW)
        vx = s->classes[x].shallow, vy = s->classes[y].shallow;
    else if (sort == BY_INSTANCES)
        vx = s->classes[x].instances, vy = s->classes[y].instances;
    if (sort == BY_NAME)
        c = strcmp(s->classes[x].name, s->classes[y].name);
    else
        c = vx < vy ? 1 : vx > vy ? -1 : 0; /* largest first */
    if (ascending && sort != BY_NAME) c = -c;
    if (!ascending && sort == BY_NAME) c = -c;
    return c ? c : (x > y) - (x < y);
}

/* Biggest retained first; with sampled_first the agent's sampled ones ahead. */
static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const heap_screen *v = ctx;
    const ht_snapshot *s = &v->src.x->s;
    const uint64_t *r = v->src.x->d.retained;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (v->sampled_first) {
        int sx = ht_sampled_of(s, x) != NULL, sy = ht_sampled_of(s, y) != NULL;
        if (sx != sy) return sy - sx;
    }
    return r[x] < r[y] ? 1 : r[x] > r[y] ? -1 : (x > y) - (x < y);
}

static int build(void *self, const ht_build_ctx *b)
{
    heap_screen *v = self;
    const ht_filter *f = &b->lens->class_filter;
    int same = ht_heaplist_is(&v->src, b->heap, b->heap_gen);
    if (same && strcmp(v->filter, f->text) == 0 && (v->list.rows || !b->heap)) return 0;
    uint32_t keep = same ? ht_heaplist_at(&v->list) : HT_NONE;
    if (!same) {
        v->cls = HT_NONE;
        v->list.pos = (ht_list_pos){0, 0};
    }
    ht_heaplist_take(&v->src, b->heap, b->heap_gen);
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    ht_heaplist_free(&v->list);
    if (!b->heap) return 0;
    return ht_heaplist_fill(&v->list, b->heap->s.nclasses, f, class_name, by_sort, v, keep);
}

static int open_instances(heap_screen *v, uint32_t c)
{
    const ht_heap *x = v->src.x;
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

static void class_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const heap_screen *v = ctx;
    const ht_heap *x = v->src.x;
    uint32_t c = v->list.rows[i];
    const ht_class *k = &x->s.classes[c];
    char b1[32], b2[32], loader[64];
    ht_heaprow_bytes(d, k->shallow, 10, b1, sizeof b1);
    ht_heaprow_bytes(d, x->class_retained[c], 11, b2, sizeof b2);
    ht_heaprow_loader_text(x, c, loader, sizeof loader);
    snprintf(line, cap, "%12" PRIu64 " %s %s %-10.10s %s", k->instances, b1, b2, loader, k->name);
}

static void draw_classes(heap_screen *v, const ht_draw_ctx *d)
{
    char title[160];
    snprintf(title, sizeof title, "%12s %10s %11s %-10s CLASS  (%u classes; sorted by %s %s)",
             "INSTANCES", "SHALLOW", "RETAINED>=", "LOADER", v->list.n, SORT_NAMES[v->list.sort],
             v->list.ascending ? "^" : "v");
    ht_heaprow_row(d, 0, 0, title);
    ht_heaplist_draw(d, &v->list.pos, &v->list.shown, v->list.n, 1, "  no class matches the filter",
                     class_line, v);
}

static void instance_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const heap_screen *v = ctx;
    const ht_heap *x = v->src.x;
    uint32_t o = v->inst[i];
    char b1[32], b2[32], obj[800];
    ht_heaprow_bytes(d, ht_snapshot_shallow(&x->s, o), 10, b1, sizeof b1);
    ht_heaprow_bytes(d, x->d.retained[o], 11, b2, sizeof b2);
    ht_heaprow_object_text(x, o, obj, sizeof obj);
    snprintf(line, cap, "%s %s %s%s", b1, b2, ht_sampled_of(&x->s, o) ? "*" : " ", obj);
}

static void draw_instances(heap_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->src.x;
    char title[600];
    snprintf(title, sizeof title,
             "%10s %11s  INSTANCE OF %s  (%u%s, %sbiggest retained first; %sEsc: "
             "the classes)",
             "SHALLOW", "RETAINED", x->s.classes[v->cls].name, v->ninst,
             v->ninst == MAX_INSTANCES ? " shown" : "", v->sampled_first ? "sampled, then " : "",
             x->s.sampled.present ? "*: sampled by the agent, s: those first; " : "");
    ht_heaprow_row(d, 0, 0, title);
    ht_heaplist_draw(d, &v->ipos, &v->ishown, v->ninst, 1, NULL, instance_line, v);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    heap_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        ht_heaprow_none(d);
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
    *n = v->list.n;
    return &v->list.pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    heap_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->cls != HT_NONE) return;
    ht_heaplist_step(&v->list, op, NSORT, BY_NAME);
    ht_heaplist_resort(&v->list, by_sort, v);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    heap_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->cls != HT_NONE) return 0;
    return ht_heaplist_search(&v->list, text, forward, from_cursor, class_name, v);
}

/* --- export: the class rows as shown (histogram.csv's columns, and the loader) --- */

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    heap_screen *v = self;
    const ht_heap *x = v->src.x;
    int live = ht_heaplist_current(&v->src);
    ht_export_heap_classes *c = ht_export_heap_classes_new(live ? v->list.n : 0);
    if (!c) return -1;
    for (uint32_t i = 0; live && i < v->list.n; i++, c->n++) {
        uint32_t k = v->list.rows[i];
        const ht_class *cl = &x->s.classes[k];
        c->r[i].name = strdup(cl->name);
        if (!c->r[i].name) {
            ht_export_heap_classes_free(c);
            return -1;
        }
        c->r[i].instances = cl->instances;
        c->r[i].shallow = cl->shallow;
        c->r[i].retained = x->class_retained[k];
        ht_heaprow_loader_text(x, k, c->r[i].loader, sizeof c->r[i].loader);
    }
    ht_heaplist_export(req, h, "heap-classes", SORT_NAMES[v->list.sort], v->list.ascending, c,
                       ht_export_heap_classes_write, ht_export_heap_classes_free);
    return 0;
}

/* --- keys --- */

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    heap_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->src.x != ht_host_heap(h)) return;
    if (v->cls == HT_NONE) {
        uint32_t c = ht_heaplist_at(&v->list);
        if (c != HT_NONE && open_instances(v, c) != 0) ht_host_status(h, "out of memory");
    } else if (v->ipos.cursor < v->ninst) {
        ht_host_browse(h, v->inst[v->ipos.cursor]);
    }
}

/* Esc: from the instances to the classes; on the classes, back to the
 * screen that opened them filtered (the Behaviour screen's C), if any. */
static void back(void *self, ht_host *h, int ch)
{
    (void)ch;
    heap_screen *v = self;
    if (v->cls != HT_NONE)
        v->cls = HT_NONE;
    else
        ht_host_back(h);
}

static void sampled_first(void *self, ht_host *h, int ch)
{
    (void)ch;
    heap_screen *v = self;
    if (!ht_heaplist_current(&v->src) || !v->src.x->s.sampled.present) {
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
