/* test_cpu_profile.c - the agent's CPU profile (agent/cpu_profile.h): rows per
 * (thread, stack) and per bucket, the thread cap, the row cap's overflow
 * bucket, the mark's diffs, and what a publication takes. The figures are
 * compared with sums made here, from the charges the test made. */
#include "check.h"
#include "cpu_profile.h"

#include <stdlib.h>
#include <string.h>

typedef struct got {
    ht_cpu_batch b;
} got;

static const ht_cpu_row_rec *row_of(const ht_cpu_batch *b, uint32_t thread, uint32_t trace,
                                    uint8_t bucket)
{
    for (uint32_t i = 0; i < b->nrows; i++)
        if (b->rows[i].thread_id == thread && b->rows[i].trace_id == trace &&
            b->rows[i].bucket == bucket)
            return &b->rows[i];
    return NULL;
}

static const ht_cpu_thread_rec *thread_of(const ht_cpu_batch *b, uint32_t id, const char **name)
{
    for (uint32_t i = 0; i < b->nthreads; i++)
        if (b->threads[i].id == id) {
            if (name) *name = b->names[i];
            return &b->threads[i];
        }
    return NULL;
}

/* Count the bytes a sink received, and check every message is valid. */
static int msgs, bad;
static void count_emit(void *ctx, const uint8_t *m, size_t len)
{
    (void)ctx;
    ht_msg msg;
    if (ht_msg_open(m, len, &msg) != HT_OK || ht_msg_validate(&msg) != HT_OK) bad++;
    msgs++;
}

static void test_rows_and_buckets(void)
{
    ht_cpu_profile *p = ht_cpu_profile_create(4, 100);
    uint32_t a = ht_cpu_thread_add(p, "worker-a", 0);
    uint32_t b = ht_cpu_thread_add(p, "worker-b", 1);
    CHECK(a == 1 && b == 2);
    ht_cpu_thread_used(p, a, 30000000);
    ht_cpu_charge(p, a, 7, HT_CPUB_NONE, 10000000, 0);
    ht_cpu_charge(p, a, 7, HT_CPUB_NONE, 20000000, 0);
    ht_cpu_charge(p, a, 9, HT_CPUB_NONE, 5000000, 0);
    ht_cpu_charge(p, b, HT_TRACE_NONE, HT_CPUB_ASGCT + 5, 4000000, 1);
    ht_cpu_charge(p, b, HT_TRACE_OVERFLOW, HT_CPUB_NONE, 1000000, 1); /* table full */
    ht_cpu_thread_update(p, b, HT_THREAD_NATIVE, "worker-b2");
    uint64_t samples, failed;
    ht_cpu_profile_counts(p, &samples, &failed);
    CHECK(samples == 5 && failed == 2);

    ht_cpu_batch got;
    CHECK(ht_cpu_profile_take(p, 0, &got) == 0);
    CHECK(got.nrows == 4 && got.nthreads == 2);
    const ht_cpu_row_rec *r = row_of(&got, a, 7, 0);
    CHECK(r && r->samples == 2 && r->cpu_ns == 30000000 && r->diff_samples == 0);
    r = row_of(&got, b, HT_TRACE_NONE, HT_CPUB_ASGCT + 5);
    CHECK(r && r->samples == 1 && r->cpu_ns == 4000000);
    r = row_of(&got, b, HT_TRACE_NONE, HT_CPUB_OVERFLOW);
    CHECK(r && r->samples == 1);
    const char *name = NULL;
    const ht_cpu_thread_rec *t = thread_of(&got, a, &name);
    /* the table's CPU is what was measured; samples are counted apart */
    CHECK(t && t->cpu_ns == 30000000 && t->samples == 3 && strcmp(name, "worker-a") == 0);
    t = thread_of(&got, b, &name);
    /* async: the samples' weight is the thread's CPU too */
    CHECK(t && t->cpu_ns == 5000000 && t->state == HT_THREAD_NATIVE && t->daemon == 1 &&
          strcmp(name, "worker-b2") == 0);
    msgs = bad = 0;
    ht_sink sink = {.emit = count_emit};
    ht_cpu_batch_emit(&got, &sink);
    CHECK(msgs == 2 && bad == 0);
    ht_cpu_batch_free(&got);

    /* taken: nothing changed since; a new charge changes one row and its thread */
    CHECK(ht_cpu_profile_take(p, 0, &got) == 0 && got.nrows == 0 && got.nthreads == 0);
    ht_cpu_batch_free(&got);
    ht_cpu_charge(p, a, 9, HT_CPUB_NONE, 1000000, 0);
    CHECK(ht_cpu_profile_take(p, 0, &got) == 0 && got.nrows == 1 && got.nthreads == 1);
    ht_cpu_batch_free(&got);
    /* a sync takes everything */
    CHECK(ht_cpu_profile_take(p, 1, &got) == 0 && got.nrows == 4 && got.nthreads == 2);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_destroy(p);
}

/* Past the thread cap, threads share HT_THREAD_OTHER; past the row cap, a
 * thread's new stacks go to its overflow bucket, never into another stack. */
static void test_caps(void)
{
    ht_cpu_profile *p = ht_cpu_profile_create(2, 3);
    CHECK(ht_cpu_thread_add(p, "t1", 0) == 1 && ht_cpu_thread_add(p, "t2", 0) == 2);
    CHECK(ht_cpu_thread_add(p, "t3", 0) == HT_THREAD_OTHER);
    CHECK(ht_cpu_thread_add(p, "t4", 0) == HT_THREAD_OTHER);
    ht_cpu_charge(p, HT_THREAD_OTHER, 5, HT_CPUB_NONE, 100, 0);
    ht_cpu_charge(p, 1, 1, HT_CPUB_NONE, 100, 0);
    ht_cpu_charge(p, 1, 2, HT_CPUB_NONE, 100, 0);
    ht_cpu_charge(p, 1, 3, HT_CPUB_NONE, 100, 0); /* a fourth row: past the cap */
    ht_cpu_charge(p, 1, 4, HT_CPUB_NONE, 100, 0);
    ht_cpu_batch got;
    CHECK(ht_cpu_profile_take(p, 1, &got) == 0);
    CHECK(got.nrows == 4);
    CHECK(!row_of(&got, 1, 3, 0) && !row_of(&got, 1, 4, 0));
    const ht_cpu_row_rec *r = row_of(&got, 1, HT_TRACE_NONE, HT_CPUB_OVERFLOW);
    CHECK(r && r->samples == 2 && r->cpu_ns == 200);
    const char *name = NULL;
    CHECK(thread_of(&got, HT_THREAD_OTHER, &name) && strcmp(name, "[more threads]") == 0);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_destroy(p);
}

/* Begin, End, Continue: the diffs count what came while the mark ran. */
static void test_mark(void)
{
    ht_cpu_profile *p = ht_cpu_profile_create(4, 100);
    uint32_t a = ht_cpu_thread_add(p, "a", 0);
    ht_cpu_charge(p, a, 1, HT_CPUB_NONE, 1000, 0); /* before any mark */
    ht_cpu_profile_mark(p, HT_MARK_BEGIN);
    ht_cpu_charge(p, a, 1, HT_CPUB_NONE, 200, 0);
    ht_cpu_charge(p, a, 2, HT_CPUB_NONE, 30, 0); /* a row born in the run */
    ht_cpu_batch got;
    ht_cpu_profile_take(p, 1, &got);
    CHECK(row_of(&got, a, 1, 0)->diff_cpu_ns == 200 && row_of(&got, a, 1, 0)->diff_samples == 1);
    CHECK(row_of(&got, a, 2, 0)->diff_cpu_ns == 30);
    CHECK(thread_of(&got, a, NULL)->diff_cpu_ns == 230);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_mark(p, HT_MARK_END);
    ht_cpu_charge(p, a, 1, HT_CPUB_NONE, 5000, 0); /* after End: not in the diff */
    ht_cpu_charge(p, a, 3, HT_CPUB_NONE, 7, 0);    /* a row born after End: no diff */
    ht_cpu_profile_take(p, 1, &got);
    CHECK(row_of(&got, a, 1, 0)->diff_cpu_ns == 200 && row_of(&got, a, 1, 0)->cpu_ns == 6200);
    CHECK(row_of(&got, a, 3, 0)->diff_cpu_ns == 0);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_mark(p, HT_MARK_CONTINUE);
    ht_cpu_charge(p, a, 1, HT_CPUB_NONE, 11, 0);
    ht_cpu_charge(p, a, 3, HT_CPUB_NONE, 13, 0);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(row_of(&got, a, 1, 0)->diff_cpu_ns == 211);
    CHECK(row_of(&got, a, 3, 0)->diff_cpu_ns == 13);
    CHECK(thread_of(&got, a, NULL)->diff_cpu_ns == 254);
    ht_cpu_batch_free(&got);
    /* a new Begin starts from zero */
    ht_cpu_profile_mark(p, HT_MARK_BEGIN);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(row_of(&got, a, 1, 0)->diff_cpu_ns == 0 && thread_of(&got, a, NULL)->diff_cpu_ns == 0);
    ht_cpu_batch_free(&got);
    /* reset: no thread, no row */
    ht_cpu_profile_reset(p);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(got.nrows == 0 && got.nthreads == 0);
    ht_cpu_batch_free(&got);
    CHECK(ht_cpu_thread_add(p, "again", 0) == 1);
    ht_cpu_profile_destroy(p);
}

/* Once a second: a thread's CPU in the last second. */
static void test_second(void)
{
    ht_cpu_profile *p = ht_cpu_profile_create(4, 100);
    uint32_t a = ht_cpu_thread_add(p, "a", 0);
    ht_cpu_thread_used(p, a, 400000000);
    ht_cpu_profile_second(p, 1000000000);
    ht_cpu_thread_used(p, a, 100000000);
    ht_cpu_batch got;
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 400000000);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_second(p, 1000000000);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 100000000);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_second(p, 1000000000);
    ht_cpu_profile_take(p, 0, &got);
    CHECK(got.nthreads == 1 && got.threads[0].recent_ns == 0); /* idle now: changed */
    ht_cpu_batch_free(&got);
    /* a turn 1.25 s after the last: per second; never past a second; 0 once
     * ended, and 0 for all while sampling is off */
    ht_cpu_thread_used(p, a, 500000000);
    ht_cpu_profile_second(p, 1250000000);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 400000000);
    ht_cpu_batch_free(&got);
    ht_cpu_thread_used(p, a, 3000000000ull);
    ht_cpu_profile_second(p, 1000000000);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 1000000000);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_second(p, 0);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 0);
    ht_cpu_batch_free(&got);
    ht_cpu_thread_used(p, a, 300000000);
    ht_cpu_profile_second(p, 1000000000);
    ht_cpu_thread_update(p, a, HT_THREAD_TERMINATED, NULL);
    ht_cpu_profile_take(p, 1, &got);
    CHECK(thread_of(&got, a, NULL)->recent_ns == 0);
    ht_cpu_batch_free(&got);
    ht_cpu_profile_destroy(p);
}

int main(void)
{
    test_rows_and_buckets();
    test_caps();
    test_mark();
    test_second();
    return check_summary();
}
