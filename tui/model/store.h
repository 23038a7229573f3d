/*
 * store.h - what a viewer knows about one JVM: the agent's data, rebuilt.
 *
 * Owns: copies of the dictionaries (classes, methods, traces), the
 * aggregate rows keyed by (trace, class) holding the agent's absolute totals,
 * the CPU sampler's threads and its rows keyed by (thread, stack or bucket)
 * (store_cpu.c), drag mode's state and its rows per (trace, class)
 * (store_drag.c), the telemetry history, and the hello information. Filled from decoded
 * protocol messages (ht_store_apply), so a sync reply and the stream go through
 * one path. No I/O and no terminal: the TUI's models and `heaptop record` read
 * it; unit tests feed it messages.
 */
#ifndef HEAPTOP_STORE_H
#define HEAPTOP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "protocol.h"

typedef struct ht_smethod {
    char *cls, *name, *src;
} ht_smethod;

typedef struct ht_strace {
    uint16_t depth;
    ht_frame_rec *frames; /* leaf first */
} ht_strace;

typedef struct ht_store_info {
    uint32_t pid;
    uint64_t start_epoch_ms;
    uint64_t interval;
    uint32_t depth, max_traces, viewers;
    int live, paused;
    char *main_class, *jdk_version, *options;
    char *tcp;    /* listen=: where the agent listens over TCP, or why not; NULL not asked */
    int cpu_mode; /* ht_cpu_mode in force (HELLO, then each TELEMETRY) */
    uint32_t cpu_interval_us;   /* the CPU sampler's tick in force (a budget lengthens it) */
    uint32_t cpu_configured_us; /* its configured tick (HELLO): what a budget lengthens */
} ht_store_info;

/* A thread the CPU sampler saw (HT_MSG_CPU_THREADS), its last copy. */
typedef struct ht_store_cpu_thread {
    ht_cpu_thread_rec rec; /* rec.name is not used: see name */
    char *name;            /* never NULL once stored; at most HT_STORE_CPU_NAME_MAX bytes */
} ht_store_cpu_thread;

/* What an agent can make a viewer hold of CPU data: records past these are
 * not kept but counted (ht_store.cpu_refused). The agent's own caps are far
 * below (threads past its cap share HT_THREAD_OTHER; a thread's stacks past
 * its row cap go to its too_many_stacks bucket). */
#define HT_STORE_CPU_THREADS_MAX (1u << 16)
#define HT_STORE_CPU_ROWS_MAX    (1u << 20)
#define HT_STORE_CPU_NAME_MAX    1024u /* a thread's name is cut to this many bytes */
/* Drag rows a viewer keeps; past it they are counted (drag_refused). */
#define HT_STORE_DRAG_ROWS_MAX (1u << 20)

/* Drag mode's last state (HT_MSG_DRAG_STATE), its strings owned. */
typedef struct ht_store_drag {
    int known;             /* a DRAG_STATE arrived since the last clear */
    ht_drag_state_rec rec; /* rec.filter and rec.why are not used: see below */
    char *filter, *why;    /* never NULL once known; at most HT_DRAG_FILTER_MAX bytes */
} ht_store_drag;

typedef struct ht_store {
    ht_store_info info;
    char **classes;
    uint32_t cap_classes;
    ht_smethod *methods; /* index = method id */
    uint32_t cap_methods;
    ht_strace *traces; /* index = trace id */
    uint32_t cap_traces;
    ht_agg_rec *rows;
    uint32_t nrows, cap_rows;
    ht_map index; /* ht_row_key(trace, class) -> row */
    ht_telemetry_rec *telemetry;
    uint32_t ntelemetry, cap_telemetry;
    /* CPU sampling (store_cpu.c), cumulative like the rows: a record replaces
     * the previous copy of its key. */
    ht_store_cpu_thread *cpu_threads;
    uint32_t ncpu_threads, cap_cpu_threads;
    ht_map cpu_thread_index; /* thread id -> index in cpu_threads */
    ht_cpu_row_rec *cpu_rows;
    uint32_t ncpu_rows, cap_cpu_rows;
    ht_map cpu_index;     /* (thread, trace or bucket) -> row; use ht_store_cpu_row() */
    uint64_t cpu_refused; /* CPU records not kept: past HT_STORE_CPU_*_MAX */
    /* drag mode (store_drag.c): its state, and its rows per (trace, class),
     * cumulative: a row replaces the previous copy of its site */
    ht_store_drag drag;
    ht_drag_row_rec *drag_rows;
    uint32_t ndrag_rows, cap_drag_rows;
    ht_map drag_index;     /* ht_row_key(trace, class) -> drag row */
    uint64_t drag_refused; /* drag rows not kept: past HT_STORE_DRAG_ROWS_MAX */
    ht_mark_rec mark;      /* the agent's mark (HT_MSG_MARK) */
    uint64_t generation;   /* bumped on every change, for redraw decisions */
} ht_store;

void ht_store_init(ht_store *s);
void ht_store_free(ht_store *s);
/* Forget the JVM's data (before a full sync), keeping the allocations. */
void ht_store_clear(ht_store *s);
/* Make dst (initialised, empty) a copy of src for a job that works while src
 * changes: the hello information, the class and method names, the rows, the
 * CPU threads and rows (with their indexes), drag mode's state and rows, the
 * mark and the telemetry; of the stacks only those the CPU and drag rows use
 * (so a CPU or drag export names its frames;
 * ht_store_trace() finds no other, so an allocation site may be named by its
 * placeholder) and no index of the allocation rows (they are not looked up).
 * 0, or -1 out of memory (dst is then freed). */
int ht_store_snapshot(ht_store *dst, const ht_store *src);
/* Apply one validated message. HT_OK or an HT_E* code. */
int ht_store_apply(ht_store *s, const ht_msg *m);

const char *ht_store_class(const ht_store *s, uint32_t id);
const ht_strace *ht_store_trace(const ht_store *s, uint32_t id);
const ht_smethod *ht_store_method(const ht_store *s, uint32_t id);
/* Fill s (initialised, empty) from what a viewer got on connecting, as a
 * heap dump's marker carries it (heap_marker.h: the HELLO and SYNC replies,
 * each after its u32 length): the run's names and figures as of the dump.
 * HT_OK, or the protocol's error for bytes that are not that (checked as the
 * stream is: a dump is outside input). */
int ht_store_from_session(ht_store *s, const uint8_t *p, size_t len);
/* The row of site (trace, class), or NULL (also in a job's copy: no index). */
const ht_agg_rec *ht_store_row(const ht_store *s, uint32_t trace_id, uint32_t class_id);
/* "pkg.Class.method:line" into out; "pkg.Class.method [native]" for a native
 * method; "pkg.Class.method" when the class has no line table. */
void ht_store_frame_name(const ht_store *s, const ht_frame_rec *f, char *out, size_t n);
/* The allocating frame of a trace, or a bracketed placeholder for reserved ids. */
void ht_store_site_name(const ht_store *s, uint32_t trace_id, char *out, size_t n);
/* Whole stack, leaf first, frames joined by " <- ". Returns a malloc'd string. */
char *ht_store_stack_text(const ht_store *s, uint32_t trace_id);
const ht_telemetry_rec *ht_store_last_telemetry(const ht_store *s);
/* Is the trace as deep as the agent's depth option, so its outermost frames
 * may have been cut? */
int ht_store_trace_cut(const ht_store *s, uint32_t trace_id);
/* Is there a mark (running or ended)? Without one the diff columns are blank. */
int ht_store_has_mark(const ht_store *s);

/* --- CPU sampling (store_cpu.c) --- */
/* The thread with this id, or NULL. (Not ht_store_cpu_thread(): C keeps
 * one name for the type and a function, and the type has it.) */
const ht_store_cpu_thread *ht_store_cpu_thread_by_id(const ht_store *s, uint32_t id);
/* The row of (thread, trace) for a stack (bucket HT_CPUB_NONE), or of
 * (thread, bucket) (trace ignored), or NULL. */
const ht_cpu_row_rec *ht_store_cpu_row(const ht_store *s, uint32_t thread_id, uint32_t trace_id,
                                       uint8_t bucket);
/* A CPU row's top frame for people: the leaf frame's name (as
 * ht_store_site_name), or "[bucket_name]" for a sample without a stack. */
void ht_store_cpu_row_name(const ht_store *s, const ht_cpu_row_rec *row, char *out, size_t n);
/* A thread's name for people: its stored name, "[other threads]" for
 * HT_THREAD_OTHER, "[thread N]" for an id never named. */
void ht_store_cpu_thread_name(const ht_store *s, uint32_t id, char *out, size_t n);

/* --- drag mode (store_drag.c) --- */
/* The drag row of site (trace, class), or NULL. */
const ht_drag_row_rec *ht_store_drag_row(const ht_store *s, uint32_t trace_id, uint32_t class_id);
/* Drag mode is on as of the last DRAG_STATE. */
int ht_store_drag_on(const ht_store *s);
/* A row's figures as estimates for all its site's sampled objects: a row
 * sums over the tracked objects only (8 slots a class), so its byte-seconds,
 * bytes and dead and void counts (and their diffs) are scaled by samples /
 * tracked: the tracked stand for the untracked of their site. samples,
 * tracked and the histogram (objects) are left as counted. The factor is the
 * whole run's, for the diffs too (a death in a mark may be of an object
 * sampled before it). 1 when nothing was tracked. */
double ht_drag_row_scale(const ht_drag_row_rec *r);
void ht_drag_row_estimate(const ht_drag_row_rec *r, ht_drag_row_rec *out);
/* A class's drag figures over its sites: raw sums the rows as counted (the
 * histogram, tracked, void among the tracked), est sums the sites'
 * estimates (ht_drag_row_estimate: each site scaled by its own samples /
 * tracked, never the class's sums by theirs). trace_id is HT_TRACE_OVERFLOW. */
typedef struct ht_drag_class_sum {
    ht_drag_row_rec raw, est;
    uint32_t sites;
} ht_drag_class_sum;
/* One per class of the drag rows that keep (NULL: all) keeps, in no order,
 * into *out (malloc'd, the caller frees). Returns how many, or -1 out of
 * memory (*out NULL). */
int ht_drag_class_sums(const ht_store *s, int (*keep)(void *ctx, uint32_t class_id), void *ctx,
                       ht_drag_class_sum **out);

#endif
