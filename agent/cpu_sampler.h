/*
 * cpu_sampler.h - CPU sampling: where the JVM's threads spend CPU.
 *
 * Owns: the agent's "heaptop-cpu" thread, the mode in force (cpu=on, async,
 * off: protocol_cpu.h), its tick and what stretches it, and one record per
 * Java thread it follows (kept in the thread's JVMTI thread-local storage, so
 * a thread is found again without a lookup). The figures go into the CPU
 * profile (cpu_profile.h), which the collector publishes.
 *
 * cpu=on, every tick (cpu_interval, 10 ms): the thread list is refreshed every
 * 100 ms (GetAllThreads: a list, no safepoint), the CPU time of at most
 * READS_PER_TICK threads is read (GetThreadCpuTime, round robin; a thread idle
 * for a few reads is read one tick in ten), and at most STACKS_PER_TICK
 * threads whose CPU moved and that run now (a thread that has gone back to
 * sleep keeps its CPU until it is caught running) get a stack (GetStackTrace:
 * a handshake with that one thread, never a global safepoint), each weighing
 * the CPU its thread used since its last stack. The table's CPU is the exact measured time; the
 * frames are where the thread was at its next safepoint poll, so code without
 * polls (intrinsics such as System.arraycopy, counted loops) is charged to
 * the frame that polls next: the screens say so. A thread whose CPU did not
 * move (waiting, or RUNNABLE in a blocking native read) gets no sample.
 * cpu=async hands the stacks to cpu_async.h (per-thread CPU timers and
 * AsyncGetCallTrace); this thread then drains what the signal handler queued
 * and still reads every thread's CPU for the table.
 *
 * The sampler pays from the agent's CPU budget (budget.h): once a second it
 * compares its own thread's CPU with half the budget's share of the process's
 * CPU and doubles its tick while over it (up to 1 s), halving it back when
 * twice the cost would still fit. Its CPU is counted in the budget meter's cost too.
 *
 * Threads: ht_cpu_sampler_start/_set/_pause/_budget/_stop on the collector
 * thread (or agent.c at start and at the way out); ht_cpu_sampler_thread_start
 * on a new application thread (JVMTI ThreadStart); everything else on the
 * "heaptop-cpu" thread. Must never: hold the profile's lock across a JVMTI
 * call, stop the world (no GetAllStackTraces), resolve names (the collector
 * does that, with the classes pinned while the trace was interned: sampler.c),
 * or sample heaptop's own threads.
 */
#ifndef HEAPTOP_CPU_SAMPLER_H
#define HEAPTOP_CPU_SAMPLER_H

#include <jvmti.h>
#include <stdint.h>

#include "cpu_profile.h"

#define HT_CPU_READS_PER_TICK  64
#define HT_CPU_STACKS_PER_TICK 8

/* What the sampler keeps of a Java thread (in its JVMTI thread-local
 * storage). Written by the sampler's thread, but for tid and env, which the
 * thread itself sets at ThreadStart (0 and NULL for a thread that was running
 * before the agent came: cpu=async cannot sample it, the JVMTI path does). */
typedef struct ht_cpu_rec {
    uint32_t id;      /* the profile's thread id; 0 = not in the profile (yet) */
    uint32_t gen;     /* the sampler's start that gave it that id */
    int tid;          /* the OS thread id, or 0 */
    JNIEnv *env;      /* the thread's JNI environment, or NULL */
    int async;        /* cpu_async.c samples it (its timer is armed) */
    void *async_slot; /* cpu_async.c's */
    /* --- the sampler's */
    struct ht_cpu_rec *next;
    uint64_t last_cpu; /* GetThreadCpuTime at the last read */
    uint64_t pending;  /* CPU measured since its last sample */
    uint32_t seen;     /* the refresh that last listed it */
    uint32_t idle;     /* reads in a row that found no CPU */
    uint8_t measured;  /* last_cpu is a reading (a first reading is a baseline) */
    uint8_t ended;     /* its ThreadEnd ran (g.lock): never armed again */
} ht_cpu_rec;

/* Start the sampler's thread in mode/interval_us (options). 0, or -1 with
 * the reason logged (the JVM runs on, without CPU sampling). */
int ht_cpu_sampler_start(jvmtiEnv *jvmti, JNIEnv *jni, ht_cpu_profile *profile, int mode,
                         uint32_t interval_us);
/* Another mode, and a tick (0: keep it). HT_OK, or an HT_E* code with why in
 * err (cpu=async where it is not known to be safe). */
int ht_cpu_sampler_set(jvmtiEnv *jvmti, JNIEnv *jni, int mode, uint32_t interval_us, char *err,
                       size_t errn);
/* PAUSE/RESUME: no samples while paused. */
void ht_cpu_sampler_pause(int paused);
/* The CPU budget now (1/100 % of the process's CPU; 0: off). */
void ht_cpu_sampler_budget(uint32_t budget_x100);
/* Stop the thread (detach, VM death); waits up to 2 s for it. The profile
 * stays: the caller resets it. */
void ht_cpu_sampler_stop(void);
/* The mode and the tick in force (the tick a budget may have stretched). */
int ht_cpu_sampler_mode(void);
uint32_t ht_cpu_sampler_interval_us(void);
uint32_t ht_cpu_sampler_configured_us(void);
/* CPU time the sampler's thread has used since the agent loaded (and
 * cpu=async's handler on the application threads). */
uint64_t ht_cpu_sampler_cost_ns(void);
/* Of that, the time inside JVMTI's GetStackTrace: the JVMTI floor, which
 * heaptop accepts (the handshake and the walk), apart from its own share. */
uint64_t ht_cpu_sampler_floor_ns(void);
/* Of that, taking and counting stacks (the floor included, and cpu=async's
 * handler): the cost that grows with the samples, which the budget holds. */
uint64_t ht_cpu_sampler_stacks_ns(void);

/* JVMTI ThreadStart, on the new thread: its record, so its CPU counts from
 * its first instruction (and cpu=async learns its JNI environment). */
void ht_cpu_sampler_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* JVMTI ThreadEnd, on the ending thread: cpu=async's timer off while its JNI
 * environment still exists. */
void ht_cpu_sampler_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* The calling thread is heaptop's own: never sampled. */
void ht_cpu_sampler_mark_agent_thread(jvmtiEnv *jvmti);

#endif
