/*
 * client.h - a viewer's connection to one agent.
 *
 * Owns: the SUB socket on BASE.events and the REQ socket on BASE.ctl (or, for
 * a base "tcp://HOST:PORT", on PORT+1 and PORT: ipc_path.h), the
 * store they fill, and the stream bookkeeping: a sync reply carries the last
 * stream sequence number L, stream messages up to L are skipped, and a gap in
 * the sequence (nng's PUB drops for a slow reader) is counted and repaired by
 * a fresh sync. Requests carry a random id so the agent can answer a resend
 * without running a command twice. Heap dumps: the agent ACKs the request
 * with the dump's id at once and reports on the stream (and in every sync)
 * while it runs and when it ends; the client keeps the latest report of the
 * last few dumps (ht_client_dump), which the store does not hold.
 * Single-threaded; poll() on ht_client_stream_fd() to wait for data next to
 * other input.
 */
#ifndef HEAPTOP_CLIENT_H
#define HEAPTOP_CLIENT_H

#include <nng/nng.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "auth.h"
#include "dump_file.h"
#include "ipc_path.h"
#include "store.h"
#include "target.h"

typedef enum ht_conn_state {
    HT_CONN_NONE = 0, /* never connected */
    HT_CONN_LIVE,     /* connected and synced */
    HT_CONN_LOST,     /* the agent went away without saying goodbye */
    HT_CONN_EXITED,   /* the agent said goodbye: the JVM exited, or it detached */
} ht_conn_state;

/* A heap dump as the agent last reported it (HT_MSG_HEAP_DUMP). */
typedef struct ht_dump_info {
    uint64_t id;
    uint8_t state; /* ht_dump_state: RUNNING, DONE, FAILED */
    uint8_t flags; /* HT_DUMP_ALL, HT_DUMP_KEEP */
    uint64_t t_ms, elapsed_ms, bytes, heap_used;
    uint64_t marked; /* sampled objects the agent marked in it */
    char path[1024];
    char error[2048];
} ht_dump_info;
#define HT_CLIENT_DUMPS 8

typedef struct ht_client {
    char base[HT_IPC_PATH_MAX];
    nng_socket sub, req;
    int open;
    int stream_fd;
    ht_store store;
    ht_conn_state state;
    char bye[64];      /* HT_CONN_EXITED: the goodbye's reason, "JVM exited" or "agent detached" */
    uint64_t last_seq; /* last stream message applied (or covered by a sync) */
    uint64_t received; /* stream messages read (applied or covered by a sync) */
    uint64_t missed;   /* stream messages lost to gaps */
    uint64_t resyncs;
    atomic_int sub_pipes; /* connected stream pipes (0 = agent gone) */
    atomic_int sub_ever;  /* the stream was connected at least once */
    int timeout_ms;
    ht_dump_info dumps[HT_CLIENT_DUMPS]; /* the latest report of each, any order */
    uint32_t ndumps;
    /* Whom it trusts (trust.h): over IPC the socket directory, checked and
     * held open (the dials go through it), the viewer's uid and, for a PID
     * target, that pid. A pipe whose peer is anyone else is closed before a
     * byte is exchanged, and why is kept for the caller. */
    int dirfd, dir_open; /* dir_open 0: none (over TCP, or not opened) */
    uid_t expect_uid;
    pid_t expect_pid, expect_nspid; /* 0: any (--ipc, TCP) */
    uint32_t agent_pid;             /* the pid its hello gave: its dumps' names carry it */
    atomic_int refused;             /* 0, 1 writing why, 2 why is set */
    char refused_why[400];
    /* Over TCP, after the key's handshake (handshake.h): requests and replies
     * sealed with the session key, the stream opened with the stream key. */
    int sealed;
    ht_key session, stream;
} ht_client;

enum { HT_CLIENT_STREAM = 1 }; /* follow the stream too (viewers); commands need only control */
/* Connect (the control socket, and the stream too with HT_CLIENT_STREAM), say
 * hello, check the protocol version and sync. Over IPC only to an agent of
 * the viewer's own user in a private directory, and for a PID target only to
 * that process, whose hello must name it (trust.h). 0, or -1 with a message
 * for the user in err. Resolve the target first (target.h), or a missing
 * agent shows only as a timeout. */
int ht_client_open(ht_client *c, const ht_target *t, int timeout_ms, int flags, char *err,
                   size_t errn);
/* Check and open the file of heap dump d (dump_file.h): read f->path, then
 * ht_dump_file_remove unless it is kept. 0, or -1 with one line in err. */
int ht_client_dump_file(const ht_client *c, const ht_dump_info *d, ht_dump_file *f, char *err,
                        size_t errn);
void ht_client_close(ht_client *c);
/* Read whatever the stream has, waiting at most timeout_ms for the first
 * message. Returns messages applied, or -1 once the connection is over. */
int ht_client_poll(ht_client *c, int timeout_ms);
/* Full sync now (replaces the store's JVM data). 0 or -1 with err. */
int ht_client_sync(ht_client *c, char *err, size_t errn);
/* A command: HT_MSG_SET_INTERVAL_REQ (arg: bytes), PAUSE, RESUME, MARK_REQ
 * (arg: ht_mark_op), BUDGET_REQ (arg: 1/100 % of CPU, 0 = off),
 * HEAP_DUMP_REQ (arg: HT_DUMP_* flags; *value: the dump's id, whose reports
 * then arrive on the stream: ht_client_dump). 0 and *value on ACK. */
int ht_client_command(ht_client *c, uint16_t type, uint64_t arg, uint64_t *value, char *err,
                      size_t errn);
int ht_client_stream_fd(const ht_client *c);
/* Why the agent ended the connection, in the words every viewer shows: the
 * reason its goodbye gave ("JVM exited", "agent detached"); NULL while it
 * has not said goodbye (live, or lost without one: HT_CONN_LOST). */
const char *ht_client_goodbye(const ht_client *c);
/* The agent's latest report on heap dump `id`, or NULL when none arrived. */
const ht_dump_info *ht_client_dump(const ht_client *c, uint64_t id);
/* The dump being written, or NULL. */
const ht_dump_info *ht_client_dump_running(const ht_client *c);
/* Ask for a heap dump (flags: HT_DUMP_ALL, HT_DUMP_KEEP) and follow the stream
 * until it ends: 0 and *out when it was written; -1 with err when the agent
 * refused it (one already running, not enough disk space), it failed, the JVM
 * went away, the agent said nothing about it for the client's timeout, or
 * *stop became non-zero. progress (may be NULL) sees each report while it
 * runs, about once a second. Needs a client opened with HT_CLIENT_STREAM. */
int ht_client_heap_dump(ht_client *c, unsigned flags, ht_dump_info *out,
                        void (*progress)(void *ctx, const ht_dump_info *d), void *ctx,
                        volatile sig_atomic_t *stop, char *err, size_t errn);

/*
 * A command from another thread than the one that polls the client (the
 * viewer's jobs): on its own nng context of the client's REQ socket. nng
 * contexts are its thread-safe way to have several requests outstanding on
 * one REQ socket, so the loop's resyncs (the socket's own context) and a
 * job's request do not cancel each other and need no lock; and no second
 * connection is made (each is a handshake the agent's listener must accept,
 * and a job cancelled during one is the kind of hang-up nng 1.5.2's listener
 * mishandles, nng issue #1518). The call keeps only the socket's id and a copy
 * of the path: when the loop closes the client (a reconnect), a call in
 * flight ends with an error instead of touching freed memory.
 */
typedef struct ht_call {
    nng_ctx ctx;
    nng_aio *aio;
    char base[HT_IPC_PATH_MAX];
    int timeout_ms;
    int sealed; /* the client's: over TCP */
    ht_key session;
    atomic_int cancelled;
    int open;
} ht_call;
/* On the client's thread, from a connected client. 0, or -1 with err. */
int ht_call_open(ht_call *k, const ht_client *c, char *err, size_t errn);
/* As ht_client_command, on any one thread; a cancel ends it at once ("cancelled"). */
int ht_call_command(ht_call *k, uint16_t type, uint64_t arg, uint64_t *value, char *err,
                    size_t errn);
/* Any thread: stop waiting (the agent may still carry the command out). */
void ht_call_cancel(ht_call *k);
/* After the command returned, or when it never ran. */
void ht_call_close(ht_call *k);

#endif
