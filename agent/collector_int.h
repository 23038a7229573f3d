/*
 * collector_int.h - the collector's state, and what the files that run on its
 * thread call: collector.c (the loop), collector_requests.c (what control.c
 * asks of it) and control.c (the requests). Not for other parts: agent.c
 * starts and stops the collector through collector.h.
 *
 * Collector thread only, like everything in struct ht_collector (collector.h
 * says why it takes no locks).
 */
#ifndef HEAPTOP_COLLECTOR_INT_H
#define HEAPTOP_COLLECTOR_INT_H

#include <jvmti.h>
#include <nng/nng.h>
#include <stdint.h>

#include "agent_state.h"
#include "aggregates.h"
#include "budget.h"
#include "collector.h"
#include "control.h"
#include "cpu_profile.h"
#include "emit.h"
#include "heapdump.h"
#include "mark.h"
#include "symbols.h"
#include "telemetry.h"
#include "transport.h"
#include "watchdog.h"

/* The sweeps of the tracked objects after GC pauses (collector.c, sweep_live). */
typedef struct ht_collector_sweeps {
    ht_gc_proof proof;         /* which epochs a sweep may count as proven */
    uint64_t young_ns;         /* when the young list was last swept */
    uint64_t live_ns;          /* when the live list was last swept */
    uint64_t live_pauses;      /* pauses finished as of that sweep */
    uint64_t cost_ns;          /* how long it took */
    uint64_t unswept_since_ns; /* when a pause the live list has not seen was first seen */
    uint64_t now_ns;           /* when the sweep in progress began (drag.h's death time) */
    /* the start of the last pause before each list's last sweep: what that
     * sweep found alive was alive then, not at the sweep (it may have become
     * unreachable since the pause); drag's last seen alive (drag.h) */
    uint64_t young_gc_ns, live_gc_ns;
} ht_collector_sweeps;

struct ht_collector {
    /* --- the JVM: this thread's environments, and who the JVM is */
    jvmtiEnv *jvmti;
    JNIEnv *jni;
    char main_class[512];
    char jdk_version[128];

    /* --- the viewers: sockets, the stream, the requests */
    ht_transport tr;
    ht_sink stream;
    uint64_t stream_seq;
    ht_control control;
    ht_watchdog *watchdog;
    int detaching; /* a DETACH request was answered: the loop ends */

    /* --- the figures */
    ht_symbols syms;
    ht_aggs aggs;
    ht_mark mark;
    ht_telemetry tel;
    ht_dumps dumps;      /* heap dumps: while one runs, no JNI or JVMTI call (heapdump.h) */
    ht_cpu_profile *cpu; /* CPU sampling's figures (cpu_sampler.h writes them) */

    /* --- the samples: the last drain, and counts since the start */
    ht_event *drained;
    size_t ndrained;
    uint64_t events_seen;  /* samples taken = events drained + dropped */
    uint64_t untracked;    /* samples not tracked: the live set was full */
    uint64_t drops_folded; /* the global drop count when drops were last put in rows */
    int paused;            /* sampling is off (a PAUSE request) */
    ht_collector_sweeps sweep;

    /* --- the CPU budget (budget.h): its meter, and the interval it asks for */
    ht_budget_meter meter;
    ht_budget budget;

    /* --- the loop's clocks */
    uint64_t last_publish_ns, last_telemetry_ns;
    uint64_t last_gc_ms, last_tel_t_ms; /* the last telemetry's GC time and t_ms, for gc_pct */
};

/* What control.c asks of the collector (collector thread). */
/* Who this JVM is and how the agent runs, for a HELLO reply (tcp: whether
 * it listens over TCP, "" when not asked). */
void ht_collector_identity(const ht_collector *c, ht_hello *h, const char **main_class,
                           const char **jdk, const char **options, const char **tcp);
/* The request being answered came over TCP (a peer that proved the key). */
int ht_collector_request_is_tcp(const ht_collector *c);
/* The SYNC payload: everything a late viewer needs into sink (dictionaries,
 * rows, the mark, the heap dumps, the telemetry history), after publishing
 * what was pending; returns the stream sequence number it is consistent with. */
uint64_t ht_collector_sync_state(ht_collector *c, ht_sink *sink);
/* The configured interval (a budget raises the one in force above it). 0, or
 * -1 when the JVM refuses it. */
int ht_collector_set_interval(ht_collector *c, uint64_t bytes);
/* The CPU budget in 1/100 % (0: off, the interval is fixed). 0, or -1 when the
 * JVM refuses the interval that follows. */
int ht_collector_set_budget(ht_collector *c, uint32_t budget_x100);
void ht_collector_set_sampling(ht_collector *c, int on);
/* CPU sampling's mode (ht_cpu_mode) and tick (us; 0 keeps it). HT_OK, or an
 * HT_E* code with why in err. */
int ht_collector_set_cpu(ht_collector *c, int mode, uint32_t interval_us, char *err, size_t errn);
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
/* The CPU profile's changed records (all: every one) into sink, after the
 * names of the stacks they use went out on the stream. */
void ht_collector_emit_cpu(ht_collector *c, ht_sink *sink, int all);
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
