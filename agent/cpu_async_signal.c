/*
 * cpu_async_signal.c - cpu=async's signal handler (cpu_async_int.h).
 *
 * Runs on an application thread interrupted anywhere by its own CPU-time
 * timer: async-signal-safe. No lock, no allocation, no JVMTI or JNI call, no
 * I/O (tests/hotpath_symbols.sh checks this object file's symbols), errno
 * kept. Its thread's JNI environment comes with the slot the timer names;
 * GetEnv is never called here (unsafe in a signal handler since JDK 9,
 * JDK-8132510). The stack goes straight into a claimed queue slot; a full
 * queue counts the sample in its slot's loss (the HT_CPUB_LOST bucket).
 */
#include "cpu_async_int.h"

#include <errno.h>
#include <time.h>

ht_async_shared ht_async;

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sample(ht_async_slot *s, const siginfo_t *si, void *ucontext)
{
    uint64_t overruns = si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0;
    uint64_t w = atomic_load_explicit(&ht_async.interval_ns, memory_order_relaxed) * (1 + overruns);
    ht_ring *ring = atomic_load_explicit(&ht_async.ring, memory_order_acquire);
    size_t pos;
    ht_async_sample *c = ring ? ht_ring_claim(ring, &pos) : NULL;
    if (!c) {
        atomic_fetch_add_explicit(&s->lost_n, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->lost_ns, w, memory_order_relaxed);
        atomic_store_explicit(&ht_async.lost, 1, memory_order_release);
        return;
    }
    ht_asgct_trace t = {.env_id = s->env, .num_frames = 0, .frames = c->frames};
    ht_async.agct(&t, ht_async.depth, ucontext);
    c->thread_id = s->thread_id;
    c->num = t.num_frames;
    c->weight_ns = w;
    ht_ring_publish(ring, pos);
}

void ht_cpu_async_on_signal(int sig, siginfo_t *si, void *ucontext)
{
    (void)sig;
    /* only our timers' signals: si_value names the slot and its generation */
    if (!si || si->si_code != SI_TIMER || !ht_async.slots) return;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    uint32_t idx = (uint32_t)(v >> 32), gen = (uint32_t)v;
    if (idx >= HT_ASYNC_SLOTS) return;
    int saved = errno;
    ht_async_slot *s = &ht_async.slots[idx];
    /* inflight first, then the checks: disarm and stop move the generation
     * or running first, then wait for inflight to fall (both seq_cst) */
    atomic_fetch_add(&s->inflight, 1);
    if (atomic_load(&ht_async.running) && atomic_load(&s->gen) == gen) {
        uint64_t n = atomic_fetch_add_explicit(&ht_async.signals, 1, memory_order_relaxed);
        if ((n & HT_ASYNC_TIME_MASK) == 0) {
            uint64_t t0 = thread_cpu_ns();
            sample(s, si, ucontext);
            uint64_t t1 = thread_cpu_ns();
            if (t0 && t1 > t0) {
                atomic_fetch_add_explicit(&ht_async.timed_ns, t1 - t0, memory_order_relaxed);
                atomic_fetch_add_explicit(&ht_async.timed, 1, memory_order_relaxed);
            }
        } else {
            sample(s, si, ucontext);
        }
    } else {
        atomic_fetch_add_explicit(&ht_async.stray, 1, memory_order_relaxed);
    }
    atomic_fetch_sub(&s->inflight, 1);
    errno = saved;
}
