/*
 * screen_dominators.c - the dominator tree of the snapshot on screen.
 *
 * Owns: the rows shown: the objects the virtual root dominates (what the GC
 * roots hold and nothing else does), biggest retained first, each unfolded
 * on request into the objects it dominates, again biggest first, at most
 * MAX_CHILDREN at a time with a row saying how many more there are. Columns:
 * retained size, its share of the reachable heap, shallow size, the object.
 * Right/+ unfolds, Left/- folds (or moves to the parent), Enter opens the
 * object in the reference browser. UI thread only.
 */
#include "heap_rows.h"
#include "screen_refs.h"

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
    ht_heap *x;
    dom_row *rows;
    uint32_t nrows, cap;
    ht_list_pos pos;
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
    ht_dominators *d = &v->x->d;
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
    for (uint32_t i = 0; i < shown; i++)
        v->rows[at + i] = (dom_row){d->child[a + i], depth, 0, 0};
    if (n > shown) v->rows[at + shown] = (dom_row){MORE, depth, n - shown, 0};
    v->nrows += add;
    return 0;
}

static int build(void *self, const ht_build_ctx *b)
{
    dom_screen *v = self;
    if (v->x == b->heap) return 0;
    v->x = b->heap;
    v->nrows = 0;
    v->pos = (ht_list_pos){0, 0};
    if (!v->x) return 0;
    return insert_children(v, 0, HT_ROOT, 0);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    dom_screen *v = self;
    if (!v->x || v->x != d->heap) {
        ht_heap_none(d);
        return;
    }
    const ht_heap *x = v->x;
    char title[256];
    snprintf(title, sizeof title,
             "%11s %6s %10s  OBJECT  (dominator tree: %u objects reachable, "
             "%u not)",
             "RETAINED", "%HEAP", "SHALLOW", x->d.reachable, x->s.nobjects - x->d.reachable);
    ht_heap_row(d, 0, 0, title);
    int rows = d->height - 1;
    ht_list_clamp(&v->pos, v->nrows, rows);
    double heap = x->d.reachable_bytes ? (double)x->d.reachable_bytes : 1;
    char line[1200], b1[32], b2[32], obj[900];
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        const dom_row *w = &v->rows[i];
        int indent = (int)(w->depth > 30 ? 30 : w->depth) * 2;
        if (w->obj == MORE) {
            snprintf(line, sizeof line, "%30s %*s... %u more, smaller", "", indent, "", w->more);
        } else {
            uint32_t o = w->obj;
            int has = x->d.child_start[o + 1] > x->d.child_start[o];
            ht_heap_bytes(d, x->d.retained[o], 11, b1, sizeof b1);
            ht_heap_bytes(d, ht_snapshot_shallow(&x->s, o), 10, b2, sizeof b2);
            ht_heap_object_text(x, o, obj, sizeof obj);
            snprintf(line, sizeof line, "%s %5.1f%% %s  %*s%c %s", b1,
                     100.0 * (double)x->d.retained[o] / heap, b2, indent, "",
                     has ? (w->open ? '-' : '+') : ' ', obj);
        }
        ht_heap_row(d, r + 1, i == v->pos.cursor, line);
    }
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
    if (!v->x || v->pos.cursor >= v->nrows) return;
    dom_row *w = &v->rows[v->pos.cursor];
    if (w->obj == MORE || w->open) return;
    if (v->x->d.child_start[w->obj + 1] == v->x->d.child_start[w->obj]) return;
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
    if (v->x && v->pos.cursor < v->nrows && v->rows[v->pos.cursor].obj != MORE)
        ht_host_browse(h, v->rows[v->pos.cursor].obj);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    dom_screen *v = self;
    if (!v->x) return 0;
    uint32_t nrows = v->nrows, c = v->pos.cursor;
    char obj[900];
    for (uint32_t k = from_cursor ? 0 : 1; nrows && k <= nrows; k++) {
        uint32_t i = forward ? (c + k) % nrows : (c + nrows - k % nrows) % nrows;
        if (v->rows[i].obj == MORE) continue;
        ht_heap_object_text(v->x, v->rows[i].obj, obj, sizeof obj);
        if (strstr(obj, text)) {
            v->pos.cursor = i;
            return 1;
        }
    }
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
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .search = search,
};
