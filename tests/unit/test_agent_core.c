/* Unit tests of the agent's JVMTI-free parts: options, names, estimator, ring,
 * trace table, live map and aggregates. */
#include "check.h"

#include "aggregates.h"
#include "estimate.h"
#include "live_set.h"
#include "mpsc_ring.h"
#include "names.h"
#include "options.h"
#include "trace_table.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_options(void)
{
    ht_options o;
    char err[512];
    CHECK(ht_options_parse(NULL, &o, err, sizeof err) == 0);
    CHECK(o.interval == 512 * 1024 && o.depth == 64 && o.live == 1 && o.ipc[0] == 0);
    CHECK(ht_options_parse("interval=1m,depth=16,live=off,ipc=/tmp/x/y", &o, err, sizeof err) == 0);
    CHECK(o.interval == 1048576 && o.depth == 16 && o.live == 0 && strcmp(o.ipc, "/tmp/x/y") == 0);
    CHECK(ht_options_parse("interval=0", &o, err, sizeof err) == 0 && o.interval == 0);
    CHECK(ht_options_parse("interval=64K", &o, err, sizeof err) == 0 && o.interval == 65536);
    CHECK(ht_options_parse("interval=2g", &o, err, sizeof err) != 0);
    CHECK(strstr(err, "'interval'") != NULL);
    CHECK(ht_options_parse("interval=abc", &o, err, sizeof err) != 0);
    CHECK(strstr(err, "'interval'") && strstr(err, "abc") && strstr(err, "512k"));
    CHECK(ht_options_parse("interval=", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("interval=10q", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("depth=-1", &o, err, sizeof err) != 0 && strstr(err, "'depth'"));
    CHECK(ht_options_parse("depth=0", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("depth=2049", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("depth=2048", &o, err, sizeof err) == 0 && o.depth == 2048);
    CHECK(ht_options_parse("bogus=1", &o, err, sizeof err) != 0 && strstr(err, "'bogus'") &&
          strstr(err, "interval, depth"));
    CHECK(ht_options_parse("live=maybe", &o, err, sizeof err) != 0 && strstr(err, "live=on"));
    CHECK(ht_options_parse("help", &o, err, sizeof err) == 0 && o.help);
    CHECK(ht_options_parse("traces=5", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("buffer=64", &o, err, sizeof err) == 0 && o.buffer == 64);
    CHECK(ht_options_parse("buffer=63", &o, err, sizeof err) != 0 && strstr(err, "'buffer'"));
    char longpath[300];
    memset(longpath, 'a', sizeof longpath);
    memcpy(longpath, "ipc=", 4);
    longpath[sizeof longpath - 1] = 0;
    CHECK(ht_options_parse(longpath, &o, err, sizeof err) != 0 && strstr(err, "'ipc'"));
    char text[256];
    ht_options_parse("interval=1k,depth=8", &o, err, sizeof err);
    ht_options_format(&o, text, sizeof text);
    CHECK(strstr(text, "interval=1024") && strstr(text, "depth=8") && strstr(text, "live=on") &&
          strstr(text, "buffer=65536"));
    /* the byte parser itself is tested in test_cli.c */
    CHECK(ht_options_parse("interval=512kb", &o, err, sizeof err) == 0 && o.interval == 524288);
    CHECK(ht_options_parse("interval=99999999999999999999", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("interval=18014398509481984k", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("interval=2147483647", &o, err, sizeof err) == 0 &&
          o.interval == 2147483647u);
}

static void test_names(void)
{
    char b[256];
    CHECK(ht_class_name_from_signature("Ljava/lang/String;", b, sizeof b) == 0 &&
          strcmp(b, "java.lang.String") == 0);
    CHECK(ht_class_name_from_signature("[B", b, sizeof b) == 0 && strcmp(b, "byte[]") == 0);
    CHECK(ht_class_name_from_signature("[[I", b, sizeof b) == 0 && strcmp(b, "int[][]") == 0);
    CHECK(ht_class_name_from_signature("Ldemo/Cache$Entry;", b, sizeof b) == 0 &&
          strcmp(b, "demo.Cache$Entry") == 0);
    CHECK(ht_class_name_from_signature("[Ljava/lang/Object;", b, sizeof b) == 0 &&
          strcmp(b, "java.lang.Object[]") == 0);
    CHECK(ht_class_name_from_signature("Z", b, sizeof b) == 0 && strcmp(b, "boolean") == 0);
    CHECK(ht_class_name_from_signature("Ldemo/Foo$$Lambda$14+0x0000000800c03000;", b, sizeof b) ==
              0 &&
          strcmp(b, "demo.Foo$$Lambda$14+0x0000000800c03000") == 0);
    CHECK(ht_class_name_from_signature("Ldemo/Foo$$Lambda$3.0x00007f226c001800;", b, sizeof b) ==
              0 &&
          strcmp(b, "demo.Foo$$Lambda$3/0x00007f226c001800") == 0);
    CHECK(ht_class_name_from_signature("Lfoo", b, sizeof b) != 0 && strcmp(b, "Lfoo") == 0);
    CHECK(ht_class_name_from_signature("Q", b, sizeof b) != 0);
    CHECK(ht_class_name_from_signature("[[[", b, sizeof b) != 0);
    CHECK(ht_class_name_from_signature("Ljava/lang/String;", b, 5) == 0 &&
          strcmp(b, "java") == 0); /* truncates, never overflows */
    ht_line_entry t[] = {{0, 10}, {8, 11}, {20, 14}};
    CHECK(ht_line_for_bci(t, 3, 0) == 10);
    CHECK(ht_line_for_bci(t, 3, 9) == 11);
    CHECK(ht_line_for_bci(t, 3, 100) == 14);
    CHECK(ht_line_for_bci(t, 3, -1) == -1);
    CHECK(ht_line_for_bci(NULL, 0, 5) == -1);
}

static void test_estimator(void)
{
    CHECK(ht_sample_weight(100, 0) == 1.0);
    /* s = I: p = 1 - 1/e */
    CHECK_NEAR(ht_sample_weight(1024, 1024), 1.0 / (1.0 - exp(-1.0)), 1e-12);
    /* tiny objects: weight ~ I/s + 1/2 */
    CHECK_NEAR(ht_sample_weight(16, 524288), 524288.0 / 16 + 0.5, 0.01);
    /* huge objects are always sampled */
    CHECK_NEAR(ht_sample_weight(100u << 20, 524288), 1.0, 1e-9);

    /* Unbiasedness by simulation: exponential gaps over a stream of mixed
     * sizes; the Horvitz-Thompson sum must match the true totals. */
    uint64_t seed = 12345;
    const double interval = 4096;
    double next = 0, pos = 0, est_bytes = 0, est_count = 0, true_bytes = 0;
    long true_count = 0;
    for (long i = 0; i < 2000000; i++) {
        uint64_t size = (i % 3 == 0) ? 24 : (i % 3 == 1) ? 1016 : 160;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        pos += (double)size;
        true_bytes += (double)size;
        true_count++;
        if (pos >= next) {
            double w = ht_sample_weight(size, (uint64_t)interval);
            est_bytes += w * (double)size;
            est_count += w;
            /* next sample point: exponential gap from the end of this object */
            double u = ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
            next = pos + -log(u) * interval;
        }
    }
    CHECK(fabs(est_bytes / true_bytes - 1.0) < 0.02);
    CHECK(fabs(est_count / (double)true_count - 1.0) < 0.03);
}

#define PRODUCERS    4
#define PER_PRODUCER 200000

typedef struct prod_arg {
    ht_ring *r;
    uint64_t id;
    long failed;
} prod_arg;

static void *producer(void *p)
{
    prod_arg *a = p;
    for (uint64_t i = 0; i < PER_PRODUCER; i++) {
        uint64_t v = (a->id << 32) | i;
        while (ht_ring_push(a->r, &v) != 0)
            a->failed++; /* the consumer will make room */
    }
    return NULL;
}

static void test_ring(void)
{
    ht_ring *r = ht_ring_create(1000, sizeof(uint64_t));
    CHECK(ht_ring_capacity(r) == 1024);
    uint64_t v = 7, out = 0;
    CHECK(ht_ring_pop(r, &out) == 0);
    for (int i = 0; i < 1024; i++)
        CHECK(ht_ring_push(r, &v) == 0 || i >= 1024);
    CHECK(ht_ring_push(r, &v) == -1); /* full: fails, never blocks */
    int n = 0;
    while (ht_ring_pop(r, &out))
        n++;
    CHECK(n == 1024 && out == 7);

    /* Several producers: every element arrives once, in per-producer order. */
    pthread_t t[PRODUCERS];
    prod_arg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (prod_arg){r, (uint64_t)i, 0};
        pthread_create(&t[i], NULL, producer, &args[i]);
    }
    uint64_t next[PRODUCERS] = {0};
    long got = 0, order_errors = 0;
    while (got < (long)PRODUCERS * PER_PRODUCER) {
        if (!ht_ring_pop(r, &out)) continue;
        uint64_t p = out >> 32, i = out & 0xffffffffu;
        if (p >= PRODUCERS || i != next[p]) order_errors++;
        if (p < PRODUCERS) next[p] = i + 1;
        got++;
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(t[i], NULL);
    CHECK(order_errors == 0);
    CHECK(ht_ring_pop(r, &out) == 0);
    ht_ring_destroy(r);
}

typedef struct intern_arg {
    ht_trace_table *tt;
    uint32_t ids[64];
} intern_arg;

static void fake_frames(jvmtiFrameInfo *f, int which, int depth)
{
    for (int i = 0; i < depth; i++) {
        f[i].method = (jmethodID)(uintptr_t)(0x1000 + 16 * (which + i));
        f[i].location = which * 7 + i;
    }
}

static void *interner(void *p)
{
    intern_arg *a = p;
    jvmtiFrameInfo f[8];
    for (int round = 0; round < 200; round++) {
        for (int w = 0; w < 64; w++) {
            fake_frames(f, w, 1 + w % 8);
            int is_new;
            uint32_t id = ht_trace_intern(a->tt, f, 1 + (uint32_t)(w % 8), NULL, NULL, &is_new);
            if (round == 0)
                a->ids[w] = id;
            else if (a->ids[w] != id)
                a->ids[w] = 0; /* unstable id: flagged */
        }
    }
    return NULL;
}

static int pins_called;
static void count_pin(void *ctx, ht_trace *t)
{
    (void)ctx;
    (void)t;
    pins_called++;
}

static void test_trace_table(void)
{
    ht_trace_table *tt = ht_trace_table_create(100);
    jvmtiFrameInfo f[4];
    fake_frames(f, 1, 4);
    int is_new;
    uint32_t a = ht_trace_intern(tt, f, 4, count_pin, NULL, &is_new);
    CHECK(is_new && a != 0 && a != HT_TRACE_OVERFLOW && pins_called == 1);
    uint32_t b = ht_trace_intern(tt, f, 4, count_pin, NULL, &is_new);
    CHECK(!is_new && a == b && pins_called == 1);
    uint32_t c = ht_trace_intern(tt, f, 3, NULL, NULL, &is_new); /* prefix: another trace */
    CHECK(is_new && c != a);
    f[2].location++;
    uint32_t d = ht_trace_intern(tt, f, 4, NULL, NULL, &is_new); /* other line */
    CHECK(is_new && d != a && d != c);
    const ht_trace *t = ht_trace_get(tt, a);
    CHECK(t && t->depth == 4 && t->id == a);
    ht_trace *list = ht_trace_take_new(tt);
    int n = 0;
    for (; list; list = list->next_new)
        n++;
    CHECK(n == 3 && ht_trace_take_new(tt) == NULL);
    /* past the cap: overflow, reported */
    for (int w = 10; w < 200; w++) {
        fake_frames(f, w, 2);
        ht_trace_intern(tt, f, 2, NULL, NULL, &is_new);
    }
    CHECK(ht_trace_count(tt) == 100);
    fake_frames(f, 500, 2);
    CHECK(ht_trace_intern(tt, f, 2, NULL, NULL, &is_new) == HT_TRACE_OVERFLOW);
    CHECK(ht_trace_overflows(tt) > 0);
    fake_frames(f, 1, 4);
    CHECK(ht_trace_intern(tt, f, 4, NULL, NULL, &is_new) == a); /* old ones still found */
    ht_trace_table_destroy(tt);

    /* Threads racing on the same traces agree on one id each. */
    tt = ht_trace_table_create(1000);
    pthread_t th[4];
    intern_arg args[4];
    for (int i = 0; i < 4; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].tt = tt;
        pthread_create(&th[i], NULL, interner, &args[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    int agree = 1;
    for (int w = 0; w < 64; w++)
        for (int i = 1; i < 4; i++)
            if (args[i].ids[w] == 0 || args[i].ids[w] != args[0].ids[w]) agree = 0;
    CHECK(agree);
    CHECK(ht_trace_count(tt) == 64);
    ht_trace_table_destroy(tt);
}

/* A fake heap for the live set: refs are indexes into a "dead" flag array. */
typedef struct fake_heap {
    uint8_t dead[200001];
    uint8_t released[200001];
    size_t tests, deaths, double_release;
    double bytes_dead;
} fake_heap;

static int fake_is_dead(void *ctx, uint64_t ref)
{
    fake_heap *h = ctx;
    h->tests++;
    return h->dead[ref];
}

static void fake_dead(void *ctx, const ht_live_entry *e)
{
    fake_heap *h = ctx;
    if (h->released[e->ref]) h->double_release++;
    h->released[e->ref] = 1;
    h->deaths++;
    h->bytes_dead += e->bytes;
}

static void test_live_set(void)
{
    static fake_heap h;
    memset(&h, 0, sizeof h);
    ht_live_ops ops = {fake_is_dead, fake_dead, &h};
    ht_live_set s;
    CHECK(ht_live_init(&s, 150000) == 0);
    CHECK(ht_live_add(&s, 0, 0, 1, 1) == -1); /* 0 is no reference */
    for (uint64_t r = 1; r <= 100000; r++)
        CHECK(ht_live_add(&s, r, (uint32_t)r, (double)r, 1.0) == 0 || r > 100000);
    CHECK(ht_live_count(&s) == 100000 && s.young.n == 100000 && s.old.n == 0);
    /* A young sweep tests each young entry once: 90% died, the rest move to old. */
    for (uint64_t r = 1; r <= 100000; r++)
        h.dead[r] = r % 10 != 0;
    CHECK(ht_live_sweep_young(&s, &ops) == 90000);
    CHECK(h.tests == 100000 && s.young.n == 0 && s.old.n == 10000);
    /* Nothing young: a sweep tests nothing. */
    h.tests = 0;
    CHECK(ht_live_sweep_young(&s, &ops) == 0 && h.tests == 0);
    /* No pass begun: the old generation is not tested. */
    int done = 0;
    CHECK(ht_live_sweep_old(&s, &ops, 1000, &done) == 0 && done && h.tests == 0);
    /* An old pass in slices of 3000: every entry tested exactly once, the dead
     * removed with swap-remove without skipping the entry moved into a hole. */
    for (uint64_t r = 10; r <= 100000; r += 10)
        h.dead[r] = (r / 10) % 3 == 0;
    size_t deaths = 0, slices = 0;
    ht_live_begin_old_pass(&s);
    do {
        deaths += ht_live_sweep_old(&s, &ops, 3000, &done);
        slices++;
    } while (!done && slices < 100);
    CHECK(deaths == 3333 && h.tests == 10000 && slices == 4);
    CHECK(s.old.n == 10000 - 3333 && h.double_release == 0);
    int survivors_ok = 1;
    for (size_t i = 0; i < s.old.n; i++)
        if (h.dead[s.old.v[i].ref] || s.old.v[i].agg != (uint32_t)s.old.v[i].ref) survivors_ok = 0;
    CHECK(survivors_ok);
    /* Entries added during a pass are young, not part of it. */
    ht_live_begin_old_pass(&s);
    CHECK(ht_live_add(&s, 200000, 7, 1, 1) == 0 && s.young.n == 1);
    h.tests = 0;
    ht_live_sweep_old(&s, &ops, 1u << 20, &done);
    CHECK(done && h.tests == s.old.n);
    ht_live_destroy(&s);
    /* The cap counts both generations. */
    CHECK(ht_live_init(&s, 3) == 0);
    CHECK(ht_live_add(&s, 1, 0, 1, 1) == 0 && ht_live_add(&s, 2, 0, 1, 1) == 0);
    memset(h.dead, 0, sizeof h.dead);
    ht_live_sweep_young(&s, &ops);
    CHECK(ht_live_add(&s, 3, 0, 1, 1) == 0 && ht_live_add(&s, 4, 0, 1, 1) == -1);
    CHECK(ht_live_full(&s));
    ht_live_destroy(&s);
}

/* References for the aggregates test: ref i is dead when bit i is set. */
static uint64_t g_dead_refs, g_released_refs;

static int bits_is_dead(void *ctx, uint64_t ref)
{
    (void)ctx;
    return (int)((g_dead_refs >> ref) & 1);
}

/* What the collector does with a death: leave the row, release the ref. */
static void bits_died(void *ctx, const ht_live_entry *e)
{
    ht_aggs_live_died(ctx, e);
    g_released_refs |= 1ull << e->ref;
}

static void test_aggregates(void)
{
    ht_aggs a;
    CHECK(ht_aggs_init(&a, 4, 1000) == 0);
    /* interval 0: weight 1, so totals are exact */
    for (uint64_t i = 1; i <= 10; i++)
        CHECK(ht_aggs_add(&a, 1, 1, 100, 0, i) == 0);
    ht_aggs_add(&a, 2, 1, 50, 0, 0);
    const ht_agg_rec *r = ht_aggs_find(&a, 1, 1);
    CHECK(r && r->samples == 10 && r->est_bytes == 1000 && r->live_samples == 10);
    CHECK(r->live_est_bytes == 1000 && r->live_est_instances == 10);
    CHECK(a.ndirty == 2);
    ht_aggs_clear_dirty(&a);
    ht_live_ops ops = {bits_is_dead, bits_died, &a};
    g_dead_refs = 0xfe; /* refs 1..7 died */
    g_released_refs = 0;
    CHECK(ht_live_sweep_young(&a.live, &ops) == 7);
    CHECK(g_released_refs == 0xfe);
    r = ht_aggs_find(&a, 1, 1);
    CHECK(r->live_samples == 3 && r->live_est_bytes == 300 && r->est_bytes == 1000);
    CHECK(a.ndirty == 1);
    g_dead_refs = 0x7fe; /* and 8..10: found by an old pass */
    int done = 0;
    CHECK(ht_live_sweep_young(&a.live, &ops) == 0);
    ht_live_begin_old_pass(&a.live);
    CHECK(ht_live_sweep_old(&a.live, &ops, 100, &done) == 3 && done);
    CHECK(g_released_refs == 0x7fe);
    CHECK(r->live_samples == 0 && r->live_est_bytes == 0 && r->live_est_instances == 0);
    /* sampled weights */
    ht_aggs_add(&a, 3, 2, 1024, 1024, 0);
    r = ht_aggs_find(&a, 3, 2);
    CHECK_NEAR(r->est_instances, 1.0 / (1.0 - exp(-1.0)), 1e-9);
    CHECK_NEAR(r->est_bytes, 1024.0 / (1.0 - exp(-1.0)), 1e-6);
    /* past the row cap new pairs go to the overflow row of their class */
    ht_aggs_add(&a, 4, 2, 8, 0, 0);
    ht_aggs_add(&a, 5, 2, 8, 0, 0);
    ht_aggs_add(&a, 6, 2, 8, 0, 0);
    CHECK(ht_aggs_find(&a, 5, 2) == NULL);
    r = ht_aggs_find(&a, HT_TRACE_OVERFLOW, 2);
    CHECK(r && r->samples == 2 && a.overflow_rows == 2);
    ht_aggs_destroy(&a);
}

int main(void)
{
    test_options();
    test_names();
    test_estimator();
    test_ring();
    test_trace_table();
    test_live_set();
    test_aggregates();
    return check_summary();
}
