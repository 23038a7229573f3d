/*
 * cpu_async_int.h - cpu=async's insides, shared by its control side
 * (cpu_async.c: JVMTI, timers, drain) and its signal handler
 * (cpu_async_signal.c).
 *
 * Owns: AsyncGetCallTrace's types (forte.cpp's, not in any JDK header), the
 * slot table (one slot per armed thread, found by the handler through the
 * timer's si_value: index and generation, no lookup), and the state the
 * handler reads. Slots and the table are allocated once and never freed: a
 * timer's signal may still be queued after the timer is deleted, and then
 * meets a slot whose generation moved on and does nothing.
 *
 * A slot's fields but the atomics are written by the control side only while
 * no handler can use them: before its generation is published (arm), or after
 * the generation moved and inflight fell to 0 (disarm, stop).
 */
#ifndef HEAPTOP_CPU_ASYNC_INT_H
#define HEAPTOP_CPU_ASYNC_INT_H

#include <jni.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "mpsc_ring.h"

typedef struct ht_asgct_frame {
    jint lineno; /* Java: the bci (-1 unknown); native method: -3 */
    jmethodID method_id;
} ht_asgct_frame;

typedef struct ht_asgct_trace {
    JNIEnv *env_id;
    jint num_frames; /* < 0: an error (ticks_unknown_Java = -5, ...) */
    ht_asgct_frame *frames;
} ht_asgct_trace;

typedef void (*ht_asgct_fn)(ht_asgct_trace *trace, jint depth, void *ucontext);

/* One queued sample: a whole stack, written in place by the handler. */
typedef struct ht_async_sample {
    uint32_t thread_id; /* the profile's */
    int32_t num;        /* AsyncGetCallTrace's num_frames */
    uint64_t weight_ns; /* the timer's period times 1 + overruns */
    ht_asgct_frame frames[];
} ht_async_sample;

enum { HT_SLOT_FREE = 0, HT_SLOT_ARMED = 1, HT_SLOT_RETIRING = 2 };

typedef struct ht_async_slot {
    _Atomic uint32_t gen;      /* moves at every arm and disarm */
    _Atomic uint32_t inflight; /* handlers inside, on its thread */
    _Atomic uint64_t lost_n;   /* samples the full queue lost */
    _Atomic uint64_t lost_ns;
    /* control side (see the top) */
    JNIEnv *env;
    uint32_t thread_id;
    int tid;
    int timer;         /* the kernel's timer id */
    int state;         /* HT_SLOT_* */
    const void *owner; /* the ht_cpu_rec that armed it */
    uint32_t next_free;
} ht_async_slot;

#define HT_ASYNC_SLOTS     16384u /* threads armed at once; past it, the JVMTI path */
#define HT_ASYNC_TIME_MASK 15u    /* the handler times one sample in 16 */

typedef struct ht_async_shared {
    ht_async_slot *slots;    /* HT_ASYNC_SLOTS, never freed */
    _Atomic(ht_ring *) ring; /* ht_async_sample + depth frames */
    ht_asgct_fn agct;
    jint depth;
    atomic_int running;
    _Atomic uint64_t interval_ns;
    atomic_int lost;           /* some slot counted a loss since the last drain */
    _Atomic uint64_t signals;  /* handled */
    _Atomic uint64_t stray;    /* our signal without a live slot */
    _Atomic uint64_t timed_ns; /* the handler's CPU, of the samples timed */
    _Atomic uint64_t timed;    /* samples timed */
} ht_async_shared;

extern ht_async_shared ht_async;

/* The handler (SA_SIGINFO). */
void ht_cpu_async_on_signal(int sig, siginfo_t *si, void *ucontext);

#endif
