/*
 * test_cpu_async.c - cpu=async's parts that run without a JVM: the JDK
 * allowlist (cpu_async_jdk.h), the ring's two-step push, and the signal
 * handler itself (cpu_async_signal.c) driven by a real per-thread CPU-time
 * timer on this thread, with a stand-in for AsyncGetCallTrace.
 */
#include "check.h"
#include "cpu_async_int.h"
#include "cpu_async_jdk.h"
#include "mpsc_ring.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void test_parse(void)
{
    int f, i, u;
    CHECK(ht_jdk_version_parse("17.0.15+6-Debian-1deb12u1", &f, &i, &u) == 0 && f == 17 && i == 0 &&
          u == 15);
    CHECK(ht_jdk_version_parse("25.0.3+9-LTS", &f, &i, &u) == 0 && f == 25 && i == 0 && u == 3);
    CHECK(ht_jdk_version_parse("25+36", &f, &i, &u) == 0 && f == 25 && i == 0 && u == 0);
    CHECK(ht_jdk_version_parse("21-ea", &f, &i, &u) == 0 && f == 21 && u == 0);
    CHECK(ht_jdk_version_parse("1.8.0_402", &f, &i, &u) == 0 && f == 8 && u == 402);
    CHECK(ht_jdk_version_parse("11.0.26.1", &f, &i, &u) == 0 && f == 11 && u == 26);
    CHECK(ht_jdk_version_parse("", &f, &i, &u) == -1);
    CHECK(ht_jdk_version_parse("v17", &f, &i, &u) == -1);
    CHECK(ht_jdk_version_parse(NULL, &f, &i, &u) == -1);
    CHECK(ht_jdk_version_parse("17.", &f, &i, &u) == -1);
    CHECK(ht_jdk_version_parse("99999999999999", &f, &i, &u) == -1); /* no overflow */
}

static int ok(const char *name, const char *version, char *why, size_t n)
{
    why[0] = 0;
    return ht_cpu_async_jdk_ok(name, version, why, n);
}

static void test_allowlist(void)
{
    const char *hs = "OpenJDK 64-Bit Server VM";
    char why[512];
    /* safe: the first update with every fix, and later */
    CHECK(ok(hs, "17.0.15+6-Debian-1deb12u1", why, sizeof why) == 1);
    CHECK(ok(hs, "17.0.14+7", why, sizeof why) == 1);
    CHECK(ok("Java HotSpot(TM) 64-Bit Server VM", "21.0.3+7-LTS", why, sizeof why) == 1);
    CHECK(ok(hs, "22.0.2", why, sizeof why) == 1);
    CHECK(ok(hs, "25.0.3+9-LTS", why, sizeof why) == 1);
    CHECK(ok(hs, "25+36", why, sizeof why) == 1);
    CHECK(ok(hs, "11.0.26+4", why, sizeof why) == 1);
    /* refused, each with one line naming the version and what would do */
    CHECK(ok(hs, "17.0.7+7", why, sizeof why) == 0);
    CHECK_MSG(strstr(why, "17.0.7") && strstr(why, "17.0.14") && strstr(why, "cpu=on") &&
                  !strchr(why, '\n'),
              "17.0.7: %s", why);
    CHECK(ok(hs, "17.0.13+11", why, sizeof why) == 0 && strstr(why, "JDK-8268364"));
    CHECK(ok(hs, "21.0.2+13", why, sizeof why) == 0 && strstr(why, "21.0.3"));
    CHECK(ok(hs, "11.0.19", why, sizeof why) == 0);
    CHECK(ok(hs, "19.0.2", why, sizeof why) == 0 && strstr(why, "never got"));
    CHECK(ok(hs, "8", why, sizeof why) == 0);
    CHECK(ok(hs, "26+10", why, sizeof why) == 0 && strstr(why, "up to JDK 25"));
    CHECK(ok(hs, "garbage", why, sizeof why) == 0 && strstr(why, "garbage"));
    CHECK(ok(hs, NULL, why, sizeof why) == 0);
    CHECK(ok("Eclipse OpenJ9 VM", "17.0.15", why, sizeof why) == 0 && strstr(why, "HotSpot"));
    CHECK(ok("OpenJDK 64-Bit Zero VM", "17.0.15", why, sizeof why) == 0);
    CHECK(ok(NULL, "17.0.15", why, sizeof why) == 1); /* no name: the version decides */
    /* every refusal says "refused" (the e2e tests skip on it) */
    CHECK(ok(hs, "18", why, sizeof why) == 0 && strstr(why, "refused"));
    CHECK(ok(hs, "17.0.1", why, sizeof why) == 0 && strstr(why, "refused"));
}

static void test_ring_claim(void)
{
    ht_ring *r = ht_ring_create(4, sizeof(uint64_t));
    size_t p0, p1;
    uint64_t *a = ht_ring_claim(r, &p0), *b = ht_ring_claim(r, &p1), out = 0;
    CHECK(a && b && a != b && p1 == p0 + 1);
    *b = 2;
    ht_ring_publish(r, p1);
    CHECK(ht_ring_pop(r, &out) == 0); /* the first is claimed but not written yet */
    *a = 1;
    ht_ring_publish(r, p0);
    CHECK(ht_ring_pop(r, &out) == 1 && out == 1);
    CHECK(ht_ring_pop(r, &out) == 1 && out == 2);
    for (int k = 0; k < 4; k++) {
        uint64_t *c = ht_ring_claim(r, &p0);
        CHECK(c != NULL);
        if (c) ht_ring_publish(r, p0);
    }
    CHECK(ht_ring_claim(r, &p0) == NULL); /* full */
    ht_ring_destroy(r);
}

/* --- the handler, on this thread's own CPU-time timer --------------------- */

#define DEPTH     4
#define SLOT      3u
#define PERIOD_NS 2000000ull
static _Atomic uint64_t agct_calls;

static void fake_agct(ht_asgct_trace *t, jint depth, void *ucontext)
{
    atomic_fetch_add(&agct_calls, 1);
    if (!ucontext || depth != DEPTH) {
        t->num_frames = -7;
        return;
    }
    t->frames[0].method_id = (jmethodID)(void *)t->env_id; /* which env it was given */
    t->frames[0].lineno = 7;
    t->frames[1].method_id = (jmethodID)(uintptr_t)0x99;
    t->frames[1].lineno = -3;
    t->num_frames = 2;
}

static void burn_ms(uint64_t ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    volatile uint64_t x = 1;
    do {
        for (int k = 0; k < 100000; k++)
            x = x * 6364136223846793005ull + 1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)(b.tv_nsec - a.tv_nsec) <
             ms * 1000000ull);
}

static void test_handler(void)
{
    int sig = SIGRTMIN + 3;
    size_t elem = sizeof(ht_async_sample) + DEPTH * sizeof(ht_asgct_frame);
    ht_async.slots = calloc(HT_ASYNC_SLOTS, sizeof *ht_async.slots);
    ht_ring *ring = ht_ring_create(8, elem);
    atomic_store(&ht_async.ring, ring);
    ht_async.agct = fake_agct;
    ht_async.depth = DEPTH;
    atomic_store(&ht_async.interval_ns, PERIOD_NS);
    ht_async_slot *s = &ht_async.slots[SLOT];
    s->env = (JNIEnv *)(uintptr_t)0x1234;
    s->thread_id = 42;
    atomic_store(&s->gen, 5);
    atomic_store(&ht_async.running, 1);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = ht_cpu_async_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(sig, &sa, NULL) == 0);
    /* another sender's signal (not a timer's) is ignored */
    raise(sig);
    CHECK(atomic_load(&agct_calls) == 0);

    int tid = (int)syscall(SYS_gettid);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_value.sival_ptr = (void *)(uintptr_t)(((uint64_t)SLOT << 32) | 5u);
    sev.sigev_signo = sig;
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev._sigev_un._tid = tid;
    clockid_t clock = (clockid_t)(((unsigned)~tid << 3) | 6u);
    int timer = -1;
    CHECK(syscall(SYS_timer_create, clock, &sev, &timer) == 0);
    struct itimerspec its = {.it_interval = {.tv_nsec = (long)PERIOD_NS},
                             .it_value = {.tv_nsec = (long)PERIOD_NS}};
    CHECK(syscall(SYS_timer_settime, timer, 0, &its, NULL) == 0);

    /* 8 queue slots at 2 ms: 100 ms of CPU fills it and loses the rest */
    for (int k = 0; k < 50 && atomic_load(&s->lost_n) < 3; k++)
        burn_ms(10);
    CHECK_MSG(atomic_load(&s->lost_n) >= 3, "losses counted: %llu",
              (unsigned long long)atomic_load(&s->lost_n));
    CHECK(atomic_load(&ht_async.lost) == 1);
    CHECK(atomic_load(&s->lost_ns) >= atomic_load(&s->lost_n) * PERIOD_NS &&
          atomic_load(&s->lost_ns) % PERIOD_NS == 0);
    ht_async_sample *c = malloc(elem);
    int got = 0, good = 0;
    uint64_t weight = 0;
    while (ht_ring_pop(ring, c)) {
        got++;
        weight += c->weight_ns;
        good += c->thread_id == 42 && c->num == 2 &&
                c->frames[0].method_id == (jmethodID)(uintptr_t)0x1234 &&
                c->frames[0].lineno == 7 && c->frames[1].lineno == -3;
    }
    CHECK_MSG(got == 8 && good == 8, "queued %d, as written %d", got, good);
    CHECK(weight >= 8 * PERIOD_NS && weight % PERIOD_NS == 0);

    /* a generation moved on (disarmed, the slot reused): its signals do nothing */
    atomic_store(&s->gen, 6);
    uint64_t stray = atomic_load(&ht_async.stray), calls = atomic_load(&agct_calls);
    burn_ms(30);
    CHECK(atomic_load(&ht_async.stray) > stray);
    CHECK(atomic_load(&agct_calls) == calls);
    CHECK(ht_ring_pop(ring, c) == 0);
    CHECK(atomic_load(&s->inflight) == 0);
    CHECK(atomic_load(&ht_async.timed) > 0 && atomic_load(&ht_async.timed_ns) > 0);
    syscall(SYS_timer_delete, timer);
    free(c);
}

int main(void)
{
    test_parse();
    test_allowlist();
    test_ring_claim();
    test_handler();
    return check_summary();
}
