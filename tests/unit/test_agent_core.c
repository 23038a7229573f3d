/* Unit tests of the agent's JVMTI-free parts: options, names, estimator, ring,
 * trace table, live map, aggregates, mark and log lines. */
#include "check.h"

#include "aggregates.h"
#include "estimate.h"
#include "live_set.h"
#include "hidden_names.h"
#include "log.h"
#include "mark.h"
#include "mpsc_ring.h"
#include "names.h"
#include "options.h"
#include "trace_table.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_options(void)
{
    ht_options o;
    char err[512];
    CHECK(ht_options_parse(NULL, &o, err, sizeof err) == 0);
    CHECK(o.interval == 512 * 1024 && o.depth == 64 && o.live == 1 && o.ipc[0] == 0);
    CHECK(ht_options_parse("interval=1m,depth=16,live=off,ipc=/tmp/x/y", &o, err, sizeof err) == 0);
    CHECK(o.interval == 1048576 && o.depth == 16 && o.live == 0 && strcmp(o.ipc, "/tmp/x/y") == 0);
    CHECK(ht_options_parse("interval=0", &o, err, sizeof err) == 0 && o.interval == 0);
    /* drag mode's cost guard: 1e7 by default, a count, or off; 0 is no count */
    CHECK(o.drag_budget == 10000000);
    CHECK(ht_options_parse("drag_budget=5000", &o, err, sizeof err) == 0 && o.drag_budget == 5000);
    CHECK(ht_options_parse("drag_budget=off", &o, err, sizeof err) == 0 && o.drag_budget == 0);
    {
        char text[HT_OPTIONS_TEXT_MAX];
        ht_options_format(&o, text, sizeof text);
        CHECK(strstr(text, ",drag_budget=off") != NULL);
    }
    CHECK(ht_options_parse("drag_budget=0", &o, err, sizeof err) != 0 &&
          strstr(err, "'drag_budget'") && strstr(err, "or off"));
    CHECK(ht_options_parse("drag_budget=1x", &o, err, sizeof err) != 0 && strstr(err, "'1x'"));
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
          strstr(err, "interval, budget, depth"));
    /* the budget: on at 1% by default, off with an explicit interval alone */
    CHECK(ht_options_parse(NULL, &o, err, sizeof err) == 0 && o.budget_x100 == 100);
    CHECK(ht_options_parse("budget=2.5%", &o, err, sizeof err) == 0 && o.budget_x100 == 250 &&
          o.interval == 512 * 1024);
    CHECK(ht_options_parse("budget=off", &o, err, sizeof err) == 0 && o.budget_x100 == 0);
    CHECK(ht_options_parse("interval=64k", &o, err, sizeof err) == 0 && o.budget_x100 == 0);
    CHECK(ht_options_parse("interval=64k,budget=1%", &o, err, sizeof err) == 0 &&
          o.budget_x100 == 100 && o.interval == 65536);
    CHECK(ht_options_parse("budget=1", &o, err, sizeof err) != 0 && strstr(err, "'budget'"));
    CHECK(ht_options_parse("budget=0%", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("budget=51%", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("budget=0.001%", &o, err, sizeof err) != 0);
    CHECK(ht_options_parse("live=maybe", &o, err, sizeof err) != 0 && strstr(err, "live=on"));
    CHECK(ht_options_parse("help", &o, err, sizeof err) == 0 && o.help);
    /* CPU sampling: on by default at 10 ms; the mode and the tick checked */
    CHECK(ht_options_parse("", &o, err, sizeof err) == 0 && o.cpu == HT_CPU_ON &&
          o.cpu_interval_us == 10000);
    CHECK(ht_options_parse("cpu=async,cpu_interval=20ms", &o, err, sizeof err) == 0 &&
          o.cpu == HT_CPU_ASYNC && o.cpu_interval_us == 20000);
    CHECK(ht_options_parse("cpu=off", &o, err, sizeof err) == 0 && o.cpu == HT_CPU_OFF);
    CHECK(ht_options_parse("cpu=yes", &o, err, sizeof err) != 0 && strstr(err, "cpu=async"));
    CHECK(ht_options_parse("cpu_interval=10", &o, err, sizeof err) != 0 &&
          strstr(err, "'cpu_interval'") && strstr(err, "10ms"));
    CHECK(ht_options_parse("cpu_interval=100us", &o, err, sizeof err) != 0 &&
          strstr(err, "out of range"));
    CHECK(ht_options_parse("cpu_interval=2s", &o, err, sizeof err) != 0);
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
          strstr(text, "buffer=65536") && strstr(text, "cpu=on,cpu_interval=10000us"));
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

/* Hidden classes: the parts that change from run to run go, distinct classes
 * of one base stay apart in the order they were first named. */
static void test_hidden_names(void)
{
    char b[256];
    CHECK(ht_hidden_class_base("demo.Foo$$Lambda$162/0x00007f2bd4119918", b, sizeof b) &&
          strcmp(b, "demo.Foo$$Lambda") == 0);
    CHECK(ht_hidden_class_base("demo.Foo$$Lambda/0x0000000800c04400", b, sizeof b) &&
          strcmp(b, "demo.Foo$$Lambda") == 0); /* JDK 21+: no counter */
    CHECK(ht_hidden_class_base("java.lang.invoke.LambdaForm$MH/0x0000000800c04400", b, sizeof b) &&
          strcmp(b, "java.lang.invoke.LambdaForm$MH") == 0);
    CHECK(ht_hidden_class_base("demo.Foo$$Lambda$7/0x00007f2bd4119918[][]", b, sizeof b) &&
          strcmp(b, "demo.Foo$$Lambda[][]") == 0);
    CHECK(ht_hidden_class_base("demo.Foo$Inner$12", b, sizeof b) == 0); /* not hidden */
    CHECK(ht_hidden_class_base("demo.Foo/0x", b, sizeof b) == 0);       /* no address */
    CHECK(ht_hidden_class_base("demo.Foo$12/0xabc", b, sizeof b) &&
          strcmp(b, "demo.Foo$12") == 0); /* a counter only goes after $$Lambda */
    ht_hidden_names h;
    ht_hidden_names_init(&h);
    char *x[6];
    x[0] = ht_hidden_display(&h, "demo.Foo$$Lambda$162/0x00007f2bd4119918");
    x[1] = ht_hidden_display(&h, "demo.Foo$$Lambda$163/0x00007f2bd4119c00");
    x[2] = ht_hidden_display(&h, "demo.Foo$$Lambda$162/0x00007f2bd4119918"); /* the same again */
    x[3] = ht_hidden_display(&h, "demo.Bar$$Lambda$164/0x00007f2bd4119e00");
    x[4] = ht_hidden_display(&h, "java.lang.String");
    x[5] = ht_hidden_display(&h, "demo.Foo$$Lambda$165/0x00007f2bd411a000");
    CHECK(strcmp(x[0], "demo.Foo$$Lambda") == 0 && strcmp(x[1], "demo.Foo$$Lambda#2") == 0);
    CHECK(strcmp(x[2], "demo.Foo$$Lambda") == 0 && strcmp(x[3], "demo.Bar$$Lambda") == 0);
    CHECK(strcmp(x[4], "java.lang.String") == 0 && strcmp(x[5], "demo.Foo$$Lambda#3") == 0);
    for (int i = 0; i < 6; i++)
        free(x[i]);
    /* many distinct ones: each keeps its own name, looked up again */
    char raw[128];
    int ok = 1;
    for (int i = 0; i < 3000; i++) {
        snprintf(raw, sizeof raw, "demo.Baz$$Lambda$%d/0x%x", i, 0x1000 + i);
        char *d = ht_hidden_display(&h, raw);
        char want[64];
        if (i == 0)
            snprintf(want, sizeof want, "demo.Baz$$Lambda");
        else
            snprintf(want, sizeof want, "demo.Baz$$Lambda#%d", i + 1);
        ok &= d && strcmp(d, want) == 0;
        free(d);
    }
    for (int i = 0; i < 3000; i += 7) {
        snprintf(raw, sizeof raw, "demo.Baz$$Lambda$%d/0x%x", i, 0x1000 + i);
        char *d = ht_hidden_display(&h, raw);
        char want[64];
        snprintf(want, sizeof want, i ? "demo.Baz$$Lambda#%d" : "demo.Baz$$Lambda", i + 1);
        ok &= d && strcmp(d, want) == 0;
        free(d);
    }
    CHECK(ok);
    ht_hidden_names_free(&h);
}

/*
 * A model of HotSpot's per-thread heap sampler (ThreadHeapSampler in
 * src/hotspot/share/runtime/threadHeapSampler.cpp), written from its
 * description, to check the estimator against the rule the JVM really uses:
 *
 *  - the gap to the next sample is drawn from a 48-bit linear congruential
 *    generator (multiplier 0x5DEECE66D, increment 11): its top 26 bits give
 *    q in 1..2^26, log2(q) is approximated from the exponent and a 1024-entry
 *    table of log2 at the middle of each mantissa bin, and the gap in bytes is
 *    1 + (size_t)(min(0, log2(q) - 26) * -ln(2) * interval);
 *  - each allocation (with the bytes allocated in the TLAB since the last
 *    check) is sampled when it reaches the bytes left until the next sample;
 *    otherwise those bytes are taken off;
 *  - after a sample a fresh gap is drawn, counted from the end of the sampled
 *    allocation: the part of it past the sample point (the "overflow") is
 *    thrown away (JDK 13 and later, so JDK 17 and 25). JDK 11's sampler
 *    instead shortened the fresh gap by that overflow when the gap was longer
 *    than it (jdk11 = 1 here).
 */
typedef struct hs_sampler {
    uint64_t rnd, until, interval;
    int jdk11;
} hs_sampler;

static double hs_log2_table[1024];

static void hs_pick(hs_sampler *h, uint64_t overflow)
{
    if (h->interval == 0) {
        h->until = 0;
        return;
    }
    h->rnd = (0x5DEECE66Dull * h->rnd + 11u) & ((1ull << 48) - 1);
    double q = (double)(uint32_t)(h->rnd >> (48 - 26)) + 1.0;
    int e;
    double m = frexp(q, &e); /* q = m 2^e, m in [0.5, 1): mantissa 2m in [1, 2) */
    double log2q = (double)(e - 1) + hs_log2_table[(int)((2.0 * m - 1.0) * 1024.0)];
    double l = log2q - 26.0 < 0.0 ? log2q - 26.0 : 0.0;
    h->until = (uint64_t)(l * -log(2.0) * (double)h->interval + 1.0);
    if (h->jdk11 && overflow > 0 && h->until > overflow) h->until -= overflow;
}

/* One allocation of `size` bytes: 1 when it is sampled. */
static int hs_alloc(hs_sampler *h, uint64_t size)
{
    if (size < h->until) {
        h->until -= size;
        return 0;
    }
    hs_pick(h, size - h->until);
    return 1;
}

/* Per size class: objects allocated, samples, estimated objects and bytes. */
typedef struct sim_class {
    uint64_t size;
    long n, samples;
    double est_n, est_bytes;
} sim_class;

/* A stream of small objects and objects as large as the interval and larger
 * (at I = 4096: 2048, 4096 and 16384 bytes are the 256 KiB, 512 KiB and
 * 2 MiB of the end-to-end test at 512 KiB: weights depend on s/I only). The
 * large ones are a quarter as frequent, and all are mixed, so a large sampled
 * object is often followed by small ones. */
static void simulate(int jdk11, sim_class *c, int k, long objects, uint64_t interval)
{
    hs_sampler h = {12345, 0, interval, jdk11};
    hs_pick(&h, 0);
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < objects; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)k);
        if (j >= 3 && (x >> 20) % 4) j = (int)((x >> 30) % 3);
        c[j].n++;
        if (hs_alloc(&h, c[j].size)) {
            double w = ht_sample_weight(c[j].size, interval);
            c[j].samples++;
            c[j].est_n += w;
            c[j].est_bytes += w * (double)c[j].size;
        }
    }
}

/* Relative error of a class's estimated count, in standard errors: the
 * Horvitz-Thompson count of n objects sampled with p has Var = n (1 - p) / p. */
static double z_of(const sim_class *c, uint64_t interval)
{
    double p = -expm1(-(double)c->size / (double)interval);
    double se = sqrt((double)c->n * (1 - p) / p);
    return (c->est_n - (double)c->n) / se;
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

    for (int i = 0; i < 1024; i++)
        hs_log2_table[i] = log2(1.0 + ((double)i + 0.5) / 1024.0);
    /* the gap HotSpot draws has mean I (+ half a byte of rounding) */
    hs_sampler g = {42, 0, 4096, 0};
    double sum = 0;
    const int draws = 1000000;
    for (int i = 0; i < draws; i++) {
        hs_pick(&g, 0);
        sum += (double)g.until;
    }
    double mean = sum / draws, se_mean = 4096.0 / sqrt(draws);
    printf("estimator: HotSpot's gap has mean %.1f at I = 4096 (SE %.1f)\n", mean, se_mean);
    CHECK(fabs(mean - 4096.5) <= 4 * se_mean);

    /* Unbiasedness under HotSpot's rule: every size class's estimated count
     * within 4 standard errors of the truth, and the bytes in all. */
    const uint64_t interval = 4096;
    enum { K = 6 };
    const uint64_t sizes[K] = {24, 160, 1016, 2048, 4096, 16384};
    sim_class c[K], old[K];
    memset(c, 0, sizeof c);
    memset(old, 0, sizeof old);
    for (int j = 0; j < K; j++)
        c[j].size = old[j].size = sizes[j];
    simulate(0, c, K, 20000000, interval);
    simulate(1, old, K, 20000000, interval);
    double est_bytes = 0, true_bytes = 0, var_bytes = 0;
    int old_biased = 0;
    for (int j = 0; j < K; j++) {
        double z = z_of(&c[j], interval), zo = z_of(&old[j], interval);
        printf("estimator: %5llu-byte objects: %ld, %ld samples, estimate %+.3f%% (%+.1f SE); "
               "under JDK 11's rule %+.3f%% (%+.1f SE)\n",
               (unsigned long long)c[j].size, c[j].n, c[j].samples,
               100 * (c[j].est_n / (double)c[j].n - 1), z,
               100 * (old[j].est_n / (double)old[j].n - 1), zo);
        CHECK(fabs(z) <= 4);
        old_biased += zo > 4;
        double p = -expm1(-(double)c[j].size / (double)interval);
        est_bytes += c[j].est_bytes;
        true_bytes += (double)c[j].n * (double)c[j].size;
        var_bytes += (double)c[j].n * (double)(c[j].size * c[j].size) * (1 - p) / p;
    }
    CHECK(fabs(est_bytes - true_bytes) <= 4 * sqrt(var_bytes));
    /* The simulation can see a rule that breaks the estimator: JDK 11's
     * overflow correction samples the objects after a large sampled one too
     * often, and every class comes out too high. */
    CHECK(old_biased == K);
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
    uint8_t proven[200001];
    size_t tests, deaths, young_deaths, double_release, proven_n;
    double bytes_dead;
} fake_heap;

static int fake_is_dead(void *ctx, uint64_t ref)
{
    fake_heap *h = ctx;
    h->tests++;
    return h->dead[ref];
}

static void fake_dead(void *ctx, const ht_live_entry *e, int was_young)
{
    fake_heap *h = ctx;
    if (h->released[e->ref]) h->double_release++;
    h->released[e->ref] = 1;
    h->deaths++;
    h->young_deaths += was_young != 0;
    h->bytes_dead += e->bytes;
}

static void fake_proven(void *ctx, const ht_live_entry *e)
{
    fake_heap *h = ctx;
    h->proven[e->ref]++;
    h->proven_n++;
}

static void test_live_set(void)
{
    static fake_heap h;
    memset(&h, 0, sizeof h);
    ht_live_ops ops = {fake_is_dead, fake_dead, fake_proven, &h};
    ht_live_set s;
    CHECK(ht_live_init(&s, 150000) == 0);
    CHECK(ht_live_add(&s, 0, 0, 0, 1, 1, 0) == -1); /* 0 is no reference */
    /* refs 1..50000 taken before pause 1 (epoch 0), 50001..100000 after it */
    for (uint64_t r = 1; r <= 100000; r++)
        CHECK(ht_live_add(&s, r, (uint32_t)r, r <= 50000 ? 0 : 1, (double)r, 1.0, 0) == 0);
    CHECK(ht_live_count(&s) == 100000 && s.young.n == 100000 && s.live.n == 0);
    /* A sweep after pause 1 (a collection): 90% died; of the survivors only
     * those taken before the pause are proven, the others stay young. */
    for (uint64_t r = 1; r <= 100000; r++)
        h.dead[r] = r % 10 != 0;
    ht_sweep_result res = ht_live_sweep(&s, &ops, 1, 1);
    CHECK(res.young_dead == 90000 && res.proven == 5000 && res.live_dead == 0);
    CHECK(h.tests == 100000 && s.young.n == 5000 && s.live.n == 5000 && h.young_deaths == 90000);
    int epochs_ok = 1;
    for (size_t i = 0; i < s.live.n; i++)
        if (s.live.v[i].epoch != 0 || s.live.v[i].ref > 50000) epochs_ok = 0;
    for (size_t i = 0; i < s.young.n; i++)
        if (s.young.v[i].epoch != 1) epochs_ok = 0;
    CHECK(epochs_ok);
    /* The next collection proves the rest; a third of the live ones died,
     * found with swap-remove without skipping the entry moved into a hole. */
    for (uint64_t r = 10; r <= 100000; r += 10)
        h.dead[r] = (r / 10) % 3 == 0;
    h.tests = 0;
    h.deaths = 0;
    res = ht_live_sweep(&s, &ops, 2, 1);
    CHECK(h.tests == 10000 && h.deaths == 3333 && h.double_release == 0);
    CHECK(s.young.n == 0 && s.live.n == 10000 - 3333);
    int survivors_ok = 1, proven_once = 1;
    for (size_t i = 0; i < s.live.n; i++)
        if (h.dead[s.live.v[i].ref] || s.live.v[i].agg != (uint32_t)s.live.v[i].ref)
            survivors_ok = 0;
    for (uint64_t r = 1; r <= 100000; r++)
        if (h.proven[r] > 1) proven_once = 0;
    CHECK(survivors_ok && proven_once);
    /* A young-only sweep tests no live entry, even a dead one. */
    h.dead[s.live.v[0].ref] = 1;
    h.tests = 0;
    res = ht_live_sweep(&s, &ops, 2, 0);
    CHECK(h.tests == 0 && res.live_dead == 0 && s.live.n == 10000 - 3333);
    h.dead[s.live.v[0].ref] = 0;
    /* A sweep that proves nothing (a pause that was no collection) still finds
     * the dead, young and live alike, and promotes nothing. */
    CHECK(ht_live_add(&s, 200000, 7, 2, 1, 1, 0) == 0);
    h.dead[200000] = 0;
    size_t before = h.proven_n;
    res = ht_live_sweep(&s, &ops, 2, 1);
    CHECK(res.proven == 0 && h.proven_n == before && s.young.n == 1);
    h.dead[200000] = 1;
    res = ht_live_sweep(&s, &ops, 2, 1);
    CHECK(res.young_dead == 1 && s.young.n == 0);
    /* Epochs wrap: 0xfffffffe is before 1. */
    CHECK(ht_live_add(&s, 199999, 7, 0xfffffffeu, 1, 1, 0) == 0);
    h.dead[199999] = 0;
    res = ht_live_sweep(&s, &ops, 1, 1);
    CHECK(res.proven == 1);
    ht_live_destroy(&s);
    /* The cap counts both lists. */
    CHECK(ht_live_init(&s, 3) == 0);
    CHECK(ht_live_add(&s, 1, 0, 0, 1, 1, 0) == 0 && ht_live_add(&s, 2, 0, 0, 1, 1, 0) == 0);
    memset(h.dead, 0, sizeof h.dead);
    ht_live_sweep(&s, &ops, 1, 1);
    CHECK(s.live.n == 2);
    CHECK(ht_live_add(&s, 3, 0, 1, 1, 1, 0) == 0 && ht_live_add(&s, 4, 0, 1, 1, 1, 0) == -1);
    CHECK(ht_live_full(&s));
    ht_live_destroy(&s);
}

/* Which epochs count as proven, pause by pause. Pauses are numbered from 1; a
 * sample's epoch is the number of pauses started before it. */
static void test_gc_proof(void)
{
    ht_gc_proof p;
    uint64_t c[2];
    /* A stop-the-world collector (G1, kinds young and full): young pause 1,
     * then remark 2 and cleanup 3 (pauses that collect nothing: no count
     * moves), then young pause 4, then a full collection at pause 5. */
    c[0] = c[1] = 0;
    ht_gc_proof_init(&p, 0, 0, c, 2);
    CHECK(ht_gc_proof_update(&p, 0, c, 2) == 0); /* nothing proven before any pause */
    c[0] = 1;
    CHECK(ht_gc_proof_update(&p, 1, c, 2) == 1); /* epoch 0 predates pause 1 */
    CHECK(ht_gc_proof_update(&p, 3, c, 2) == 1); /* remark + cleanup prove nothing */
    c[0] = 2;
    CHECK(ht_gc_proof_update(&p, 4, c, 2) == 4); /* pause 4 collected: epochs 0..3 */
    CHECK(ht_gc_proof_update(&p, 4, c, 2) == 4); /* nothing new: the answer stays */
    c[1] = 1;
    CHECK(ht_gc_proof_update(&p, 5, c, 2) == 5); /* the full collection at pause 5 */
    /* Attached to a JVM that has collected before: those collections are not
     * news, so a sweep before any pause proves nothing. */
    c[0] = 7, c[1] = 1;
    ht_gc_proof_init(&p, 0, 0, c, 2);
    CHECK(ht_gc_proof_update(&p, 0, c, 2) == 0);
    c[0] = 8;
    CHECK(ht_gc_proof_update(&p, 1, c, 2) == 1);
    /* Without counts every pause counts. */
    ht_gc_proof_init(&p, 0, 0, NULL, 0);
    CHECK(ht_gc_proof_update(&p, 2, NULL, 0) == 1);
    CHECK(ht_gc_proof_update(&p, 3, NULL, 0) == 3);
    CHECK(ht_gc_proof_update(&p, 3, NULL, 0) == 3);
    /* Concurrent cycles (ZGC): three pauses a cycle, the count moves when a
     * cycle ends. Cycle 1 = pauses 1-3, seen at sweeps after pause 1 and after
     * pause 3; cycle 2 = pauses 4-6. */
    c[0] = 0;
    ht_gc_proof_init(&p, 1, 0, c, 1);
    CHECK(ht_gc_proof_update(&p, 1, c, 1) == 0);
    c[0] = 1;
    CHECK(ht_gc_proof_update(&p, 3, c, 1) == 0); /* cycle 1 may predate the agent */
    CHECK(ht_gc_proof_update(&p, 5, c, 1) == 0); /* cycle 2 running */
    /* cycle 2 ended. It may have begun before this window (at 5), but not
     * before cycle 1 ended, which was after the sweep at pause 1 read the
     * count: epochs up to 1 are safe, not more (cycle 2 might be pauses 2-6) */
    c[0] = 2;
    CHECK(ht_gc_proof_update(&p, 6, c, 1) == 2);
    /* two cycles inside one window: the window's start is safe */
    c[0] = 4;
    CHECK(ht_gc_proof_update(&p, 12, c, 1) == 7);
    /* Generational ZGC: a minor cycle (kind 0) ends inside a long major cycle
     * (kind 1). The major's end must not prove what its own late window
     * covers: each kind is judged by its own windows. One cycle of each
     * first, so both kinds have a window (pause 2). */
    c[0] = c[1] = 0;
    ht_gc_proof_init(&p, 3, 0, c, 2);
    CHECK(ht_gc_proof_update(&p, 1, c, 2) == 0);
    c[0] = c[1] = 1;
    CHECK(ht_gc_proof_update(&p, 2, c, 2) == 0);
    c[0] = 2; /* a minor ended between pauses 2 and 8 */
    CHECK(ht_gc_proof_update(&p, 8, c, 2) == 2);
    c[1] = 2; /* the major (begun at pause 2) ends between 8 and 10 */
    CHECK(ht_gc_proof_update(&p, 10, c, 2) == 2); /* not 9: it may have begun at 2 */
    /* Late cycles (generational ZGC's majors) prove what predates the cycle
     * before the one that ended. Majors A, B, C, ... seen ending at the sweeps
     * after pauses 6, 11 and 16. */
    c[0] = 0;
    ht_gc_proof_init(&p, 0, 1, c, 1);
    CHECK(ht_gc_proof_update(&p, 2, c, 1) == 0);
    c[0] = 1; /* A ended after the sweep at 2: it may predate the agent */
    CHECK(ht_gc_proof_update(&p, 6, c, 1) == 0);
    c[0] = 2; /* B ended: its predecessor A may predate the agent */
    CHECK(ht_gc_proof_update(&p, 11, c, 1) == 0);
    c[0] = 3; /* C ended: B began after A ended, after the sweep at 2 */
    CHECK(ht_gc_proof_update(&p, 16, c, 1) == 3); /* a once-kind would say 7 */
    c[0] = 5; /* D and E ended: D began after C ended, after the sweep at 11 */
    CHECK(ht_gc_proof_update(&p, 26, c, 1) == 12);
    c[0] = 8; /* three ended: the middle one began after this window began */
    CHECK(ht_gc_proof_update(&p, 40, c, 1) == 27);
}

/* References for the aggregates test: ref i is dead when bit i is set. */
static uint64_t g_dead_refs, g_released_refs;

static int bits_is_dead(void *ctx, uint64_t ref)
{
    (void)ctx;
    return (int)((g_dead_refs >> ref) & 1);
}

/* What the collector does with a death: leave the row, release the ref. */
static void bits_died(void *ctx, const ht_live_entry *e, int was_young)
{
    ht_aggs_tracked_died(ctx, e, was_young);
    g_released_refs |= 1ull << e->ref;
}

static void bits_proven(void *ctx, const ht_live_entry *e)
{
    ht_aggs_tracked_proven(ctx, e);
}

static void test_aggregates(void)
{
    ht_aggs a;
    CHECK(ht_aggs_init(&a, 4, 1000) == 0);
    /* interval 0: weight 1, so totals are exact */
    for (uint64_t i = 1; i <= 10; i++)
        CHECK(ht_aggs_add(&a, 1, 1, 100, 0, i, 0) == 0);
    ht_aggs_add(&a, 2, 1, 50, 0, 0, 0);
    const ht_agg_rec *r = ht_aggs_find(&a, 1, 1);
    /* tracked samples start young: not live until a collection proves them */
    CHECK(r && r->samples == 10 && r->est_bytes == 1000 && r->young_samples == 10);
    CHECK(r->young_est_bytes == 1000 && r->young_est_instances == 10);
    CHECK(r->live_samples == 0 && r->live_est_bytes == 0);
    CHECK(a.ndirty == 2);
    ht_aggs_clear_dirty(&a);
    ht_live_ops ops = {bits_is_dead, bits_died, bits_proven, &a};
    g_dead_refs = 0xfe; /* refs 1..7 died young */
    g_released_refs = 0;
    ht_sweep_result res = ht_live_sweep(&a.live, &ops, 1, 1);
    CHECK(res.young_dead == 7 && res.proven == 3 && g_released_refs == 0xfe);
    r = ht_aggs_find(&a, 1, 1);
    CHECK(r->live_samples == 3 && r->live_est_bytes == 300 && r->est_bytes == 1000);
    CHECK(r->young_samples == 0 && r->young_est_bytes == 0 && r->young_est_instances == 0);
    CHECK(a.ndirty == 1);
    g_dead_refs = 0x7fe; /* and 8..10 die later */
    res = ht_live_sweep(&a.live, &ops, 1, 1);
    CHECK(res.live_dead == 3 && g_released_refs == 0x7fe);
    CHECK(r->live_samples == 0 && r->live_est_bytes == 0 && r->live_est_instances == 0);
    /* sampled weights */
    ht_aggs_add(&a, 3, 2, 1024, 1024, 0, 0);
    r = ht_aggs_find(&a, 3, 2);
    CHECK_NEAR(r->est_instances, 1.0 / (1.0 - exp(-1.0)), 1e-9);
    CHECK_NEAR(r->est_bytes, 1024.0 / (1.0 - exp(-1.0)), 1e-6);
    /* past the row cap new pairs go to the overflow row of their class */
    ht_aggs_add(&a, 4, 2, 8, 0, 0, 0);
    ht_aggs_add(&a, 5, 2, 8, 0, 0, 0);
    ht_aggs_add(&a, 6, 2, 8, 0, 0, 0);
    CHECK(ht_aggs_find(&a, 5, 2) == NULL);
    r = ht_aggs_find(&a, HT_TRACE_OVERFLOW, 2);
    CHECK(r && r->samples == 2 && a.overflow_rows == 2);
    ht_aggs_destroy(&a);
}

/* Add n samples of 100 bytes at interval 0 (exact) to row (trace, 1). */
static void add_n(ht_aggs *a, uint32_t trace, int n)
{
    for (int i = 0; i < n; i++)
        ht_aggs_add(a, trace, 1, 100, 0, 0, 0);
}

static const ht_agg_rec *marked(const ht_mark *m, const ht_aggs *a, uint32_t trace, ht_agg_rec *out)
{
    const ht_agg_rec *row = ht_aggs_find(a, trace, 1);
    if (!row) return NULL;
    ht_mark_row(m, a, (uint32_t)(row - a->rows), out);
    return out;
}

/* Diff and growth across begin / end / continue, kept in the agent. */
static void test_mark(void)
{
    ht_aggs a;
    ht_mark m;
    ht_agg_rec o;
    CHECK(ht_aggs_init(&a, 100, 100) == 0);
    ht_mark_init(&m);
    add_n(&a, 1, 10);                                                     /* 10 before the mark */
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 0 && o.growth_bytes == 0); /* no mark: 0 */
    a.rows[0].live_est_bytes = 400; /* 4 objects live at Begin */
    ht_aggs_clear_dirty(&a);
    CHECK(ht_mark_apply(&m, &a, HT_MARK_BEGIN, 100) == 0 && m.state == HT_MARK_RUNNING);
    CHECK(a.ndirty == a.n); /* every row's diff moved: all republished */
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 0 && o.diff_instances == 0); /* Begin zeroes */
    add_n(&a, 1, 5);                                                        /* 5 inside */
    add_n(&a, 2, 3);                 /* a site born during the mark */
    a.rows[0].live_est_bytes = 1000; /* live grew by 600 */
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 500 && o.diff_instances == 5);
    CHECK(o.growth_bytes == 600 && o.est_bytes == 1500);
    CHECK(marked(&m, &a, 2, &o)->diff_bytes == 300);
    CHECK(ht_mark_length_ms(&m, 350) == 250);

    CHECK(ht_mark_apply(&m, &a, HT_MARK_END, 400) == 0 && m.state == HT_MARK_STOPPED);
    add_n(&a, 1, 90); /* after End: not counted */
    add_n(&a, 3, 1);  /* born after End */
    a.rows[0].live_est_bytes = 5000;
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 500 && o.diff_instances == 5);
    CHECK(o.growth_bytes == 600); /* frozen at End too */
    CHECK(marked(&m, &a, 3, &o)->diff_bytes == 0);
    CHECK(ht_mark_length_ms(&m, 5000) == 300);
    CHECK(ht_mark_apply(&m, &a, HT_MARK_END, 5000) == 0 && ht_mark_length_ms(&m, 9000) == 300);

    CHECK(ht_mark_apply(&m, &a, HT_MARK_CONTINUE, 6000) == 0 && m.state == HT_MARK_RUNNING);
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 500); /* continue resumes from the frozen diff */
    add_n(&a, 1, 1);
    add_n(&a, 3, 2);
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 600 && o.diff_instances == 6);
    CHECK(marked(&m, &a, 3, &o)->diff_bytes == 200); /* only what came after Continue */
    CHECK(ht_mark_apply(&m, &a, HT_MARK_END, 6100) == 0);
    CHECK(ht_mark_length_ms(&m, 99999) == 400);

    /* Begin again starts from zero; Continue without a mark acts as Begin. */
    CHECK(ht_mark_apply(&m, &a, HT_MARK_BEGIN, 0) == 0);
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 0);
    ht_mark_free(&m);
    ht_mark_init(&m);
    CHECK(ht_mark_apply(&m, &a, HT_MARK_CONTINUE, 0) == 0 && m.state == HT_MARK_RUNNING);
    CHECK(marked(&m, &a, 1, &o)->diff_bytes == 0);
    ht_mark_free(&m);
    ht_aggs_destroy(&a);
}

/* What ht_log writes on fd 2 while fn runs, into out (NUL-terminated). */
static size_t logged(void (*fn)(void), char *out, size_t n)
{
    char path[] = "/tmp/test_agent_core_log_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t got = pread(fd, out, n - 1, 0);
    close(fd);
    out[got > 0 ? got : 0] = 0;
    return got > 0 ? (size_t)got : 0;
}

static void log_short(void)
{
    ht_log("heap dump %d written: %s", 3, "/tmp/x.hprof");
}

static char long_text[6000];
static void log_long(void)
{
    ht_log("%s;", long_text);
}

static void test_log(void)
{
    /* one line, the prefix added once, the newline at the end */
    char out[8192];
    logged(log_short, out, sizeof out);
    CHECK(strcmp(out, "heaptop: heap dump 3 written: /tmp/x.hprof\n") == 0);
    /* past the line buffer: whole, not cut */
    memset(long_text, 'x', sizeof long_text - 1);
    size_t n = logged(log_long, out, sizeof out);
    CHECK(n == 9 + sizeof long_text - 1 + 2 && strncmp(out, "heaptop: xxx", 12) == 0 &&
          strcmp(out + n - 3, "x;\n") == 0);
    CHECK(strcmp(ht_log_unprefixed("heaptop: bad value"), "bad value") == 0);
    CHECK(strcmp(ht_log_unprefixed("bad value"), "bad value") == 0);

    /* JVMTI errors by name, a number for one not named */
    char buf[32];
    CHECK(strcmp(ht_jvmti_error_name(JVMTI_ERROR_MUST_POSSESS_CAPABILITY, buf, sizeof buf),
                 "JVMTI_ERROR_MUST_POSSESS_CAPABILITY") == 0);
    CHECK(strcmp(ht_jvmti_error_name(JVMTI_ERROR_WRONG_PHASE, buf, sizeof buf),
                 "JVMTI_ERROR_WRONG_PHASE") == 0);
    CHECK(strcmp(ht_jvmti_error_name(JVMTI_ERROR_NOT_AVAILABLE, buf, sizeof buf),
                 "JVMTI_ERROR_NOT_AVAILABLE") == 0);
    CHECK(strcmp(ht_jvmti_error_name((jvmtiError)777, buf, sizeof buf), "JVMTI error 777") == 0);
}

int main(void)
{
    test_options();
    test_names();
    test_hidden_names();
    test_estimator();
    test_ring();
    test_trace_table();
    test_live_set();
    test_gc_proof();
    test_aggregates();
    test_mark();
    test_log();
    return check_summary();
}
