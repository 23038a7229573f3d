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
 * requests between steps. Application threads
 * never wait for it: if it falls behind, the rings fill and samples are
 * dropped and counted. Nothing else touches its state, so it takes no locks
 * except to swap the sampler's "new class/thread" lists.
 */
#ifndef HEAPTOP_COLLECTOR_H
#define HEAPTOP_COLLECTOR_H

#include <jvmti.h>
#include <nng/nng.h>
#include <stdint.h>

#include "agent_state.h"
#include "aggregates.h"
#include "emit.h"
#include "mark.h"
#include "symbols.h"
#include "telemetry.h"
#include "transport.h"
#include "watchdog.h"

#define HT_REPLY_CACHE 32

typedef struct ht_reply_cache_entry {
    uint64_t req_id;
    uint16_t type;
    uint64_t value;
    int code;
} ht_reply_cache_entry;

typedef struct ht_collector {
    jvmtiEnv *jvmti;
    JNIEnv *jni;
    ht_transport tr;
    ht_symbols syms;
    ht_aggs aggs;
    ht_telemetry tel;
    uint64_t stream_seq;
    ht_sink stream;
    ht_batch samples; /* SAMPLES records since the last publication */
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
    uint64_t last_publish_ns, last_telemetry_ns;
    ht_watchdog *watchdog;
    uint64_t last_gc_ms, last_tel_t_ms;
    int paused;
    char main_class[512];
    char jdk_version[128];
    ht_reply_cache_entry cache[HT_REPLY_CACHE];
    uint32_t cache_next;
} ht_collector;

/* Open the sockets (at load time, so a bad path refuses to load). */
int ht_collector_open(char *err, size_t errn);
/* Start the collector thread once the VM is live. */
int ht_collector_start(jvmtiEnv *jvmti, JNIEnv *jni);
/* At VM death: flush, say goodbye on the stream, close; waits at most ~2 s. */
void ht_collector_stop(void);

/* Used by control.c (collector thread). */
void ht_collector_step(ht_collector *c);
void ht_collector_publish(ht_collector *c);
/* Aggregate rows as published (with their mark columns): all, or the changed. */
void ht_collector_emit_rows(ht_collector *c, ht_sink *sink, int dirty_only);
/* The mark's state as an HT_MSG_MARK message. */
void ht_collector_emit_mark(ht_collector *c, ht_sink *sink);
void ht_control_handle(ht_collector *c, nng_msg *req);

#endif
