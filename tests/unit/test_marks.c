/* Diff arithmetic across begin / end / continue marks. */
#include "check.h"
#include "marks.h"
#include "protocol.h"
#include "store.h"

#include <string.h>

static void set_row(ht_store *s, uint32_t trace, uint32_t cls, double bytes, double inst)
{
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_AGGS, 1), at = ht_list_begin(&b);
    ht_agg_rec a = {trace, cls, 1, 0, bytes, inst, 0, 0};
    ht_enc_agg(&b, &a);
    ht_list_end(&b, at, 1);
    ht_msg_end(&b, m);
    ht_msg msg;
    ht_msg_open(b.data, b.len, &msg);
    ht_store_apply(s, &msg);
    ht_buf_free(&b);
}

static const ht_agg_rec *row(const ht_store *s, uint32_t trace, uint32_t cls)
{
    for (uint32_t i = 0; i < s->nrows; i++)
        if (s->rows[i].trace_id == trace && s->rows[i].class_id == cls) return &s->rows[i];
    return NULL;
}

int main(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_marks m;
    ht_marks_init(&m);
    double b, i;
    set_row(&s, 1, 1, 1000, 10);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 1000 && i == 10); /* no mark: diff = total */

    CHECK(ht_marks_begin(&m, &s, 100) == 0);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 0 && i == 0); /* begin zeroes */
    set_row(&s, 1, 1, 1500, 15);
    set_row(&s, 2, 1, 300, 3); /* a site born during the mark */
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 500 && i == 5);
    ht_marks_diff(&m, row(&s, 2, 1), &b, &i);
    CHECK(b == 300 && i == 3);
    CHECK(ht_marks_length_ms(&m, 350) == 250);

    CHECK(ht_marks_end(&m, &s, 400) == 0);
    set_row(&s, 1, 1, 9000, 90); /* outside the mark: not counted */
    set_row(&s, 3, 2, 50, 1);    /* born after End */
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 500 && i == 5);
    ht_marks_diff(&m, row(&s, 3, 2), &b, &i);
    CHECK(b == 0 && i == 0);
    CHECK(ht_marks_length_ms(&m, 5000) == 300);

    CHECK(ht_marks_continue(&m, &s, 6000) == 0);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 500 && i == 5); /* continue resumes from the frozen diff */
    set_row(&s, 1, 1, 9100, 91);
    set_row(&s, 3, 2, 80, 2);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 600 && i == 6);
    ht_marks_diff(&m, row(&s, 3, 2), &b, &i);
    CHECK(b == 30 && i == 1);
    CHECK(ht_marks_end(&m, &s, 6100) == 0);
    CHECK(ht_marks_length_ms(&m, 99999) == 400);

    /* a resync rebuilds the store in another order: the diff is unchanged */
    ht_store_clear(&s);
    set_row(&s, 3, 2, 80, 2);
    set_row(&s, 2, 1, 300, 3);
    set_row(&s, 1, 1, 9100, 91);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 600 && i == 6);

    /* begin again starts from zero; continue without a mark acts as begin */
    CHECK(ht_marks_begin(&m, &s, 0) == 0);
    ht_marks_diff(&m, row(&s, 1, 1), &b, &i);
    CHECK(b == 0);
    ht_marks_free(&m);
    ht_marks_init(&m);
    CHECK(ht_marks_continue(&m, &s, 0) == 0 && m.state == HT_MARK_RUNNING);
    ht_marks_free(&m);
    ht_store_free(&s);
    return check_summary();
}
