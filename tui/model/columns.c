/* columns.c - see columns.h. */
#include "columns.h"

#include <stddef.h>

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
        [HT_COL_NAME] = "NAME",
    };
    return c < HT_COL_COUNT ? titles[c] : "?";
}

int ht_col_is_count(ht_col c)
{
    return c == HT_COL_INSTANCES || c == HT_COL_LIVE_INSTANCES || c == HT_COL_DIFF_INSTANCES ||
           c == HT_COL_HEAP_OBJECTS;
}

int ht_col_is_mark(ht_col c)
{
    return c == HT_COL_DIFF_BYTES || c == HT_COL_DIFF_INSTANCES || c == HT_COL_GROWTH_BYTES;
}

int ht_col_is_signed(ht_col c)
{
    return c == HT_COL_GROWTH_BYTES;
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
