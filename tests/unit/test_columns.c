/* Column layout: names keep their minimum, numeric columns are narrowed and
 * then dropped by priority, display order is kept, clicks map back. */
#include "check.h"
#include "columns.h"

#include <stdio.h>
#include <string.h>

/* The class screen's columns as view_list.c asks for them at 80 columns
 * without a mark: bytes in unit B want 11 ("671088640 B"), the blank diff
 * columns only their titles. */
static ht_col_req classes_req[] = {
    {HT_COL_BYTES, 11, 9, 1},           {HT_COL_INSTANCES, 7, 7, 6},
    {HT_COL_LIVE_BYTES, 11, 9, 2},      {HT_COL_LIVE_INSTANCES, 7, 7, 8},
    {HT_COL_YOUNG_BYTES, 11, 9, 7},     {HT_COL_DIFF_BYTES, 7, 7, 104},
    {HT_COL_DIFF_INSTANCES, 7, 7, 109}, {HT_COL_GROWTH_BYTES, 9, 9, 103},
};
#define NREQ ((int)(sizeof classes_req / sizeof classes_req[0]))

static int width_of(const ht_col_layout *l)
{
    int w = 0;
    for (int i = 0; i < l->n; i++)
        w += l->slot[i].w + 1;
    return w;
}

int main(void)
{
    ht_col_layout l;
    /* wide: everything at its wanted width, in display order, name takes the rest */
    ht_col_layout_make(&l, classes_req, NREQ, 200, 40);
    CHECK(l.n == NREQ);
    for (int i = 0; i < l.n; i++)
        CHECK(l.slot[i].col == classes_req[i].col && l.slot[i].w == classes_req[i].want);
    CHECK(l.slot[0].x == 0 && l.slot[1].x == 12 && l.name_x == width_of(&l));
    CHECK(l.name_x + l.name_w == 200);

    /* 80 columns, names keep 40: bytes, live, instances fit at their widths;
     * then what is left goes by priority; blank mark columns go first */
    ht_col_layout_make(&l, classes_req, NREQ, 80, 40);
    CHECK(l.name_w >= 40 && l.name_x + l.name_w == 80);
    CHECK(ht_col_layout_find(&l, HT_COL_BYTES) && ht_col_layout_find(&l, HT_COL_LIVE_BYTES));
    CHECK(ht_col_layout_find(&l, HT_COL_DIFF_BYTES) == NULL);
    CHECK(ht_col_layout_find(&l, HT_COL_GROWTH_BYTES) == NULL);
    CHECK(ht_col_layout_find(&l, HT_COL_BYTES)->w == 11);
    for (int i = 0; i + 1 < l.n; i++) /* display order, no overlap */
        CHECK(l.slot[i].x + l.slot[i].w + 1 == l.slot[i + 1].x);

    /* tighter: a column that does not fit at its wanted width fits narrowed */
    ht_col_req two[] = {{HT_COL_BYTES, 14, 9, 1}, {HT_COL_LIVE_BYTES, 14, 9, 2}};
    ht_col_layout_make(&l, two, 2, 50, 25);
    CHECK(l.n == 2 && l.slot[0].w == 14 && l.slot[1].w == 9 && l.name_w == 50 - 25);
    /* tighter still: the lower priority one goes, the name keeps its minimum */
    ht_col_layout_make(&l, two, 2, 40, 25);
    CHECK(l.n == 1 && l.slot[0].col == HT_COL_BYTES && l.slot[0].w == 14 && l.name_w == 25);
    /* the highest priority wins wherever it stands in display order */
    two[1].priority = 0;
    ht_col_layout_make(&l, two, 2, 40, 25);
    CHECK(l.n == 1 && l.slot[0].col == HT_COL_LIVE_BYTES && l.slot[0].x == 0);
    /* nothing fits: only the name */
    ht_col_layout_make(&l, two, 2, 30, 25);
    CHECK(l.n == 0 && l.name_x == 0 && l.name_w == 30);
    /* a name minimum wider than the line: the name gets the line */
    ht_col_layout_make(&l, two, 2, 20, 25);
    CHECK(l.n == 0 && l.name_w == 20);

    /* clicks: a column (its gap too), the name, past the line */
    ht_col_layout_make(&l, classes_req, NREQ, 200, 40);
    CHECK(ht_col_layout_at(&l, 0) == HT_COL_BYTES && ht_col_layout_at(&l, 11) == HT_COL_BYTES);
    CHECK(ht_col_layout_at(&l, 12) == HT_COL_INSTANCES);
    CHECK(ht_col_layout_at(&l, l.name_x) == HT_COL_NAME);
    CHECK(ht_col_layout_at(&l, 200) == HT_COL_COUNT);
    CHECK(ht_col_is_mark(HT_COL_GROWTH_BYTES) && !ht_col_is_mark(HT_COL_LIVE_BYTES));
    CHECK(ht_col_is_count(HT_COL_DIFF_INSTANCES) && !ht_col_is_count(HT_COL_BYTES));

    /* Samples: counts, ranked after the figures they qualify, and which one
     * backs which figure. */
    CHECK(ht_col_is_count(HT_COL_SAMPLES) && ht_col_is_count(HT_COL_LIVE_SAMPLES));
    CHECK(ht_col_rank(HT_COL_BYTES) < ht_col_rank(HT_COL_SAMPLES) &&
          ht_col_rank(HT_COL_LIVE_BYTES) < ht_col_rank(HT_COL_LIVE_SAMPLES));
    /* a narrow line (the tree at 80 columns) drops the samples before INST */
    CHECK(ht_col_rank(HT_COL_INSTANCES) < ht_col_rank(HT_COL_SAMPLES) &&
          ht_col_rank(HT_COL_INSTANCES) < ht_col_rank(HT_COL_LIVE_SAMPLES));
    CHECK(ht_col_samples_of(HT_COL_LIVE_BYTES) == HT_COL_LIVE_SAMPLES &&
          ht_col_samples_of(HT_COL_GROWTH_BYTES) == HT_COL_LIVE_SAMPLES &&
          ht_col_samples_of(HT_COL_BYTES) == HT_COL_SAMPLES &&
          ht_col_samples_of(HT_COL_NAME) == HT_COL_SAMPLES);
    double v[HT_COL_COUNT] = {0};
    v[HT_COL_SAMPLES] = 9, v[HT_COL_LIVE_SAMPLES] = 200;
    CHECK(ht_col_few(v, HT_COL_BYTES) && !ht_col_few(v, HT_COL_LIVE_BYTES));
    v[HT_COL_SAMPLES] = 10;
    CHECK(!ht_col_few(v, HT_COL_PCT));

    /* Bounds: LIVE and GROWTH bytes by the heap's used bytes, RETAINED by
     * the snapshot's; YOUNG, counts and allocated bytes have none (a YOUNG
     * of 121 MiB was read against a heap just collected: test_tui_narrow);
     * an unknown bound (0) marks nothing. */
    ht_col_bounds none = {0, 0}, bd = {.heap_used = 1000, .snapshot_bytes = 5000};
    CHECK(!ht_col_over(&none, HT_COL_LIVE_BYTES, 1e12));
    CHECK(ht_col_over(&bd, HT_COL_LIVE_BYTES, 1001) && !ht_col_over(&bd, HT_COL_LIVE_BYTES, 1000));
    CHECK(ht_col_over(&bd, HT_COL_GROWTH_BYTES, 2000) &&
          !ht_col_over(&bd, HT_COL_YOUNG_BYTES, 2000));
    CHECK(!ht_col_over(&bd, HT_COL_BYTES, 1e12) && !ht_col_over(&bd, HT_COL_LIVE_INSTANCES, 1e12));
    CHECK(!ht_col_over(&bd, HT_COL_HEAP_RETAINED, 5000) &&
          ht_col_over(&bd, HT_COL_HEAP_RETAINED, 5001));
    v[HT_COL_LIVE_BYTES] = 1500, v[HT_COL_HEAP_RETAINED] = 6000, v[HT_COL_BYTES] = 1e9;
    unsigned over = ht_col_over_mask(&bd, v);
    CHECK(over == (1u << HT_COL_LIVE_BYTES | 1u << HT_COL_HEAP_RETAINED));

    /* The mark takes the place of the number in its cell, right-aligned,
     * and nothing else of the line moves. */
    ht_col_req cells[] = {{HT_COL_BYTES, 8, 8, 1}, {HT_COL_LIVE_BYTES, 8, 8, 2}};
    ht_col_layout_make(&l, cells, 2, 40, 10);
    char line[64];
    snprintf(line, sizeof line, "%8s %8s %s", "1.0G", "1.5K", "byte[]");
    ht_col_mark_over(&l, over, line, strlen(line));
    CHECK(strcmp(line, "    1.0G    >heap byte[]") == 0);
    ht_col_mark_over(&l, 0, line, strlen(line));
    CHECK(strcmp(line, "    1.0G    >heap byte[]") == 0);
    return check_summary();
}
