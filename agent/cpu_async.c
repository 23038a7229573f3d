/* cpu_async.c - see cpu_async.h; the signal handler is cpu_async_signal.c. */
#include "cpu_async.h"

#include "agent_state.h"
#include "cpu_async_int.h"
#include "cpu_async_jdk.h"
#include "log.h"
#include "protocol_cpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_BYTES       (4u << 20) /* the queue: at most 4 MiB of stacks */
#define RING_MIN         64u
#define RING_MAX         2048u
#define WAIT_INFLIGHT_NS (200ull * 1000 * 1000) /* a handler runs for microseconds */
#define NO_SLOT          0xffffffffu

static struct {
    pthread_mutex_t lock; /* everything here and the slots' control fields */
    jvmtiEnv *jvmti;
    JNIEnv *jni;         /* the CPU sampler thread's: start, stop and drain run there */
    int signo;           /* ours once installed (never uninstalled: a late signal is harmless) */
    int compiled_events; /* can_generate_compiled_method_load_events was granted */
    uint32_t used;       /* slots ever handed out */
    uint32_t free_head;  /* a list through next_free, NO_SLOT-terminated */
    size_t elem_size;
    ht_async_sample *popped; /* the drain's copy of one sample */
    jvmtiFrameInfo *frames;
    jclass *classes;
    uint64_t timer_failures;
} g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .free_head = NO_SLOT,
};

/* --- JVMTI events: what AsyncGetCallTrace needs (forte.cpp) --------------- */

/* Enabled ClassLoad events are AsyncGetCallTrace's condition to walk at all
 * (else ticks_no_class_load, -1); the callback has nothing to do. */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jvmti, (void)jni, (void)thread, (void)klass;
}

/* A class ready: its jmethodIDs made now, on this thread, as the handler
 * cannot make one (it would take a lock). */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jni, (void)thread;
    if (!atomic_load_explicit(&ht_async.running, memory_order_relaxed)) return;
    jint n = 0;
    jmethodID *m = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &m) == JVMTI_ERROR_NONE && m)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)m);
}

/* Enabled CompiledMethodLoad events make C1/C2 record debug information at
 * every pc, not only at safepoints (DebugNonSafepoints' default turns on), so
 * a sample inside compiled code names the right inlined frame. */
static void JNICALL on_compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint size,
                                            const void *addr, jint nmap,
                                            const jvmtiAddrLocationMap *map, const void *info)
{
    (void)jvmti, (void)method, (void)size, (void)addr, (void)nmap, (void)map, (void)info;
}

void ht_cpu_async_callbacks(jvmtiEventCallbacks *cb)
{
    cb->ClassLoad = on_class_load;
    cb->ClassPrepare = on_class_prepare;
    cb->CompiledMethodLoad = on_compiled_method_load;
}

static void set_events(jvmtiEnv *jvmti, jvmtiEventMode mode)
{
    (*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_CLASS_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_CLASS_PREPARE, NULL);
    if (g.compiled_events)
        (*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
}

/* jmethodIDs for every class loaded so far (ClassPrepare does the new ones). */
static void load_all_method_ids(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE || !classes) return;
    for (jint i = 0; i < n; i++) {
        jint nm = 0;
        jmethodID *m = NULL;
        if ((*jvmti)->GetClassMethods(jvmti, classes[i], &nm, &m) == JVMTI_ERROR_NONE && m)
            (*jvmti)->Deallocate(jvmti, (unsigned char *)m);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

/* --- what it needs: AsyncGetCallTrace, a JDK it is safe on, a signal ------ */

static ht_asgct_fn find_agct(void)
{
    void *f = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (!f) {
        /* a JVM loaded without RTLD_GLOBAL (embedded): its libjvm by name */
        void *lib = dlopen("libjvm.so", RTLD_LAZY | RTLD_NOLOAD);
        if (lib) {
            f = dlsym(lib, "AsyncGetCallTrace");
            dlclose(lib);
        }
    }
    ht_asgct_fn fn;
    memcpy(&fn, &f, sizeof fn); /* a data pointer made a function pointer */
    return fn;
}

static int ours(int signo)
{
    struct sigaction sa;
    return sigaction(signo, NULL, &sa) == 0 && (sa.sa_flags & SA_SIGINFO) &&
           sa.sa_sigaction == ht_cpu_async_on_signal;
}

/* A signal nobody uses: a real-time one, from SIGRTMAX-1 down, whose
 * handler is the default and which this thread does not block. Not SIGPROF
 * (JFR's CPU-time sampler takes it on JDK 25, as do async-profiler and
 * gperftools), nor SIGVTALRM (async-profiler's wall clock). The JVM's own
 * (SIGUSR2, or _JAVA_SR_SIGNUM's) have handlers and are passed over. */
static int choose_signal(void)
{
    if (g.signo && ours(g.signo)) return g.signo;
    sigset_t blocked;
    pthread_sigmask(SIG_BLOCK, NULL, &blocked);
    for (int s = SIGRTMAX - 1; s >= SIGRTMIN + 2; s--) {
        struct sigaction sa;
        if (sigismember(&blocked, s) == 1 || sigaction(s, NULL, &sa) != 0) continue;
        if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL) return s;
    }
    return 0;
}

int ht_cpu_async_supported(jvmtiEnv *jvmti, JNIEnv *jni, char *why, size_t n)
{
    (void)jni;
    char *name = NULL, *version = NULL;
    (*jvmti)->GetSystemProperty(jvmti, "java.vm.name", &name);
    if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.version", &version) != JVMTI_ERROR_NONE)
        (*jvmti)->GetSystemProperty(jvmti, "java.version", &version);
    int ok = ht_cpu_async_jdk_ok(name, version, why, n);
    if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    if (version) (*jvmti)->Deallocate(jvmti, (unsigned char *)version);
    if (!ok) return 0;
    if (!find_agct()) {
        snprintf(why, n,
                 "cpu=async refused: this JVM's libjvm exports no AsyncGetCallTrace; use "
                 "cpu=on");
        return 0;
    }
    pthread_mutex_lock(&g.lock);
    int signo = choose_signal();
    pthread_mutex_unlock(&g.lock);
    if (!signo) {
        snprintf(why, n,
                 "cpu=async refused: every real-time signal has a handler already (or is "
                 "blocked); use cpu=on");
        return 0;
    }
    return 1;
}

/* --- slots ----------------------------------------------------------------- */

static ht_async_slot *slot_take(uint32_t *idx)
{
    if (g.free_head != NO_SLOT) {
        *idx = g.free_head;
        g.free_head = ht_async.slots[*idx].next_free;
    } else if (g.used < HT_ASYNC_SLOTS) {
        *idx = g.used++;
    } else {
        return NULL;
    }
    return &ht_async.slots[*idx];
}

static void slot_free(ht_async_slot *s)
{
    s->state = HT_SLOT_FREE;
    s->owner = NULL;
    s->next_free = g.free_head;
    g.free_head = (uint32_t)(s - ht_async.slots);
}

static void wait_inflight(ht_async_slot *s, uint64_t deadline)
{
    while (atomic_load(&s->inflight) && ht_now_ns() < deadline)
        sched_yield();
}

/* Its timer deleted and its generation moved: no handler will use it again.
 * A slot with losses not yet charged waits for the drain (RETIRING). */
static void slot_retire(ht_async_slot *s, uint64_t deadline)
{
    syscall(SYS_timer_delete, s->timer);
    atomic_fetch_add(&s->gen, 1);
    wait_inflight(s, deadline);
    if (atomic_load(&s->lost_n))
        s->state = HT_SLOT_RETIRING;
    else
        slot_free(s);
}

static int set_period(int timer, uint64_t ns)
{
    struct itimerspec its = {
        .it_interval = {.tv_sec = (time_t)(ns / 1000000000ull),
                        .tv_nsec = (long)(ns % 1000000000ull)},
    };
    its.it_value = its.it_interval;
    return (int)syscall(SYS_timer_settime, timer, 0, &its, NULL);
}

/* --- start and stop ---------------------------------------------------------- */

/* The queue for stacks of `depth` frames (made again when depth changes:
 * no handler runs while async is stopped). */
static int make_ring(jint depth)
{
    size_t elem = sizeof(ht_async_sample) + (size_t)depth * sizeof(ht_asgct_frame);
    ht_ring *r = atomic_load(&ht_async.ring);
    if (r && elem == g.elem_size) return 0;
    size_t cap = RING_BYTES / elem;
    cap = cap < RING_MIN ? RING_MIN : cap > RING_MAX ? RING_MAX : cap;
    ht_ring *nr = ht_ring_create(cap, elem);
    ht_async_sample *popped = malloc(elem);
    jvmtiFrameInfo *frames = calloc((size_t)depth, sizeof *frames);
    jclass *classes = calloc((size_t)depth, sizeof *classes);
    if (!nr || !popped || !frames || !classes) {
        ht_ring_destroy(nr);
        free(popped);
        free(frames);
        free(classes);
        return -1;
    }
    atomic_store(&ht_async.ring, nr);
    ht_ring_destroy(r);
    free(g.popped);
    free(g.frames);
    free(g.classes);
    g.popped = popped;
    g.frames = frames;
    g.classes = classes;
    g.elem_size = elem;
    ht_async.depth = depth;
    return 0;
}

int ht_cpu_async_start(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t interval_us, char *err, size_t errn)
{
    if (!ht_cpu_async_supported(jvmti, jni, err, errn)) return -1;
    pthread_mutex_lock(&g.lock);
    if (atomic_load(&ht_async.running)) {
        pthread_mutex_unlock(&g.lock);
        return 0;
    }
    if (!ht_async.slots) ht_async.slots = calloc(HT_ASYNC_SLOTS, sizeof *ht_async.slots);
    jint depth = (jint)(ht_g.opt.depth ? ht_g.opt.depth : 64);
    if (!ht_async.slots || make_ring(depth) != 0) {
        pthread_mutex_unlock(&g.lock);
        snprintf(err, errn, "out of memory for cpu=async's queue");
        return -1;
    }
    /* what the last run's drain did not take */
    ht_async_sample *drop = g.popped;
    while (ht_ring_pop(atomic_load(&ht_async.ring), drop))
        ;
    for (uint32_t i = 0; i < g.used; i++) {
        ht_async_slot *s = &ht_async.slots[i];
        atomic_store(&s->lost_n, 0);
        atomic_store(&s->lost_ns, 0);
        if (s->state == HT_SLOT_RETIRING) slot_free(s);
    }
    int signo = choose_signal();
    if (signo && signo != g.signo) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = ht_cpu_async_on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(signo, &sa, NULL) != 0) signo = 0;
    }
    if (!signo) {
        pthread_mutex_unlock(&g.lock);
        snprintf(err, errn, "no free signal for cpu=async's timers");
        return -1;
    }
    g.signo = signo;
    g.jvmti = jvmti;
    g.jni = jni;
    ht_async.agct = find_agct();
    if (!g.compiled_events) {
        jvmtiCapabilities caps;
        memset(&caps, 0, sizeof caps);
        caps.can_generate_compiled_method_load_events = 1;
        g.compiled_events = (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE;
        if (!g.compiled_events)
            ht_log("cpu=async: no CompiledMethodLoad events here: frames inlined at a pc "
                   "without debug information may be imprecise");
    }
    atomic_store(&ht_async.interval_ns, (uint64_t)interval_us * 1000u);
    set_events(jvmti, JVMTI_ENABLE);
    atomic_store(&ht_async.running, 1);
    pthread_mutex_unlock(&g.lock);
    /* ClassPrepare is on: a class loaded meanwhile gets its IDs either way */
    load_all_method_ids(jvmti, jni);
    return 0;
}

void ht_cpu_async_stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    pthread_mutex_lock(&g.lock);
    if (!atomic_load(&ht_async.running)) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    atomic_store(&ht_async.running, 0);
    uint64_t deadline = ht_now_ns() + WAIT_INFLIGHT_NS;
    for (uint32_t i = 0; i < g.used; i++) {
        ht_async_slot *s = &ht_async.slots[i];
        if (s->state == HT_SLOT_ARMED) slot_retire(s, deadline);
        wait_inflight(s, deadline);
    }
    /* after the handlers: a walk under way still needed ClassLoad enabled */
    set_events(jvmti, JVMTI_DISABLE);
    pthread_mutex_unlock(&g.lock);
}

/* --- threads ------------------------------------------------------------------- */

void ht_cpu_async_arm(ht_cpu_rec *rec)
{
    pthread_mutex_lock(&g.lock);
    ht_async_slot *have = rec->async_slot;
    if (rec->async && have && have->owner == rec && have->state == HT_SLOT_ARMED) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    rec->async = 0;
    rec->async_slot = NULL;
    uint32_t idx;
    ht_async_slot *s = NULL;
    if (!atomic_load(&ht_async.running) || !rec->id || !rec->tid || !rec->env ||
        !(s = slot_take(&idx))) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    s->env = rec->env;
    s->thread_id = rec->id;
    s->tid = rec->tid;
    s->owner = rec;
    atomic_store(&s->lost_n, 0);
    atomic_store(&s->lost_ns, 0);
    uint32_t gen = atomic_fetch_add(&s->gen, 1) + 1; /* publishes the fields above */
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_value.sival_ptr = (void *)(uintptr_t)(((uint64_t)idx << 32) | gen);
    sev.sigev_signo = g.signo;
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev._sigev_un._tid = rec->tid;
    /* the thread's CPU clock, by tid: CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED */
    clockid_t clock = (clockid_t)(((unsigned)~rec->tid << 3) | 6u);
    int timer = -1;
    if (syscall(SYS_timer_create, clock, &sev, &timer) != 0) {
        int e = errno;
        atomic_fetch_add(&s->gen, 1);
        slot_free(s);
        /* EINVAL: the thread is gone already; anything else is worth a line */
        if (e != EINVAL && g.timer_failures++ == 0)
            ht_log("cpu=async: no CPU timer for thread %d (%s); such threads are sampled as "
                   "cpu=on samples them",
                   rec->tid, strerror(e));
        pthread_mutex_unlock(&g.lock);
        return;
    }
    s->timer = timer;
    s->state = HT_SLOT_ARMED;
    set_period(timer, atomic_load(&ht_async.interval_ns));
    rec->async = 1;
    rec->async_slot = s;
    pthread_mutex_unlock(&g.lock);
}

void ht_cpu_async_disarm(ht_cpu_rec *rec)
{
    pthread_mutex_lock(&g.lock);
    ht_async_slot *s = rec->async_slot;
    if (s && s->owner == rec && s->state == HT_SLOT_ARMED)
        slot_retire(s, ht_now_ns() + WAIT_INFLIGHT_NS);
    rec->async = 0;
    rec->async_slot = NULL;
    pthread_mutex_unlock(&g.lock);
}

void ht_cpu_async_thread_start(ht_cpu_rec *rec)
{
    ht_cpu_async_arm(rec);
}

void ht_cpu_async_interval(uint32_t interval_us)
{
    pthread_mutex_lock(&g.lock);
    uint64_t ns = (uint64_t)interval_us * 1000u;
    if (ns && ns != atomic_load(&ht_async.interval_ns)) {
        atomic_store(&ht_async.interval_ns, ns);
        for (uint32_t i = 0; i < g.used; i++)
            if (ht_async.slots[i].state == HT_SLOT_ARMED) set_period(ht_async.slots[i].timer, ns);
    }
    pthread_mutex_unlock(&g.lock);
}

/* --- the drain --------------------------------------------------------------- */

/* The losses the full queue counted, charged as HT_CPUB_LOST, one sample
 * each; slots retired with losses are free once charged. */
static void charge_losses(ht_cpu_async_charge_fn charge, void *ctx)
{
    if (!atomic_exchange(&ht_async.lost, 0)) return;
    pthread_mutex_lock(&g.lock);
    for (uint32_t i = 0; i < g.used; i++) {
        ht_async_slot *s = &ht_async.slots[i];
        if (s->state == HT_SLOT_FREE) continue;
        uint64_t n = atomic_exchange(&s->lost_n, 0), ns = atomic_exchange(&s->lost_ns, 0);
        for (uint64_t k = 0; k < n; k++)
            charge(ctx, s->thread_id, NULL, 0, HT_CPUB_LOST, ns / n + (k == 0 ? ns % n : 0));
        if (s->state == HT_SLOT_RETIRING) slot_free(s);
    }
    pthread_mutex_unlock(&g.lock);
}

/* One sample's frames as JVMTI's, each method's class held by a local
 * reference while the sample is charged: a class unloaded since the sample
 * (its jmethodID cleared, JDK-8268364) fails here, before it could be
 * interned without its name. The count of frames, or -1 (walk_failed). */
static int take_frames(const ht_async_sample *c)
{
    jvmtiEnv *jvmti = g.jvmti;
    for (int i = 0; i < c->num; i++) {
        g.classes[i] = NULL;
        jmethodID m = c->frames[i].method_id;
        if (!m || (*jvmti)->GetMethodDeclaringClass(jvmti, m, &g.classes[i]) != JVMTI_ERROR_NONE ||
            !g.classes[i]) {
            for (int k = 0; k < i; k++)
                (*g.jni)->DeleteLocalRef(g.jni, g.classes[k]);
            return -1;
        }
        jint line = c->frames[i].lineno;
        g.frames[i] = (jvmtiFrameInfo){.method = m, .location = line >= 0 ? line : -1};
    }
    return c->num;
}

void ht_cpu_async_drain(ht_cpu_async_charge_fn charge, void *ctx)
{
    ht_ring *r = atomic_load(&ht_async.ring);
    if (!r || !g.jni) return;
    charge_losses(charge, ctx);
    JNIEnv *jni = g.jni;
    if ((*jni)->PushLocalFrame(jni, ht_async.depth + 16) != 0) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    ht_async_sample *c = g.popped;
    for (size_t k = ht_ring_capacity(r); k > 0 && ht_ring_pop(r, c); k--) {
        if (c->num > ht_async.depth) c->num = ht_async.depth;
        if (c->num > 0) {
            int n = take_frames(c);
            if (n > 0) {
                charge(ctx, c->thread_id, g.frames, n, HT_CPUB_NONE, c->weight_ns);
                for (int i = 0; i < n; i++)
                    (*jni)->DeleteLocalRef(jni, g.classes[i]);
            } else {
                charge(ctx, c->thread_id, NULL, 0, HT_CPUB_WALK_FAILED, c->weight_ns);
            }
        } else if (c->num == 0) {
            charge(ctx, c->thread_id, NULL, 0, HT_CPUB_NO_JAVA_FRAMES, c->weight_ns);
        } else {
            int code = -c->num;
            int b =
                code <= HT_CPUB_MAX - HT_CPUB_ASGCT ? HT_CPUB_ASGCT + code : HT_CPUB_WALK_FAILED;
            charge(ctx, c->thread_id, NULL, 0, b, c->weight_ns);
        }
    }
    (*jni)->PopLocalFrame(jni, NULL);
}

/* --- figures ----------------------------------------------------------------- */

uint64_t ht_cpu_async_cost_ns(void)
{
    uint64_t timed = atomic_load(&ht_async.timed), ns = atomic_load(&ht_async.timed_ns);
    uint64_t all = atomic_load(&ht_async.signals);
    return timed ? (uint64_t)((double)ns * (double)all / (double)timed) : 0;
}

int ht_cpu_async_signal_number(void)
{
    pthread_mutex_lock(&g.lock);
    int s = atomic_load(&ht_async.running) ? g.signo : 0;
    pthread_mutex_unlock(&g.lock);
    return s;
}
