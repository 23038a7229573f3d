/* cpu_sampler.c - see cpu_sampler.h. */
#include "cpu_sampler.h"

#include "agent_state.h"
#include "budget.h"
#include "cpu_async.h"
#include "log.h"
#include "sampler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REFRESH_EVERY_NS (100ull * 1000 * 1000) /* the thread list */
#define SECOND_NS        (1000ull * 1000 * 1000)
#define MOVED_NS         10000u /* CPU that counts as having run: 10 us */
#define IDLE_READS       3u     /* reads without CPU before a thread is read 1 tick in 10 */
#define MAX_STRETCH      1000000u

/* The record heaptop's own threads carry: never sampled. */
static ht_cpu_rec g_agent_mark;

static struct {
    pthread_mutex_t lock; /* the fields below but the atomics; the record list */
    pthread_cond_t wake;
    int started, stop, done;
    int want_mode, mode; /* asked; in force on the thread */
    uint32_t configured_us;
    _Atomic uint32_t interval_us; /* in force: configured, or stretched by the budget */
    atomic_int paused;
    atomic_int active; /* the thread samples now (mode in force not off) */
    _Atomic uint32_t budget_x100;
    atomic_ullong cost_ns;
    atomic_ullong floor_ns;  /* of cost_ns, inside GetStackTrace */
    atomic_ullong stacks_ns; /* of cost_ns, taking and counting stacks */
    uint32_t gen;            /* a start: records of an earlier one are added to the profile anew */
    ht_cpu_rec *recs;        /* every record of a living thread */
    ht_cpu_profile *profile;
} g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* g.wake waits on the monotonic clock: a clock set back must not stall it */
static void init_wake(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&g.wake, &a);
    pthread_condattr_destroy(&a);
}

/* The sampler thread's own state. */
typedef struct sampler {
    jvmtiEnv *jvmti;
    JNIEnv *jni;
    jthread *threads; /* the last refresh's list (local refs in a frame of ours) */
    ht_cpu_rec **recs;
    jint nthreads;
    int have_frame;
    uint32_t refresh; /* refreshes so far */
    uint64_t refreshed_ns, second_ns, tick;
    uint32_t read_at, stack_at; /* round robin cursors */
    jvmtiFrameInfo *frames;
    uint64_t cost_second; /* cost_ns at the last second's turn */
    uint64_t process_second;
    uint32_t timer_us; /* cpu=async's timers' period */
} sampler;

int ht_cpu_sampler_mode(void)
{
    pthread_mutex_lock(&g.lock);
    int m = g.want_mode;
    pthread_mutex_unlock(&g.lock);
    return m;
}

uint32_t ht_cpu_sampler_interval_us(void)
{
    return atomic_load(&g.interval_us);
}

uint32_t ht_cpu_sampler_configured_us(void)
{
    pthread_mutex_lock(&g.lock);
    uint32_t us = g.configured_us;
    pthread_mutex_unlock(&g.lock);
    return us;
}

uint64_t ht_cpu_sampler_stacks_ns(void)
{
    return atomic_load(&g.stacks_ns) + ht_cpu_async_cost_ns();
}

uint64_t ht_cpu_sampler_floor_ns(void)
{
    return atomic_load(&g.floor_ns);
}

uint64_t ht_cpu_sampler_cost_ns(void)
{
    /* and cpu=async's signal handler, on the application threads */
    return atomic_load(&g.cost_ns) + ht_cpu_async_cost_ns();
}

void ht_cpu_sampler_pause(int paused)
{
    atomic_store(&g.paused, paused);
    pthread_once(&g_once, init_wake);
    pthread_mutex_lock(&g.lock); /* a resume wakes a paused sampler */
    pthread_cond_broadcast(&g.wake);
    pthread_mutex_unlock(&g.lock);
}

void ht_cpu_sampler_budget(uint32_t budget_x100)
{
    atomic_store(&g.budget_x100, budget_x100);
}

void ht_cpu_sampler_mark_agent_thread(jvmtiEnv *jvmti)
{
    (*jvmti)->SetThreadLocalStorage(jvmti, NULL, &g_agent_mark);
}

static ht_cpu_rec *new_rec(void)
{
    ht_cpu_rec *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    pthread_mutex_lock(&g.lock);
    r->next = g.recs;
    g.recs = r;
    pthread_mutex_unlock(&g.lock);
    return r;
}

void ht_cpu_sampler_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    (void)jni;
    (void)thread;
    void *v = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &v) != JVMTI_ERROR_NONE || !v ||
        v == &g_agent_mark)
        return;
    /* still listed (GetAllThreads lists a thread until after its ThreadEnd),
     * so no refresh has freed it; thread_gone waits for g.lock */
    ht_cpu_rec *r = v;
    pthread_mutex_lock(&g.lock);
    r->ended = 1;
    if (r->async) ht_cpu_async_disarm(r);
    pthread_mutex_unlock(&g.lock);
}

void ht_cpu_sampler_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    /* no records while sampling is off or paused: nothing would free them */
    if (!atomic_load(&g.active)) return;
    void *have = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &have) != JVMTI_ERROR_NONE) return;
    if (have) {
        /* a refresh listed it first: it still learns who it is */
        ht_cpu_rec *r = have;
        if (r != &g_agent_mark && !r->env) {
            r->tid = (int)syscall(SYS_gettid);
            r->env = jni;
        }
        return;
    }
    ht_cpu_rec *r = new_rec();
    if (!r) return;
    r->tid = (int)syscall(SYS_gettid);
    r->env = jni;
    /* its CPU from here on: what its OS thread used before is not this
     * thread's (DestroyJavaVM runs on the thread main returned from) */
    r->last_cpu = ht_thread_cpu_ns();
    r->measured = 1;
    (void)thread;
    if ((*jvmti)->SetThreadLocalStorage(jvmti, NULL, r) != JVMTI_ERROR_NONE) return;
    /* async arms its timer once the sampler has given it an id (add_to_profile) */
}

/* JVMTI's state as the table shows it. */
static ht_thread_state state_of(jint st)
{
    if (!(st & JVMTI_THREAD_STATE_ALIVE))
        return (st & JVMTI_THREAD_STATE_TERMINATED) ? HT_THREAD_TERMINATED : HT_THREAD_NEW;
    if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return HT_THREAD_BLOCKED;
    if (st & JVMTI_THREAD_STATE_WAITING_INDEFINITELY) return HT_THREAD_WAITING;
    if (st & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) return HT_THREAD_TIMED_WAITING;
    return (st & JVMTI_THREAD_STATE_IN_NATIVE) ? HT_THREAD_NATIVE : HT_THREAD_RUNNABLE;
}

/* Under cpu=async, a thread whose tid and JNI environment are known gets
 * its timer (once); the others stay on the JVMTI path. */
static void arm_async(ht_cpu_rec *r)
{
    if (g.mode != HT_CPU_ASYNC || r->async || !r->tid || !r->env || !r->id) return;
    /* under g.lock: the thread's ThreadEnd disarms under it (never a timer
     * for a thread that is ending: its JNI environment goes with it) */
    pthread_mutex_lock(&g.lock);
    if (!r->ended) ht_cpu_async_arm(r);
    pthread_mutex_unlock(&g.lock);
    r->pending = 0; /* measured before: not a timer's weight */
}

/* A thread's JVMTI info, its local references let go at once: 1, and
 * info->name to Deallocate, or 0 (the thread ended). */
static int read_info(sampler *s, jthread t, jvmtiThreadInfo *info)
{
    memset(info, 0, sizeof *info);
    if ((*s->jvmti)->GetThreadInfo(s->jvmti, t, info) != JVMTI_ERROR_NONE) return 0;
    if (info->thread_group) (*s->jni)->DeleteLocalRef(s->jni, info->thread_group);
    if (info->context_class_loader) (*s->jni)->DeleteLocalRef(s->jni, info->context_class_loader);
    return 1;
}

/* The record's thread into the profile (named now), once per start. */
static void add_to_profile(sampler *s, jthread t, ht_cpu_rec *r)
{
    if (r->id && r->gen == g.gen) return;
    jvmtiThreadInfo info;
    int named = read_info(s, t, &info);
    r->id = ht_cpu_thread_add(g.profile, named ? info.name : NULL, named && info.is_daemon);
    r->gen = g.gen;
    if (named) (*s->jvmti)->Deallocate(s->jvmti, (unsigned char *)info.name);
    arm_async(r);
}

/* A thread gone: the CPU measured but not yet sampled is charged to the
 * THREAD_ENDED bucket (never dropped), its row says TERMINATED, its record
 * goes. The caller holds no lock; g.lock is taken to unlink. */
/* Caller holds g.lock. */
static void record_end(ht_cpu_rec *r)
{
    if (r->id && r->gen == g.gen) {
        if (r->pending)
            ht_cpu_charge(g.profile, r->id, HT_TRACE_NONE, HT_CPUB_THREAD_ENDED, r->pending, 0);
        ht_cpu_thread_update(g.profile, r->id, HT_THREAD_TERMINATED, NULL);
    }
    if (r->async) ht_cpu_async_disarm(r);
}

static void thread_gone(ht_cpu_rec *r)
{
    pthread_mutex_lock(&g.lock);
    record_end(r);
    for (ht_cpu_rec **p = &g.recs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&g.lock);
    free(r);
}

static void drop_list(sampler *s)
{
    if (s->have_frame) (*s->jni)->PopLocalFrame(s->jni, NULL);
    s->have_frame = 0;
    free(s->threads);
    free(s->recs);
    s->threads = NULL;
    s->recs = NULL;
    s->nthreads = 0;
}

/* The thread list anew: records for threads never seen, and the end of the
 * ones no longer listed. */
static void refresh(sampler *s)
{
    drop_list(s);
    /* the list's local refs live in a frame of ours until the next refresh */
    if ((*s->jni)->PushLocalFrame(s->jni, 16) != 0) return;
    s->have_frame = 1;
    jint n = 0;
    jthread *list = NULL;
    if ((*s->jvmti)->GetAllThreads(s->jvmti, &n, &list) != JVMTI_ERROR_NONE) return;
    (*s->jni)->EnsureLocalCapacity(s->jni, n + 16); /* the list's refs live in our frame */
    s->threads = calloc((size_t)n + 1, sizeof *s->threads);
    s->recs = calloc((size_t)n + 1, sizeof *s->recs);
    s->refresh++;
    uint32_t seen = s->refresh;
    for (jint i = 0; s->threads && s->recs && i < n; i++) {
        void *v = NULL;
        (*s->jvmti)->GetThreadLocalStorage(s->jvmti, list[i], &v);
        ht_cpu_rec *r = v;
        if (r == &g_agent_mark) continue;
        if (!r) {
            r = new_rec();
            if (!r) continue;
            if ((*s->jvmti)->SetThreadLocalStorage(s->jvmti, list[i], r) != JVMTI_ERROR_NONE) {
                thread_gone(r); /* it ended meanwhile */
                continue;
            }
            /* not made at its ThreadStart: its first reading is a baseline */
        }
        r->seen = seen;
        /* every thread is in the table, idle ones too (at 0) */
        add_to_profile(s, list[i], r);
        arm_async(r);
        s->threads[s->nthreads] = list[i];
        s->recs[s->nthreads++] = r;
    }
    (*s->jvmti)->Deallocate(s->jvmti, (unsigned char *)list);
    /* without the list (out of memory) nothing is known to have ended */
    if (!s->threads || !s->recs) return;
    /* records not listed are threads that ended */
    pthread_mutex_lock(&g.lock);
    ht_cpu_rec *gone = NULL;
    for (ht_cpu_rec **p = &g.recs; *p;) {
        ht_cpu_rec *r = *p;
        /* a record made at ThreadStart after GetAllThreads is listed next
         * time: it is spared once */
        if (r->seen == 0) r->seen = seen;
        if (r->seen == seen) {
            p = &r->next;
            continue;
        }
        *p = r->next;
        r->next = gone;
        gone = r;
    }
    pthread_mutex_unlock(&g.lock);
    pthread_mutex_lock(&g.lock);
    while (gone) {
        ht_cpu_rec *next = gone->next;
        record_end(gone); /* unlinked already */
        free(gone);
        gone = next;
    }
    pthread_mutex_unlock(&g.lock);
    s->refreshed_ns = ht_now_ns();
}

/* Remove entry k of the list (its thread ended). */
static void forget_entry(sampler *s, jint k)
{
    ht_cpu_rec *r = s->recs[k];
    s->threads[k] = s->threads[s->nthreads - 1];
    s->recs[k] = s->recs[s->nthreads - 1];
    s->nthreads--;
    thread_gone(r);
}

/* CPU of up to READS_PER_TICK threads, round robin; idle ones 1 tick in 10. */
static void read_cpu(sampler *s)
{
    jint n = s->nthreads;
    if (!n) return;
    int reads = 0;
    for (jint step = 0; step < n && reads < HT_CPU_READS_PER_TICK; step++) {
        jint k = (jint)(s->read_at++ % (uint32_t)n);
        ht_cpu_rec *r = s->recs[k];
        if (r->idle >= IDLE_READS && (s->tick + (uint64_t)k) % 10 != 0) continue;
        reads++;
        jlong ns = 0;
        jvmtiError e = (*s->jvmti)->GetThreadCpuTime(s->jvmti, s->threads[k], &ns);
        if (e == JVMTI_ERROR_THREAD_NOT_ALIVE) {
            forget_entry(s, k);
            n = s->nthreads;
            if (!n) return;
            continue;
        }
        if (e != JVMTI_ERROR_NONE || ns < 0) continue;
        uint64_t now = (uint64_t)ns;
        uint64_t before = r->measured ? r->last_cpu : now;
        r->last_cpu = now;
        r->measured = 1;
        uint64_t d = now > before ? now - before : 0;
        /* a thread cpu=async samples gets its weight from its timer: its CPU
         * here is the table's only, never a JVMTI stack's weight */
        int timed = g.mode == HT_CPU_ASYNC && r->async;
        if (!timed) r->pending += d;
        if (d < MOVED_NS) {
            if (r->idle < IDLE_READS) r->idle++;
            if (!d) continue;
        } else {
            r->idle = 0;
        }
        add_to_profile(s, s->threads[k], r);
        ht_cpu_thread_used(g.profile, r->id, d);
    }
}

/* A stack for up to STACKS_PER_TICK threads whose CPU moved (in async mode,
 * only threads async cannot sample), each weighing its pending CPU. */
static void take_stacks(sampler *s)
{
    jint n = s->nthreads;
    int taken = 0;
    for (jint step = 0; step < n && taken < HT_CPU_STACKS_PER_TICK; step++) {
        jint k = (jint)(s->stack_at++ % (uint32_t)n);
        ht_cpu_rec *r = s->recs[k];
        if (r->pending < MOVED_NS || (g.mode == HT_CPU_ASYNC && r->async)) continue;
        /* only a thread that runs now: the CPU a thread used before it went
         * to sleep or to wait is not the sleeping frame's; it stays pending
         * until the thread is caught running (or is charged to [thread_ended]) */
        jint st = 0;
        if ((*s->jvmti)->GetThreadState(s->jvmti, s->threads[k], &st) == JVMTI_ERROR_NONE &&
            (st & JVMTI_THREAD_STATE_ALIVE) && !(st & JVMTI_THREAD_STATE_RUNNABLE))
            continue;
        /* RUNNABLE in native code may be a blocking read (no CPU): it runs only
         * if its clock moved since this tick's reading, a few us ago */
        jlong now_cpu = 0;
        if ((st & JVMTI_THREAD_STATE_IN_NATIVE) &&
            (*s->jvmti)->GetThreadCpuTime(s->jvmti, s->threads[k], &now_cpu) == JVMTI_ERROR_NONE &&
            (uint64_t)now_cpu <= r->last_cpu)
            continue;
        add_to_profile(s, s->threads[k], r);
        jint count = 0;
        uint64_t t0 = ht_thread_cpu_ns();
        jvmtiError e = (*s->jvmti)->GetStackTrace(s->jvmti, s->threads[k], 0, (jint)ht_g.opt.depth,
                                                  s->frames, &count);
        atomic_fetch_add(&g.floor_ns, ht_thread_cpu_ns() - t0);
        uint64_t w = r->pending;
        r->pending = 0;
        taken++;
        if (e == JVMTI_ERROR_NONE && count > 0) {
            uint32_t trace = ht_sampler_intern(s->jvmti, s->jni, s->frames, count);
            ht_cpu_charge(g.profile, r->id, trace, HT_CPUB_NONE, w, 0);
        } else {
            ht_cpu_bucket b = e == JVMTI_ERROR_NONE               ? HT_CPUB_NO_JAVA_FRAMES
                              : e == JVMTI_ERROR_THREAD_NOT_ALIVE ? HT_CPUB_THREAD_ENDED
                                                                  : HT_CPUB_WALK_FAILED;
            ht_cpu_charge(g.profile, r->id, HT_TRACE_NONE, b, w, 0);
        }
    }
}

/* cpu=async's samples into the profile (the charge callback of the drain). */
static void charge_async(void *ctx, uint32_t thread_id, const jvmtiFrameInfo *frames, int n,
                         int bucket, uint64_t weight_ns)
{
    sampler *s = ctx;
    uint32_t trace = n > 0 ? ht_sampler_intern(s->jvmti, s->jni, frames, n) : HT_TRACE_NONE;
    ht_cpu_charge(g.profile, thread_id, trace, n > 0 ? HT_CPUB_NONE : (ht_cpu_bucket)bucket,
                  weight_ns, 0);
}

/* Once a second: states and names in the table, CPU % now, and the budget's
 * word on the tick. */
static void each_second(sampler *s, uint64_t now)
{
    for (jint k = 0; k < s->nthreads; k++) {
        ht_cpu_rec *r = s->recs[k];
        if (!r->id || r->gen != g.gen) continue;
        jint st = 0;
        if ((*s->jvmti)->GetThreadState(s->jvmti, s->threads[k], &st) != JVMTI_ERROR_NONE) continue;
        jvmtiThreadInfo info;
        int named = read_info(s, s->threads[k], &info);
        ht_cpu_thread_update(g.profile, r->id, state_of(st), named ? info.name : NULL);
        if (named) (*s->jvmti)->Deallocate(s->jvmti, (unsigned char *)info.name);
    }
    ht_cpu_profile_second(g.profile, now - s->second_ns);
    /* the budget: at most half of it for this thread (budget.h's floor of a
     * quarter of a core for the process, and 1 ms a second never too much) */
    /* what grows with the samples: the stacks (the fixed cost of a tick is
     * paid whatever the tick, as the collector's fixed work is: budget.h) */
    uint64_t cost = ht_cpu_sampler_stacks_ns(), process = ht_process_cpu_ns();
    double spent = (double)(cost - s->cost_second);
    double proc = (double)(process - s->process_second);
    double wall = (double)(now - s->second_ns);
    s->cost_second = cost;
    s->process_second = process;
    uint32_t budget = atomic_load(&g.budget_x100);
    if (!budget || wall <= 0) return;
    if (proc < wall / 4) proc = wall / 4;
    double allowed = proc * budget / 10000.0 / 2.0;
    if (allowed < HT_BUDGET_MIN_COST_NS / 2) allowed = HT_BUDGET_MIN_COST_NS / 2;
    uint32_t us = atomic_load(&g.interval_us);
    if (spent > allowed && us < MAX_STRETCH)
        us = us * 2 > MAX_STRETCH ? MAX_STRETCH : us * 2;
    else if (spent * 2 < allowed * 0.8 && us > g.configured_us) /* fits twice as often */
        us = us / 2 < g.configured_us ? g.configured_us : us / 2;
    atomic_store(&g.interval_us, us);
}

/* Mode changes, on this thread: async's start and stop need it. */
static void apply_mode(sampler *s, int want)
{
    if (want == g.mode) return;
    if (g.mode == HT_CPU_ASYNC) {
        ht_cpu_async_stop(s->jvmti, s->jni);
        ht_cpu_async_drain(charge_async, s); /* what was queued before the stop */
        pthread_mutex_lock(&g.lock);
        for (ht_cpu_rec *r = g.recs; r; r = r->next)
            r->async = 0;
        pthread_mutex_unlock(&g.lock);
    }
    if (want == HT_CPU_ASYNC) {
        char err[256];
        s->timer_us = atomic_load(&g.interval_us);
        if (ht_cpu_async_start(s->jvmti, s->jni, s->timer_us, err, sizeof err) != 0) {
            ht_log("%s; CPU sampling stays on", err);
            want = HT_CPU_ON;
            pthread_mutex_lock(&g.lock);
            g.want_mode = want;
            pthread_mutex_unlock(&g.lock);
        } else {
            /* the threads it can sample now (their tid and JNI environment
             * known); the others stay on the JVMTI path */
            for (jint k = 0; k < s->nthreads; k++) {
                ht_cpu_rec *r = s->recs[k];
                add_to_profile(s, s->threads[k], r);
            }
        }
    }
    if (g.mode == HT_CPU_OFF) {
        /* a first reading after off is a baseline: CPU used while off is not news */
        pthread_mutex_lock(&g.lock);
        for (ht_cpu_rec *r = g.recs; r; r = r->next) {
            r->measured = 0;
            r->pending = 0;
        }
        pthread_mutex_unlock(&g.lock);
    }
    if (want == HT_CPU_OFF) ht_cpu_profile_second(g.profile, 0); /* no CPU % now while off */
    g.mode = want;
    atomic_store(&g.active, want != HT_CPU_OFF);
    for (jint k = 0; k < s->nthreads; k++)
        arm_async(s->recs[k]); /* the rest at the next refresh */
}

static void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    ht_sampler_mark_agent_thread();
    ht_cpu_sampler_mark_agent_thread(jvmti);
    sampler s = {.jvmti = jvmti, .jni = jni};
    s.frames = calloc(HT_MAX_DEPTH, sizeof *s.frames);
    uint64_t t0 = ht_thread_cpu_ns();
    s.second_ns = ht_now_ns();
    s.process_second = ht_process_cpu_ns();
    s.cost_second = ht_cpu_sampler_stacks_ns(); /* an earlier run's cost is not this one's */
    g.mode = HT_CPU_OFF;
    for (;;) {
        pthread_mutex_lock(&g.lock);
        int want = g.want_mode;
        while (!g.stop && (want == HT_CPU_OFF || atomic_load(&g.paused)) && g.mode == HT_CPU_OFF) {
            pthread_cond_wait(&g.wake, &g.lock);
            want = g.want_mode;
        }
        if (!g.stop && g.mode != HT_CPU_OFF) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t at = (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec +
                          (uint64_t)atomic_load(&g.interval_us) * 1000u;
            ts.tv_sec = (time_t)(at / SECOND_NS);
            ts.tv_nsec = (long)(at % SECOND_NS);
            pthread_cond_timedwait(&g.wake, &g.lock, &ts);
            want = g.want_mode;
        }
        int stop = g.stop;
        pthread_mutex_unlock(&g.lock);
        if (stop) break;
        if (atomic_load(&g.paused) && want != HT_CPU_OFF) want = HT_CPU_OFF;
        apply_mode(&s, want);
        if (g.mode == HT_CPU_OFF) {
            drop_list(&s);
            continue;
        }
        uint64_t now = ht_now_ns();
        if (!s.nthreads || now - s.refreshed_ns >= REFRESH_EVERY_NS) refresh(&s);
        s.tick++;
        read_cpu(&s);
        uint64_t t_stacks = ht_thread_cpu_ns();
        if (g.mode == HT_CPU_ASYNC) {
            /* the timers follow the tick (a request, or the budget, moved it) */
            uint32_t us = atomic_load(&g.interval_us);
            if (us != s.timer_us) ht_cpu_async_interval(us);
            s.timer_us = us;
            ht_cpu_async_drain(charge_async, &s);
        }
        if (s.frames) take_stacks(&s);
        atomic_fetch_add(&g.stacks_ns, ht_thread_cpu_ns() - t_stacks);
        if (now - s.second_ns >= SECOND_NS) {
            each_second(&s, now);
            s.second_ns = now;
        }
        uint64_t t1 = ht_thread_cpu_ns();
        atomic_fetch_add(&g.cost_ns, t1 - t0);
        t0 = t1;
    }
    apply_mode(&s, HT_CPU_OFF);
    drop_list(&s);
    free(s.frames);
    pthread_mutex_lock(&g.lock);
    g.done = 1;
    pthread_cond_broadcast(&g.wake);
    pthread_mutex_unlock(&g.lock);
}

int ht_cpu_sampler_start(jvmtiEnv *jvmti, JNIEnv *jni, ht_cpu_profile *profile, int mode,
                         uint32_t interval_us)
{
    char err[256];
    pthread_once(&g_once, init_wake);
    if (mode == HT_CPU_ASYNC && !ht_cpu_async_supported(jvmti, jni, err, sizeof err)) {
        ht_log("%s; CPU sampling runs as cpu=on", err);
        mode = HT_CPU_ON;
    }
    pthread_mutex_lock(&g.lock);
    g.profile = profile;
    g.want_mode = mode;
    g.configured_us = interval_us;
    atomic_store(&g.interval_us, interval_us);
    g.stop = g.done = 0;
    g.gen++;
    pthread_mutex_unlock(&g.lock);
    atomic_store(&g.paused, 0);
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring name = (*jni)->NewStringUTF(jni, "heaptop-cpu");
    jobject thread = (ctor && name) ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    if (!thread || (*jvmti)->RunAgentThread(jvmti, thread, sampler_main, NULL,
                                            JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
        (*jni)->ExceptionClear(jni);
        ht_log("could not start the CPU sampler's thread; no CPU sampling");
        return -1;
    }
    pthread_mutex_lock(&g.lock);
    g.started = 1;
    pthread_mutex_unlock(&g.lock);
    return 0;
}

int ht_cpu_sampler_set(jvmtiEnv *jvmti, JNIEnv *jni, int mode, uint32_t interval_us, char *err,
                       size_t errn)
{
    if (mode == HT_CPU_ASYNC && !ht_cpu_async_supported(jvmti, jni, err, errn)) return HT_EBADREQ;
    pthread_mutex_lock(&g.lock);
    if (!g.started) {
        pthread_mutex_unlock(&g.lock);
        snprintf(err, errn, "the CPU sampler's thread is not running");
        return HT_EINTERNAL;
    }
    g.want_mode = mode;
    if (interval_us) {
        g.configured_us = interval_us;
        atomic_store(&g.interval_us, interval_us);
    }
    pthread_cond_broadcast(&g.wake);
    pthread_mutex_unlock(&g.lock);
    return HT_OK;
}

void ht_cpu_sampler_stop(void)
{
    pthread_once(&g_once, init_wake);
    pthread_mutex_lock(&g.lock);
    if (!g.started) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.stop = 1;
    pthread_cond_broadcast(&g.wake);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += 2;
    while (!g.done)
        if (pthread_cond_timedwait(&g.wake, &g.lock, &deadline) != 0) break;
    g.started = 0;
    pthread_mutex_unlock(&g.lock);
}
