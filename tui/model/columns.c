/* columns.c - see columns.h. */
#include "columns.h"

#include "estimate.h"

#include <stddef.h>
#include <string.h>

const char *ht_col_title(ht_col c)
{
    static const char *const titles[HT_COL_COUNT] = {
        [HT_COL_BYTES] = "BYTES",
        [HT_COL_PCT] = "%",
        [HT_COL_INSTANCES] = "INST",
        [HT_COL_LIVE_BYTES] = "LIVE B",
        [HT_COL_LIVE_INSTANCES] = "LIVE I",
        [HT_COL_YOUNG_BYTES] = "YOUNG B",
        [HT_COL_DIFF_BYTES] = "DIFF B",
        [HT_COL_DIFF_INSTANCES] = "DIFF I",
        [HT_COL_GROWTH_BYTES] = "GROWTH B",
        [HT_COL_HEAP_OBJECTS] = "HEAP OBJ",
        [HT_COL_HEAP_RETAINED] = "RETAINED",
        [HT_COL_SAMPLES] = "SAMPLES",
        [HT_COL_LIVE_SAMPLES] = "LIVE SMP",
        [HT_COL_NAME] = "NAME",
    };
    return c < HT_COL_COUNT ? titles[c] : "?";
}

const char *ht_col_csv_name(ht_col c)
{
    static const char *const names[HT_COL_COUNT] = {
        [HT_COL_BYTES] = "est_bytes",
        [HT_COL_PCT] = "pct",
        [HT_COL_INSTANCES] = "est_instances",
        [HT_COL_LIVE_BYTES] = "live_est_bytes",
        [HT_COL_LIVE_INSTANCES] = "live_est_instances",
        [HT_COL_YOUNG_BYTES] = "young_est_bytes",
        [HT_COL_DIFF_BYTES] = "diff_bytes",
        [HT_COL_DIFF_INSTANCES] = "diff_instances",
        [HT_COL_GROWTH_BYTES] = "growth_bytes",
        [HT_COL_HEAP_OBJECTS] = "heap_est_instances",
        [HT_COL_HEAP_RETAINED] = "heap_est_retained_bytes",
        [HT_COL_SAMPLES] = "samples",
        [HT_COL_LIVE_SAMPLES] = "live_samples",
        [HT_COL_NAME] = "name",
    };
    return c < HT_COL_COUNT ? names[c] : "?";
}

int ht_col_is_count(ht_col c)
{
    return c == HT_COL_INSTANCES || c == HT_COL_LIVE_INSTANCES || c == HT_COL_DIFF_INSTANCES ||
           c == HT_COL_HEAP_OBJECTS || c == HT_COL_SAMPLES || c == HT_COL_LIVE_SAMPLES;
}

int ht_col_is_mark(ht_col c)
{
    return c == HT_COL_DIFF_BYTES || c == HT_COL_DIFF_INSTANCES || c == HT_COL_GROWTH_BYTES;
}

int ht_col_rank(ht_col c)
{
    static const int rank[HT_COL_COUNT] = {
        [HT_COL_BYTES] = 1,
        [HT_COL_LIVE_BYTES] = 2,
        [HT_COL_HEAP_RETAINED] = 2, /* shown only with a snapshot: what it is for */
        [HT_COL_GROWTH_BYTES] = 3,
        [HT_COL_DIFF_BYTES] = 4,
        [HT_COL_PCT] = 5,
        [HT_COL_HEAP_OBJECTS] = 5,
        [HT_COL_INSTANCES] = 6,
        [HT_COL_SAMPLES] = 7, /* after INST: a narrow tree keeps counts, then how sure */
        [HT_COL_YOUNG_BYTES] = 8,
        [HT_COL_LIVE_SAMPLES] = 9,
        [HT_COL_LIVE_INSTANCES] = 10,
        [HT_COL_DIFF_INSTANCES] = 11,
        [HT_COL_NAME] = 0,
    };
    return c < HT_COL_COUNT ? rank[c] : 100;
}

ht_col ht_col_samples_of(ht_col c)
{
    return c == HT_COL_LIVE_BYTES || c == HT_COL_LIVE_INSTANCES || c == HT_COL_GROWTH_BYTES ||
                   c == HT_COL_LIVE_SAMPLES
               ? HT_COL_LIVE_SAMPLES
               : HT_COL_SAMPLES;
}

int ht_col_few(const double *v, ht_col c)
{
    return v[ht_col_samples_of(c)] < HT_FEW_SAMPLES;
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
