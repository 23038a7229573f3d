/* Class table: sums per class, filter, sorting by any column both ways. */
#include "check.h"
#include "class_table.h"
#include "protocol.h"
#include "store.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <string.h>

int main(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "byte[]");
    mb_class(&m, 2, "java.lang.String");
    mb_class(&m, 3, "java.io.File");
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_AGGS, 2);
    ht_agg_rec rows[] = {MB_ROW(1, 1, 1, 1, 1000, 5, 400, 2),
                         MB_ROW(2, 1, 1, 0, 3000, 20, 0, 0), /* byte[] at a second site */
                         MB_ROW(1, 2, 1, 1, 2500, 100, 25, 1), MB_ROW(3, 3, 1, 0, 10, 1, 0, 0)};
    mb_aggs(&m, rows, 4);
    mb_apply(&m, &s);
    ht_buf_free(&b);

    ht_class_table t;
    ht_class_table_init(&t);
    CHECK(ht_class_table_build(&t, &s, NULL) == 0);
    CHECK(t.nrows == 3);
    CHECK(strcmp(t.rows[0].name, "byte[]") == 0 && t.rows[0].v[HT_COL_BYTES] == 4000);
    CHECK(t.rows[0].v[HT_COL_INSTANCES] == 25 && t.rows[0].v[HT_COL_LIVE_BYTES] == 400);
    CHECK(t.rows[0].v[HT_COL_DIFF_BYTES] == 0); /* no mark: the rows carry no diff */
    t.sort_col = HT_COL_INSTANCES;
    ht_class_table_sort(&t);
    CHECK(strcmp(t.rows[0].name, "java.lang.String") == 0);
    t.ascending = 1;
    ht_class_table_sort(&t);
    CHECK(strcmp(t.rows[0].name, "java.io.File") == 0);
    t.sort_col = HT_COL_NAME;
    ht_class_table_sort(&t);
    CHECK(strcmp(t.rows[0].name, "byte[]") == 0 && strcmp(t.rows[2].name, "java.lang.String") == 0);
    ht_filter f;
    char err[64];
    ht_filter_parse(&f, "java., !.io.", err, sizeof err);
    CHECK(ht_class_table_build(&t, &s, &f) == 0 && t.nrows == 1);
    CHECK(strcmp(t.rows[0].name, "java.lang.String") == 0);
    /* diff, growth and young sum over a class's sites like the rest */
    ht_buf_init(&b);
    m = mb_list(&b, HT_MSG_AGGS, 3);
    ht_agg_rec d1 = MB_ROW(1, 1, 1, 1, 1000, 5, 400, 2), d2 = MB_ROW(2, 1, 1, 0, 3000, 20, 0, 0);
    d1.diff_bytes = 100;
    d1.growth_bytes = -50;
    d1.young_est_bytes = 7;
    d2.diff_bytes = 250;
    d2.growth_bytes = 20;
    d2.young_est_bytes = 3;
    mb_agg(&m, &d1);
    mb_agg(&m, &d2);
    mb_apply(&m, &s);
    ht_buf_free(&b);
    CHECK(ht_class_table_build(&t, &s, NULL) == 0);
    t.sort_col = HT_COL_NAME;
    t.ascending = 1;
    ht_class_table_sort(&t);
    CHECK(t.rows[0].v[HT_COL_DIFF_BYTES] == 350 && t.rows[0].v[HT_COL_GROWTH_BYTES] == -30);
    CHECK(t.rows[0].v[HT_COL_YOUNG_BYTES] == 10);
    CHECK(strcmp(ht_col_title(HT_COL_LIVE_BYTES), "LIVE B") == 0);

    /* The samples each figure rests on, summed over a class's sites like the
     * rest: byte[]'s two sites have 1 sample each, 1 live. Few samples (under
     * HT_FEW_SAMPLES) on every row here: each is dimmed. */
    CHECK(t.rows[0].v[HT_COL_SAMPLES] == 2 && t.rows[0].v[HT_COL_LIVE_SAMPLES] == 1);
    CHECK(ht_col_few(t.rows[0].v, HT_COL_BYTES) && ht_col_few(t.rows[0].v, HT_COL_LIVE_BYTES));
    CHECK(strcmp(ht_col_title(HT_COL_SAMPLES), "SAMPLES") == 0);
    /* Without telemetry no bound is known: nothing is over. */
    CHECK(t.over == 0 && t.rows[0].over == 0);
    /* The heap's used bytes bound LIVE, YOUNG and GROWTH: java.lang.String's
     * one live sample stands for 25 bytes, byte[]'s for 400; with 300 bytes of
     * heap in use, byte[]'s LIVE is marked over its bound, String's is not,
     * and its other figures (allocated bytes, 4000) are not bounded by it. */
    ht_buf_init(&b);
    m = mb_list(&b, HT_MSG_TELEMETRY, 4);
    ht_telemetry_rec tel = {.heap_used = 300};
    mb_telemetry(&m, &tel);
    mb_apply(&m, &s);
    /* many samples on File: not few */
    m = mb_list(&b, HT_MSG_AGGS, 5);
    ht_agg_rec many = MB_ROW(3, 3, 40, 12, 10, 1, 0, 0);
    mb_agg(&m, &many);
    mb_apply(&m, &s);
    ht_buf_free(&b);
    CHECK(ht_class_table_build(&t, &s, NULL) == 0);
    t.sort_col = HT_COL_NAME;
    t.ascending = 1;
    ht_class_table_sort(&t);
    CHECK(t.bounds.heap_used == 300);
    CHECK(t.rows[0].over == 1u << HT_COL_LIVE_BYTES); /* byte[]: 400 > 300 */
    CHECK(t.rows[1].over == 0 && t.rows[2].over == 0);
    CHECK(t.over == 1u << HT_COL_LIVE_BYTES);
    CHECK(strcmp(t.rows[1].name, "java.io.File") == 0 && !ht_col_few(t.rows[1].v, HT_COL_BYTES) &&
          ht_col_few(t.rows[1].v, HT_COL_LIVE_BYTES) == 0);
    /* a copy for an export keeps them */
    ht_class_table copy;
    ht_class_table_init(&copy);
    CHECK(ht_class_table_copy(&copy, &t, &s) == 0 && copy.rows[0].over == t.rows[0].over &&
          copy.rows[1].v[HT_COL_SAMPLES] == 40);
    ht_class_table_free(&copy);
    ht_class_table_free(&t);
    ht_store_free(&s);
    return check_summary();
}
