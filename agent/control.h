/*
 * control.h - the agent's answers to control requests (the REP socket).
 *
 * Owns: decoding requests, the replies, and the memory of recent
 * state-changing requests: nng's REQ resends a request after a reconnect, and
 * the resend must get the first answer, not run the command a second time.
 * What a request asks of the agent goes through the collector's functions
 * (collector_int.h): control never reaches into the collector's state. Anything
 * malformed gets an ERROR reply naming the problem, never a crash. A heap
 * dump request is answered at once (its id, or why not: busy, no disk space);
 * the dump's outcome goes out on the stream. While a dump runs, requests that
 * need the JVM (interval, budget, pause, resume) are refused as busy rather
 * than left to wait for its safepoint. DETACH is answered first; the
 * collector then lets go (ht_collector_detach). Collector thread only.
 */
#ifndef HEAPTOP_CONTROL_H
#define HEAPTOP_CONTROL_H

#include <nng/nng.h>
#include <stdint.h>

#define HT_REPLY_CACHE 32

typedef struct ht_reply_cache_entry {
    uint64_t req_id;
    uint16_t type;
    uint64_t value;
    int code;
} ht_reply_cache_entry;

/* Heap dumps a TCP peer may ask for (control.c, tcp_dump_allowed). */
#define HT_TCP_DUMPS          4
#define HT_TCP_DUMP_WINDOW_MS 3600000ull

typedef struct ht_control {
    ht_reply_cache_entry cache[HT_REPLY_CACHE];
    uint32_t cache_next;
    uint64_t tcp_dumps[HT_TCP_DUMPS]; /* when the last ones were asked over TCP (mono ms) */
} ht_control;

typedef struct ht_collector ht_collector;

/* Answer one request (the caller frees it). */
void ht_control_handle(ht_control *ctl, ht_collector *c, nng_msg *req);

#endif
