/* sampler.c - see sampler.h. */
#include "sampler.h"

#include "agent_state.h"
#include "cpu_sampler.h"
#include "estimate.h"
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local int tls_agent_thread;
static _Thread_local ht_gap_memo tls_gap;  /* which interval this thread's next gap has */
static _Thread_local uint32_t tls_samples; /* counts samples: some are timed, for the budget */

void ht_sampler_mark_agent_thread(void)
{
    tls_agent_thread = 1;
}

/* Hold the declaring classes of a new trace's frames so their methods cannot be
 * unloaded before the collector has read their names. Runs under the trace
 * table's insert mutex, only for traces never seen before. */
typedef struct pin_ctx {
    jvmtiEnv *jvmti;
    JNIEnv *jni;
} pin_ctx;

static void pin_classes(void *vctx, ht_trace *t)
{
    pin_ctx *ctx = vctx;
    jobject *refs = calloc(t->depth + 1u, sizeof *refs);
    if (!refs) return;
    for (uint32_t i = 0; i < t->depth; i++) {
        jclass cls = NULL;
        if ((*ctx->jvmti)->GetMethodDeclaringClass(ctx->jvmti, t->frames[i].method, &cls) ==
                JVMTI_ERROR_NONE &&
            cls) {
            refs[i] = (*ctx->jni)->NewGlobalRef(ctx->jni, cls);
            (*ctx->jni)->DeleteLocalRef(ctx->jni, cls);
        }
    }
    t->pins = refs;
}

/* The record of a stack, interned with its classes pinned (NULL past the cap). */
static ht_trace *intern(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count)
{
    pin_ctx ctx = {jvmti, jni};
    int is_new;
    return ht_trace_intern_record(ht_g.traces, frames, (uint32_t)count, pin_classes, &ctx, &is_new);
}

uint32_t ht_sampler_intern(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count)
{
    if (count <= 0) return HT_TRACE_NONE;
    ht_trace *t = intern(jvmti, jni, frames, count);
    return t ? t->id : HT_TRACE_OVERFLOW;
}

/* Class id of an allocated object's class: the class mirror's tag. Only the
 * first sample of a class takes new_lock; the double check under the lock makes
 * the id unique even when two threads meet a new class at once. */
static uint32_t class_id_of(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass)
{
    jlong tag = 0;
    if ((*jvmti)->GetTag(jvmti, klass, &tag) == JVMTI_ERROR_NONE && (tag & HT_TAG_CLASS_BIT))
        return (uint32_t)tag;
    uint32_t id = HT_CLASS_UNKNOWN;
    ht_new_class *node = malloc(sizeof *node);
    pthread_mutex_lock(&ht_g.new_lock);
    if ((*jvmti)->GetTag(jvmti, klass, &tag) == JVMTI_ERROR_NONE && (tag & HT_TAG_CLASS_BIT)) {
        id = (uint32_t)tag;
    } else if (node) {
        id = atomic_fetch_add(&ht_g.next_class_id, 1) + 1;
        if ((*jvmti)->SetTag(jvmti, klass, HT_TAG_CLASS_BIT | id) != JVMTI_ERROR_NONE) {
            id = HT_CLASS_UNKNOWN;
        } else {
            node->id = id;
            node->ref = (*jni)->NewGlobalRef(jni, klass);
            if (id < ht_g.max_class_refs)
                atomic_store_explicit(&ht_g.class_refs[id], (*jni)->NewWeakGlobalRef(jni, klass),
                                      memory_order_release);
            node->next = ht_g.new_classes;
            ht_g.new_classes = node;
            node = NULL;
        }
    }
    pthread_mutex_unlock(&ht_g.new_lock);
    free(node);
    return id;
}

/* Class id, trying the trace's hint first: most sites allocate one class, and
 * IsSameObject against the class's weak ref is far cheaper than GetTag, which
 * takes the VM's tag-map lock. A miss (another class, an unloaded class) falls
 * back to the tag and updates the hint. */
static uint32_t class_of_trace(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass, ht_trace *t)
{
    if (t) {
        uint32_t hint = atomic_load_explicit(&t->class_hint, memory_order_relaxed);
        if (hint && hint < ht_g.max_class_refs) {
            jweak ref = atomic_load_explicit(&ht_g.class_refs[hint], memory_order_acquire);
            if (ref && (*jni)->IsSameObject(jni, klass, ref)) return hint;
        }
    }
    uint32_t id = class_id_of(jvmti, jni, klass);
    if (t && id) atomic_store_explicit(&t->class_hint, id, memory_order_relaxed);
    return id;
}

void JNICALL ht_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                 jclass klass, jlong size)
{
    (void)thread;
    if (tls_agent_thread) return;
    /* HotSpot has just drawn this thread's next gap with the interval in force
     * now; this sample's gap was drawn at the thread's previous sample. */
    uint64_t drawn_with =
        ht_gap_interval(&tls_gap, atomic_load_explicit(&ht_g.interval, memory_order_relaxed));
    if (!atomic_load_explicit(&ht_g.sampling, memory_order_relaxed)) return;
    /* the price of a sample, for budget.h: the thread's CPU time (a wall clock
     * would count a GC pause that stops the thread in here), read around a few
     * hundred samples a second (the collector sets the mask from the rate):
     * each read is a system call, ~1.3 us here, as much as a sample costs */
    uint64_t t0 = (++tls_samples & atomic_load_explicit(&ht_g.time_mask, memory_order_relaxed)) == 0
                      ? ht_thread_cpu_ns()
                      : 0;
    /* First, before any JVMTI call can let a GC in: a pause that starts after
     * this read started after the allocation. */
    uint32_t epoch = atomic_load_explicit(&ht_g.gc_starts, memory_order_acquire);

    jvmtiFrameInfo frames[HT_MAX_DEPTH];
    jint count = 0;
    ht_event ev;
    ht_trace *trace = NULL;
    ev.trace_id = HT_TRACE_NONE;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, (jint)ht_g.opt.depth, frames, &count) ==
            JVMTI_ERROR_NONE &&
        count > 0) {
        trace = intern(jvmti, jni, frames, count);
        ev.trace_id = trace ? trace->id : HT_TRACE_OVERFLOW;
    }
    ev.class_id = class_of_trace(jvmti, jni, klass, trace);
    ev.size = (uint64_t)size;
    ev.interval = drawn_with;
    ev.epoch = epoch;
    ev.pad = 0;
    /* A weak ref for live tracking: the collector finds the object's death
     * by testing it after GCs. Far cheaper here than a JVMTI tag. */
    jweak ref = NULL;
    if (atomic_load_explicit(&ht_g.tracking, memory_order_relaxed))
        ref = (*jni)->NewWeakGlobalRef(jni, object);
    ev.ref = (uint64_t)(uintptr_t)ref;

    if (ht_ring_push(ht_g.events, &ev) != 0) {
        /* the site's count first: the collector folds site counts into rows
         * when it sees the total move (see fold_drops) */
        if (trace) {
            /* one row holds the site's drops: a site that allocates several
             * classes would count them in each if the row followed the hint */
            uint32_t none = 0;
            atomic_compare_exchange_strong_explicit(&trace->drop_class, &none, ev.class_id,
                                                    memory_order_relaxed, memory_order_relaxed);
            atomic_fetch_add_explicit(&trace->dropped, 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&ht_g.dropped, 1, memory_order_release);
        if (ref) (*jni)->DeleteWeakGlobalRef(jni, ref);
    }
    if (t0) {
        atomic_fetch_add_explicit(&ht_g.timed_ns, ht_thread_cpu_ns() - t0, memory_order_relaxed);
        atomic_fetch_add_explicit(&ht_g.timed_samples, 1, memory_order_relaxed);
    }
}

void JNICALL ht_on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    ht_gap_thread_start(&tls_gap, atomic_load_explicit(&ht_g.interval, memory_order_relaxed));
    if (!tls_agent_thread) ht_cpu_sampler_thread_start(jvmti, jni, thread);
}

void JNICALL ht_on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    if (!tls_agent_thread) ht_cpu_sampler_thread_end(jvmti, jni, thread);
}

void JNICALL ht_on_gc_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    ht_g.gc_start_ns = ht_now_ns();
    atomic_fetch_add_explicit(&ht_g.gc_starts, 1, memory_order_release);
}

void JNICALL ht_on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    uint64_t now = ht_now_ns();
    if (ht_g.gc_start_ns && now > ht_g.gc_start_ns) {
        atomic_fetch_add_explicit(&ht_g.gc_pause_ns, now - ht_g.gc_start_ns, memory_order_relaxed);
        atomic_store_explicit(&ht_g.gc_last_start_ns, ht_g.gc_start_ns, memory_order_relaxed);
    }
    ht_g.gc_start_ns = 0;
    atomic_fetch_add_explicit(&ht_g.gc_pauses, 1, memory_order_release);
}
