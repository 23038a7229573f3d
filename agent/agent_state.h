/*
 * agent_state.h - the state shared between JVMTI callbacks and the collector.
 *
 * Owns: the one global agent instance (agent_state.c) and the clocks every
 * part of the agent reads. Fields written by application threads
 * are atomics or lock-free structures; the two mutexes guard only the rare
 * "first sight of a class" path and are never held across I/O or
 * across a call that can wait for the collector. Everything else (dictionaries,
 * aggregates, sockets) belongs to the collector thread alone.
 */
#ifndef HEAPTOP_AGENT_STATE_H
#define HEAPTOP_AGENT_STATE_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "mpsc_ring.h"
#include "options.h"
#include "trace_table.h"

/* Class mirrors carry their class id in a JVMTI tag with this bit set. */
#define HT_TAG_CLASS_BIT (1ll << 62)

/* One sampled allocation, as the callback hands it to the collector. */
typedef struct ht_event {
    uint64_t ref; /* JNI weak ref to the object for live tracking, 0 = not tracked */
    uint64_t size;
    uint64_t interval; /* mean interval the gap ending at this sample was drawn with */
    uint32_t trace_id;
    uint32_t class_id;
    uint32_t epoch; /* GC pauses started before the sample (see live_set.h) */
    uint32_t pad;
} ht_event;

/* A class seen for the first time, waiting for the collector. */
typedef struct ht_new_class {
    struct ht_new_class *next;
    uint32_t id;
    jobject ref; /* global ref: keeps the class loaded until its name is read */
} ht_new_class;

typedef struct ht_agent {
    jvmtiEnv *jvmti;
    JavaVM *vm;
    ht_options opt;
    char options_text[HT_OPTIONS_TEXT_MAX]; /* as HELLO says them: drag= may be long */
    char base[HT_IPC_PATH_MAX];
    uint64_t start_ns;
    uint64_t start_epoch_ms;

    ht_trace_table *traces;
    ht_ring *events; /* ht_event */

    atomic_ullong interval; /* in force now */
    atomic_ullong timed_ns; /* callback CPU time of the samples timed (time_mask) */
    atomic_ullong timed_samples;
    atomic_uint time_mask;     /* a thread times a sample when its count & mask is 0 */
    atomic_int sampling;       /* 1 while SampledObjectAlloc should record */
    atomic_int tracking;       /* 1 while new samples get a weak ref (live on, set not full) */
    atomic_ullong dropped;     /* events lost: ring full */
    atomic_uint next_class_id; /* last assigned */

    /* Weak ref per class id, written once when the class is first sampled and
     * read without a lock to check a trace's class hint with IsSameObject. */
    _Atomic(jweak) *class_refs;
    uint32_t max_class_refs;

    pthread_mutex_t new_lock; /* guards the list below */
    ht_new_class *new_classes;

    /* Stop-the-world GC pauses, from GarbageCollectionStart/Finish (VM thread). */
    atomic_uint gc_starts;          /* pauses started: the epoch of new samples */
    atomic_ullong gc_pauses;        /* finished pauses */
    atomic_ullong gc_pause_ns;      /* their total length */
    uint64_t gc_start_ns;           /* start of the pause in progress; VM thread only */
    atomic_ullong gc_last_start_ns; /* start of the last finished pause (drag's last seen alive) */

    atomic_int phase; /* ht_phase */
} ht_agent;

/* DETACHED: a viewer asked the agent to let go (collector.h); the library
 * stays loaded and the next Agent_OnAttach starts it again. */
enum ht_phase {
    HT_PHASE_LOADED = 0,
    HT_PHASE_RUNNING = 1,
    HT_PHASE_DYING = 2,
    HT_PHASE_DEAD = 3,
    HT_PHASE_DETACHED = 4
};

extern ht_agent ht_g;

uint64_t ht_now_ns(void);         /* CLOCK_MONOTONIC */
uint64_t ht_agent_ms(void);       /* ms since the agent started: the protocol's clock */
uint64_t ht_thread_cpu_ns(void);  /* CPU time of the calling thread (1 when unknown) */
uint64_t ht_process_cpu_ns(void); /* CPU time of the whole process */
/* agent.c: turn off every event the agent enabled and stop recording (for a
 * detach). Callbacks already running finish on their own: one that passed its
 * checks may still queue an event (and a weak reference) after the last
 * drain; a restart folds it into the new run, without one it stays queued. */
void ht_agent_quiesce(jvmtiEnv *jvmti);

/* Clears a pending Java exception (a JNI call that failed): 1 when there
 * was one. Any thread with a JNIEnv. */
static inline int ht_jni_cleared(JNIEnv *jni)
{
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return 1;
    }
    return 0;
}

#endif
