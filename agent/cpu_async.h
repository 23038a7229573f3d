/*
 * cpu_async.h - cpu=async: per-thread CPU-time timers and AsyncGetCallTrace.
 *
 * Owns: the choice of a signal nobody else uses, one CPU-time timer per
 * sampled thread, the signal handler, the lock-free queue between it and the
 * CPU sampler's thread, and the JDK versions where AsyncGetCallTrace is known
 * to be safe (refused elsewhere, with the reason).
 *
 * Threads: ht_cpu_async_supported on any thread; _start, _stop, _arm,
 * _disarm, _drain on the CPU sampler's thread (cpu_sampler.h);
 * ht_cpu_async_thread_start on a new thread itself (ThreadStart). The signal
 * handler is async-signal-safe: no locks, no allocation, no JVMTI.
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
/* Stop: every timer disarmed, the handler quiet; queued samples dropped. */
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

#endif
