/*
 * tcp_gate.h - who may use the agent's TCP endpoint (listen=), and how.
 *
 * Over the local sockets the kernel names the peer's uid; over TCP nothing
 * does, so the gate lets a connection do nothing until it has proved that it
 * holds the agent's key (auth.h): an unproven control connection gets only
 * the handshake's answers (and an error for anything else), every message of
 * a proven one is sealed with its session key, and the stream goes out
 * sealed with the stream key, so a subscriber without the key reads nothing.
 * At most HT_TCP_MAX_PIPES TCP connections at once (control and stream
 * together): more are closed as they come, so a flood of connections cannot
 * take the JVM's descriptors; a wrong proof closes its connection.
 *
 * Owns: the key, the per-connection handshake state, the connection count,
 * and the rate of the lines it writes into the JVM's log. Threads: admit and
 * gone run on nng's pipe-event threads, request on the collector thread; one
 * mutex guards the table, held only for a lookup (never across I/O, nng or
 * crypto of a whole message). Never blocks, never logs more than a few lines
 * a second whatever the peers do.
 */
#ifndef HEAPTOP_TCP_GATE_H
#define HEAPTOP_TCP_GATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"

#define HT_TCP_MAX_PIPES 16

typedef struct ht_tcp_peer {
    uint32_t pipe; /* 0: free */
    int proven;
    uint8_t cn[HT_NONCE_BYTES], sn[HT_NONCE_BYTES]; /* sn all zero: no challenge yet */
    ht_key session;
} ht_tcp_peer;

typedef struct ht_tcp_gate {
    pthread_mutex_t lock;
    ht_tcp_peer peers[HT_TCP_MAX_PIPES]; /* every TCP pipe let in */
    ht_key key, stream;
    uint8_t salt[HT_NONCE_BYTES];
    atomic_ulong refused;    /* connections closed: too many */
    atomic_ulong wrong_keys; /* proofs that failed */
    atomic_ulong admitted;
    int ready;
} ht_tcp_gate;

/* With the key; a fresh salt (and so a fresh stream key). */
void ht_tcp_gate_init(ht_tcp_gate *g, const ht_key *key);
void ht_tcp_gate_destroy(ht_tcp_gate *g);
/* A TCP pipe connects (ADD_PRE): 0 let in, -1 to be closed (full). */
int ht_tcp_gate_admit(ht_tcp_gate *g, uint32_t pipe);
/* A TCP pipe went (REM_POST; also for pipes never let in). */
void ht_tcp_gate_gone(ht_tcp_gate *g, uint32_t pipe);

typedef enum {
    HT_GATE_PASS,  /* a proven peer's request, opened into plain: handle it, seal the reply */
    HT_GATE_REPLY, /* answered here: send reply as it is */
    HT_GATE_CLOSE, /* send reply as it is (if any), then close the pipe */
} ht_gate_verdict;
/* A request that came on TCP pipe `pipe` (collector thread). *session is
 * set for HT_GATE_PASS (to seal the reply with). */
ht_gate_verdict ht_tcp_gate_request(ht_tcp_gate *g, uint32_t pipe, const void *data, size_t len,
                                    ht_buf *plain, ht_buf *reply, ht_key *session);
/* A stream message for TCP subscribers: sealed with the stream key. */
int ht_tcp_gate_seal_stream(const ht_tcp_gate *g, const void *data, size_t len, ht_buf *out);

#endif
