/*
 * screen_dominators.c - the dominator tree of the snapshot on screen.
 *
 * Owns: the rows shown: the objects the virtual root dominates (what the GC
 * roots hold and nothing else does), biggest retained first, each unfolded
 * on request into the objects it dominates, again biggest first, at most
 * MAX_CHILDREN at a time with a row saying how many more there are. Columns:
 * retained size, its share of the reachable heap, shallow size, the object.
 * Right/+ unfolds, Left/- folds (or moves to the parent), Enter opens the
 * object in the reference browser. With a class filter the top rows are the
 * objects of those classes no other such object dominates; e exports the
 * rows shown. UI thread only.
 */
#include "heap_list.h"
#include "heap_rows.h"
#include "list.h"
#include "screen_refs.h"

#include "export_heap.h"
#include "paths.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHILDREN 500
#define MORE         UINT32_MAX /* a row that stands for the children not shown */

typedef struct dom_row {
    uint32_t obj;   /* or MORE */
    uint32_t depth; /* 0 for the root's children */
    uint32_t more;  /* MORE rows: how many are not shown */
    uint8_t open;
} dom_row;

typedef struct dom_screen {
    ht_heaplist_src src;             /* the snapshot the rows are of */
    char filter[HT_FILTER_MAX_TEXT]; /* the class filter the top rows were made with */
    ht_filter f;
    dom_row *rows;
    uint32_t nrows, cap;
    ht_list_pos pos;
    int shown; /* rows of the list when last drawn (ht_list_fit) */
} dom_screen;

static void *create(void)
{
    return calloc(1, sizeof(dom_screen));
}

static void destroy(void *self)
{
    dom_screen *v = self;
    free(v->rows);
    free(v);
}

/* Insert the children of `parent` (HT_ROOT: the root's) after row `at`. */
static int insert_children(dom_screen *v, uint32_t at, uint32_t parent, uint32_t depth)
{
    ht_dominators *d = &v->src.x->d;
    ht_dominators_children(d, parent);
    uint32_t p = parent == HT_ROOT ? d->n : parent;
    uint32_t a = d->child_start[p], b = d->child_start[p + 1];
    uint32_t n = b - a, shown = n < MAX_CHILDREN ? n : MAX_CHILDREN;
    uint32_t add = shown + (n > shown);
    if (v->nrows + add > v->cap) {
        uint32_t cap = (v->nrows + add) * 2 + 64;
        dom_row *r = realloc(v->rows, cap * sizeof *r);
        if (!r) return -1;
        v->rows = r, v->cap = cap;
    }
    memmove(v->rows + at + add, v->rows + at, (v->nrows - at) * sizeof *v->rows);
    uint32_t put = 0;
    for (uint32_t i = 0; i < shown; i++)
        v->rows[at + put++] = (dom_row){d->child[a + i], depth, 0, 0};
    uint32_t rest = n - shown;
    if (rest) v->rows[at + put++] = (dom_row){MORE, depth, rest, 0};
    v->nrows += put;
    return 0;
}

static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const uint64_t *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return r[x] < r[y] ? 1 : r[x] > r[y] ? -1 : (x > y) - (x < y);
}

/* With a class filter the top rows are the objects of those classes that no
 * other such object dominates (what each of them retains is then apart),
 * biggest first: one walk of the tree counting matching ancestors. */
static int filtered_top(dom_screen *v)
{
    const ht_snapshot *s = &v->src.x->s;
    const ht_dominators *d = &v->src.x->d;
    uint8_t *match = calloc(s->nclasses ? s->nclasses : 1, 1);
    uint32_t *node = malloc(((size_t)d->reachable + 1) * sizeof *node);
    uint32_t *next = malloc(((size_t)d->reachable + 1) * sizeof *next);
    uint32_t *top = malloc(((size_t)d->reachable + 1) * sizeof *top);
    int rc = -1;
    if (!match || !node || !next || !top) goto out;
    for (uint32_t c = 0; c < s->nclasses; c++)
        match[c] = (uint8_t)ht_filter_match(&v->f, s->classes[c].name);
    uint32_t sp = 0, ntop = 0, active = 0, n = s->nobjects;
    node[0] = n, next[0] = d->child_start[n], sp = 1;
    while (sp) {
        uint32_t w0 = node[sp - 1];
        if (next[sp - 1] == d->child_start[w0 + 1]) {
            sp--;
            if (w0 != n) {
                uint32_t c = s->kind[w0] == HT_OBJ_CLASS ? s->class_class : s->cls[w0];
                if (c != HT_NONE && match[c]) active--;
            }
            continue;
        }
        uint32_t w = d->child[next[sp - 1]++];
        uint32_t c = s->kind[w] == HT_OBJ_CLASS ? s->class_class : s->cls[w];
        if (c != HT_NONE && match[c]) {
            if (!active) top[ntop++] = w;
            active++;
        }
        node[sp] = w, next[sp] = d->child_start[w], sp++;
    }
    qsort_r(top, ntop, sizeof *top, by_retained_desc, d->retained);
    uint32_t shown = ntop < MAX_CHILDREN ? ntop : MAX_CHILDREN;
    if (shown + 1 > v->cap) {
        dom_row *r = realloc(v->rows, (shown + 1) * sizeof *r);
        if (!r) goto out;
        v->rows = r, v->cap = shown + 1;
    }
    for (uint32_t i = 0; i < shown; i++)
        v->rows[i] = (dom_row){top[i], 0, 0, 0};
    if (ntop > shown) v->rows[shown] = (dom_row){MORE, 0, ntop - shown, 0};
    v->nrows = shown + (ntop > shown);
    rc = 0;
out:
    free(match), free(node), free(next), free(top);
    return rc;
}

static int build(void *self, const ht_build_ctx *b)
{
    dom_screen *v = self;
    const ht_filter *f = &b->lens->class_filter;
    if (ht_heaplist_is(&v->src, b->heap, b->heap_gen) && strcmp(v->filter, f->text) == 0) return 0;
    ht_heaplist_take(&v->src, b->heap, b->heap_gen);
    v->f = *f;
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    v->nrows = 0;
    v->pos = (ht_list_pos){0, 0};
    if (!v->src.x) return 0;
    if (ht_filter_active(&v->f)) return filtered_top(v);
    return insert_children(v, 0, HT_ROOT, 0);
}

static void dom_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const dom_screen *v = ctx;
    const ht_heap *x = v->src.x;
    const dom_row *w = &v->rows[i];
    int indent = (int)(w->depth > 30 ? 30 : w->depth) * 2;
    if (w->obj == MORE) {
        snprintf(line, cap, "%30s %*s... %u more, smaller", "", indent, "", w->more);
        return;
    }
    double heap = x->d.reachable_bytes ? (double)x->d.reachable_bytes : 1;
    char b1[32], b2[32], obj[900];
    uint32_t o = w->obj;
    int has = x->d.child_start[o + 1] > x->d.child_start[o];
    ht_heaprow_bytes(d, x->d.retained[o], 11, b1, sizeof b1);
    ht_heaprow_bytes(d, ht_snapshot_shallow(&x->s, o), 10, b2, sizeof b2);
    ht_heaprow_object_text(x, o, obj, sizeof obj);
    snprintf(line, cap, "%s %5.1f%% %s  %*s%c %s", b1, 100.0 * (double)x->d.retained[o] / heap, b2,
             indent, "", has ? (w->open ? '-' : '+') : ' ', obj);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    dom_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        ht_heaprow_none(d);
        return;
    }
    const ht_heap *x = v->src.x;
    char title[256];
    snprintf(title, sizeof title,
             "%11s %6s %10s  OBJECT  (dominator tree: %u objects reachable, "
             "%u not)",
             "RETAINED", "%HEAP", "SHALLOW", x->d.reachable, x->s.nobjects - x->d.reachable);
    ht_heaprow_row(d, 0, 0, title);
    ht_heaplist_draw(d, &v->pos, &v->shown, v->nrows, 1, NULL, dom_line, v);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    dom_screen *v = self;
    *n = v->nrows;
    return &v->pos;
}

/* The rows under row i (deeper, until the next at its depth or above). */
static uint32_t subtree_end(const dom_screen *v, uint32_t i)
{
    uint32_t j = i + 1;
    while (j < v->nrows && v->rows[j].depth > v->rows[i].depth)
        j++;
    return j;
}

static void unfold(void *self, ht_host *h, int ch)
{
    (void)ch;
    dom_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->pos.cursor >= v->nrows) return;
    dom_row *w = &v->rows[v->pos.cursor];
    const ht_dominators *d = &v->src.x->d;
    if (w->obj == MORE || w->open) return;
    if (d->child_start[w->obj + 1] == d->child_start[w->obj]) return;
    w->open = 1;
    if (insert_children(v, v->pos.cursor + 1, w->obj, w->depth + 1) != 0)
        ht_host_status(h, "out of memory");
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    dom_screen *v = self;
    if (v->pos.cursor >= v->nrows) return;
    dom_row *w = &v->rows[v->pos.cursor];
    if (!w->open) { /* to the parent row */
        for (uint32_t j = v->pos.cursor; j-- > 0;)
            if (v->rows[j].depth < w->depth) {
                v->pos.cursor = j;
                return;
            }
        return;
    }
    uint32_t end = subtree_end(v, v->pos.cursor);
    memmove(v->rows + v->pos.cursor + 1, v->rows + end, (v->nrows - end) * sizeof *v->rows);
    v->nrows -= end - v->pos.cursor - 1;
    w->open = 0;
}

static void open_object(void *self, ht_host *h, int ch)
{
    (void)ch;
    dom_screen *v = self;
    if (ht_heaplist_current(&v->src) && v->pos.cursor < v->nrows &&
        v->rows[v->pos.cursor].obj != MORE)
        ht_host_browse(h, v->rows[v->pos.cursor].obj);
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const dom_screen *v = ctx;
    if (v->rows[i].obj == MORE) return 0;
    char obj[900];
    ht_heaprow_object_text(v->src.x, v->rows[i].obj, obj, sizeof obj);
    return strstr(obj, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    dom_screen *v = self;
    if (!ht_heaplist_current(&v->src)) return 0;
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
}

/* --- export: the rows shown, with their depth in the tree --- */

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    dom_screen *v = self;
    const ht_heap *x = v->src.x;
    int live = ht_heaplist_current(&v->src);
    ht_export_heap_doms *e = ht_export_heap_doms_new(live ? v->nrows : 0);
    if (!e) return -1;
    for (uint32_t i = 0; live && i < v->nrows; i++, e->n++) {
        const dom_row *w = &v->rows[i];
        e->r[i].depth = w->depth;
        if (w->obj == MORE) {
            e->r[i].more = w->more;
            continue;
        }
        e->r[i].id = x->s.ids[w->obj];
        e->r[i].shallow = ht_snapshot_shallow(&x->s, w->obj);
        e->r[i].retained = x->d.retained[w->obj];
        ht_object_label(&x->s, w->obj, e->r[i].label, sizeof e->r[i].label);
    }
    ht_heaplist_export(req, h, "dominators", "RETAINED", 0, e, ht_export_heap_doms_write,
                       ht_export_heap_doms_free);
    return 0;
}

static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_RIGHT, '+'), .help = "unfold", .act = unfold},
    {HT_KEYS(KEY_LEFT, '-'), .help = "fold (or go to the parent)", .act = fold,
     .flags = HT_KEY_RIGHT, .col = 38, .help_col = 49},
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER), .help = "its fields and references",
     .act = open_object},
    HT_KEYS_END,
};

const ht_screen ht_screen_dominators = {
    .name = "dominators",
    .title = "dominators",
    .help_title = "Dominator tree",
    .key = '5',
    .filter = HT_FILTER_CLASSES,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .search = search,
    .export = export,
};
