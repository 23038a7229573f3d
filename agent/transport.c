/* transport.c - see transport.h. */
#include "transport.h"

#include "log.h"
#include "protocol.h"

#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/reqrep0/rep.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A pipe accepted by a TCP listener: its peer has no uid to check. */
static int over_tcp(const ht_transport *t, nng_pipe p)
{
    if (!atomic_load(&t->tcp_on)) return 0;
    int id = nng_listener_id(nng_pipe_listener(p));
    return id > 0 && (id == nng_listener_id(t->tcp_rep_l) || id == nng_listener_id(t->tcp_pub_l));
}

/* The peer's address, for the JVM's log. */
static void peer_addr(nng_pipe p, char *out, size_t n)
{
    nng_sockaddr sa;
    snprintf(out, n, "an unknown address");
    if (nng_pipe_get_addr(p, NNG_OPT_REMADDR, &sa) != 0) return;
    if (sa.s_family == NNG_AF_INET) {
        const uint8_t *b = (const uint8_t *)&sa.s_in.sa_addr;
        snprintf(out, n, "%u.%u.%u.%u:%u", b[0], b[1], b[2], b[3],
                 (unsigned)ntohs(sa.s_in.sa_port));
    } else if (sa.s_family == NNG_AF_INET6) {
        char a[INET6_ADDRSTRLEN];
        if (inet_ntop(AF_INET6, sa.s_in6.sa_addr, a, sizeof a))
            snprintf(out, n, "[%s]:%u", a, (unsigned)ntohs(sa.s_in6.sa_port));
    }
}

/* Lines about TCP peers: the first few, then one in a thousand, so a flood of
 * connections cannot fill the JVM's log. */
#define TCP_LOG_FIRST 20

static int tcp_log_turn(ht_transport *t)
{
    unsigned long n = atomic_fetch_add(&t->tcp_logged, 1) + 1;
    return n <= TCP_LOG_FIRST || n % 1000 == 0;
}

static void on_tcp_pipe(ht_transport *t, nng_pipe p)
{
    char addr[80];
    int is_ctl = nng_socket_id(nng_pipe_socket(p)) == nng_socket_id(t->rep);
    peer_addr(p, addr, sizeof addr);
    if (ht_tcp_gate_admit(&t->gate, nng_pipe_id(p)) != 0) {
        nng_pipe_close(p);
        if (tcp_log_turn(t))
            ht_log("refused a TCP connection from %s: %d are open, the most it takes (%lu "
                   "refused so far)",
                   addr, HT_TCP_MAX_PIPES, atomic_load(&t->gate.refused));
        return;
    }
    /* who came in over TCP goes in the JVM's log: the one trace there is */
    if (tcp_log_turn(t))
        ht_log("a viewer connected over TCP from %s (%s)", addr,
               is_ctl ? "control; it must prove the key" : "stream, sealed with the key");
}

static void on_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    ht_transport *t = arg;
    if (ev == NNG_PIPE_EV_REM_POST) {
        if (t->gate.ready) ht_tcp_gate_gone(&t->gate, nng_pipe_id(p));
        return;
    }
    if (ev != NNG_PIPE_EV_ADD_PRE) return;
    if (over_tcp(t, p)) {
        on_tcp_pipe(t, p);
        return;
    }
    uint64_t uid = UINT64_MAX;
    if (nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_UID, &uid) != 0 || uid != (uint64_t)geteuid()) {
        atomic_fetch_add(&t->refused, 1);
        ht_log("refused a viewer running as uid %lld (this JVM runs as uid %u)",
               uid == UINT64_MAX ? -1ll : (long long)uid, (unsigned)geteuid());
        nng_pipe_close(p);
    }
}

/* Position of pipe id in the viewer set, or -1. Caller holds viewer_lock. */
static long viewer_index(const ht_transport *t, uint32_t id)
{
    for (size_t i = 0; i < t->nviewer_ids; i++)
        if (t->viewer_ids[i] == id) return (long)i;
    return -1;
}

/* Counts real viewers on the stream: a pipe is counted when it is added
 * (ADD_POST) and uncounted on removal only if it was counted. The watchdog's
 * probe (our own pid) is not a viewer. */
static void on_pub_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    ht_transport *t = arg;
    on_pipe(p, ev, arg);
    uint32_t id = nng_pipe_id(p);
    if (ev == NNG_PIPE_EV_ADD_POST) {
        uint64_t pid = 0;
        if (nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_PID, &pid) == 0 && pid == (uint64_t)getpid())
            return;
        pthread_mutex_lock(&t->viewer_lock);
        int added = 0;
        if (viewer_index(t, id) >= 0) {
            added = 1; /* already counted (an event delivered twice) */
        } else {
            if (t->nviewer_ids == t->cap_viewer_ids) {
                size_t cap = t->cap_viewer_ids ? t->cap_viewer_ids * 2 : 16;
                uint32_t *ids = realloc(t->viewer_ids, cap * sizeof *ids);
                if (ids) {
                    t->viewer_ids = ids;
                    t->cap_viewer_ids = cap;
                }
            }
            if (t->nviewer_ids < t->cap_viewer_ids) {
                t->viewer_ids[t->nviewer_ids++] = id;
                atomic_store(&t->viewers, (int)t->nviewer_ids);
                added = 1;
            }
        }
        pthread_mutex_unlock(&t->viewer_lock);
        /* Out of memory: a viewer we cannot count would get no samples; let it
         * reconnect rather than serve it silently less. */
        if (!added) nng_pipe_close(p);
    } else if (ev == NNG_PIPE_EV_REM_POST) {
        pthread_mutex_lock(&t->viewer_lock);
        long i = viewer_index(t, id);
        if (i >= 0) {
            t->viewer_ids[i] = t->viewer_ids[--t->nviewer_ids];
            atomic_store(&t->viewers, (int)t->nviewer_ids);
        }
        pthread_mutex_unlock(&t->viewer_lock);
    }
}

/* Socket files: created by listen_private, removed by remove_file, both under
 * g_files_lock; the exit hook sets g_files_gone so no file is made after it. */
static pthread_mutex_t g_files_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_files_gone;
/* The open transport (one agent per JVM); atomic for the exit hook's unlocked path. */
static _Atomic(ht_transport *) g_files_owner;

typedef struct sock_file {
    const char *suffix;
    char *path;
    size_t pathn;
    dev_t *dev;
    ino_t *ino;
} sock_file;

static sock_file file_of(ht_transport *t, int which)
{
    if (which == HT_LISTENER_CTL)
        return (sock_file){".ctl", t->ctl_file, sizeof t->ctl_file, &t->ctl_dev, &t->ctl_ino};
    return (sock_file){".events", t->events_file, sizeof t->events_file, &t->events_dev,
                       &t->events_ino};
}

/* Unlink f if it is still the socket we created there. Caller holds g_files_lock
 * (or gave up waiting for it at exit). */
static void remove_file(sock_file f)
{
    struct stat st;
    if (*f.ino && lstat(f.path, &st) == 0 && st.st_dev == *f.dev && st.st_ino == *f.ino)
        unlink(f.path);
    *f.dev = 0;
    *f.ino = 0;
}

static int listen_private(ht_transport *t, int which, nng_listener *lp, char *err, size_t errn)
{
    sock_file f = file_of(t, which);
    nng_socket s = which == HT_LISTENER_CTL ? t->rep : t->pub;
    char url[HT_IPC_PATH_MAX + 16];
    if (ht_ipc_url(url, sizeof url, t->base, f.suffix) != 0 ||
        ht_ipc_file(f.path, f.pathn, t->base, f.suffix) != 0) {
        snprintf(err, errn, "socket path '%s%s' is too long", t->base, f.suffix);
        return -1;
    }
    if (atomic_load(&g_files_gone)) {
        snprintf(err, errn, "not listening on %s: the process is exiting", url);
        return -1;
    }
    nng_listener l;
    int rv = nng_listener_create(&l, s, url);
    if (rv == 0) rv = nng_listener_set_int(l, NNG_OPT_IPC_PERMISSIONS, 0600);
    if (rv == 0) rv = nng_listener_start(l, 0);
    if (rv != 0) {
        snprintf(err, errn, "cannot listen on %s: %s", url, nng_strerror(rv));
        return -1;
    }
    chmod(f.path, 0600); /* belt and braces; the directory is 0700 anyway */
    struct stat st;
    if (lstat(f.path, &st) == 0) {
        *f.dev = st.st_dev;
        *f.ino = st.st_ino;
    }
    *lp = l;
    return 0;
}

static void remove_files_at_exit(void)
{
    ht_transport_remove_files();
}

void ht_transport_remove_files(void)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 500 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    /* A restart in progress holds the lock for a moment; if it is stuck in nng,
     * unlink anyway (what matters at exit is that no file is left). */
    int locked = pthread_mutex_timedlock(&g_files_lock, &until) == 0;
    atomic_store(&g_files_gone, 1);
    ht_transport *t = atomic_load(&g_files_owner);
    if (t) {
        remove_file(file_of(t, HT_LISTENER_CTL));
        remove_file(file_of(t, HT_LISTENER_EVENTS));
        if (t->key_file[0]) unlink(t->key_file);
    }
    if (locked) pthread_mutex_unlock(&g_files_lock);
}

/* 0 if nothing listens at f's path (absent, or a stale file nng's bind will
 * replace), else -1 with the error nng's listen would give. */
static int check_free(ht_transport *t, int which, char *err, size_t errn)
{
    sock_file f = file_of(t, which);
    char url[HT_IPC_PATH_MAX + 16];
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (ht_ipc_url(url, sizeof url, t->base, f.suffix) != 0 ||
        ht_ipc_file(f.path, f.pathn, t->base, f.suffix) != 0 ||
        strlen(f.path) >= sizeof sa.sun_path) {
        snprintf(err, errn, "socket path '%s%s' is too long", t->base, f.suffix);
        return -1;
    }
    memcpy(sa.sun_path, f.path, strlen(f.path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return 0; /* cannot tell; listen will say */
    int in_use = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN;
    close(fd);
    if (in_use) {
        snprintf(err, errn, "cannot listen on %s: %s", url, nng_strerror(NNG_EADDRINUSE));
        return -1;
    }
    return 0;
}

int ht_transport_open(ht_transport *t, const char *base, int viewer_queue, char *err, size_t errn)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->viewer_lock, NULL);
    if (ht_ipc_secure_dir(base, err, errn) != 0) return -1;
    snprintf(t->base, sizeof t->base, "%s", base);
    if (check_free(t, HT_LISTENER_EVENTS, err, errn) != 0 ||
        check_free(t, HT_LISTENER_CTL, err, errn) != 0)
        return -1;
    int rv = nng_pub0_open(&t->pub);
    if (rv != 0) {
        snprintf(err, errn, "cannot open sockets: %s", nng_strerror(rv));
        return -1;
    }
    rv = nng_rep0_open(&t->rep);
    if (rv != 0) {
        nng_close(t->pub);
        snprintf(err, errn, "cannot open sockets: %s", nng_strerror(rv));
        return -1;
    }
    t->open = 1;
    nng_pipe_notify(t->pub, NNG_PIPE_EV_ADD_PRE, on_pub_pipe, t);
    nng_pipe_notify(t->pub, NNG_PIPE_EV_ADD_POST, on_pub_pipe, t);
    nng_pipe_notify(t->pub, NNG_PIPE_EV_REM_POST, on_pub_pipe, t);
    nng_pipe_notify(t->rep, NNG_PIPE_EV_ADD_PRE, on_pipe, t);
    nng_pipe_notify(t->rep, NNG_PIPE_EV_REM_POST, on_pipe, t);
    /* Each subscriber may lag this many messages before nng drops its oldest
     * (it then sees the gap and resyncs): what a stuck viewer costs the agent. */
    nng_socket_set_int(t->pub, NNG_OPT_SENDBUF, viewer_queue);
    nng_socket_set_size(t->rep, NNG_OPT_RECVMAXSZ, HT_MAX_REQUEST);
    nng_socket_set_ms(t->rep, NNG_OPT_SENDTIMEO, 2000);
    rv = nng_socket_get_int(t->rep, NNG_OPT_RECVFD, &t->ctl_fd);
    if (rv != 0) {
        snprintf(err, errn, "no receive descriptor: %s", nng_strerror(rv));
        ht_transport_close(t);
        return -1;
    }
    static int hook_registered;
    if (!hook_registered && atexit(remove_files_at_exit) == 0) hook_registered = 1;
    pthread_mutex_lock(&g_files_lock);
    atomic_store(&g_files_owner, t);
    pthread_mutex_unlock(&g_files_lock);
    return 0;
}

int ht_transport_listen(char *err, size_t errn)
{
    pthread_mutex_lock(&g_files_lock);
    ht_transport *t = atomic_load(&g_files_owner);
    int rv = -1;
    if (!t || !t->open)
        snprintf(err, errn, "the sockets are not open");
    else if (listen_private(t, HT_LISTENER_EVENTS, &t->pub_l, err, errn) != 0)
        ;
    else if (listen_private(t, HT_LISTENER_CTL, &t->rep_l, err, errn) != 0)
        nng_listener_close(t->pub_l); /* all or nothing: nng removes its file */
    else
        rv = 0;
    if (rv != 0 && t) {
        remove_file(file_of(t, HT_LISTENER_EVENTS));
        remove_file(file_of(t, HT_LISTENER_CTL));
    }
    pthread_mutex_unlock(&g_files_lock);
    return rv;
}

int ht_transport_listen_tcp(const char *host, unsigned port, const ht_key *key,
                            const char *key_file, int made_key, char *err, size_t errn)
{
    pthread_mutex_lock(&g_files_lock);
    ht_transport *t = atomic_load(&g_files_owner);
    char ctl[96], events[96];
    int rv = -1, pub_open = 0;
    if (!t || !t->open) {
        snprintf(err, errn, "the sockets are not open");
    } else if (ht_tcp_url(ctl, sizeof ctl, host, port, 0) != 0 ||
               ht_tcp_url(events, sizeof events, host, port, 1) != 0) {
        snprintf(err, errn, "TCP address %s:%u is too long", host, port);
    } else if ((rv = nng_pub0_open(&t->pub_tcp)) != 0) {
        snprintf(err, errn, "cannot open a socket: %s", nng_strerror(rv));
    } else {
        pub_open = 1;
        ht_tcp_gate_init(&t->gate, key);
        nng_pipe_notify(t->pub_tcp, NNG_PIPE_EV_ADD_PRE, on_pub_pipe, t);
        nng_pipe_notify(t->pub_tcp, NNG_PIPE_EV_ADD_POST, on_pub_pipe, t);
        nng_pipe_notify(t->pub_tcp, NNG_PIPE_EV_REM_POST, on_pub_pipe, t);
        int queue = 0;
        nng_socket_get_int(t->pub, NNG_OPT_SENDBUF, &queue);
        if (queue > 0) nng_socket_set_int(t->pub_tcp, NNG_OPT_SENDBUF, queue);
        if ((rv = nng_listener_create(&t->tcp_rep_l, t->rep, ctl)) != 0) {
            snprintf(err, errn, "cannot listen on %s: %s", ctl, nng_strerror(rv));
        } else if ((rv = nng_listener_create(&t->tcp_pub_l, t->pub_tcp, events)) != 0) {
            snprintf(err, errn, "cannot listen on %s: %s", events, nng_strerror(rv));
            nng_listener_close(t->tcp_rep_l);
        } else {
            /* flagged first: the hooks of a pipe accepted at once must know it */
            atomic_store(&t->tcp_on, 1);
            if ((rv = nng_listener_start(t->tcp_rep_l, 0)) != 0 ||
                (rv = nng_listener_start(t->tcp_pub_l, 0)) != 0) {
                snprintf(err, errn, "cannot listen on %s and %s: %s", ctl, events,
                         nng_strerror(rv));
                nng_listener_close(t->tcp_rep_l);
                nng_listener_close(t->tcp_pub_l);
                atomic_store(&t->tcp_on, 0);
                rv = -1;
            }
        }
    }
    if (rv != 0 && pub_open) {
        nng_close(t->pub_tcp);
        ht_tcp_gate_destroy(&t->gate);
    }
    if (t && made_key) snprintf(t->key_file, sizeof t->key_file, "%s", key_file);
    if (t && rv == 0)
        snprintf(t->tcp_status, sizeof t->tcp_status,
                 "listening on %s (control) and %s (stream), for viewers with the key in %s", ctl,
                 events, key_file);
    else if (t)
        snprintf(t->tcp_status, sizeof t->tcp_status, "not listening: %s", err);
    pthread_mutex_unlock(&g_files_lock);
    if (rv == 0)
        ht_log("listening on %s (control) and %s (stream) as asked, for viewers that prove "
               "they hold the key in %s (heaptop --key FILE)",
               ctl, events, key_file);
    return rv == 0 ? 0 : -1;
}

void ht_transport_tcp_failed(const char *why)
{
    pthread_mutex_lock(&g_files_lock);
    ht_transport *t = atomic_load(&g_files_owner);
    if (t) snprintf(t->tcp_status, sizeof t->tcp_status, "not listening: %s", why);
    pthread_mutex_unlock(&g_files_lock);
}

int ht_transport_request_is_tcp(const ht_transport *t)
{
    return t->cur_tcp;
}

void ht_transport_close(ht_transport *t)
{
    if (!t->open) return;
    int tcp = atomic_exchange(&t->tcp_on, 0);
    nng_close(t->pub);
    nng_close(t->rep);
    if (tcp) nng_close(t->pub_tcp);
    t->open = 0;
    if (tcp) ht_tcp_gate_destroy(&t->gate);
    /* nng_close returns once every pipe is gone, REM_POST hooks included. */
    pthread_mutex_lock(&t->viewer_lock);
    free(t->viewer_ids);
    t->viewer_ids = NULL;
    t->nviewer_ids = t->cap_viewer_ids = 0;
    atomic_store(&t->viewers, 0);
    pthread_mutex_unlock(&t->viewer_lock);
    /* nng removed the files it listened on; these catch any left (same inode only). */
    pthread_mutex_lock(&g_files_lock);
    remove_file(file_of(t, HT_LISTENER_EVENTS));
    remove_file(file_of(t, HT_LISTENER_CTL));
    if (t->key_file[0]) unlink(t->key_file);
    t->key_file[0] = '\0';
    if (atomic_load(&g_files_owner) == t) atomic_store(&g_files_owner, NULL);
    pthread_mutex_unlock(&g_files_lock);
}

/* Never waits: a full queue drops the message (see ht_transport_reply). */
static void send_copy(nng_socket s, const void *data, size_t len)
{
    nng_msg *m;
    if (nng_msg_alloc(&m, 0) != 0) return;
    if (nng_msg_append(m, data, len) != 0 || nng_sendmsg(s, m, NNG_FLAG_NONBLOCK) != 0)
        nng_msg_free(m);
}

void ht_transport_publish(ht_transport *t, const void *data, size_t len)
{
    if (!t->open) return;
    send_copy(t->pub, data, len);
    if (!atomic_load(&t->tcp_on)) return;
    ht_buf sealed; /* TCP subscribers read it only with the key (tcp_gate.h) */
    ht_buf_init(&sealed);
    if (ht_tcp_gate_seal_stream(&t->gate, data, len, &sealed) == 0)
        send_copy(t->pub_tcp, sealed.data, sealed.len);
    ht_buf_free(&sealed);
}

/* A request from a TCP pipe goes through the gate: the handshake is answered
 * here, a proven peer's request is opened for control (its reply sealed), and
 * anything else is refused. 1 and *msg for control, or 0 (dealt with). */
static int through_gate(ht_transport *t, nng_msg **msg)
{
    nng_pipe p = nng_msg_get_pipe(*msg);
    ht_buf plain, reply;
    ht_buf_init(&plain);
    ht_buf_init(&reply);
    ht_key session;
    ht_gate_verdict v = ht_tcp_gate_request(&t->gate, nng_pipe_id(p), nng_msg_body(*msg),
                                            nng_msg_len(*msg), &plain, &reply, &session);
    int pass = v == HT_GATE_PASS && !plain.failed;
    if (pass) {
        nng_msg_clear(*msg);
        if (nng_msg_append(*msg, plain.data, plain.len) != 0) pass = 0;
        t->cur_tcp = 1;
        t->cur_session = session;
    } else {
        if (reply.len && !reply.failed) send_copy(t->rep, reply.data, reply.len);
        if (v == HT_GATE_CLOSE) {
            if (tcp_log_turn(t))
                ht_log("closed a TCP connection that did not prove the key (%lu wrong keys so "
                       "far)",
                       atomic_load(&t->gate.wrong_keys));
            nng_pipe_close(p);
        }
        nng_msg_free(*msg);
        *msg = NULL;
    }
    ht_buf_free(&plain);
    ht_buf_free(&reply);
    return pass;
}

int ht_transport_next_request(ht_transport *t, nng_msg **msg)
{
    if (!t->open) return 0;
    for (;;) {
        t->cur_tcp = 0;
        if (nng_recvmsg(t->rep, msg, NNG_FLAG_NONBLOCK) != 0) return 0;
        if (!atomic_load(&t->tcp_on) || !over_tcp(t, nng_msg_get_pipe(*msg))) return 1;
        if (through_gate(t, msg)) return 1;
    }
}

/* Never waits. A viewer has one request out at a time, so its pipe is free
 * when its reply is ready (a sync reply of many MiB included: nng queues it
 * whole). A pipe still busy is a client sending requests without reading the
 * replies: a blocking send would hold the collector, and every other viewer
 * and the sampling with it, for the send timeout per request. Its reply is
 * dropped instead. A reply to a TCP peer is sealed with its session key. */
void ht_transport_reply(ht_transport *t, const void *data, size_t len)
{
    if (!t->open) return;
    if (!t->cur_tcp) {
        send_copy(t->rep, data, len);
        return;
    }
    ht_buf sealed;
    ht_buf_init(&sealed);
    if (ht_seal(&t->cur_session, data, len, &sealed) == 0)
        send_copy(t->rep, sealed.data, sealed.len);
    ht_buf_free(&sealed);
}

void ht_transport_restart_listener(ht_transport *t, int which)
{
    char err[768];
    nng_listener *l = which == HT_LISTENER_CTL ? &t->rep_l : &t->pub_l;
    const char *name = which == HT_LISTENER_CTL ? "ctl" : "events";
    if (!t->open) return;
    pthread_mutex_lock(&g_files_lock);
    if (atomic_load(&g_files_gone)) { /* the process is exiting: make no new file */
        pthread_mutex_unlock(&g_files_lock);
        return;
    }
    /* deaf because nng wedged (nng 1.5.2's bug, watchdog.h), or because someone deleted or
     * replaced the socket file: the fix is the same, the log says which */
    sock_file f = file_of(t, which);
    struct stat st;
    int deleted = lstat(f.path, &st) != 0 || st.st_dev != *f.dev || st.st_ino != *f.ino;
    nng_listener_close(*l);
    remove_file(f);
    /* The directory may be gone (a /tmp cleaner) and made again by another
     * user, who could then replace our sockets: check it again as at open
     * (re-created 0700 when missing), and listen nowhere else. */
    char why[300];
    int rv = -1;
    if (ht_ipc_secure_dir(t->base, why, sizeof why) != 0)
        snprintf(err, sizeof err, "not listening again on %s%s: %s", t->base, f.suffix, why);
    else
        rv = listen_private(t, which, l, err, sizeof err);
    pthread_mutex_unlock(&g_files_lock);
    if (rv == 0) {
        atomic_fetch_add(&t->restarts, 1);
        if (deleted)
            ht_log("the %s socket file %s was deleted or replaced; listening on a new one", name,
                   f.path);
        else
            ht_log("restarted the %s listener: it had stopped delivering messages (nng 1.5.2 "
                   "issue #1518)",
                   name);
    } else {
        ht_log("%s", err);
    }
}
