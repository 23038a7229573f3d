/* columns.c - see columns.h. */
#include "columns.h"

#include "estimate.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* One row per column, htop's Process_fields[] way: everything that says what
 * a column is. Display order is the order of ht_col_shown below; files keep
 * the enum's order. */
#define AGG_D(f)  .from = HT_FROM_AGG, .agg_off = offsetof(ht_agg_rec, f)
#define AGG_U(f)  .from = HT_FROM_AGG_COUNT, .agg_off = offsetof(ht_agg_rec, f)
#define CPU_U(f)  .from = HT_FROM_CPU_ROW, .agg_off = offsetof(ht_cpu_row_rec, f)
#define CPU_VIEWS (HT_VIEW_CPU | HT_VIEW_THREADS)
static const ht_col_info INFO[HT_COL_COUNT] = {
    [HT_COL_BYTES] = {.title = "BYTES",
                      .csv = "est_bytes",
                      .help = "estimated bytes allocated",
                      .rank = 1,
                      .views = HT_VIEW_LISTS,
                      AGG_D(est_bytes)},
    [HT_COL_PCT] = {.title = "%",
                    .csv = "pct",
                    .help = "share of the total bytes",
                    .flags = HT_COLF_SHARE,
                    .rank = 5,
                    .views = HT_VIEW_TREE,
                    .from = HT_FROM_SHARE},
    [HT_COL_INSTANCES] = {.title = "INST",
                          .csv = "est_instances",
                          .help = "estimated instances allocated",
                          .flags = HT_COLF_COUNT,
                          .rank = 6,
                          .views = HT_VIEW_LISTS,
                          AGG_D(est_instances)},
    [HT_COL_LIVE_BYTES] = {.title = "LIVE B",
                           .csv = "live_est_bytes",
                           .help = "bytes a collection proved alive (LIVE)",
                           .flags = HT_COLF_LIVE,
                           .rank = 2,
                           .views = HT_VIEW_LISTS,
                           AGG_D(live_est_bytes)},
    [HT_COL_LIVE_INSTANCES] = {.title = "LIVE I",
                               .csv = "live_est_instances",
                               .help = "instances a collection proved alive",
                               .flags = HT_COLF_COUNT | HT_COLF_LIVE,
                               .rank = 10,
                               .views = HT_VIEW_LISTS,
                               AGG_D(live_est_instances)},
    [HT_COL_YOUNG_BYTES] = {.title = "YOUNG B",
                            .csv = "young_est_bytes",
                            .help = "allocated since the last collection, not judged yet (YOUNG)",
                            .rank = 8,
                            .views = HT_VIEW_LISTS,
                            AGG_D(young_est_bytes)},
    [HT_COL_DIFF_BYTES] = {.title = "DIFF B",
                           .csv = "diff_bytes",
                           .help = "bytes allocated while the mark ran (blank without a mark)",
                           .flags = HT_COLF_MARK,
                           .rank = 4,
                           .views = HT_VIEW_LISTS,
                           AGG_D(diff_bytes)},
    [HT_COL_DIFF_INSTANCES] = {.title = "DIFF I",
                               .csv = "diff_instances",
                               .help = "instances allocated while the mark ran",
                               .flags = HT_COLF_COUNT | HT_COLF_MARK,
                               .rank = 11,
                               .views = HT_VIEW_LISTS,
                               AGG_D(diff_instances)},
    [HT_COL_GROWTH_BYTES] = {.title = "GROWTH B",
                             .csv = "growth_bytes",
                             .help = "live bytes now minus at Begin (blank without a mark)",
                             .flags = HT_COLF_MARK | HT_COLF_SIGNED | HT_COLF_LIVE,
                             .rank = 3,
                             .views = HT_VIEW_LISTS,
                             AGG_D(growth_bytes)},
    /* shown only with a heap snapshot on screen: RETAINED is what it is for */
    [HT_COL_HEAP_OBJECTS] = {.title = "HEAP OBJ",
                             .csv = "heap_est_instances",
                             .help =
                                 "the site's objects in the heap snapshot on screen (estimated)",
                             .flags = HT_COLF_COUNT | HT_COLF_HEAP,
                             .rank = 5,
                             .views = HT_VIEW_TREE,
                             .from = HT_FROM_HEAP},
    [HT_COL_HEAP_RETAINED] = {.title = "RETAINED",
                              .csv = "heap_est_retained_bytes",
                              .help = "the bytes they retain (estimated)",
                              .flags = HT_COLF_HEAP,
                              .rank = 2,
                              .views = HT_VIEW_TREE,
                              .from = HT_FROM_HEAP},
    /* after INST: a narrow list keeps counts, then how sure they are */
    [HT_COL_SAMPLES] = {.title = "SAMPLES",
                        .csv = "samples",
                        .help = "the samples BYTES, INST and the diff rest on",
                        .flags = HT_COLF_COUNT,
                        .rank = 7,
                        .views = HT_VIEW_LISTS,
                        AGG_U(samples)},
    [HT_COL_LIVE_SAMPLES] = {.title = "LIVE SMP",
                             .csv = "live_samples",
                             .help = "the samples LIVE and GROWTH rest on",
                             .flags = HT_COLF_COUNT | HT_COLF_LIVE,
                             .rank = 9,
                             .views = HT_VIEW_LISTS,
                             AGG_U(live_samples)},
    /* the CPU sampler's: ms, then its share; a thread's exact CPU time on
     * the threads table, the stacks' sampled CPU time on the CPU tree */
    [HT_COL_CPU_MS] = {.title = "CPU ms",
                       .csv = "cpu_ms",
                       .help = "CPU time through the frame (threads: the thread's, exact)",
                       .flags = HT_COLF_MS | HT_COLF_CPU,
                       .rank = 1,
                       .views = CPU_VIEWS,
                       CPU_U(cpu_ns)},
    [HT_COL_CPU_PCT] = {.title = "CPU %",
                        .csv = "cpu_pct",
                        .help = "share of the sampled CPU time shown",
                        .flags = HT_COLF_SHARE | HT_COLF_CPU,
                        .rank = 2,
                        .views = HT_VIEW_CPU,
                        .from = HT_FROM_SHARE,
                        .share_of = HT_COL_CPU_MS + 1},
    [HT_COL_SELF_MS] = {.title = "SELF ms",
                        .csv = "self_cpu_ms",
                        .help = "CPU time in the frame itself, its callees not counted",
                        .flags = HT_COLF_MS | HT_COLF_CPU,
                        .rank = 3,
                        .views = HT_VIEW_CPU},
    [HT_COL_SELF_PCT] = {.title = "SELF %",
                         .csv = "self_pct",
                         .help = "its share of the sampled CPU time shown",
                         .flags = HT_COLF_SHARE | HT_COLF_CPU,
                         .rank = 5,
                         .views = HT_VIEW_CPU,
                         .from = HT_FROM_SHARE,
                         .share_of = HT_COL_SELF_MS + 1},
    [HT_COL_CPU_SAMPLES] = {.title = "SAMPLES",
                            .csv = "samples",
                            .help = "the stacks CPU ms rests on (threads: all its samples)",
                            .flags = HT_COLF_COUNT | HT_COLF_CPU,
                            .rank = 7,
                            .views = CPU_VIEWS,
                            CPU_U(samples)},
    [HT_COL_DIFF_CPU_MS] = {.title = "DIFF ms",
                            .csv = "diff_cpu_ms",
                            .help = "CPU time while the mark ran (blank without a mark)",
                            .flags = HT_COLF_MS | HT_COLF_MARK | HT_COLF_CPU,
                            .rank = 4,
                            .views = CPU_VIEWS,
                            CPU_U(diff_cpu_ns)},
    [HT_COL_DIFF_CPU_SAMPLES] = {.title = "DIFF SMP",
                                 .csv = "diff_samples",
                                 .help = "samples while the mark ran",
                                 .flags = HT_COLF_COUNT | HT_COLF_MARK | HT_COLF_CPU,
                                 .rank = 8,
                                 .views = CPU_VIEWS,
                                 CPU_U(diff_samples)},
    [HT_COL_CPU_NOW] = {.title = "CPU% NOW",
                        .csv = "cpu_pct_now",
                        .help = "a thread's CPU in the last second, in % of one core",
                        .flags = HT_COLF_PERCENT,
                        .rank = 1,
                        .views = HT_VIEW_THREADS,
                        .from = HT_FROM_THREAD},
    [HT_COL_THREAD_STATE] = {.title = "STATE",
                             .csv = "state",
                             .help = "a thread's state when last seen (NATIVE: RUNNABLE in native "
                                     "code)",
                             .flags = HT_COLF_TEXT,
                             .rank = 0,
                             .views = HT_VIEW_THREADS,
                             .from = HT_FROM_THREAD},
    /* the name column: sorts on the classes and threads screens only */
    [HT_COL_NAME] = {.title = "NAME",
                     .csv = "name",
                     .help = "the frame, class or thread name",
                     .rank = 0,
                     .views = HT_VIEW_CLASSES | HT_VIEW_THREADS,
                     .from = HT_FROM_NONE},
};

/* The order columns stand in on a line. */
static const ht_col SHOWN[] = {
    HT_COL_BYTES,         HT_COL_PCT,
    HT_COL_INSTANCES,     HT_COL_SAMPLES,
    HT_COL_LIVE_BYTES,    HT_COL_LIVE_INSTANCES,
    HT_COL_LIVE_SAMPLES,  HT_COL_HEAP_OBJECTS,
    HT_COL_HEAP_RETAINED, HT_COL_YOUNG_BYTES,
    HT_COL_DIFF_BYTES,    HT_COL_DIFF_INSTANCES,
    HT_COL_GROWTH_BYTES,  HT_COL_THREAD_STATE,
    HT_COL_CPU_NOW,       HT_COL_CPU_MS,
    HT_COL_CPU_PCT,       HT_COL_SELF_MS,
    HT_COL_SELF_PCT,      HT_COL_CPU_SAMPLES,
    HT_COL_DIFF_CPU_MS,   HT_COL_DIFF_CPU_SAMPLES,
};
_Static_assert(sizeof SHOWN / sizeof SHOWN[0] == HT_COL_NAME, "every figure has a place on a line");

const ht_col_info *ht_col_info_of(ht_col c)
{
    static const ht_col_info none = {.title = "?", .csv = "?", .rank = 100};
    return c < HT_COL_COUNT ? &INFO[c] : &none;
}

const char *ht_col_title(ht_col c)
{
    return ht_col_info_of(c)->title;
}

const char *ht_col_csv_name(ht_col c)
{
    return ht_col_info_of(c)->csv;
}

int ht_col_is_count(ht_col c)
{
    return (ht_col_info_of(c)->flags & HT_COLF_COUNT) != 0;
}

int ht_col_is_mark(ht_col c)
{
    return (ht_col_info_of(c)->flags & HT_COLF_MARK) != 0;
}

int ht_col_rank(ht_col c)
{
    return ht_col_info_of(c)->rank;
}

ht_col ht_col_samples_of(ht_col c)
{
    unsigned f = ht_col_info_of(c)->flags;
    return f & HT_COLF_CPU    ? HT_COL_CPU_SAMPLES
           : f & HT_COLF_LIVE ? HT_COL_LIVE_SAMPLES
                              : HT_COL_SAMPLES;
}

int ht_col_is_percent(ht_col c)
{
    return (ht_col_info_of(c)->flags & (HT_COLF_SHARE | HT_COLF_PERCENT)) != 0;
}

int ht_col_is_ms(ht_col c)
{
    return (ht_col_info_of(c)->flags & HT_COLF_MS) != 0;
}

int ht_col_few(const double *v, ht_col c)
{
    return v[ht_col_samples_of(c)] < HT_FEW_SAMPLES;
}

ht_col ht_col_sort_key(ht_col c)
{
    const ht_col_info *i = ht_col_info_of(c);
    if (!(i->flags & HT_COLF_SHARE)) return c;
    return i->share_of ? (ht_col)(i->share_of - 1) : HT_COL_BYTES;
}

void ht_col_from_agg(const ht_agg_rec *r, double *v)
{
    for (int c = 0; c < HT_COL_COUNT; c++) {
        const ht_col_info *i = &INFO[c];
        const char *at = (const char *)r + i->agg_off;
        if (i->from == HT_FROM_AGG)
            v[c] = *(const double *)at;
        else if (i->from == HT_FROM_AGG_COUNT)
            v[c] = (double)*(const uint64_t *)at;
    }
}

/* A uint64_t figure of a CPU record: nanoseconds as ms. */
static void from_cpu(const void *rec, ht_col_from from, double *v)
{
    for (int c = 0; c < HT_COL_COUNT; c++) {
        const ht_col_info *i = &INFO[c];
        if (i->from != from) continue;
        double x = (double)*(const uint64_t *)((const char *)rec + i->agg_off);
        v[c] = i->flags & HT_COLF_MS ? x / 1e6 : x;
    }
}

void ht_col_from_cpu_row(const ht_cpu_row_rec *r, double *v)
{
    from_cpu(r, HT_FROM_CPU_ROW, v);
}

void ht_col_from_thread(const ht_cpu_thread_rec *t, double *v)
{
    /* the thread's own figures where a row's have the same meaning */
    v[HT_COL_CPU_MS] = (double)t->cpu_ns / 1e6;
    v[HT_COL_CPU_SAMPLES] = (double)t->samples;
    v[HT_COL_DIFF_CPU_MS] = (double)t->diff_cpu_ns / 1e6;
    v[HT_COL_DIFF_CPU_SAMPLES] = (double)t->diff_samples;
    v[HT_COL_CPU_NOW] = (double)t->recent_ns / 1e7; /* ns in the last second, in % of a core */
    v[HT_COL_THREAD_STATE] = t->state;
}

int ht_col_view(unsigned view, int heap, ht_col *out, int max)
{
    int n = 0;
    for (size_t k = 0; k < sizeof SHOWN / sizeof SHOWN[0] && n < max; k++) {
        const ht_col_info *i = &INFO[SHOWN[k]];
        if ((i->views & view) && (heap || !(i->flags & HT_COLF_HEAP))) out[n++] = SHOWN[k];
    }
    return n;
}

int ht_col_view_sorts(unsigned view, int heap, ht_col *out, int max)
{
    ht_col shown[HT_COL_COUNT];
    int m = ht_col_view(view, heap, shown, HT_COL_COUNT), n = 0;
    for (int k = 0; k < m && n < max; k++)
        if (ht_col_sort_key(shown[k]) == shown[k]) out[n++] = shown[k];
    if ((INFO[HT_COL_NAME].views & view) && n < max) out[n++] = HT_COL_NAME;
    return n;
}

int ht_col_view_files(unsigned view, ht_col *out, int max)
{
    int n = 0;
    for (int c = 0; c < HT_COL_NAME && n < max; c++)
        if ((INFO[c].views & view) && !(INFO[c].flags & HT_COLF_HEAP)) out[n++] = (ht_col)c;
    return n;
}

double ht_col_bound(const ht_col_bounds *b, ht_col c)
{
    switch (c) {
    case HT_COL_LIVE_BYTES:
    case HT_COL_GROWTH_BYTES:
        return b->heap_used;
    case HT_COL_HEAP_RETAINED:
        return b->snapshot_bytes;
    default:
        return 0;
    }
}

int ht_col_over(const ht_col_bounds *b, ht_col c, double v)
{
    double bound = ht_col_bound(b, c);
    return bound > 0 && v > bound;
}

unsigned ht_col_over_mask(const ht_col_bounds *b, const double *v)
{
    unsigned m = 0;
    for (int c = 0; c < HT_COL_NAME; c++)
        if (ht_col_over(b, (ht_col)c, v[c])) m |= 1u << c;
    return m;
}

void ht_col_mark_over(const ht_col_layout *l, unsigned over, char *line, size_t len)
{
    size_t mark = strlen(HT_COL_OVER_MARK);
    for (int i = 0; over && i < l->n; i++) {
        const ht_col_slot *s = &l->slot[i];
        if (!(over & 1u << s->col) || (size_t)s->w < mark || (size_t)(s->x + s->w) > len) continue;
        memset(line + s->x, ' ', (size_t)s->w);
        memcpy(line + s->x + s->w - mark, HT_COL_OVER_MARK, mark);
    }
}

void ht_col_layout_make(ht_col_layout *l, const ht_col_req *req, int n, int cols, int name_min)
{
    if (n > HT_COL_COUNT) n = HT_COL_COUNT;
    if (name_min > cols) name_min = cols;
    int width[HT_COL_COUNT] = {0}; /* 0: left out */
    int taken[HT_COL_COUNT] = {0};
    int budget = cols - name_min;
    /* highest priority first (ties: display order); each at its wanted width
     * when that fits, else at its narrowest, else not at all */
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!taken[i] && (best < 0 || req[i].priority < req[best].priority)) best = i;
        taken[best] = 1;
        int want = req[best].want > req[best].min ? req[best].want : req[best].min;
        if (want + 1 <= budget)
            width[best] = want;
        else if (req[best].min + 1 <= budget)
            width[best] = req[best].min;
        budget -= width[best] ? width[best] + 1 : 0;
    }
    l->n = 0;
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!width[i]) continue;
        l->slot[l->n++] = (ht_col_slot){req[i].col, x, width[i]};
        x += width[i] + 1;
    }
    l->name_x = x;
    l->name_w = cols - x;
}

ht_col ht_col_layout_at(const ht_col_layout *l, int x)
{
    for (int i = 0; i < l->n; i++)
        if (x >= l->slot[i].x && x <= l->slot[i].x + l->slot[i].w) return l->slot[i].col;
    if (x >= l->name_x && x < l->name_x + l->name_w) return HT_COL_NAME;
    return HT_COL_COUNT;
}

const ht_col_slot *ht_col_layout_find(const ht_col_layout *l, ht_col c)
{
    for (int i = 0; i < l->n; i++)
        if (l->slot[i].col == c) return &l->slot[i];
    return NULL;
}

void ht_col_reference(FILE *f)
{
    fprintf(f, "%-9s  %-14s  %-23s  %s\n", "COLUMN", "LISTS", "CSV", "MEANING");
    for (size_t k = 0; k < sizeof SHOWN / sizeof SHOWN[0]; k++) {
        const ht_col_info *i = &INFO[SHOWN[k]];
        const char *lists = (i->views & HT_VIEW_LISTS) == HT_VIEW_LISTS ? "tree, classes"
                            : i->views & HT_VIEW_TREE                   ? "tree"
                            : i->views & HT_VIEW_CLASSES                ? "classes"
                            : (i->views & CPU_VIEWS) == CPU_VIEWS       ? "cpu, threads"
                            : i->views & HT_VIEW_CPU                    ? "cpu"
                                                                        : "threads";
        if (i->flags & HT_COLF_HEAP) lists = "tree, snapshot";
        fprintf(f, "%-9s  %-14s  %-23s  %s\n", i->title, lists, i->csv, i->help);
    }
}
