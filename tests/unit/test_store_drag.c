/* The store's drag part and drag.csv, fed with encoded protocol messages:
 * the state kept with its strings, rows replacing their site's last copy, a
 * sync (clear, then everything again) replacing them, a job's copy with the
 * stacks the rows use, the cap, and the file's rows and order. */
#include "check.h"

#include "export_drag.h"
#include "hash.h"
#include "protocol.h"
#include "store.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names and two stacks: trace 5 (alloc <- main), trace 6 (cache <- main). */
static void names(ht_store *s)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "app.Rec");
    mb_class(&m, 2, "app.Entry");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_METHODS, 2);
    mb_method(&m, 1, "app.Main", "alloc", "Main.java");
    mb_method(&m, 2, "app.Main", "main", "Main.java");
    mb_method(&m, 3, "app.Cache", "put", "Cache.java");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TRACES, 3);
    mb_trace(&m, 5, 2);
    mb_frame(&m, 1, 42);
    mb_frame(&m, 2, 7);
    mb_trace(&m, 6, 2);
    mb_frame(&m, 3, 19);
    mb_frame(&m, 2, 9);
    mb_apply(&m, s);
    ht_buf_free(&b);
}

static void apply_state(ht_store *s, const ht_drag_state_rec *st, const char *filter,
                        const char *why)
{
    ht_buf b;
    ht_buf_init(&b);
    mb_drag_state(&b, 9, st, filter, why);
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    CHECK(ht_store_apply(s, &msg) == HT_OK);
    ht_buf_free(&b);
}

static ht_drag_row_rec row(uint32_t trace, uint32_t cls, uint64_t samples, double lo, double hi)
{
    return (ht_drag_row_rec){.trace_id = trace,
                             .class_id = cls,
                             .samples = samples,
                             .tracked = samples - 1,
                             .dead = samples - 2,
                             .void_ = 1,
                             .bytes = 1024.0 * (double)(samples - 2),
                             .drag_lo = lo,
                             .drag_hi = hi,
                             .lag = 10,
                             .use = 20,
                             .hist = {[3] = 2},
                             .diff_samples = 1,
                             .diff_drag_hi = hi / 2};
}

static void test_store(void)
{
    ht_store s;
    ht_store_init(&s);
    names(&s);
    CHECK(!s.drag.known && !ht_store_drag_on(&s));
    ht_drag_state_rec st = {.on = 1,
                            .slots = 8,
                            .classes = 3,
                            .methods = 40,
                            .samples = 10,
                            .tracked = 9,
                            .untracked = 1};
    uint64_t gen = s.generation;
    apply_state(&s, &st, "app.", "");
    CHECK(s.generation > gen && ht_store_drag_on(&s) && s.drag.rec.classes == 3 &&
          s.drag.rec.methods == 40 && strcmp(s.drag.filter, "app.") == 0 &&
          strcmp(s.drag.why, "") == 0 && s.drag.rec.filter.s == NULL);
    /* off, and why: the strings replaced */
    st.on = 0;
    apply_state(&s, &st, "app.", "turned off by a viewer");
    CHECK(!ht_store_drag_on(&s) && strcmp(s.drag.why, "turned off by a viewer") == 0);

    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_DRAG_ROWS, 10);
    ht_drag_row_rec a = row(5, 1, 10, 100, 300), c = row(6, 2, 4, 50, 5000);
    mb_drag_row(&m, &a);
    mb_drag_row(&m, &c);
    mb_apply(&m, &s);
    CHECK(s.ndrag_rows == 2);
    /* the same site again: the new cumulative copy replaces the old one */
    m = mb_list(&b, HT_MSG_DRAG_ROWS, 11);
    a.samples = 12;
    a.drag_hi = 400;
    mb_drag_row(&m, &a);
    mb_apply(&m, &s);
    const ht_drag_row_rec *r = ht_store_drag_row(&s, 5, 1);
    CHECK(s.ndrag_rows == 2 && r && r->samples == 12 && r->drag_hi == 400 && r->hist[3] == 2);
    CHECK(ht_store_drag_row(&s, 5, 2) == NULL && ht_store_drag_row(&s, 6, 2) != NULL);

    /* a job's copy: state, rows, lookups, and the stacks the rows use */
    ht_store cp;
    ht_store_init(&cp);
    CHECK(ht_store_snapshot(&cp, &s) == 0);
    CHECK(cp.drag.known && strcmp(cp.drag.why, "turned off by a viewer") == 0 &&
          cp.drag.why != s.drag.why && cp.ndrag_rows == 2);
    r = ht_store_drag_row(&cp, 6, 2);
    CHECK(r && r->drag_hi == 5000 && r != ht_store_drag_row(&s, 6, 2));
    char name[256];
    ht_store_site_name(&cp, 6, name, sizeof name);
    CHECK(strcmp(name, "app.Cache.put:19") == 0);
    ht_store_free(&cp);

    /* a sync: the store cleared, then the state and every row again */
    ht_buf inner;
    ht_buf_init(&inner);
    ht_buf sync;
    ht_buf_init(&sync);
    mb sm = mb_sync(&sync, 20, 11);
    st.on = 1;
    mb_drag_state(&inner, 0, &st, "app.Entry", "");
    mb_sync_add(&sm, &inner);
    ht_buf_reset(&inner);
    m = mb_list(&inner, HT_MSG_DRAG_ROWS, 0);
    c.samples = 30;
    mb_drag_row(&m, &c);
    mb_end(&m);
    mb_sync_add(&sm, &inner);
    mb_end(&sm);
    ht_msg msg;
    CHECK(ht_msg_open(sync.data, sync.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_store_clear(&s);
    CHECK(!s.drag.known && s.ndrag_rows == 0 && ht_store_drag_row(&s, 5, 1) == NULL);
    ht_sync_iter it;
    CHECK(ht_sync_begin(&msg, &it) == HT_OK);
    ht_msg one;
    while (ht_sync_next(&it, &one) == 1)
        CHECK(ht_store_apply(&s, &one) == HT_OK);
    CHECK(ht_store_drag_on(&s) && strcmp(s.drag.filter, "app.Entry") == 0);
    CHECK(s.ndrag_rows == 1 && ht_store_drag_row(&s, 5, 1) == NULL);
    r = ht_store_drag_row(&s, 6, 2);
    CHECK(r && r->samples == 30);
    /* and it keeps working after the sync */
    m = mb_list(&b, HT_MSG_DRAG_ROWS, 21);
    mb_drag_row(&m, &a);
    mb_apply(&m, &s);
    CHECK(s.ndrag_rows == 2 && ht_store_drag_row(&s, 5, 1)->samples == 12);
    ht_buf_free(&inner);
    ht_buf_free(&sync);
    ht_buf_free(&b);
    ht_store_free(&s);
}

/* The validator keeps impossible rows out of the store (protocol_drag.c);
 * the store's own cap counts what it refuses. */
static void test_caps(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    uint32_t id = 1;
    while (s.ndrag_rows < HT_STORE_DRAG_ROWS_MAX) {
        mb m = mb_list(&b, HT_MSG_DRAG_ROWS, id);
        for (int i = 0; i < 65536; i++, id++) {
            ht_drag_row_rec r = {.trace_id = id, .class_id = 1, .samples = 1};
            mb_drag_row(&m, &r);
        }
        mb_apply(&m, &s);
    }
    CHECK(s.drag_refused == 0);
    mb m = mb_list(&b, HT_MSG_DRAG_ROWS, id);
    ht_drag_row_rec past = {.trace_id = id, .class_id = 1, .samples = 1};
    ht_drag_row_rec kept = {.trace_id = 1, .class_id = 1, .samples = 7};
    mb_drag_row(&m, &past);
    mb_drag_row(&m, &kept);
    mb_apply(&m, &s);
    CHECK(s.ndrag_rows == HT_STORE_DRAG_ROWS_MAX && s.drag_refused == 1);
    CHECK(ht_store_drag_row(&s, id, 1) == NULL && ht_store_drag_row(&s, 1, 1)->samples == 7);
    /* a row with more tracked than sampled is refused whole by validation */
    m = mb_list(&b, HT_MSG_DRAG_ROWS, id + 1);
    ht_drag_row_rec bad = {.trace_id = 2, .class_id = 1, .samples = 1, .tracked = 2};
    mb_drag_row(&m, &bad);
    mb_end(&m);
    ht_msg msg;
    CHECK(ht_msg_open(b.data + m.msg, b.len - m.msg, &msg) == HT_OK &&
          ht_msg_validate(&msg) != HT_OK);
    ht_buf_free(&b);
    ht_store_free(&s);
}

/* drag.csv: the header, most drag first, frame and stack as sites.csv
 * writes them, the screen's own order and subset, the mark's figures. */
static void test_export(void)
{
    ht_store s;
    ht_store_init(&s);
    names(&s);
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_DRAG_ROWS, 10);
    ht_drag_row_rec a = row(5, 1, 10, 100.4, 300.6), c = row(6, 2, 4, 50, 5000);
    mb_drag_row(&m, &a);
    mb_drag_row(&m, &c);
    mb_apply(&m, &s);
    char dir[] = "/tmp/heaptop-drag-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/drag.csv", dir);
    CHECK(ht_export_drag(&s, path, NULL, NULL) == 0);
    char *text = check_slurp(path);
    static const char header[] =
        "\"class\",\"frame\",\"stack\",\"samples\",\"tracked\",\"drag_byte_s_lo\","
        "\"drag_byte_s_hi\",\"lag_byte_s\",\"use_byte_s\",\"void_samples\",\"truncated\"\r\n";
    static const char cache[] =
        "\"app.Entry\",\"app.Cache.put:19\",\"app.Cache.put:19 <- app.Main.main:9\",\"4\","
        "\"3\",\"67\",\"6667\",\"13\",\"27\",\"1\",\"0\"\r\n";
    static const char rec[] = "\"app.Rec\",\"app.Main.alloc:42\",\"app.Main.alloc:42 <- "
                              "app.Main.main:7\",\"10\",\"9\",\"112\",\"334\",\"11\",\"22\",\"1\","
                              "\"0\"\r\n";
    /* the figures scaled by samples / tracked (4/3 and 10/9), samples and
     * tracked as counted; most drag (hi) first: Entry (6667) before Rec (334) */
    CHECK(text && strncmp(text, header, strlen(header)) == 0);
    CHECK(text && strncmp(text + strlen(header), cache, strlen(cache)) == 0);
    CHECK(text && strcmp(text + strlen(header) + strlen(cache), rec) == 0);
    /* the screen's rows in its order (a site it names without a row is left
     * out), the mark's figures */
    uint64_t sites[] = {ht_row_key(5, 1), ht_row_key(9, 9), ht_row_key(6, 2)};
    ht_drag_export how = {.sites = sites, .nsites = 3, .mark = 1};
    CHECK(ht_export_drag(&s, path, &how, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\r\n\"app.Rec\",\"app.Main.alloc:42\",\"app.Main.alloc:42 <- "
                               "app.Main.main:7\",\"1\",\"0\",\"0\",\"167\",\"0\",\"0\",\"0\","
                               "\"0\"\r\n\"app.Entry\","));
    unlink(path);
    rmdir(dir);
    ht_buf_free(&b);
    ht_store_free(&s);
}

/* A row as estimates for its site: scaled by samples / tracked, counts
 * rounded, samples, tracked and the histogram as counted; nothing tracked,
 * as it is. */
static void test_estimate(void)
{
    ht_drag_row_rec r = row(1, 1, 9, 10, 40), e;
    r.tracked = 3;
    r.void_ = 2;
    r.diff_dead = 1;
    r.diff_drag_lo = 5;
    CHECK(ht_drag_row_scale(&r) == 3.0);
    ht_drag_row_estimate(&r, &e);
    CHECK(e.samples == 9 && e.tracked == 3 && e.hist[3] == 2 && e.diff_samples == 1);
    CHECK(e.dead == 21 && e.void_ == 6 && e.diff_dead == 3);
    CHECK(e.drag_lo == 30 && e.drag_hi == 120 && e.lag == 30 && e.use == 60);
    CHECK(e.bytes == 3 * r.bytes && e.diff_drag_lo == 15 && e.diff_drag_hi == 60);
    r.tracked = 0;
    CHECK(ht_drag_row_scale(&r) == 1.0);
    ht_drag_row_estimate(&r, &e);
    CHECK(e.drag_hi == 40 && e.dead == 7 && e.void_ == 2);
    /* a 1 in 3 share's count rounds to the nearest object */
    r.tracked = 6;
    r.void_ = 1;
    ht_drag_row_estimate(&r, &e);
    CHECK(e.void_ == 2 && e.dead == 11);
}

static int only_rec(void *ctx, uint32_t class_id)
{
    (void)ctx;
    return class_id == 1;
}

/* The class view's sums: each site scaled by its own samples / tracked,
 * then summed (never the sums scaled by theirs); raw as counted. */
static void test_class_sums(void)
{
    ht_store s;
    ht_store_init(&s);
    names(&s);
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_DRAG_ROWS, 10);
    ht_drag_row_rec a = row(5, 1, 9, 10, 40), a2 = row(6, 1, 4, 5, 100), c = row(6, 2, 4, 1, 7);
    a.tracked = 3; /* x 3 */
    a.dead = 3;
    a2.tracked = 4; /* x 1 */
    mb_drag_row(&m, &a);
    mb_drag_row(&m, &a2);
    mb_drag_row(&m, &c);
    mb_apply(&m, &s);
    ht_buf_free(&b);
    ht_drag_class_sum *cs = NULL;
    int n = ht_drag_class_sums(&s, NULL, NULL, &cs);
    CHECK(n == 2 && cs);
    const ht_drag_class_sum *rec = NULL;
    for (int i = 0; i < n; i++)
        if (cs[i].raw.class_id == 1) rec = &cs[i];
    CHECK(rec && rec->sites == 2);
    if (rec) {
        CHECK(rec->est.drag_hi == 3 * 40 + 100 && rec->est.drag_lo == 3 * 10 + 5);
        CHECK(rec->raw.drag_hi == 140 && rec->raw.samples == 13 && rec->raw.tracked == 7);
        CHECK(rec->est.samples == 13 && rec->est.tracked == 7 && rec->est.hist[3] == 4);
        CHECK(rec->est.dead == 3 * 3 + 2 && rec->raw.dead == 5);
    }
    free(cs);
    n = ht_drag_class_sums(&s, only_rec, NULL, &cs);
    CHECK(n == 1 && cs && cs[0].raw.class_id == 1);
    free(cs);
    ht_store_free(&s);
}

int main(void)
{
    test_estimate();
    test_class_sums();
    test_store();
    test_caps();
    test_export();
    return check_summary();
}
