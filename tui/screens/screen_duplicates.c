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
#include "heap_list.h"
#include "heap_rows.h"
#include "list.h"
#include "screen_refs.h"

#include "bytesize.h"
#include "export_heap.h"
#include "values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BY_WASTED, BY_COPIES, BY_EACH, BY_NAME, NSORT };
static const char *const SORT_NAMES[NSORT] = {"WASTED", "COPIES", "EACH", "CLASS"};
#define MAX_COPIES 100000 /* rows of one group's copies */

typedef struct dup_screen {
    ht_heaplist_src src; /* the snapshot the rows are of */
    char filter[HT_FILTER_MAX_TEXT];
    ht_heaplist list; /* group indexes */
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
    ht_heaplist_free(&v->list);
    free(v);
}

/* A group's class name: what the filter and the search match. */
static const char *group_name(const void *ctx, uint32_t g)
{
    const ht_heap *x = ((const dup_screen *)ctx)->src.x;
    return x->s.classes[x->dups.groups[g].cls].name;
}

static int by_sort(const void *a, const void *b, void *ctx)
{
    const dup_screen *v = ctx;
    const ht_dup_group *g = v->src.x->dups.groups;
    int sort = v->list.sort;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    int c = 0;
    if (sort == BY_NAME) {
        c = strcmp(group_name(v, i), group_name(v, j));
        if (!v->list.ascending) c = -c;
    } else {
        uint64_t p = sort == BY_WASTED   ? g[i].wasted
                     : sort == BY_COPIES ? g[i].copies
                                         : g[i].bytes_each;
        uint64_t q = sort == BY_WASTED   ? g[j].wasted
                     : sort == BY_COPIES ? g[j].copies
                                         : g[j].bytes_each;
        c = p < q ? 1 : p > q ? -1 : 0;
        if (v->list.ascending) c = -c;
    }
    return c ? c : (i > j) - (i < j); /* then as found: most wasted first */
}

static int build(void *self, const ht_build_ctx *b)
{
    dup_screen *v = self;
    const ht_filter *f = &b->lens->class_filter;
    int same = ht_heaplist_is(&v->src, b->heap, b->heap_gen);
    if (same && strcmp(v->filter, f->text) == 0 && (v->list.rows || !b->heap)) return 0;
    uint32_t keep = same ? ht_heaplist_at(&v->list) : HT_NONE;
    if (!same) {
        close_group(v);
        v->list.pos = (ht_list_pos){0, 0};
    }
    ht_heaplist_take(&v->src, b->heap, b->heap_gen);
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    ht_heaplist_free(&v->list);
    if (!b->heap) return 0;
    return ht_heaplist_fill(&v->list, b->heap->dups.ngroups, f, group_name, by_sort, v, keep);
}

static void group_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const dup_screen *v = ctx;
    const ht_heap *x = v->src.x;
    const ht_dup_group *g = &x->dups.groups[v->list.rows[i]];
    uint32_t first = x->dups.members[g->first];
    char b1[32], b2[32], c[32], label[200], content[400];
    ht_format_count(g->copies, c, sizeof c);
    ht_heaprow_bytes(d, g->bytes_each, 10, b1, sizeof b1);
    ht_heaprow_bytes(d, g->wasted, 11, b2, sizeof b2);
    ht_object_label(&x->s, first, label, sizeof label);
    ht_object_content(&x->s, first, content, sizeof content);
    snprintf(line, cap, "%10s %s %s  %s  %s", c, b1, b2, label, content);
}

static void draw_groups(dup_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->src.x;
    uint64_t wasted = 0;
    for (uint32_t i = 0; i < v->list.n; i++)
        wasted += x->dups.groups[v->list.rows[i]].wasted;
    char title[300], w[32];
    ht_ui_bytes((double)wasted, d->unit, w, sizeof w);
    snprintf(title, sizeof title,
             "%10s %10s %11s  CLASS  CONTENT  (%u groups of equal objects, %s wasted in all, "
             "groups overlap; sorted by %s %s)",
             "COPIES", "EACH", "WASTED", v->list.n, w, SORT_NAMES[v->list.sort],
             v->list.ascending ? "^" : "v");
    ht_heaprow_row(d, 0, 0, title);
    ht_heaplist_draw(d, &v->list.pos, &v->list.shown, v->list.n, 1,
                     x->dups.ngroups ? "  no group's class matches the filter"
                                     : "  no duplicates: no two objects of a class are equal",
                     group_line, v);
}

static uint32_t detail_rows(const dup_screen *v)
{
    return v->nhold + v->ncopies;
}

/* Row i of one group: a holder, or a copy. */
static void detail_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const dup_screen *v = ctx;
    const ht_heap *x = v->src.x;
    char c[32], b1[32], obj[900];
    if (i < v->nhold) {
        ht_format_count(v->hold[i].copies, c, sizeof c);
        snprintf(line, cap, "%10s %s held by %s", c, v->hold[i].copies == 1 ? "copy" : "copies",
                 v->hold[i].name);
        return;
    }
    uint32_t o = x->dups.members[x->dups.groups[v->group].first + (i - v->nhold)];
    ht_heaprow_bytes(d, x->d.retained[o], 11, b1, sizeof b1);
    ht_heaprow_object_text(x, o, obj, sizeof obj);
    snprintf(line, cap, "%s  %s", b1, obj);
}

static void draw_group(dup_screen *v, const ht_draw_ctx *d)
{
    const ht_heap *x = v->src.x;
    const ht_dup_group *g = &x->dups.groups[v->group];
    char title[400], c[32], label[200];
    ht_format_count(g->copies, c, sizeof c);
    ht_object_label(&x->s, x->dups.members[g->first], label, sizeof label);
    snprintf(title, sizeof title,
             "%s copies of one %s: who holds them, then the copies%s  (Enter: open one; Esc: "
             "the groups)",
             c, label, v->ncopies < g->copies ? " (the first shown)" : "");
    ht_heaprow_row(d, 0, 0, title);
    ht_heaplist_draw(d, &v->dpos, &v->dshown, detail_rows(v), 1, NULL, detail_line, v);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    dup_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        ht_heaprow_none(d);
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
    *n = v->list.n;
    return &v->list.pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    dup_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->group != HT_NONE) return;
    ht_heaplist_step(&v->list, op, NSORT, BY_NAME);
    ht_heaplist_resort(&v->list, by_sort, v);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    dup_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->group != HT_NONE) return 0;
    return ht_heaplist_search(&v->list, text, forward, from_cursor, group_name, v);
}

/* --- export: the groups shown, with duplicates.csv's columns --- */

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    dup_screen *v = self;
    const ht_heap *x = v->src.x;
    int live = ht_heaplist_current(&v->src);
    ht_export_heap_dups *e = ht_export_heap_dups_new(live ? v->list.n : 0);
    if (!e) return -1;
    char preview[200];
    for (uint32_t i = 0; live && i < v->list.n; i++, e->n++) {
        const ht_dup_group *g = &x->dups.groups[v->list.rows[i]];
        ht_object_content(&x->s, x->dups.members[g->first], preview, sizeof preview);
        e->r[i].name = strdup(x->s.classes[g->cls].name);
        e->r[i].preview = strdup(preview);
        e->r[i].copies = g->copies, e->r[i].each = g->bytes_each, e->r[i].wasted = g->wasted;
        if (!e->r[i].name || !e->r[i].preview) {
            e->n++;
            ht_export_heap_dups_free(e);
            return -1;
        }
    }
    ht_heaplist_export(req, h, "duplicates", SORT_NAMES[v->list.sort], v->list.ascending, e,
                       ht_export_heap_dups_write, ht_export_heap_dups_free);
    return 0;
}

/* --- keys --- */

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    dup_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->src.x != ht_host_heap(h)) return;
    const ht_dups *g = &v->src.x->dups;
    if (v->group == HT_NONE) {
        uint32_t gi = ht_heaplist_at(&v->list);
        if (gi == HT_NONE) return;
        close_group(v);
        if (ht_dups_holders(&v->src.x->s, g, gi, &v->hold, &v->nhold) != 0) {
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
