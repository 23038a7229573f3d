/*
 * protocol_cpu.h - the CPU sampling part of the wire protocol (protocol.h).
 *
 * Owns: the CPU modes, the thread states and the bracketed buckets a CPU
 * sample without a stack is counted in, and the two stream records: a thread
 * the CPU sampler saw (HT_MSG_CPU_THREADS) and a (thread, stack) row of CPU
 * (HT_MSG_CPU_ROWS). Both are cumulative since the agent started, like the
 * allocation rows: a viewer keeps the last copy of each. Their diff fields
 * count what came while the mark ran (frozen at End, 0 without a mark), as the
 * allocation rows' do. Pure: any thread; protocol.c validates these bodies.
 *
 * A sample weighs the CPU time its thread used since its previous sample
 * (cpu=on: the thread's exact CPU-time delta; cpu=async: the timer's period,
 * overruns included), so cpu_ns sums to the threads' CPU and samples count
 * stacks. A sample whose stack could not be taken is never dropped and never
 * charged to another frame: it is counted in its bucket, a row with trace
 * HT_TRACE_NONE, shown as "[name]".
 */
#ifndef HEAPTOP_PROTOCOL_CPU_H
#define HEAPTOP_PROTOCOL_CPU_H

#include <stdint.h>

#include "wire.h"

typedef enum ht_cpu_mode {
    HT_CPU_OFF = 0,   /* no CPU sampling */
    HT_CPU_ON = 1,    /* CPU-time gated JVMTI stacks, taken at safepoints (the default) */
    HT_CPU_ASYNC = 2, /* per-thread CPU timers and AsyncGetCallTrace (opt-in) */
} ht_cpu_mode;
#define HT_CPU_MODES 3
/* "off", "on", "async"; NULL for another number. */
const char *ht_cpu_mode_name(int mode);
/* The mode a name means, or -1. */
int ht_cpu_mode_parse(const char *s);

#define HT_CPU_INTERVAL_DEFAULT_US 10000u   /* 10 ms */
#define HT_CPU_INTERVAL_MIN_US     1000u    /* 1 ms: the kernel's tick is 4 ms at HZ=250 */
#define HT_CPU_INTERVAL_MAX_US     1000000u /* 1 s */

/* A thread's state when it was last looked at (JVMTI's, with RUNNABLE split
 * by whether it is in native code: a thread blocked in a native read is
 * RUNNABLE to the JVM and uses no CPU). */
typedef enum ht_thread_state {
    HT_THREAD_NEW = 0,
    HT_THREAD_RUNNABLE = 1,
    HT_THREAD_NATIVE = 2, /* RUNNABLE, in native code */
    HT_THREAD_BLOCKED = 3,
    HT_THREAD_WAITING = 4,
    HT_THREAD_TIMED_WAITING = 5,
    HT_THREAD_TERMINATED = 6, /* ended: its figures stay */
} ht_thread_state;
#define HT_THREAD_STATES 7
/* "NEW", "RUNNABLE", "NATIVE", "BLOCKED", "WAITING", "TIMED_WAITING",
 * "TERMINATED"; "?" for another number. */
const char *ht_thread_state_name(int state);

/* Thread ids: 1.. per agent run. HT_THREAD_OTHER holds the threads past the
 * agent's thread cap, together. */
#define HT_THREAD_OTHER 0xffffffffu

/* Why a sample has no stack. 1..9: heaptop's own; 16 + n: AsyncGetCallTrace's
 * error -n (forte.cpp's codes). */
typedef enum ht_cpu_bucket {
    HT_CPUB_NONE = 0,           /* a stack: the row's trace */
    HT_CPUB_NO_JAVA_FRAMES = 1, /* the thread had no Java frames (VM or native code) */
    HT_CPUB_WALK_FAILED = 2,    /* JVMTI could not take the stack */
    HT_CPUB_THREAD_ENDED = 3,   /* CPU measured, but the thread ended before its stack */
    HT_CPUB_LOST = 4,           /* cpu=async: the signal queue was full */
    HT_CPUB_NOT_REGISTERED = 5, /* cpu=async: a thread the agent has no JNI env for */
    HT_CPUB_OVERFLOW = 6,       /* the trace table or the row table was full */
    HT_CPUB_ASGCT = 16,         /* + n: AsyncGetCallTrace returned -n (n = 1..15) */
} ht_cpu_bucket;
#define HT_CPUB_MAX (HT_CPUB_ASGCT + 15)
/* "no_Java_frames", "walk_failed", ..., "unknown_Java" (ASGCT -5), without the
 * brackets; NULL for a number that is no bucket. */
const char *ht_cpu_bucket_name(int bucket);

typedef struct ht_cpu_thread_rec {
    uint32_t id;
    uint8_t state;         /* ht_thread_state */
    uint8_t daemon;        /* 1 for a daemon thread */
    uint64_t cpu_ns;       /* CPU time used since the sampler first saw it */
    uint64_t recent_ns;    /* CPU time in the last second (CPU % now) */
    uint64_t samples;      /* samples charged to it, stacks and buckets */
    uint64_t diff_cpu_ns;  /* while the mark ran */
    uint64_t diff_samples; /* while the mark ran */
    ht_str name;
} ht_cpu_thread_rec;

typedef struct ht_cpu_row_rec {
    uint32_t thread_id;
    uint32_t trace_id; /* HT_TRACE_NONE for a bucket */
    uint8_t bucket;    /* ht_cpu_bucket */
    uint64_t samples;
    uint64_t cpu_ns;
    uint64_t diff_samples;
    uint64_t diff_cpu_ns;
} ht_cpu_row_rec;
#define HT_CPU_ROW_WIRE_SIZE 41u

void ht_enc_cpu_thread(ht_buf *b, const ht_cpu_thread_rec *t, const char *name);
void ht_dec_cpu_thread(ht_reader *r, ht_cpu_thread_rec *t);
void ht_enc_cpu_row(ht_buf *b, const ht_cpu_row_rec *row);
void ht_dec_cpu_row(ht_reader *r, ht_cpu_row_rec *row);

/* protocol.c's check of a CPU message's body (type HT_MSG_CPU_*): reads it
 * all, setting r->failed on anything out of range. */
void ht_cpu_validate_body(int type, ht_reader *r);

#endif
