/* watchdog.c - see watchdog.h. */
#include "watchdog.h"

#include "clock.h"
#include "ipc_path.h"
#include "leftovers.h"
#include "log.h"
#include "protocol.h"
#include "transport.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROBE_EVERY_MS 1000
#define CTL_WAIT_MS    1000 /* a reply normally takes ~10 ms */
#define EVENTS_WAIT_MS 1500 /* telemetry is published every 1000 ms */
#define SP_PROTO_REQ0  0x30
#define SP_PROTO_SUB0  0x21
#define SP_MSG         0x01 /* nng IPC frame: type byte, u64 big-endian length, data */
/* A probe answered by silence counts only if the collector turned over this
 * many times while it waited: it wakes at least every 100 ms (a
 * publication), so half a second of the probe's one to one and a half. A
 * collector that did not turn over was held (a stop-the-world pause: its JNI
 * calls wait for it to end) and could not have answered through any
 * listener. */
#define MIN_TURNS 5
/* After an alarm, look for the descriptors the restart leaves behind this long
 * (longer while some are waiting to be closed); see leftovers.h. */
#define LEFTOVER_WINDOW_MS 30000

struct ht_watchdog {
    pthread_t thread;
    char ctl[HT_IPC_PATH_MAX + 8];
    char events[HT_IPC_PATH_MAX + 8];
    atomic_int stop;
    pthread_mutex_t lock; /* with wake: ht_watchdog_stop ends a rest at once */
    pthread_cond_t wake;
    atomic_int alarm;  /* -1 or the listener to restart */
    atomic_uint turns; /* the collector's loop turns (ht_watchdog_turn) */
    ht_leftovers leftovers;
    int64_t leftovers_until_ms; /* scan for leftovers until then */
};

/* Read exactly n bytes before the deadline. */
static int read_full(int fd, void *buf, size_t n, int64_t deadline)
{
    size_t got = 0;
    while (got < n) {
        int left = (int)(deadline - (int64_t)ht_mono_ms());
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) != 1) return -1;
        ssize_t r = recv(fd, (char *)buf + got, n - got, 0);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

static int send_full(int fd, const void *buf, size_t n)
{
    return send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int connect_sp(const char *file, int proto, int64_t deadline)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(file) >= sizeof sa.sun_path) return -1;
    memcpy(sa.sun_path, file, strlen(file) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const unsigned char hello[8] = {0, 'S', 'P', 0, 0, (unsigned char)proto, 0, 0};
    unsigned char peer[8];
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || send_full(fd, hello, 8) != 0 ||
        read_full(fd, peer, 8, deadline) != 0 || peer[1] != 'S' || peer[2] != 'P') {
        close(fd);
        return -1;
    }
    return fd;
}

/* Read one framed message and return its length (its content is not needed). */
static int read_frame(int fd, int64_t deadline)
{
    unsigned char head[9];
    if (read_full(fd, head, 9, deadline) != 0 || head[0] != SP_MSG) return -1;
    uint64_t len = 0;
    for (int i = 1; i < 9; i++)
        len = len << 8 | head[i];
    char sink[4096];
    while (len > 0) {
        size_t chunk = len < sizeof sink ? (size_t)len : sizeof sink;
        if (read_full(fd, sink, chunk, deadline) != 0) return -1;
        len -= chunk;
    }
    return 0;
}

/* What a probe found. A listener that does not accept or finish the
 * handshake (nng's own threads do that) is deaf whatever the collector is
 * doing; one that connects and then stays silent is only if the collector,
 * which answers and publishes, was turning over meanwhile. */
typedef enum { PROBE_OK, PROBE_DEAF, PROBE_SILENT } probe;

/* A HELLO request on the control socket: is it answered? */
static probe ctl_answers(const char *file)
{
    int64_t deadline = (int64_t)ht_mono_ms() + CTL_WAIT_MS;
    int fd = connect_sp(file, SP_PROTO_REQ0, deadline);
    if (fd < 0) return errno == EAGAIN ? PROBE_OK : PROBE_DEAF; /* backlog full: busy */
    ht_buf b;
    ht_buf_init(&b);
    ht_put_u8(&b, SP_MSG);
    size_t len_at = b.len;
    ht_put_u64(&b, 0);
    unsigned char reqid[4] = {0x80, 0, 0, 1}; /* REQ header: request id, top bit set */
    ht_put_bytes(&b, reqid, 4);
    ht_enc_simple(&b, HT_MSG_HELLO_REQ, 1);
    uint64_t plen = b.len - len_at - 8;
    for (int i = 0; i < 8 && !b.failed; i++)
        b.data[len_at + (size_t)i] = (uint8_t)(plen >> (56 - 8 * i));
    probe p = b.failed || send_full(fd, b.data, b.len) != 0 ? PROBE_DEAF
              : read_frame(fd, deadline) != 0               ? PROBE_SILENT
                                                            : PROBE_OK;
    ht_buf_free(&b);
    close(fd);
    return p;
}

/* Does a stream message arrive (telemetry is published every second)? */
static probe events_flow(const char *file)
{
    int64_t deadline = (int64_t)ht_mono_ms() + EVENTS_WAIT_MS;
    int fd = connect_sp(file, SP_PROTO_SUB0, deadline);
    if (fd < 0) return errno == EAGAIN ? PROBE_OK : PROBE_DEAF;
    probe p = read_frame(fd, deadline) == 0 ? PROBE_OK : PROBE_SILENT;
    close(fd);
    return p;
}

/* The count of failures in a row after probe p, during which the collector
 * turned over `turns` times. */
static int failures(int before, probe p, unsigned turns)
{
    if (p == PROBE_OK) return 0;
    if (p == PROBE_SILENT && turns < MIN_TURNS) return before; /* held: says nothing */
    return before + 1;
}

/* Close what nng left behind after a listener restart (see leftovers.h). */
static void sweep_leftovers(ht_watchdog *w)
{
    int64_t now = (int64_t)ht_mono_ms();
    if (now >= w->leftovers_until_ms && w->leftovers.n == 0) return;
    int closed = ht_leftovers_scan(&w->leftovers, now);
    if (w->leftovers.n > 0 && w->leftovers_until_ms < now + 5000)
        w->leftovers_until_ms = now + 5000;
    if (closed > 0)
        ht_log("closed %d socket%s that nng 1.5.2 left open when the listener was restarted",
               closed, closed == 1 ? "" : "s");
}

/* Sleep ms, or less if ht_watchdog_stop() says so: 1 when stopping. One
 * wake-up a second, not the twenty a polled flag took (each costs a context
 * switch, ~100 us on a paravirtualised guest). */
static int rest(ht_watchdog *w, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->lock);
    while (!atomic_load(&w->stop) && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0) {
    }
    pthread_mutex_unlock(&w->lock);
    return atomic_load(&w->stop);
}

static void *watch(void *arg)
{
    ht_watchdog *w = arg;
    int ctl_fail = 0, ev_fail = 0;
    /* its own name in the JVM's thread list (it would inherit the collector's) */
    pthread_setname_np(pthread_self(), "heaptop-watch");
    while (!atomic_load(&w->stop)) {
        if (rest(w, PROBE_EVERY_MS)) break;
        sweep_leftovers(w);
        if (atomic_load(&w->alarm) >= 0) continue;
        /* unsigned: a wrapped counter still subtracts right */
        unsigned t0 = atomic_load(&w->turns);
        probe p = ctl_answers(w->ctl);
        unsigned t1 = atomic_load(&w->turns);
        ctl_fail = failures(ctl_fail, p, t1 - t0);
        if (atomic_load(&w->stop)) break;
        p = events_flow(w->events);
        ev_fail = failures(ev_fail, p, atomic_load(&w->turns) - t1);
        if (ctl_fail >= 2) {
            atomic_store(&w->alarm, HT_LISTENER_CTL);
            ctl_fail = 0;
        } else if (ev_fail >= 2) {
            atomic_store(&w->alarm, HT_LISTENER_EVENTS);
            ev_fail = 0;
        }
        if (atomic_load(&w->alarm) >= 0)
            w->leftovers_until_ms = (int64_t)ht_mono_ms() + LEFTOVER_WINDOW_MS;
    }
    return NULL;
}

ht_watchdog *ht_watchdog_start(const char *ctl_file, const char *events_file)
{
    ht_watchdog *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    strncpy(w->ctl, ctl_file, sizeof w->ctl - 1);
    strncpy(w->events, events_file, sizeof w->events - 1);
    atomic_init(&w->stop, 0);
    atomic_init(&w->alarm, -1);
    atomic_init(&w->turns, 0);
    ht_leftovers_init(&w->leftovers, w->ctl, w->events);
    pthread_condattr_t ca;
    int cond_ok = pthread_condattr_init(&ca) == 0;
    if (cond_ok) {
        /* rest() waits on CLOCK_MONOTONIC: a wall clock set back must not stall it */
        cond_ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                  pthread_cond_init(&w->wake, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (!cond_ok) {
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, watch, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

void ht_watchdog_turn(ht_watchdog *w)
{
    if (w) atomic_fetch_add_explicit(&w->turns, 1, memory_order_relaxed);
}

int ht_watchdog_take_alarm(ht_watchdog *w)
{
    return w ? atomic_exchange(&w->alarm, -1) : -1;
}

void ht_watchdog_stop(ht_watchdog *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    atomic_store(&w->stop, 1);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
