/*
 * screen_behaviour.c - the Behaviour screen: which data structures cost the
 * memory of the snapshot on screen, the object-group reference graph's
 * nodes ranked by MCC (behaviour.h; docs/behaviour.md says what each figure
 * means and where it departs from the paper).
 *
 * Owns: the ranking's rows (one per node but ROOT, the lens's class filter
 * applied to a class node's name and to a Cycle_N's classes), their sort
 * (the columns' order: MCC, that is the rank, units, objects, MC, MD, % of
 * heap, branches, coverage, exact retained, EST/RET, node with Cycle_N by
 * N), the thresholds t1 (forward, on DR) and t2 (backward, on CR), changed
 * live in steps of 0.05 within 0.05 .. 1, and each node's branches and
 * coverage at t1 (a walk of the node graph, not of the heap). Columns
 * (screen_behaviour_cols.c, the help's glossary): rank, units, objects, MC,
 * MD, MCC, % of heap ((MD + MC) / the reachable bytes: above 100% only
 * where the model counts bytes twice), branches, coverage, the exact
 * retained size of the node's objects together, EST/RET ((MD + MC) /
 * retained: 1.00x where the paper's averaging holds), '!' for a node no
 * parent reaches with DR >= t1 (the paper filters it out), the node (a
 * Cycle_N with its classes, named whole at the foot). Enter opens the
 * node's hourglass (screen_behaviour_paths.c); C shows exactly its classes
 * on the heap classes screen (the class filter "=a.B,=a.C"; Esc there comes
 * back and puts the filter back), r its object of the biggest retained size
 * in the reference browser (a pass over the snapshot's objects, as the heap
 * classes screen's instances); e exports the rows shown as behaviour.csv,
 * t1, t2, scc and count in its .summary.csv. UI thread only; the analysis
 * was made with the snapshot (a job).
 */
#include "screen_behaviour_rows.h"

#include "export_behaviour.h"
#include "heap_rows.h"
#include "list.h"
#include "screen_refs.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sort keys in the columns' order, left to right ('>' steps them). */
enum {
    BY_MCC,
    BY_UNITS,
    BY_OBJECTS,
    BY_MC,
    BY_MD,
    BY_HEAP,
    BY_BRANCHES,
    BY_COVERAGE,
    BY_RETAINED,
    BY_EST,
    BY_NAME,
    NSORT
};
static const char *const SORT_NAMES[NSORT] = {"MCC",      "UNITS",   "OBJECTS",  "MC",
                                              "MD",       "%HEAP",   "BRANCHES", "COVERAGE",
                                              "RETAINED", "EST/RET", "NODE"};

static void free_model(bhv_screen *v)
{
    for (uint32_t i = 0; v->label && i < v->nnodes; i++)
        free(v->label[i]);
    free(v->label), free(v->branches), free(v->coverage);
    v->label = NULL, v->branches = NULL, v->coverage = NULL;
    v->nnodes = 0;
    ht_heaplist_free(&v->list);
    ht_bhv_glass_close(v);
}

static void *create(void)
{
    bhv_screen *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->t1 = v->t2 = BHV_T_DEFAULT;
    v->node = HT_NONE;
    return v;
}

static void destroy(void *self)
{
    bhv_screen *v = self;
    free_model(v);
    free(v);
}

/* A node's label: its name, and a Cycle_N's classes in braces. */
static char *make_label(const ht_heap *x, uint32_t n)
{
    const ht_behaviour *b = &x->bhv;
    const ht_bhv_node *k = &b->nodes[n];
    char nb[HT_BHV_NAME_MAX];
    const char *name = ht_bhv_name(b, &x->s, n, nb, sizeof nb);
    size_t len = strlen(name) + 4;
    for (uint32_t i = 0; i < k->nmembers; i++)
        len += strlen(x->s.classes[b->member[k->members + i]].name) + 2;
    char *s = malloc(len);
    if (!s) return NULL;
    size_t at = (size_t)snprintf(s, len, "%s", name);
    for (uint32_t i = 0; i < k->nmembers; i++)
        at += (size_t)snprintf(s + at, len - at, "%s%s", i ? ", " : " {",
                               x->s.classes[b->member[k->members + i]].name);
    if (k->nmembers) snprintf(s + at, len - at, "}");
    return s;
}

/* Branches and coverage of every node at t1. */
static void count_branches(bhv_screen *v)
{
    for (uint32_t n = 0; n < v->nnodes; n++)
        v->branches[n] = ht_bhv_branches(bhv_of(v), n, bhv_t(v->t1), &v->coverage[n]);
}

static const char *node_label(const void *ctx, uint32_t n)
{
    const bhv_screen *v = ctx;
    return n == HT_BHV_ROOT || n >= v->nnodes ? NULL : v->label[n];
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? 1 : a > b ? -1 : 0; /* largest first */
}

static int cmp_double(double a, double b)
{
    return a < b ? 1 : a > b ? -1 : 0;
}

/* EST/RET, a node with no retained bytes below every other. */
static double est_ret(const ht_bhv_node *k)
{
    return k->retained ? (k->md + (double)k->mc) / (double)k->retained : -1;
}

static int by_sort(const void *a, const void *c, void *ctx)
{
    const bhv_screen *v = ctx;
    const ht_bhv_node *nodes = bhv_of(v)->nodes;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)c;
    const ht_bhv_node *p = &nodes[x], *q = &nodes[y];
    int r = 0;
    switch (v->list.sort) {
    case BY_MCC:
        r = (p->rank > q->rank) - (p->rank < q->rank); /* rank 1 first */
        break;
    case BY_MC:
        r = cmp_u64(p->mc, q->mc);
        break;
    case BY_MD:
        r = cmp_double(p->md, q->md);
        break;
    case BY_HEAP:
        r = cmp_double(p->md + (double)p->mc, q->md + (double)q->mc);
        break;
    case BY_RETAINED:
        r = cmp_u64(p->retained, q->retained);
        break;
    case BY_EST:
        r = cmp_double(est_ret(p), est_ret(q));
        break;
    case BY_UNITS:
        r = cmp_u64(p->units, q->units);
        break;
    case BY_OBJECTS:
        r = cmp_u64(p->objects, q->objects);
        break;
    case BY_BRANCHES:
        r = cmp_u64(v->branches[x], v->branches[y]);
        break;
    case BY_COVERAGE:
        r = cmp_double(v->coverage[x], v->coverage[y]);
        break;
    default: /* descending, so ascending reverses it; Cycle_9 before Cycle_10 */
        if (p->cycle && q->cycle)
            r = (p->cycle < q->cycle) - (p->cycle > q->cycle);
        else
            r = -strcmp(v->label[x], v->label[y]);
        break;
    }
    if (v->list.ascending) r = -r;
    return r ? r : (p->rank > q->rank) - (p->rank < q->rank);
}

static int fill(bhv_screen *v, const ht_filter *f, uint32_t keep)
{
    return ht_heaplist_fill(&v->list, v->nnodes, f, node_label, by_sort, v, keep);
}

static int build(void *self, const ht_build_ctx *b)
{
    bhv_screen *v = self;
    const ht_filter *f = &b->lens->class_filter;
    int same = ht_heaplist_is(&v->src, b->heap, b->heap_gen);
    if (same && strcmp(v->filter, f->text) == 0 && (v->list.rows || !b->heap)) return 0;
    snprintf(v->filter, sizeof v->filter, "%s", f->text);
    if (same) return fill(v, f, ht_heaplist_at(&v->list));
    free_model(v);
    v->list.pos = (ht_list_pos){0, 0};
    ht_heaplist_take(&v->src, b->heap, b->heap_gen);
    if (!b->heap || !b->heap->bhv.nodes) return 0;
    uint32_t n = b->heap->bhv.nnodes;
    v->label = calloc(n, sizeof *v->label);
    v->branches = calloc(n, sizeof *v->branches);
    v->coverage = calloc(n, sizeof *v->coverage);
    if (!v->label || !v->branches || !v->coverage) goto nomem;
    v->nnodes = n;
    for (uint32_t i = 0; i < n; i++)
        if (!(v->label[i] = make_label(b->heap, i))) goto nomem;
    count_branches(v);
    if (fill(v, f, HT_NONE) == 0) return 0;
nomem:
    free_model(v);
    return -1;
}

static void node_line(void *ctx, const ht_draw_ctx *d, uint32_t i, char *line, size_t cap)
{
    const bhv_screen *v = ctx;
    ht_bhv_node_row(v, d, v->list.rows[i], line, cap);
}

static void draw_ranking(bhv_screen *v, const ht_draw_ctx *d)
{
    const ht_behaviour *b = bhv_of(v);
    char line[600], t[32], none[48] = "none without a branch";
    ht_ui_bytes((double)b->reachable_bytes, d->unit, t, sizeof t);
    uint32_t flagged = 0;
    for (uint32_t n = 1; n < v->nnodes; n++)
        flagged += v->branches[n] == 0;
    if (flagged) snprintf(none, sizeof none, "%u without a branch (!)", flagged);
    snprintf(line, sizeof line,
             "%u nodes, %s  overcount %.3f  t1 %.2f  t2 %.2f  %s  scc=%s count=%s",
             b->nnodes ? b->nnodes - 1 : 0, t,
             b->reachable_bytes ? b->md_root / (double)b->reachable_bytes : 0.0, bhv_t(v->t1),
             bhv_t(v->t2), none, b->opts.scc_none ? "none" : "literal",
             b->opts.count_raw ? "raw" : "distinct");
    ht_heaprow_row(d, 0, 0, line);
    ht_bhv_title_row(v, d, SORT_NAMES[v->list.sort], line, sizeof line);
    ht_heaprow_row(d, 1, 0, line);
    ht_draw_ctx list = *d; /* the foot names the selected node whole */
    if (list.height >= 4) list.height--;
    ht_heaplist_draw(&list, &v->list.pos, &v->list.shown, v->list.n, 2,
                     "  no node matches the filter", node_line, v);
    ht_bhv_selected_line(v, d, ht_heaplist_at(&v->list));
}

static void draw(void *self, const ht_draw_ctx *d)
{
    bhv_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        ht_heaprow_none(d);
        return;
    }
    if (!v->nnodes) {
        char why[256];
        snprintf(why, sizeof why, "  no behaviour ranking for this snapshot: %s",
                 bhv_of(v)->why[0] ? bhv_of(v)->why : "HEAPTOP_NO_BEHAVIOUR is set");
        ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), why, 1);
        return;
    }
    if (v->node != HT_NONE)
        ht_bhv_glass_draw(v, d);
    else
        draw_ranking(v, d);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    bhv_screen *v = self;
    if (v->node != HT_NONE) {
        *n = v->nrows;
        return &v->hpos;
    }
    *n = v->list.n;
    return &v->list.pos;
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h, (void)by;
    bhv_screen *v = self;
    if (!ht_heaplist_current(&v->src) || !v->nnodes || v->node != HT_NONE) return;
    ht_heaplist_step(&v->list, op, NSORT, BY_NAME);
    ht_heaplist_resort(&v->list, by_sort, v);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    bhv_screen *v = self;
    if (!ht_heaplist_current(&v->src) || !v->nnodes) return 0;
    if (v->node != HT_NONE) return ht_bhv_glass_search(v, text, forward, from_cursor);
    return ht_heaplist_search(&v->list, text, forward, from_cursor, node_label, v);
}

/* --- export: the rows shown, as behaviour.csv --- */

static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)names;
    bhv_screen *v = self;
    int live = ht_heaplist_current(&v->src) && v->nnodes;
    static const uint32_t none[1];
    ht_export_bhv_rows *e =
        ht_export_bhv_rows_new(live ? bhv_of(v) : NULL, live ? &v->src.x->s : NULL,
                               live ? v->list.rows : none, live ? v->list.n : 0, bhv_t(v->t1));
    if (!e) return -1;
    ht_heaplist_export(req, h, "behaviour", SORT_NAMES[v->list.sort], v->list.ascending, e,
                       ht_export_bhv_rows_write, ht_export_bhv_rows_free);
    snprintf(req->t1, sizeof req->t1, "%.2f", bhv_t(v->t1));
    snprintf(req->t2, sizeof req->t2, "%.2f", bhv_t(v->t2));
    if (live) {
        snprintf(req->scc, sizeof req->scc, "%s", bhv_of(v)->opts.scc_none ? "none" : "literal");
        snprintf(req->count, sizeof req->count, "%s",
                 bhv_of(v)->opts.count_raw ? "raw" : "distinct");
    }
    return 0;
}

/* --- keys --- */

static int ready(const bhv_screen *v, ht_host *h)
{
    return ht_heaplist_current(&v->src) && v->src.x == ht_host_heap(h) && v->nnodes;
}

/* The node the keys act on: the hourglass row's, or the ranking's cursor. */
static uint32_t selected(const bhv_screen *v)
{
    return v->node != HT_NONE ? ht_bhv_glass_node_at(v) : ht_heaplist_at(&v->list);
}

static void open_glass(bhv_screen *v, ht_host *h, uint32_t n)
{
    if (n == HT_NONE) return;
    if (ht_bhv_glass_open(v, n) != 0) ht_host_status(h, "out of memory making the hourglass");
}

static void enter_key(void *self, ht_host *h, int ch)
{
    (void)ch;
    bhv_screen *v = self;
    if (!ready(v, h)) return;
    uint32_t n = selected(v);
    if (n == HT_BHV_ROOT) {
        ht_host_status(h, "ROOT stands for the GC roots: it has no hourglass");
        return;
    }
    open_glass(v, h, n);
}

static void back(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_bhv_glass_close(self);
}

static void threshold(void *self, ht_host *h, int ch)
{
    bhv_screen *v = self;
    int *t = ch == '[' || ch == ']' ? &v->t1 : &v->t2;
    int step = ch == ']' || ch == '}' ? 1 : -1;
    if (*t + step < 1 || *t + step > BHV_T_STEPS) {
        ht_host_status(h, "%s stays within 0.05 .. 1", t == &v->t1 ? "t1" : "t2");
        return;
    }
    *t += step;
    if (!ready(v, h)) return;
    if (t == &v->t1) {
        count_branches(v);
        if (v->list.sort == BY_BRANCHES || v->list.sort == BY_COVERAGE)
            ht_heaplist_resort(&v->list, by_sort, v);
    }
    if (v->node != HT_NONE) open_glass(v, h, v->node);
    ht_host_status(h, "t1 %.2f (forward: DR), t2 %.2f (backward: CR)", bhv_t(v->t1), bhv_t(v->t2));
}

static void unfold(void *self, ht_host *h, int ch)
{
    bhv_screen *v = self;
    if (ready(v, h) && v->node != HT_NONE) ht_bhv_glass_unfold(v, h, ch == '*');
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)ch;
    bhv_screen *v = self;
    if (ready(v, h) && v->node != HT_NONE) ht_bhv_glass_fold(v);
}

/* C: exactly the node's classes on the heap classes screen, the class
 * filter set to "=name" terms (as many as it holds); Esc there comes back
 * and puts the filter back (ht_host_back). */
static void to_classes(void *self, ht_host *h, int ch)
{
    (void)ch;
    bhv_screen *v = self;
    uint32_t n = ready(v, h) ? selected(v) : HT_NONE;
    if (n == HT_NONE || n == HT_BHV_ROOT) return;
    const ht_heap *x = v->src.x;
    const ht_bhv_node *k = &bhv_of(v)->nodes[n];
    char text[HT_FILTER_MAX_TEXT] = "";
    uint32_t count = k->nmembers ? k->nmembers : 1, put = 0;
    size_t at = 0;
    for (uint32_t i = 0; i < count && put < HT_FILTER_MAX_TERMS; i++) {
        uint32_t c = k->nmembers ? bhv_of(v)->member[k->members + i] : k->cls;
        const char *name = c < x->s.nclasses ? x->s.classes[c].name : "";
        if (!name[0] || at + strlen(name) + 3 >= sizeof text) break;
        at += (size_t)snprintf(text + at, sizeof text - at, "%s=%s", put ? "," : "", name);
        put++;
    }
    if (!put) return;
    if (ht_host_filter_classes(h, text, &ht_screen_heap) != 0) return;
    ht_host_status(h, "class filter: %s%s (Esc: back to Behaviour, the filter as it was)", text,
                   put < count ? " (the first of the cycle's classes that fit)" : "");
}

/* r: the node's biggest object (by retained size) in the reference
 * browser; Esc on it comes back. */
static void to_object(void *self, ht_host *h, int ch)
{
    (void)ch;
    bhv_screen *v = self;
    uint32_t n = ready(v, h) ? selected(v) : HT_NONE;
    if (n == HT_NONE || n == HT_BHV_ROOT || bhv_of(v)->nodes[n].sample == HT_NONE) return;
    uint32_t o = bhv_of(v)->nodes[n].sample; /* the build chose its biggest */
    uint64_t bytes = o < v->src.x->d.n ? v->src.x->d.retained[o] : 0;
    ht_host_browse(h, o);
    char t[32];
    ht_ui_bytes((double)bytes, HT_UNIT_AUTO, t, sizeof t);
    if (bytes) ht_host_status(h, "its object of the biggest retained size (%s); Esc: back", t);
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "the node's hourglass: who keeps it alive (up, DR >= t1) and what it\n"
             "dominates (down, CR >= t2); on a row of it, that row's node's",
     .act = enter_key},
    {HT_KEYS(27, KEY_BACKSPACE), HT_ALSO(127, 8), .help = "back to the ranking", .act = back},
    {HT_KEYS(KEY_RIGHT, '+', '*'), .help = "unfold (* all below, capped)", .act = unfold},
    {HT_KEYS(KEY_LEFT, '-'), .help = "fold (or go to the parent)", .act = fold,
     .flags = HT_KEY_RIGHT, .col = 38, .help_col = 49},
    {HT_KEYS('[', ']'), .help = "t1 (forward, on DR) -/+ 0.05: branches, coverage, '!' at once",
     .act = threshold},
    {HT_KEYS('{', '}'), .help = "t2 (backward, on CR) -/+ 0.05", .act = threshold},
    {HT_KEYS('C'),
     .help = "exactly its classes on heap classes (the filter \"=a.B\"; Esc: back, the\n"
             "filter as it was)",
     .act = to_classes},
    {HT_KEYS('r'), .help = "its biggest object (retained) in the reference browser (Esc: back)",
     .act = to_object},
    {.flags = HT_KEY_NOTE,
     .label = "e",
     .help = "behaviour.csv of the rows shown; t1, t2, scc, count in its .summary.csv"},
    {.flags = HT_KEY_NOTE,
     .label = "UNITS, OBJECTS",
     .help = "units: objects, each object cycle (scc=literal) one; OBJECTS: objects in them"},
    {.flags = HT_KEY_NOTE,
     .label = "MC, MD",
     .help = "shallow bytes of its objects; bytes it dominates by the paper's estimate:\n"
             "sum over children of (MD + MC) x DR (DR: share of the child's units it refers to)"},
    {.flags = HT_KEY_NOTE,
     .label = "MCC, %HEAP",
     .help = "MC x (MD + MC), the rank; (MD + MC) / reachable bytes (over 100%: counted twice)"},
    {.flags = HT_KEY_NOTE,
     .label = "BR, COVER, !",
     .help = "parents with DR >= t1 (branches); their DR summed; ! none: no branch"},
    {.flags = HT_KEY_NOTE,
     .label = "RETAINED",
     .help = "exact retained bytes of its objects together (the dominator tree)"},
    {.flags = HT_KEY_NOTE,
     .label = "EST/RET",
     .help = "(MD + MC) / RETAINED: 1.00x where the paper's estimate holds; far above 1 it\n"
             "counts shared bytes once per parent; below 1 the averaging or the cycle rule\n"
             "left out bytes it holds alone"},
    HT_KEYS_END,
};

const ht_screen ht_screen_behaviour = {
    .name = "behaviour",
    .title = "behaviour (nodes by MCC)",
    .help_title = "Behaviour (which data structures cost the memory)",
    .key = 0,
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
