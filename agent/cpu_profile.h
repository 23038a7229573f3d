/*
 * cpu_profile.h - the CPU profile: the threads the CPU sampler saw, and CPU
 * per (thread, stack).
 *
 * Owns: one record per thread (ids 1.. in order of first sight, at most
 * max_threads; later threads share HT_THREAD_OTHER), one row per (thread,
 * trace) or (thread, bucket) with its samples and CPU time (protocol_cpu.h),
 * bounded by max_rows (past it a thread's new stacks go to its
 * HT_CPUB_OVERFLOW row, never into another stack's), the mark's baselines
 * behind the diff fields, and which threads and rows changed since the last
 * publication.
 *
 * Threads: written by the CPU sampler's thread (cpu_sampler.c), taken by the
 * collector when it publishes or answers a sync (ht_cpu_profile_take). Every
 * function takes the profile's mutex, held for table work only: never across
 * a JVMTI or JNI call, I/O or a wait, so the collector is never held up by a
 * sampler that waits on the VM (a heap dump's safepoint). Pure C, no JVMTI:
 * unit-tested (tests/unit/test_cpu_profile.c).
 */
#ifndef HEAPTOP_CPU_PROFILE_H
#define HEAPTOP_CPU_PROFILE_H

#include <stdint.h>

#include "emit.h"
#include "protocol.h"

typedef struct ht_cpu_profile ht_cpu_profile;

ht_cpu_profile *ht_cpu_profile_create(uint32_t max_threads, uint32_t max_rows);
void ht_cpu_profile_destroy(ht_cpu_profile *p);
/* Forget every figure and thread (a detach): ids start again from 1. */
void ht_cpu_profile_reset(ht_cpu_profile *p);

/* A thread seen for the first time: its id, or HT_THREAD_OTHER past the
 * cap (or out of memory). name may be NULL ("?"). */
uint32_t ht_cpu_thread_add(ht_cpu_profile *p, const char *name, int daemon);
/* Its state now; name NULL keeps the name (a thread may rename itself). */
void ht_cpu_thread_update(ht_cpu_profile *p, uint32_t id, ht_thread_state state, const char *name);
/* CPU time the thread used, measured exactly (cpu=on: GetThreadCpuTime's
 * delta). Counted in its record only: its samples weigh it into rows. */
void ht_cpu_thread_used(ht_cpu_profile *p, uint32_t id, uint64_t cpu_ns);
/* One sample of a thread: weight_ns of CPU charged to a stack (bucket
 * HT_CPUB_NONE, trace != HT_TRACE_NONE) or to a bucket (trace ignored).
 * A trace of HT_TRACE_OVERFLOW goes to the HT_CPUB_OVERFLOW bucket. When
 * used_too, the weight is also the thread's measured CPU (cpu=async, whose
 * only measure of a thread's CPU is its samples). */
void ht_cpu_charge(ht_cpu_profile *p, uint32_t thread, uint32_t trace, ht_cpu_bucket bucket,
                   uint64_t weight_ns, int used_too);
/* Once a second: each thread's CPU in the last elapsed_ns, scaled to a
 * second (CPU % now); elapsed_ns 0: every thread's is 0 (sampling is off). */
void ht_cpu_profile_second(ht_cpu_profile *p, uint64_t elapsed_ns);
/* The mark (mark.h's operations on the CPU figures): Begin takes baselines,
 * End freezes the diffs, Continue adds to them again. Every record changes. */
void ht_cpu_profile_mark(ht_cpu_profile *p, ht_mark_op op);
/* Samples taken since the start, and of those the ones without a stack. */
void ht_cpu_profile_counts(ht_cpu_profile *p, uint64_t *samples, uint64_t *failed);

/* What a publication sends: copies taken under the lock, so the collector
 * can name the traces they use (symbols.h) before it sends them. */
typedef struct ht_cpu_batch {
    ht_cpu_thread_rec *threads;
    char **names; /* threads[i]'s name */
    uint32_t nthreads;
    ht_cpu_row_rec *rows;
    uint32_t nrows;
} ht_cpu_batch;
/* The changed records (all: every record), with their diff fields; the
 * changes are forgotten. 0, or -1 out of memory (nothing forgotten). */
int ht_cpu_profile_take(ht_cpu_profile *p, int all, ht_cpu_batch *out);
/* As HT_MSG_CPU_THREADS then HT_MSG_CPU_ROWS messages into sink. */
void ht_cpu_batch_emit(const ht_cpu_batch *b, ht_sink *sink);
void ht_cpu_batch_free(ht_cpu_batch *b);

#endif
