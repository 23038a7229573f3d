/*
 * collector.h - the agent's one thread: drain, aggregate, publish, answer.
 *
 * Owns: every piece of agent state that is not on the hot path: dictionaries,
 * aggregates, live set, telemetry, sockets, the stream sequence number. It runs
 * as a JVMTI agent thread (a daemon Java thread excluded from sampling) and
 * loops: drain the sampler's rings, resolve names, fold samples into the
 * aggregates, sweep the tracked objects after GC pauses (the dead leave, the
 * young that a collection has proven alive become live), publish changes on
 * the stream every 100 ms and telemetry every second, and answer control
 * requests between steps (a DETACH request ends the loop: ht_collector_detach).
 * While the JVM writes a heap dump (heapdump.h, on a thread of its own) the
 * collector makes no JNI or JVMTI call, since each would wait for the dump's
 * safepoint: it answers requests and streams the dump's progress once a second
 * in place of telemetry, and drains, sweeps and reads the VM again once the
 * dump has ended. Application threads never wait for it: if it falls behind,
 * the rings fill and samples are dropped and counted. Nothing else touches its
 * state, so it takes no locks except to swap the sampler's "new class/thread"
 * lists. collector.c runs the loop; collector_requests.c holds what control.c
 * asks of it.
 */
#ifndef HEAPTOP_COLLECTOR_H
#define HEAPTOP_COLLECTOR_H

#include <jvmti.h>
#include <nng/nng.h>
#include <stdint.h>

#include "agent_state.h"
#include "aggregates.h"
#include "budget.h"
#include "control.h"
#include "emit.h"
#include "heapdump.h"
#include "mark.h"
#include "symbols.h"
#include "telemetry.h"
#include "transport.h"
#include "watchdog.h"

struct ht_collector {
    jvmtiEnv *jvmti;
    JNIEnv *jni;
    ht_transport tr;
    ht_symbols syms;
    ht_aggs aggs;
    ht_telemetry tel;
    uint64_t stream_seq;
    ht_sink stream;
    ht_event *drained;
    size_t ndrained, cap_drained;
    ht_gc_proof proof;          /* which epochs a sweep may count as proven */
    uint64_t young_swept_ns;    /* when the young list was last swept */
    uint64_t live_swept_ns;     /* when the live list was last swept */
    uint64_t live_swept_pauses; /* pauses finished as of that sweep */
    uint64_t sweep_cost_ns;     /* how long it took */
    uint64_t unswept_since_ns;  /* when a pause the live list has not seen was first seen */
    uint64_t untracked;         /* samples not tracked: the live set was full */
    uint64_t events_seen;       /* samples taken = events drained + dropped */
    uint64_t drops_folded;      /* the global drop count when drops were last put in rows */
    ht_mark mark;
    ht_budget budget;                       /* the interval the CPU budget asks for */
    uint64_t tick_samples;                  /* samples taken, as of the last budget tick */
    uint64_t tick_rate;                     /* samples a second over the last tick */
    uint64_t tick_timed_ns, tick_timed_n;   /* timed callbacks, the same */
    uint64_t tick_process_ns, tick_self_ns; /* process and collector CPU, the same */
    uint64_t step_ns, tick_step_ns;         /* time in steps that folded samples, the same */
    uint64_t busy_steps, tick_busy_steps;   /* how many such steps, the same */
    double empty_step_ns;                   /* what a step with no sample costs (smoothed) */
    uint64_t tick_wall_ns;                  /* when the last budget tick was */
    double sample_ns;     /* the latest measured price of a sample in our callback */
    double clock_ns;      /* what one read of the thread CPU clock adds to a timed sample */
    double agent_cpu_pct; /* the agent\'s whole share of the process\'s CPU, last second */
    double agent_cpu_ms;  /* the same CPU, absolute: ms per second of wall time */
    uint64_t last_publish_ns, last_telemetry_ns;
    ht_watchdog *watchdog;
    uint64_t last_gc_ms, last_tel_t_ms;
    int paused;
    int detaching; /* a DETACH request was answered: the loop ends */
    char main_class[512];
    char jdk_version[128];
    ht_control control;
    ht_dumps dumps; /* heap dumps: while one runs, no JNI or JVMTI call (heapdump.h) */
};

/* Open the sockets (at load time, so a bad path refuses to load). */
int ht_collector_open(char *err, size_t errn);
/* Start the collector thread once the VM is live. The thread calls
 * open_sockets (which makes the socket files) only once it can answer: after
 * its JNI set-up, which loads the management classes and so reads the JDK's
 * modules file: 30 ms warm, 0.2-0.3 s behind a disk busy writing back, 0.6 s
 * at 40 disk reads a second from a cold page cache, and more on a fresh CI
 * machine, where a viewer that saw the socket earlier ran out of its 10 s
 * waiting for its first answer (test_first_answer).
 * The socket's existence is the agent's "ready": a viewer's patience starts there. */
int ht_collector_start(jvmtiEnv *jvmti, JNIEnv *jni, void (*open_sockets)(void));
/* At VM death: flush, say goodbye on the stream, close; waits at most ~2 s. */
void ht_collector_stop(void);
/* A restart that failed after ht_collector_open, before the thread started:
 * close the sockets and free the figures it opened. */
void ht_collector_abandon(void);

/* What control.c asks of the collector (collector thread). */
/* Who this JVM is and how the agent runs, for a HELLO reply (tcp: whether
 * it listens over TCP, "" when not asked). */
void ht_collector_identity(const ht_collector *c, ht_hello *h, const char **main_class,
                           const char **jdk, const char **options, const char **tcp);
/* The request being answered came over TCP (a peer that proved the key). */
int ht_collector_request_is_tcp(const ht_collector *c);
/* Everything a late viewer needs into sink (dictionaries, rows, the mark, the
 * telemetry history), after publishing what was pending; returns the stream
 * sequence number the snapshot is consistent with. */
uint64_t ht_collector_snapshot(ht_collector *c, ht_sink *sink);
/* The configured interval (a budget raises the one in force above it). 0, or
 * -1 when the JVM refuses it. */
int ht_collector_set_interval(ht_collector *c, uint64_t bytes);
/* The CPU budget in 1/100 % (0: off, the interval is fixed). 0, or -1 when the
 * JVM refuses the interval that follows. */
int ht_collector_set_budget(ht_collector *c, uint32_t budget_x100);
void ht_collector_set_sampling(ht_collector *c, int on);
/* Apply a mark operation now; *state is the mark's new state. 0 or -1 (OOM). */
int ht_collector_mark(ht_collector *c, ht_mark_op op, uint8_t *state);
/* Start a heap dump (flags: HT_DUMP_*). HT_OK and *id, or an HT_E* code with
 * the reason in err (heapdump.h). session: what a viewer gets on connecting
 * (len bytes, or NULL), put in the dump's marker with the sampled objects. */
int ht_collector_heap_dump(ht_collector *c, uint8_t flags, const uint8_t *session, size_t len,
                           uint64_t *id, char *err, size_t errn);
/* The loop's parts, for collector_requests.c: drain, name, fold and sweep
 * once; publish what changed; the rows (all, or the changed ones) and the
 * mark, into a sink. */
void ht_collector_step(ht_collector *c);
void ht_collector_publish(ht_collector *c);
void ht_collector_emit_rows(ht_collector *c, ht_sink *sink, int dirty_only);
void ht_collector_emit_mark(ht_collector *c, ht_sink *sink);
/* Set the interval in force (the JVM's and ht_g's), when it changes. 0 or -1. */
int ht_collector_apply_interval(ht_collector *c, uint64_t bytes);
/* End the loop after this request's reply: the events go off, the viewers get
 * a goodbye, the sockets close, the tracked objects and the figures are let go
 * (the names stay for a later attach), and the phase becomes DETACHED. */
void ht_collector_detach(ht_collector *c);
/* 1 while a heap dump runs: requests that need the JVM wait until it ends. */
int ht_collector_dumping(const ht_collector *c);
/* Send a reply on the control socket. */
void ht_collector_reply(ht_collector *c, const void *data, size_t len);

#endif
