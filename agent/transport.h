/*
 * transport.h - the agent's two nng sockets.
 *
 * Owns: a PUB socket at BASE.events (the stream; nng's PUB never blocks, a slow
 * subscriber loses its oldest messages) and a REP socket at BASE.ctl (control),
 * both listening on ipc:// in a private directory with mode 0600 set before the
 * listener starts, and a pipe hook that refuses any peer whose uid is not ours.
 * Only when asked (listen=), both also listen on TCP (ipc_path.h), where no uid
 * can be checked: those pipes are let in and named in the JVM's log. Replies
 * never wait (ht_transport_reply).
 * The two socket files: removed when the transport closes, and by an exit
 * hook (registered at the first open) when the process exits without closing
 * it, whatever the way out that still runs code (a JVM that fails to start
 * after the agent loaded, a VM death whose goodbye timed out). The hook only
 * unlinks files, never calls nng, and removes a file only if it is still the
 * socket this transport created (same device and inode).
 * Threads: opened at load (or at a restart after a detach) and made to listen
 * at VMInit (or by the restarting Agent_OnAttach) by the thread running those,
 * before the collector starts; then used by the collector thread only, which
 * also closes them at VM death or a detach;
 * ht_transport_remove_files on any thread (exit). The pipe hooks run on nng's threads: they
 * touch atomics and the viewer-id set, whose mutex is held only for a search of
 * that small array (never across I/O or an nng call).
 */
#ifndef HEAPTOP_TRANSPORT_H
#define HEAPTOP_TRANSPORT_H

#include <nng/nng.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc_path.h"
#include "tcp_gate.h"

typedef struct ht_transport {
    nng_socket pub, rep;
    nng_listener pub_l, rep_l;
    char base[HT_IPC_PATH_MAX];
    atomic_ulong restarts; /* listeners found deaf and restarted */
    int open;
    int ctl_fd;         /* poll() this for readable requests */
    atomic_int viewers; /* subscribers connected to the stream: size of viewer_ids */
    /* Ids of the stream pipes counted in viewers. nng 1.5.2 reports the removal
     * of a pipe that was never added (one refused in ADD_PRE, or whose protocol
     * start failed), so only a pipe found here is uncounted. */
    pthread_mutex_t viewer_lock;
    uint32_t *viewer_ids;
    size_t nviewer_ids, cap_viewer_ids;
    atomic_ulong refused;
    /* TCP, only when asked (listen=): no uid check is possible on these pipes,
     * so the gate (tcp_gate.h) admits them, proves their key and seals what
     * they get; the stream for them goes out sealed on a PUB socket of its own */
    nng_listener tcp_rep_l, tcp_pub_l;
    nng_socket pub_tcp;
    atomic_int tcp_on;
    ht_tcp_gate gate;
    atomic_ulong tcp_logged; /* lines written about TCP peers (rate-limited) */
    int cur_tcp;             /* the request being handled came over TCP ... */
    ht_key cur_session;      /* ... and its reply is sealed with this */
    char tcp_status[512];    /* for the hello: where it listens, or why not; "" not asked */
    char key_file[HT_IPC_PATH_MAX +
                  8]; /* BASE.key when this agent made it: removed with the sockets */
    char events_file[HT_IPC_PATH_MAX + 8];
    char ctl_file[HT_IPC_PATH_MAX + 8];
    /* The files this transport created (0: none); guarded by a lock of
     * transport.c shared with the exit hook. */
    dev_t events_dev, ctl_dev;
    ino_t events_ino, ctl_ino;
} ht_transport;

/* At load: check the directory and that nothing listens at the paths, open the
 * sockets. No file is created yet: a JVM that fails to start after loading the
 * agent leaves through _exit (vm_abort), where no hook of ours runs. */
/* viewer_queue: stream messages a slow viewer may lag behind (NNG_OPT_SENDBUF). */
int ht_transport_open(ht_transport *t, const char *base, int viewer_queue, char *err, size_t errn);
/* At VMInit (live phase): create both socket files and listen, or neither. */
int ht_transport_listen(char *err, size_t errn);
/* After ht_transport_listen, when listen= asked for it: the control socket on
 * tcp://host:port too, the stream on port+1 (ipc_path.h), or neither, serving
 * only peers that prove they hold key (tcp_gate.h); key_file names where the
 * key is, for the log, and is removed with the sockets when made_key (the
 * agent made it: BASE.key). 0, or -1 with what failed in err (the local sockets go
 * on either way, and the hello says TCP is not listening, and why). */
int ht_transport_listen_tcp(const char *host, unsigned port, const ht_key *key,
                            const char *key_file, int made_key, char *err, size_t errn);
/* listen= was asked but cannot be served (no key): the hello says why. */
void ht_transport_tcp_failed(const char *why);
/* The request last returned by ht_transport_next_request came over TCP. */
int ht_transport_request_is_tcp(const ht_transport *t);
void ht_transport_close(ht_transport *t);
void ht_transport_publish(ht_transport *t, const void *data, size_t len);
/* Next request without waiting: 1 and *msg (caller frees), or 0. */
int ht_transport_next_request(ht_transport *t, nng_msg **msg);
void ht_transport_reply(ht_transport *t, const void *data, size_t len);
enum { HT_LISTENER_CTL = 0, HT_LISTENER_EVENTS = 1 };
/* Close and re-create one listener on the same path (see watchdog.h). */
void ht_transport_restart_listener(ht_transport *t, int which);
/* Unlink the socket files of the open transport, if any, and create no more:
 * for the way out (exit hook, Agent_OnUnload). Idempotent, safe on any thread
 * and after the transport closed; waits at most ~0.5 s for a listener restart. */
void ht_transport_remove_files(void);

#endif
