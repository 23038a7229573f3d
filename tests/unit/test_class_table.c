/* Class table: sums per class, filter, sorting by any column both ways. */
#include "check.h"
#include "class_table.h"
#include "protocol.h"
#include "store.h"

#include <string.h>

static void apply(ht_store *s, ht_buf *b)
{
    ht_msg m;
    ht_msg_open(b->data, b->len, &m);
    ht_store_apply(s, &m);
    ht_buf_reset(b);
}

int main(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_CLASSES, 1), at = ht_list_begin(&b);
    ht_enc_class(&b, 1, "byte[]");
    ht_enc_class(&b, 2, "java.lang.String");
    ht_enc_class(&b, 3, "java.io.File");
    ht_list_end(&b, at, 3);
    ht_msg_end(&b, m);
    apply(&s, &b);
    m = ht_msg_begin(&b, HT_MSG_AGGS, 2), at = ht_list_begin(&b);
    ht_agg_rec rows[] = {{1, 1, 1, 1, 1000, 5, 400, 2},
                         {2, 1, 1, 0, 3000, 20, 0, 0}, /* byte[] at a second site */
                         {1, 2, 1, 1, 2500, 100, 25, 1},
                         {3, 3, 1, 0, 10, 1, 0, 0}};
    for (int i = 0; i < 4; i++)
        ht_enc_agg(&b, &rows[i]);
    ht_list_end(&b, at, 4);
    ht_msg_end(&b, m);
    apply(&s, &b);
    ht_buf_free(&b);

    ht_class_table t;
    ht_class_table_init(&t);
    CHECK(ht_class_table_build(&t, &s, NULL, NULL) == 0);
    CHECK(t.nrows == 3);
    CHECK(strcmp(t.rows[0].name, "byte[]") == 0 && t.rows[0].v[HT_COL_BYTES] == 4000);
    CHECK(t.rows[0].v[HT_COL_INSTANCES] == 25 && t.rows[0].v[HT_COL_LIVE_BYTES] == 400);
    CHECK(t.rows[0].v[HT_COL_DIFF_BYTES] == 4000); /* no mark: diff = total */
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
    CHECK(ht_class_table_build(&t, &s, &f, NULL) == 0 && t.nrows == 1);
    CHECK(strcmp(t.rows[0].name, "java.lang.String") == 0);
    ht_marks mk;
    ht_marks_init(&mk);
    ht_marks_begin(&mk, &s, 0);
    CHECK(ht_class_table_build(&t, &s, NULL, &mk) == 0 && t.rows[0].v[HT_COL_DIFF_BYTES] == 0);
    CHECK(strcmp(ht_class_col_name(HT_COL_LIVE_BYTES), "LIVE B") == 0);
    ht_marks_free(&mk);
    ht_class_table_free(&t);
    ht_store_free(&s);
    return check_summary();
}
