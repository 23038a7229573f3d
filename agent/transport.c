/* transport.c - see transport.h. */
#include "transport.h"

#include "protocol.h"

#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/reqrep0/rep.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_pipe(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    ht_transport *t = arg;
    if (ev == NNG_PIPE_EV_ADD_PRE) {
        uint64_t uid = UINT64_MAX;
        if (nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_UID, &uid) != 0 || uid != (uint64_t)geteuid()) {
            atomic_fetch_add(&t->refused, 1);
            fprintf(stderr,
                    "heaptop: refused a viewer running as uid %lld (this JVM runs as uid %u)\n",
                    uid == UINT64_MAX ? -1ll : (long long)uid, (unsigned)geteuid());
            nng_pipe_close(p);
        }
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

static int listen_private(nng_socket s, nng_listener *lp, const char *base, const char *suffix,
                          char *file, size_t filen, char *err, size_t errn)
{
    char url[HT_IPC_PATH_MAX + 16];
    if (ht_ipc_url(url, sizeof url, base, suffix) != 0 ||
        ht_ipc_file(file, filen, base, suffix) != 0) {
        snprintf(err, errn, "heaptop: socket path '%s%s' is too long", base, suffix);
        return -1;
    }
    nng_listener l;
    int rv = nng_listener_create(&l, s, url);
    if (rv == 0) rv = nng_listener_set_int(l, NNG_OPT_IPC_PERMISSIONS, 0600);
    if (rv == 0) rv = nng_listener_start(l, 0);
    if (rv != 0) {
        snprintf(err, errn, "heaptop: cannot listen on %s: %s", url, nng_strerror(rv));
        return -1;
    }
    chmod(file, 0600); /* belt and braces; the directory is 0700 anyway */
    *lp = l;
    return 0;
}

int ht_transport_open(ht_transport *t, const char *base, char *err, size_t errn)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->viewer_lock, NULL);
    if (ht_ipc_secure_dir(base, err, errn) != 0) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "heaptop: %s", err);
        snprintf(err, errn, "%s", tmp);
        return -1;
    }
    int rv = nng_pub0_open(&t->pub);
    if (rv == 0) rv = nng_rep0_open(&t->rep);
    if (rv != 0) {
        snprintf(err, errn, "heaptop: cannot open sockets: %s", nng_strerror(rv));
        return -1;
    }
    t->open = 1;
    nng_pipe_notify(t->pub, NNG_PIPE_EV_ADD_PRE, on_pub_pipe, t);
    nng_pipe_notify(t->pub, NNG_PIPE_EV_ADD_POST, on_pub_pipe, t);
    nng_pipe_notify(t->pub, NNG_PIPE_EV_REM_POST, on_pub_pipe, t);
    nng_pipe_notify(t->rep, NNG_PIPE_EV_ADD_PRE, on_pipe, t);
    /* Each subscriber may lag this many messages before nng drops its oldest. */
    nng_socket_set_int(t->pub, NNG_OPT_SENDBUF, 1024);
    nng_socket_set_size(t->rep, NNG_OPT_RECVMAXSZ, HT_MAX_REQUEST);
    nng_socket_set_ms(t->rep, NNG_OPT_SENDTIMEO, 2000);
    snprintf(t->base, sizeof t->base, "%s", base);
    if (listen_private(t->pub, &t->pub_l, base, ".events", t->events_file, sizeof t->events_file,
                       err, errn) != 0 ||
        listen_private(t->rep, &t->rep_l, base, ".ctl", t->ctl_file, sizeof t->ctl_file, err,
                       errn) != 0) {
        ht_transport_close(t);
        return -1;
    }
    rv = nng_socket_get_int(t->rep, NNG_OPT_RECVFD, &t->ctl_fd);
    if (rv != 0) {
        snprintf(err, errn, "heaptop: no receive descriptor: %s", nng_strerror(rv));
        ht_transport_close(t);
        return -1;
    }
    return 0;
}

void ht_transport_close(ht_transport *t)
{
    if (!t->open) return;
    nng_close(t->pub);
    nng_close(t->rep);
    t->open = 0;
    /* nng_close returns once every pipe is gone, REM_POST hooks included. */
    pthread_mutex_lock(&t->viewer_lock);
    free(t->viewer_ids);
    t->viewer_ids = NULL;
    t->nviewer_ids = t->cap_viewer_ids = 0;
    atomic_store(&t->viewers, 0);
    pthread_mutex_unlock(&t->viewer_lock);
    if (t->events_file[0]) unlink(t->events_file);
    if (t->ctl_file[0]) unlink(t->ctl_file);
}

void ht_transport_publish(ht_transport *t, const void *data, size_t len)
{
    nng_msg *m;
    if (!t->open || nng_msg_alloc(&m, 0) != 0) return;
    if (nng_msg_append(m, data, len) != 0 || nng_sendmsg(t->pub, m, NNG_FLAG_NONBLOCK) != 0)
        nng_msg_free(m);
}

int ht_transport_next_request(ht_transport *t, nng_msg **msg)
{
    if (!t->open) return 0;
    return nng_recvmsg(t->rep, msg, NNG_FLAG_NONBLOCK) == 0;
}

void ht_transport_reply(ht_transport *t, const void *data, size_t len)
{
    nng_msg *m;
    if (!t->open || nng_msg_alloc(&m, 0) != 0) return;
    if (nng_msg_append(m, data, len) != 0 || nng_sendmsg(t->rep, m, 0) != 0) nng_msg_free(m);
}

void ht_transport_restart_listener(ht_transport *t, int which)
{
    char err[256];
    nng_socket s = which == HT_LISTENER_CTL ? t->rep : t->pub;
    nng_listener *l = which == HT_LISTENER_CTL ? &t->rep_l : &t->pub_l;
    const char *suffix = which == HT_LISTENER_CTL ? ".ctl" : ".events";
    char *file = which == HT_LISTENER_CTL ? t->ctl_file : t->events_file;
    size_t filen = which == HT_LISTENER_CTL ? sizeof t->ctl_file : sizeof t->events_file;
    if (!t->open) return;
    nng_listener_close(*l);
    unlink(file);
    if (listen_private(s, l, t->base, suffix, file, filen, err, sizeof err) == 0) {
        atomic_fetch_add(&t->restarts, 1);
        fprintf(stderr,
                "heaptop: restarted the %s listener: it had stopped delivering messages "
                "(nng 1.5.2 issue #1518)\n",
                suffix + 1);
    } else {
        fprintf(stderr, "%s\n", err);
    }
}
