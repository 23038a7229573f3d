/* test_protocol_drag.c - drag mode's wire records (protocol_drag.h): the
 * filter's check and match, the histogram's buckets, DRAG_REQ, DRAG_STATE and
 * DRAG_ROWS both ways, every truncation refused, and rows that cannot be. */
#include "check.h"
#include "protocol.h"

#include <string.h>

static void test_filter(void)
{
    char err[256];
    const char *good[] = {
        "",      "off", "org.h2.", "org.h2", "dragwl.:org.apache.fop", "com.example.Cache$Entry",
        "a_b.c1"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK_MSG(ht_drag_filter_check(good[i], err, sizeof err) == 0, "'%s': %s", good[i], err);
    struct {
        const char *f, *says;
    } bad[] = {
        {"org.h2::org.x", "empty prefix"},
        {":org.h2", "empty prefix"},
        {"org.h2:", "empty prefix"},
        {"org/h2", "no class-name prefix"},
        {".org", "no class-name prefix"},
        {"org h2", "no class-name prefix"},
        {"java.util.", "JDK"},
        {"jav", "JDK"},
        {"org.h2:javax.swing", "JDK"},
        {"jdk.internal", "JDK"},
        {"sun.misc", "JDK"},
        {"com.sun.net", "JDK"},
        {"com.s", "JDK"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CHECK_MSG(ht_drag_filter_check(bad[i].f, err, sizeof err) == -1 && strstr(err, bad[i].says),
                  "'%s' refused saying '%s': %s", bad[i].f, bad[i].says, err);
    }
    char longf[HT_DRAG_FILTER_MAX + 2];
    memset(longf, 'a', sizeof longf - 1);
    longf[sizeof longf - 1] = '\0';
    CHECK(ht_drag_filter_check(longf, err, sizeof err) == -1 && strstr(err, "longer"));

    CHECK(ht_drag_filter_matches("org.h2.:dragwl.", "dragwl.Rec"));
    CHECK(ht_drag_filter_matches("org.h2.:dragwl.", "org.h2.Driver"));
    CHECK(!ht_drag_filter_matches("org.h2.:dragwl.", "org.h3.Driver"));
    CHECK(ht_drag_filter_matches("com.example.Cache", "com.example.CacheEntry"));
    CHECK(!ht_drag_filter_matches("", "anything"));
    CHECK(!ht_drag_filter_matches(NULL, "x") && !ht_drag_filter_matches("x", NULL));
}

static void test_hist(void)
{
    const uint64_t ms = 1000000u;
    CHECK(ht_drag_hist_bucket(0) == 0 && ht_drag_hist_bucket(9 * ms) == 0);
    CHECK(ht_drag_hist_bucket(10 * ms) == 1 && ht_drag_hist_bucket(19 * ms) == 1);
    CHECK(ht_drag_hist_bucket(20 * ms) == 2 && ht_drag_hist_bucket(2000 * ms) == 8);
    CHECK(ht_drag_hist_bucket(163839 * ms) == 14 && ht_drag_hist_bucket(163840 * ms) == 15);
    CHECK(ht_drag_hist_bucket(UINT64_MAX) == HT_DRAG_HIST - 1);
    /* every bucket's lower bound falls in it, and one ms less in the one below */
    for (int k = 1; k < HT_DRAG_HIST; k++) {
        CHECK_MSG(ht_drag_hist_bucket(ht_drag_hist_lo_ms(k) * ms) == k, "bucket %d", k);
        CHECK_MSG(ht_drag_hist_bucket((ht_drag_hist_lo_ms(k) - 1) * ms) == k - 1, "below %d", k);
    }
    CHECK(ht_drag_hist_lo_ms(0) == 0 && ht_drag_hist_lo_ms(15) == 163840);
}

static int validates(const ht_buf *b)
{
    ht_msg m;
    return ht_msg_open(b->data, b->len, &m) == HT_OK && ht_msg_validate(&m) == HT_OK;
}

/* Every prefix of a valid message is refused (the header's length says more). */
static void check_truncations(const ht_buf *b, const char *what)
{
    int refused = 0, n = 0;
    for (size_t len = HT_HEADER_SIZE; len < b->len; len++) {
        ht_buf c;
        ht_buf_init(&c);
        ht_put_bytes(&c, b->data, len);
        /* patch the length so the header agrees: the body itself is short */
        uint32_t body = (uint32_t)(len - HT_HEADER_SIZE);
        memcpy(c.data + 8, &body, 4);
        ht_msg m;
        n++;
        refused += ht_msg_open(c.data, c.len, &m) != HT_OK || ht_msg_validate(&m) != HT_OK;
        ht_buf_free(&c);
    }
    CHECK_MSG(refused == n, "%s: %d of %d truncations refused", what, refused, n);
}

static ht_drag_row_rec a_row(void)
{
    ht_drag_row_rec r = {.trace_id = 7,
                         .class_id = 3,
                         .samples = 100,
                         .tracked = 40,
                         .dead = 30,
                         .void_ = 5,
                         .bytes = 30 * 1024.0,
                         .drag_lo = 50.0,
                         .drag_hi = 61.5,
                         .lag = 0.25,
                         .use = 1.5,
                         .diff_samples = 10,
                         .diff_tracked = 4,
                         .diff_dead = 3,
                         .diff_void = 1,
                         .diff_bytes = 3072,
                         .diff_drag_lo = 5,
                         .diff_drag_hi = 6,
                         .diff_lag = 0.1,
                         .diff_use = 0.2};
    for (int k = 0; k < HT_DRAG_HIST; k++)
        r.hist[k] = (uint32_t)(k * 3);
    return r;
}

static void rows_msg(ht_buf *b, const ht_drag_row_rec *rows, uint32_t n)
{
    ht_buf_reset(b);
    size_t m = ht_msg_begin(b, HT_MSG_DRAG_ROWS, 4);
    size_t at = ht_list_begin(b);
    for (uint32_t i = 0; i < n; i++)
        ht_enc_drag_row(b, &rows[i]);
    ht_list_end(b, at, n);
    ht_msg_end(b, m);
}

static void test_records(void)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_msg m;
    ht_reader r;

    ht_enc_drag_req(&b, 9, "org.h2.:dragwl.");
    CHECK(validates(&b) && ht_msg_open(b.data, b.len, &m) == HT_OK && m.type == HT_MSG_DRAG_REQ);
    ht_msg_reader(&m, &r);
    ht_str f = ht_get_str(&r);
    CHECK(f.len == 15 && memcmp(f.s, "org.h2.:dragwl.", 15) == 0 && ht_remaining(&r) == 0);
    check_truncations(&b, "DRAG_REQ");

    ht_drag_state_rec s = {.on = 1,
                           .slots = 8,
                           .classes = 12,
                           .methods = 345,
                           .skipped_long = 1,
                           .skipped_attr = 2,
                           .failed = 3,
                           .hot = 4,
                           .t_on_ms = 4000,
                           .samples = 900,
                           .tracked = 600,
                           .untracked = 300,
                           .tracking = 17};
    ht_buf_reset(&b);
    size_t at = ht_msg_begin(&b, HT_MSG_DRAG_STATE, 5);
    ht_enc_drag_state(&b, &s, "dragwl.", "");
    ht_msg_end(&b, at);
    CHECK(validates(&b));
    ht_msg_open(b.data, b.len, &m);
    ht_msg_reader(&m, &r);
    ht_drag_state_rec d;
    ht_dec_drag_state(&r, &d);
    CHECK(!r.failed && ht_remaining(&r) == 0 && d.on == 1 && d.slots == 8 && d.classes == 12 &&
          d.methods == 345 && d.skipped_long == 1 && d.skipped_attr == 2 && d.failed == 3 &&
          d.hot == 4 && d.t_on_ms == 4000 && d.samples == 900 && d.tracked == 600 &&
          d.untracked == 300 && d.tracking == 17 && d.filter.len == 7 && d.why.len == 0);
    check_truncations(&b, "DRAG_STATE");
    s.tracked = s.samples + 1; /* more tracked than sampled */
    ht_buf_reset(&b);
    at = ht_msg_begin(&b, HT_MSG_DRAG_STATE, 5);
    ht_enc_drag_state(&b, &s, "dragwl.", "");
    ht_msg_end(&b, at);
    CHECK(!validates(&b));

    ht_drag_row_rec rows[2] = {a_row(), a_row()};
    rows[1].trace_id = 8;
    rows_msg(&b, rows, 2);
    CHECK(validates(&b));
    CHECK(b.len == HT_HEADER_SIZE + 4 + 2 * HT_DRAG_ROW_WIRE_SIZE);
    ht_msg_open(b.data, b.len, &m);
    ht_msg_reader(&m, &r);
    CHECK(ht_get_u32(&r) == 2);
    ht_drag_row_rec back;
    ht_dec_drag_row(&r, &back);
    ht_drag_row_rec want = a_row();
    CHECK(memcmp(&back, &want, sizeof back) == 0);
    check_truncations(&b, "DRAG_ROWS");

    /* rows that cannot be are refused, one field at a time */
    for (int k = 0; k < 9; k++) {
        ht_drag_row_rec w = a_row();
        switch (k) {
        case 0:
            w.tracked = w.samples + 1;
            break;
        case 1:
            w.dead = w.tracked + 1;
            break;
        case 2:
            w.void_ = w.dead + 1;
            break;
        case 3:
            w.drag_lo = w.drag_hi + 1;
            break;
        case 4:
            w.drag_hi = -1;
            w.drag_lo = -2;
            break;
        case 5:
            w.lag = 1.0 / 0.0;
            break;
        case 6:
            w.use = 0.0 / 0.0;
            break;
        case 7:
            w.trace_id = HT_TRACE_NONE;
            break;
        case 8:
            w.diff_drag_hi = -0.5;
            break;
        }
        rows_msg(&b, &w, 1);
        CHECK_MSG(!validates(&b), "bad row %d refused", k);
    }
    /* a count larger than the body */
    rows_msg(&b, rows, 1);
    b.data[HT_HEADER_SIZE] = 200;
    CHECK(!validates(&b));
    ht_buf_free(&b);
}

int main(void)
{
    test_filter();
    test_hist();
    test_records();
    return check_summary();
}
