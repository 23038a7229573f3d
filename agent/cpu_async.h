/*
 * cpu_async.h - cpu=async: per-thread CPU-time timers and AsyncGetCallTrace.
 *
 * Owns: the choice of a signal nobody else uses, one CPU-time timer per
 * sampled thread, the signal handler, the lock-free queue between it and the
 * CPU sampler's thread, and the JDK versions where AsyncGetCallTrace is known
 * to be safe (refused elsewhere, with the reason).
 *
 * The signal: a real-time one nobody has a handler for (SIGRTMAX-1 down),
 * never SIGPROF (JFR's CPU-time sampler takes it on JDK 25, as async-profiler
 * does) nor SIGVTALRM. Its handler stays installed once set: a timer's signal
 * may still be queued after the timer is gone (it is then ignored).
 * AsyncGetCallTrace needs ClassLoad events enabled and every method's
 * jmethodID made before a signal comes: start enables ClassLoad, ClassPrepare
 * (IDs for each new class) and CompiledMethodLoad (debug information at every
 * pc, for inlined frames), then makes the IDs of the classes already loaded.
 * A failed walk is a sample in a bucket (AsyncGetCallTrace's code, queue
 * full, a class unloaded before the drain), never dropped, never another
 * frame's. Stale jmethodIDs: the drain holds each frame's class by a local
 * reference while the sample is charged (and interned, which pins it), so a
 * class unloaded between signal and drain makes walk_failed, not a nameless
 * frame; that relies on JDK-8268364 (cpu_async_jdk.h's allowlist).
 *
 * Threads: ht_cpu_async_supported on any thread; _start, _stop, _arm,
 * _disarm, _interval, _drain on the CPU sampler's thread (cpu_sampler.h);
 * ht_cpu_async_thread_start on a new thread itself (ThreadStart); the event
 * callbacks on the threads JVMTI posts them on. The signal handler
 * (cpu_async_signal.c) is async-signal-safe: no locks, no allocation, no
 * JVMTI, no GetEnv (the thread's JNI environment comes with its timer).
 */
#ifndef HEAPTOP_CPU_ASYNC_H
#define HEAPTOP_CPU_ASYNC_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_sampler.h"

/* 1 when cpu=async may run in this JVM; 0 with the reason in why. */
int ht_cpu_async_supported(jvmtiEnv *jvmti, JNIEnv *jni, char *why, size_t n);
/* Start: the signal, the events AsyncGetCallTrace needs. 0, or -1 with err. */
int ht_cpu_async_start(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t interval_us, char *err, size_t errn);
/* Stop: every timer disarmed, the handler quiet, the events off. Samples
 * queued stay for one more drain (call it after stop); the next start drops
 * what no drain took. */
void ht_cpu_async_stop(jvmtiEnv *jvmti, JNIEnv *jni);
/* A thread with a known tid and env (rec->id set): arm its timer; rec->async
 * says whether it is now sampled this way. */
void ht_cpu_async_arm(ht_cpu_rec *rec);
/* Its timer off (the thread ended, or async stops). */
void ht_cpu_async_disarm(ht_cpu_rec *rec);
/* On the new thread itself (ThreadStart), when async runs: arm it. */
void ht_cpu_async_thread_start(ht_cpu_rec *rec);
/* The queued samples, each handed to charge: the profile thread id, the
 * frames (leaf first) or a bucket (protocol_cpu.h) with n = 0, and the CPU
 * time it stands for. */
typedef void (*ht_cpu_async_charge_fn)(void *ctx, uint32_t thread_id, const jvmtiFrameInfo *frames,
                                       int n, int bucket, uint64_t weight_ns);
void ht_cpu_async_drain(ht_cpu_async_charge_fn charge, void *ctx);

/* agent.c, before SetEventCallbacks: the ClassLoad, ClassPrepare and
 * CompiledMethodLoad callbacks (enabled only while async runs). */
void ht_cpu_async_callbacks(jvmtiEventCallbacks *cb);
/* Another timer period for every armed thread (the tick changed). */
void ht_cpu_async_interval(uint32_t interval_us);
/* CPU time the signal handler has used on application threads, estimated
 * from one sample in 16 timed (its cost, for the budget and control status). */
uint64_t ht_cpu_async_cost_ns(void);
/* The signal in use while async runs (for control status), else 0. */
int ht_cpu_async_signal_number(void);

#endif
