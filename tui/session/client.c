/* client.c - see client.h. */
#include "client.h"

#include "clock.h"
#include "handshake.h"
#include "proc.h"
#include "request.h"
#include "target.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <nng/protocol/pubsub0/sub.h>
#include <nng/protocol/reqrep0/req.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Before a pipe carries anything (ADD_PRE): over IPC, is its peer the agent
 * we mean (trust.h)? If not, it is closed and why is kept for the caller. */
static void check_peer(nng_pipe p, ht_client *c)
{
    if (!c->dir_open) return; /* TCP: no credentials to read */
    uint64_t uid = UINT64_MAX, pid = 0;
    nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_UID, &uid);
    nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_PID, &pid);
    char why[sizeof c->refused_why];
    if (ht_trust_peer(c->base, c->expect_uid, c->expect_pid, uid, pid, why, sizeof why) == 0)
        return;
    nng_pipe_close(p);
    int none = 0;
    if (atomic_compare_exchange_strong(&c->refused, &none, 1)) {
        snprintf(c->refused_why, sizeof c->refused_why, "%s", why);
        atomic_store(&c->refused, 2);
    }
}

static void on_req_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    if (ev == NNG_PIPE_EV_ADD_PRE) check_peer(p, arg);
}

static void on_sub_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    ht_client *c = arg;
    if (ev == NNG_PIPE_EV_ADD_PRE) {
        check_peer(p, c);
        return;
    }
    if (ev == NNG_PIPE_EV_ADD_POST) {
        atomic_fetch_add(&c->sub_pipes, 1);
        atomic_store(&c->sub_ever, 1);
    }
    if (ev == NNG_PIPE_EV_REM_POST) atomic_fetch_sub(&c->sub_pipes, 1);
}

/* Nobody listens at the agent's control socket any more (checked against
 * /proc/net/unix, never by connecting: target.h). */
static int agent_gone(const ht_client *c)
{
    char ctl[HT_IPC_PATH_MAX + 8];
    return !ht_base_is_tcp(c->base) && ht_ipc_file(ctl, sizeof ctl, c->base, ".ctl") == 0 &&
           ht_target_nobody_listening(ctl);
}

/* Send *msg, or receive into *msg, within the client's timeout; give up as
 * soon as the agent's socket has no listener (the JVM exited or was killed
 * while stopped): the user hears that at once, not after the whole timeout.
 * nng's result, or NNG_ECONNREFUSED for a JVM gone. */
static int exchange(ht_client *c, int sending, nng_msg **msg)
{
    int fd = -1;
    nng_socket_get_int(c->req, sending ? NNG_OPT_SENDFD : NNG_OPT_RECVFD, &fd);
    uint64_t start = ht_mono_ms(), looked = start;
    for (;;) {
        int rv = sending ? nng_sendmsg(c->req, *msg, NNG_FLAG_NONBLOCK)
                         : nng_recvmsg(c->req, msg, NNG_FLAG_NONBLOCK);
        if (rv != NNG_EAGAIN) return rv;
        if (atomic_load(&c->refused) == 2) return NNG_EPERM;
        uint64_t now = ht_mono_ms();
        if (now - start >= (uint64_t)c->timeout_ms) return NNG_ETIMEDOUT;
        if (now - looked >= 250) {
            looked = now;
            if (agent_gone(c)) return NNG_ECONNREFUSED;
        }
        struct pollfd p = {fd, POLLIN, 0};
        poll(&p, fd >= 0 ? 1 : 0, 50);
    }
}

/* What a failed exchange says: why the peer was refused, when it was. */
static void io_error(ht_client *c, uint16_t type, int rv, int sending, char *err, size_t errn)
{
    if (rv == NNG_EPERM && atomic_load(&c->refused) == 2)
        snprintf(err, errn, "%s", c->refused_why);
    else
        ht_request_io_error(c->base, c->timeout_ms, type, rv, sending, err, errn);
}

/* Send one request and wait for its reply; the reply must carry our id. */
static int request(ht_client *c, uint16_t type, const ht_buf *extra, nng_msg **reply, ht_msg *m,
                   char *err, size_t errn)
{
    uint64_t id = ht_request_id();
    nng_msg *msg = ht_request_msg(type, id, extra);
    if (msg && c->sealed && ht_request_seal(&c->session, msg) != 0) {
        nng_msg_free(msg);
        msg = NULL;
    }
    int rv = msg ? exchange(c, 1, &msg) : NNG_ENOMEM;
    if (rv != 0) {
        if (msg) nng_msg_free(msg);
        io_error(c, type, rv, 1, err, errn);
        return -1;
    }
    rv = exchange(c, 0, reply);
    if (rv != 0) {
        io_error(c, type, rv, 0, err, errn);
        return -1;
    }
    if (c->sealed && ht_request_unseal(&c->session, c->base, *reply, err, errn) != 0) {
        nng_msg_free(*reply);
        *reply = NULL;
        return -1;
    }
    return ht_request_check_reply(c->base, type, id, reply, m, err, errn);
}

/* Keep the latest report of a heap dump (a new one takes the oldest's slot). */
static void note_dump(ht_client *c, const ht_msg *m)
{
    ht_reader r;
    ht_msg_reader(m, &r);
    ht_heap_dump_rec d;
    ht_dec_heap_dump(&r, &d);
    if (r.failed) return;
    ht_dump_info *slot = NULL;
    for (uint32_t i = 0; i < c->ndumps && !slot; i++)
        if (c->dumps[i].id == d.id) slot = &c->dumps[i];
    if (!slot && c->ndumps < HT_CLIENT_DUMPS) slot = &c->dumps[c->ndumps++];
    if (!slot) { /* full: the oldest goes, unless this one is older still */
        slot = &c->dumps[0];
        for (uint32_t i = 1; i < c->ndumps; i++)
            if (c->dumps[i].id < slot->id) slot = &c->dumps[i];
        if (d.id < slot->id) return;
    }
    slot->id = d.id;
    slot->state = d.state;
    slot->flags = d.flags;
    slot->t_ms = d.t_ms;
    slot->elapsed_ms = d.elapsed_ms;
    slot->bytes = d.bytes;
    slot->heap_used = d.heap_used;
    slot->marked = d.marked;
    snprintf(slot->path, sizeof slot->path, "%.*s", (int)d.path.len, d.path.s);
    snprintf(slot->error, sizeof slot->error, "%.*s", (int)d.error.len, d.error.s);
}

/* One stream message into what the client keeps, from the stream or from a
 * sync alike: a heap dump's report into its table, then the store. */
static int apply(ht_client *c, const ht_msg *m)
{
    if (m->type == HT_MSG_HEAP_DUMP) note_dump(c, m);
    return ht_store_apply(&c->store, m);
}

const ht_dump_info *ht_client_dump(const ht_client *c, uint64_t id)
{
    for (uint32_t i = 0; i < c->ndumps; i++)
        if (c->dumps[i].id == id) return &c->dumps[i];
    return NULL;
}

const ht_dump_info *ht_client_dump_running(const ht_client *c)
{
    for (uint32_t i = 0; i < c->ndumps; i++)
        if (c->dumps[i].state == HT_DUMP_RUNNING) return &c->dumps[i];
    return NULL;
}

int ht_client_sync(ht_client *c, char *err, size_t errn)
{
    nng_msg *reply;
    ht_msg m;
    if (request(c, HT_MSG_SYNC_REQ, NULL, &reply, &m, err, errn) != 0) return -1;
    ht_sync_iter it;
    int rc = ht_sync_begin(&m, &it);
    if (rc == HT_OK) {
        /* Keep the hello info; replace the JVM's data. */
        ht_store_clear(&c->store);
        ht_msg inner;
        int more;
        while ((more = ht_sync_next(&it, &inner)) == 1 && rc == HT_OK)
            rc = apply(c, &inner);
        if (more < 0) rc = -more;
        c->last_seq = it.last_stream_seq;
    }
    nng_msg_free(reply);
    if (rc != HT_OK) {
        snprintf(err, errn, "bad sync reply from the agent: %s", ht_strerror(rc));
        return -1;
    }
    c->state = HT_CONN_LIVE;
    return 0;
}

/* Over IPC: the socket directory opened and checked, the socket files in it
 * ours, and the URLs to dial through the descriptor (trust.h). */
static int trusted_urls(ht_client *c, int flags, char *url_ev, char *url_ctl, size_t n, char *err,
                        size_t errn)
{
    char dir[HT_IPC_PATH_MAX], name[HT_IPC_PATH_MAX];
    c->dirfd = ht_trust_open_dir(c->base, c->expect_uid, err, errn);
    if (c->dirfd < 0) return -1;
    c->dir_open = 1;
    if (ht_trust_check_socket(c->dirfd, c->base, ".ctl", c->expect_uid, err, errn) != 0 ||
        ((flags & HT_CLIENT_STREAM) &&
         ht_trust_check_socket(c->dirfd, c->base, ".events", c->expect_uid, err, errn) != 0))
        return -1;
    int w1 = 0, w2 = 0;
    if (ht_trust_split(c->base, dir, sizeof dir, name, sizeof name) == 0) {
        w1 = snprintf(url_ev, n, "ipc:///proc/self/fd/%d/%s.events", c->dirfd, name);
        w2 = snprintf(url_ctl, n, "ipc:///proc/self/fd/%d/%s.ctl", c->dirfd, name);
    }
    if (w1 <= 0 || (size_t)w1 >= n || w2 <= 0 || (size_t)w2 >= n ||
        strlen(url_ev) - 6 >= HT_IPC_PATH_MAX) {
        snprintf(err, errn, "socket path '%s' is too long", c->base);
        return -1;
    }
    return 0;
}

/* The hello must come from the process asked for (a PID target): its own pid,
 * or, in a container, the pid it has there. */
static int check_hello(ht_client *c, const ht_msg *m, char *err, size_t errn)
{
    ht_reader r;
    ht_msg_reader(m, &r);
    ht_hello h;
    ht_dec_hello(&r, &h);
    if (m->type != HT_MSG_HELLO_REP || r.failed) {
        snprintf(err, errn, "the agent at %s did not answer hello with a hello", c->base);
        return -1;
    }
    c->agent_pid = h.pid;
    if (c->expect_pid <= 0 || h.pid == (uint32_t)c->expect_pid ||
        (c->expect_nspid > 0 && h.pid == (uint32_t)c->expect_nspid))
        return 0;
    snprintf(err, errn,
             "the agent at %s says it is pid %u, not pid %d as asked: heaptop does not talk to "
             "it",
             c->base, (unsigned)h.pid, (int)c->expect_pid);
    return -1;
}

int ht_client_open(ht_client *c, const ht_target *t, int timeout_ms, int flags, char *err,
                   size_t errn)
{
    memset(c, 0, sizeof *c);
    c->dirfd = -1;
    ht_store_init(&c->store);
    const char *base = t->base;
    snprintf(c->base, sizeof c->base, "%s", base);
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
    c->expect_uid = geteuid();
    c->expect_pid = t->pid;
    ht_proc p;
    if (t->pid > 0 && ht_proc_look(t->pid, &p) != HT_PROC_NONE && p.nspid > 0)
        c->expect_nspid = p.nspid;
    char url_ev[HT_IPC_PATH_MAX + 64], url_ctl[HT_IPC_PATH_MAX + 64];
    if (!ht_base_is_tcp(base)) {
        if (trusted_urls(c, flags, url_ev, url_ctl, sizeof url_ev, err, errn) != 0) {
            ht_client_close(c);
            return -1;
        }
    } else if (ht_endpoint_url(url_ev, sizeof url_ev, base, ".events") != 0 ||
               ht_endpoint_url(url_ctl, sizeof url_ctl, base, ".ctl") != 0) {
        snprintf(err, errn, "socket path '%s' is too long", base);
        ht_client_close(c);
        return -1;
    }
    int rv = nng_sub0_open(&c->sub);
    if (rv == 0) rv = nng_req0_open(&c->req);
    if (rv != 0) {
        snprintf(err, errn, "cannot open sockets: %s", nng_strerror(rv));
        ht_client_close(c);
        return -1;
    }
    c->open = 1;
    nng_pipe_notify(c->sub, NNG_PIPE_EV_ADD_PRE, on_sub_pipe, c);
    nng_pipe_notify(c->sub, NNG_PIPE_EV_ADD_POST, on_sub_pipe, c);
    nng_pipe_notify(c->sub, NNG_PIPE_EV_REM_POST, on_sub_pipe, c);
    nng_pipe_notify(c->req, NNG_PIPE_EV_ADD_PRE, on_req_pipe, c);
    nng_socket_set(c->sub, NNG_OPT_SUB_SUBSCRIBE, "", 0);
    nng_socket_set_int(c->sub, NNG_OPT_RECVBUF, 8192);
    nng_socket_set_size(c->sub, NNG_OPT_RECVMAXSZ, HT_MAX_MESSAGE);
    nng_socket_set_size(c->req, NNG_OPT_RECVMAXSZ, HT_MAX_MESSAGE);
    nng_socket_set_ms(c->req, NNG_OPT_RECVTIMEO, c->timeout_ms);
    nng_socket_set_ms(c->req, NNG_OPT_SENDTIMEO, c->timeout_ms);
    /* Subscribe before syncing, so nothing after the sync point is missed. The
     * dials do not wait: a stopped JVM then shows as a request timeout, and a
     * stream that connects after the sync shows as a gap and is resynced. */
    /* To a TCP port on this host the dial waits for the connection, so a port
     * nobody listens on is refused at once (a local socket was looked at
     * before, target.h). To another host it does not: an unreachable one
     * would hold the caller for the kernel's connect timeout, minutes; the
     * request's timeout says it instead. */
    int dial = ht_base_is_loopback_tcp(base) ? 0 : NNG_FLAG_NONBLOCK;
    rv = (flags & HT_CLIENT_STREAM) ? nng_dial(c->sub, url_ev, NULL, dial) : 0;
    if (rv == 0) rv = nng_dial(c->req, url_ctl, NULL, dial);
    if (rv != 0) {
        snprintf(err, errn, "cannot connect to the agent at %s: %s (did the JVM exit?)", base,
                 nng_strerror(rv));
        ht_client_close(c);
        return -1;
    }
    if (ht_base_is_tcp(base)) { /* the key, proved both ways (handshake.h) */
        ht_key key;
        int ok = ht_auth_init() == 0 && ht_key_load(t->key, geteuid(), &key, err, errn) == 0 &&
                 ht_handshake(c->req, base, &key, &c->session, &c->stream, err, errn) == 0;
        memset(&key, 0, sizeof key);
        if (!ok) {
            if (!t->key[0]) snprintf(err, errn, "%s needs the agent's key: --key FILE", base);
            ht_client_close(c);
            return -1;
        }
        c->sealed = 1;
    }
    nng_msg *reply;
    ht_msg m;
    if (request(c, HT_MSG_HELLO_REQ, NULL, &reply, &m, err, errn) != 0) {
        ht_client_close(c);
        return -1;
    }
    if (check_hello(c, &m, err, errn) != 0) {
        nng_msg_free(reply);
        ht_client_close(c);
        return -1;
    }
    ht_store_apply(&c->store, &m);
    nng_msg_free(reply);
    if (ht_client_sync(c, err, errn) != 0) {
        ht_client_close(c);
        return -1;
    }
    rv = nng_socket_get_int(c->sub, NNG_OPT_RECVFD, &c->stream_fd);
    if (rv != 0) c->stream_fd = -1;
    return 0;
}

int ht_client_dump_file(const ht_client *c, const ht_dump_info *d, ht_dump_file *f, char *err,
                        size_t errn)
{
    return ht_dump_file_open(f, c->dir_open ? c->dirfd : -1, c->base, (pid_t)c->agent_pid, d->id,
                             d->path, err, errn);
}

/* nng 1.5.2 can hang in nng_close when a socket closes while messages are
 * arriving (nng issue #1543: its reaper waits for a task that never starts;
 * seen here about once in 40 closes under a heavy stream). A viewer must never
 * hang on that, so the sockets are closed on a helper thread and we wait for
 * it a bounded time; past that the helper is left to finish or not (it owns
 * nothing but the socket ids). */
#define CLOSE_WAIT_MS 1000

typedef struct closer {
    nng_socket sub, req;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, abandoned;
} closer;

static void *closer_main(void *arg)
{
    closer *k = arg;
    nng_close(k->sub);
    nng_close(k->req);
    pthread_mutex_lock(&k->lock);
    k->done = 1;
    int abandoned = k->abandoned;
    pthread_cond_signal(&k->cond);
    pthread_mutex_unlock(&k->lock);
    if (abandoned) free(k); /* the waiter gave up and left k to us */
    return NULL;
}

static void close_sockets(nng_socket sub, nng_socket req)
{
    closer *k = calloc(1, sizeof *k);
    pthread_t t;
    if (k) {
        k->sub = sub;
        k->req = req;
        pthread_mutex_init(&k->lock, NULL);
        pthread_cond_init(&k->cond, NULL);
    }
    if (!k || pthread_create(&t, NULL, closer_main, k) != 0) {
        free(k);
        nng_close(sub);
        nng_close(req);
        return;
    }
    pthread_detach(t);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += CLOSE_WAIT_MS / 1000;
    pthread_mutex_lock(&k->lock);
    while (!k->done)
        if (pthread_cond_timedwait(&k->cond, &k->lock, &deadline) == ETIMEDOUT) break;
    int done = k->done;
    if (!done) k->abandoned = 1;
    pthread_mutex_unlock(&k->lock);
    if (done) {
        pthread_mutex_destroy(&k->lock);
        pthread_cond_destroy(&k->cond);
        free(k);
    }
}

void ht_client_close(ht_client *c)
{
    if (c->open) {
        /* The pipe callbacks point at c, which may be gone before a slow close
         * ends: unhook them first. */
        nng_pipe_notify(c->sub, NNG_PIPE_EV_ADD_PRE, NULL, NULL);
        nng_pipe_notify(c->sub, NNG_PIPE_EV_ADD_POST, NULL, NULL);
        nng_pipe_notify(c->sub, NNG_PIPE_EV_REM_POST, NULL, NULL);
        nng_pipe_notify(c->req, NNG_PIPE_EV_ADD_PRE, NULL, NULL);
        close_sockets(c->sub, c->req);
        c->open = 0;
    }
    /* after the sockets: their dials went through it. (A client that was never
     * opened, zeroed by its caller, has no descriptor: fd 0 is stdin's.) */
    if (c->dir_open) close(c->dirfd);
    c->dir_open = 0;
    c->dirfd = -1;
    ht_store_free(&c->store);
}

int ht_client_stream_fd(const ht_client *c)
{
    return c->stream_fd;
}

/* Apply one stream message; a gap triggers a resync. */
static int handle_stream(ht_client *c, nng_msg *msg)
{
    ht_msg m;
    /* over TCP the stream comes sealed: what does not open is not the agent's */
    if (c->sealed && (!ht_is_sealed(nng_msg_body(msg), nng_msg_len(msg)) ||
                      ht_request_unseal(&c->stream, c->base, msg, NULL, 0) != 0))
        return 0;
    int rc = ht_msg_open(nng_msg_body(msg), nng_msg_len(msg), &m);
    if (rc == HT_OK) rc = ht_msg_validate(&m);
    if (rc != HT_OK) return 0; /* a malformed message is skipped, not fatal */
    c->received++;
    if (m.seq <= c->last_seq) return 0; /* already covered by the sync */
    if (m.seq != c->last_seq + 1) {
        c->missed += m.seq - c->last_seq - 1;
        char err[256];
        if (ht_client_sync(c, err, sizeof err) == 0) {
            c->resyncs++;
            return 1; /* the sync covers this message or a later state */
        }
    }
    c->last_seq = m.seq;
    if (m.type == HT_MSG_BYE) {
        ht_reader r;
        ht_msg_reader(&m, &r);
        ht_str why = ht_get_str(&r);
        snprintf(c->bye, sizeof c->bye, "%.*s", (int)why.len, why.s);
        if (!c->bye[0]) snprintf(c->bye, sizeof c->bye, "JVM exited");
        c->state = HT_CONN_EXITED;
        return 1;
    }
    apply(c, &m);
    return 1;
}

const char *ht_client_goodbye(const ht_client *c)
{
    return c && c->state == HT_CONN_EXITED ? c->bye : NULL;
}

int ht_client_poll(ht_client *c, int timeout_ms)
{
    if (!c->open || c->state == HT_CONN_EXITED || c->state == HT_CONN_LOST) return -1;
    int applied = 0;
    if (timeout_ms > 0 && c->stream_fd >= 0) {
        struct pollfd pfd = {c->stream_fd, POLLIN, 0};
        poll(&pfd, 1, timeout_ms);
    }
    nng_msg *msg;
    while (c->state == HT_CONN_LIVE && nng_recvmsg(c->sub, &msg, NNG_FLAG_NONBLOCK) == 0) {
        applied += handle_stream(c, msg);
        nng_msg_free(msg);
    }
    if (c->state == HT_CONN_LIVE && atomic_load(&c->sub_ever) && atomic_load(&c->sub_pipes) <= 0) {
        /* Nothing queued and no connection: the JVM is gone without a goodbye. */
        c->state = HT_CONN_LOST;
    }
    return applied;
}

int ht_client_command(ht_client *c, uint16_t type, uint64_t arg, uint64_t *value, char *err,
                      size_t errn)
{
    ht_buf extra;
    ht_buf_init(&extra);
    ht_request_command_body(type, arg, &extra);
    nng_msg *reply;
    ht_msg m;
    int rc = request(c, type, &extra, &reply, &m, err, errn);
    ht_buf_free(&extra);
    if (rc != 0) return -1;
    ht_request_command_value(&m, value);
    nng_msg_free(reply);
    return 0;
}

int ht_client_heap_dump(ht_client *c, unsigned flags, ht_dump_info *out,
                        void (*progress)(void *ctx, const ht_dump_info *d), void *ctx,
                        volatile sig_atomic_t *stop, char *err, size_t errn)
{
    uint64_t id = 0;
    if (ht_client_command(c, HT_MSG_HEAP_DUMP_REQ, flags, &id, err, errn) != 0) return -1;
    /* The agent reports once a second while the dump runs: silence for the
     * client's timeout means a stopped JVM or a lost stream. */
    uint64_t last_word = ht_mono_ms(), last_t = UINT64_MAX;
    for (;;) {
        const ht_dump_info *d = ht_client_dump(c, id);
        if (d && d->state != HT_DUMP_RUNNING) {
            *out = *d;
            if (d->state == HT_DUMP_DONE) return 0;
            snprintf(err, errn, "heap dump %llu failed: %s", (unsigned long long)id,
                     d->error[0] ? d->error : "the agent did not say why");
            return -1;
        }
        if (d && d->t_ms != last_t) {
            last_t = d->t_ms;
            last_word = ht_mono_ms();
            if (progress) progress(ctx, d);
        }
        if (stop && *stop) {
            snprintf(err, errn,
                     "interrupted while heap dump %llu was being written (the JVM goes on "
                     "writing it%s)",
                     (unsigned long long)id,
                     flags & HT_DUMP_KEEP ? "" : "; the agent removes it when the JVM exits");
            return -1;
        }
        if (ht_mono_ms() - last_word > (uint64_t)c->timeout_ms) {
            snprintf(err, errn,
                     "the agent at %s has said nothing about heap dump %llu for %.1f s (is the "
                     "JVM stopped?)",
                     c->base, (unsigned long long)id, c->timeout_ms / 1000.0);
            return -1;
        }
        if (ht_client_poll(c, 100) < 0) {
            snprintf(err, errn, "%s while heap dump %llu was being written",
                     c->state == HT_CONN_EXITED ? "the JVM exited"
                                                : "the JVM went away without a goodbye",
                     (unsigned long long)id);
            return -1;
        }
    }
}
