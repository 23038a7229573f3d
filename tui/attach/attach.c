/* attach.c - see attach.h. */
#include "attach.h"

#include "clock.h"
#include "preflight.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- the exchange with the JVM: system calls only, so that it can run in a
 * child forked from a threaded process (no malloc, no stdio) --- */

typedef struct plan {
    pid_t pid;                                              /* the JVM, as this process sees it */
    char sock[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* <tmp>/.java_pid<nspid> */
    char trigger[2][PATH_MAX]; /* .attach_pid<nspid> in its cwd, else its tmp */
    char req[PATH_MAX + 8192]; /* protocol 1: "1" load path true options, each NUL-ended */
    size_t reqlen;
    uint64_t deadline; /* CLOCK_MONOTONIC ms */
    int switch_ids;    /* become uid/gid first (root attaching to another user) */
    uid_t uid;
    gid_t gid;
} plan;

typedef enum stage {
    ST_DONE,      /* a reply came */
    ST_IDS,       /* could not switch to the JVM's ids */
    ST_TRIGGER,   /* could not create .attach_pid in the JVM's cwd or tmp */
    ST_NO_SOCKET, /* SIGQUIT sent, no .java_pid socket by the deadline */
    ST_CONNECT,   /* the socket is there, connect failed */
    ST_SEND,      /* sending the request failed */
    ST_SLOW,      /* connected, no (whole) reply by the deadline */
    ST_RECV,      /* reading the reply failed */
} stage;

typedef struct outcome {
    int stage;
    int err_no;
    size_t len;
    char reply[2048];
} outcome;

/* The address of the Unix socket at path (cut at sun_path's size: the plan's
 * paths are checked to fit when made). No stdio: the exchange's child uses it. */
static void unix_addr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, path, strnlen(path, sizeof sa->sun_path - 1));
}

static int left_ms(const plan *pl)
{
    uint64_t now = ht_mono_ms();
    return now >= pl->deadline ? 0 : (int)(pl->deadline - now);
}

static int is_socket(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Have the JVM start its attach listener: a .attach_pid file it trusts (ours,
 * and we are its user or root) and SIGQUIT. Waits for the socket. */
static int start_listener(const plan *pl, outcome *o)
{
    const char *made = NULL;
    for (int i = 0; i < 2 && !made; i++) {
        int fd = open(pl->trigger[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) {
            o->err_no = errno;
            continue;
        }
        struct stat st;
        int mine = fstat(fd, &st) == 0 && st.st_uid == geteuid();
        close(fd);
        if (mine)
            made = pl->trigger[i];
        else
            unlink(
                pl->trigger[i]); /* a file system that changes owners: the JVM would not trust it */
    }
    if (!made) {
        o->stage = ST_TRIGGER;
        return -1;
    }
    if (kill(pl->pid, SIGQUIT) != 0) {
        o->err_no = errno;
        unlink(made);
        o->stage = ST_CONNECT;
        return -1;
    }
    int ok = 0, step = 10;
    while (!(ok = is_socket(pl->sock)) && left_ms(pl) > 0) {
        ht_nap_ms(step < left_ms(pl) ? step : left_ms(pl));
        if (step < 100) step += 10;
    }
    unlink(made);
    if (!ok) o->stage = ST_NO_SOCKET;
    return ok ? 0 : -1;
}

/* Wait for fd to be ready for `events` until the plan's deadline. 1 ready, 0 late, -1 error. */
static int wait_fd(const plan *pl, int fd, short events)
{
    for (;;) {
        struct pollfd p = {fd, events, 0};
        int rc = poll(&p, 1, left_ms(pl));
        if (rc > 0) return 1;
        if (rc == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

static void exchange(const plan *pl, outcome *o)
{
    memset(o, 0, sizeof *o);
    if (pl->switch_ids) {
        if (setgroups(0, NULL) != 0 || setresgid(pl->gid, pl->gid, pl->gid) != 0 ||
            setresuid(pl->uid, pl->uid, pl->uid) != 0) {
            o->err_no = errno;
            o->stage = ST_IDS;
            return;
        }
    }
    if (!is_socket(pl->sock) && start_listener(pl, o) != 0) return;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        o->err_no = errno;
        o->stage = ST_CONNECT;
        return;
    }
    struct sockaddr_un sa;
    unix_addr(&sa, pl->sock);
    /* a full backlog (EAGAIN): the listener is busy; try again until the deadline */
    while (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if ((errno != EAGAIN && errno != EINTR) || left_ms(pl) == 0) {
            o->err_no = errno == EAGAIN ? ETIMEDOUT : errno;
            o->stage = ST_CONNECT;
            close(fd);
            return;
        }
        ht_nap_ms(10);
    }
    for (size_t sent = 0; sent < pl->reqlen;) {
        ssize_t k = send(fd, pl->req + sent, pl->reqlen - sent, MSG_NOSIGNAL);
        if (k > 0) {
            sent += (size_t)k;
        } else if (k < 0 && errno == EAGAIN) {
            if (wait_fd(pl, fd, POLLOUT) <= 0) {
                o->stage = ST_SLOW;
                close(fd);
                return;
            }
        } else if (k < 0 && errno != EINTR) {
            o->err_no = errno;
            o->stage = ST_SEND;
            close(fd);
            return;
        }
    }
    /* the reply ends when the JVM closes the connection */
    char sink[512];
    for (;;) {
        int r = wait_fd(pl, fd, POLLIN);
        if (r <= 0) {
            o->err_no = r < 0 ? errno : 0;
            o->stage = r < 0 ? ST_RECV : ST_SLOW;
            break;
        }
        char *into = o->len < sizeof o->reply - 1 ? o->reply + o->len : sink;
        size_t room = o->len < sizeof o->reply - 1 ? sizeof o->reply - 1 - o->len : sizeof sink;
        ssize_t k = recv(fd, into, room, 0);
        if (k == 0) {
            o->stage = ST_DONE;
            break;
        }
        if (k < 0 && errno != EINTR && errno != EAGAIN) {
            o->err_no = errno;
            o->stage = ST_RECV;
            break;
        }
        if (k > 0 && into != sink) o->len += (size_t)k;
    }
    o->reply[o->len] = '\0';
    close(fd);
}

/* The exchange as the JVM's user: in a child, so that this process (and its
 * other threads) keep their ids. The child gets the plan's deadline; past it
 * and a grace second it is killed. */
static void exchange_as_user(const plan *pl, outcome *o)
{
    memset(o, 0, sizeof *o);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        o->err_no = errno;
        o->stage = ST_IDS;
        return;
    }
    pid_t child = fork();
    if (child < 0) {
        o->err_no = errno;
        o->stage = ST_IDS;
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (child == 0) {
        outcome mine;
        close(fds[0]);
        exchange(pl, &mine);
        ssize_t w = write(fds[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(fds[1]);
    plan grace = *pl;
    grace.deadline += 1000;
    size_t got = 0;
    while (got < sizeof *o && wait_fd(&grace, fds[0], POLLIN) > 0) {
        ssize_t k = read(fds[0], (char *)o + got, sizeof *o - got);
        if (k <= 0 && !(k < 0 && errno == EINTR)) break;
        if (k > 0) got += (size_t)k;
    }
    close(fds[0]);
    if (got != sizeof *o) {
        kill(child, SIGKILL);
        memset(o, 0, sizeof *o);
        o->stage = ST_SLOW;
    }
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
}

/* What a connect to the socket at path says: 0 something listens (it sees
 * the connection close unused), ECONNREFUSED nothing does, EAGAIN its backlog
 * is full (something listens), else why it could not be asked (EACCES). */
static int probe_listener(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return errno;
    struct sockaddr_un sa;
    unix_addr(&sa, path);
    int e = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
    close(fd);
    return e;
}

/* A socket at the JVM's attach path owned by another user than the JVM's
 * (HotSpot chowns its socket to its own euid). Where nothing listens on it,
 * an earlier process with the same pid left it, killed before it could remove
 * it; pids wrap (pid_max is 32768 on many hosts), so this happens. A JVM
 * removes its pid's leftover when it starts (AttachListener::vm_start), but in
 * sticky /tmp it cannot remove one another user owns, nor rename its own over
 * it later. So it goes before the attach, removed here as the caller (root
 * can). Never one that something listens on (another JVM's, where containers
 * share a /tmp), nor one in another mount namespace (its /tmp is reached
 * through /proc/PID/root, where the container's own symlinks would lead
 * elsewhere): those are named instead. 0 when there is none or it went. */
static int clear_stale_socket(const plan *pl, const ht_proc *p, char *err, size_t errn)
{
    struct stat st;
    if (lstat(pl->sock, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid == p->uid) return 0;
    char owner[64];
    ht_proc_user_name(st.st_uid, owner, sizeof owner);
    char jvm_user[64];
    ht_proc_user_name(p->uid, jvm_user, sizeof jvm_user);
    int probe = probe_listener(pl->sock);
    if (probe != ECONNREFUSED) {
        snprintf(err, errn,
                 "pid %d's attach socket %s belongs to %s, not to the JVM's user %s, and %s: "
                 "heaptop leaves it; if no process of %s uses it, remove it and try again",
                 (int)p->pid, pl->sock, owner, jvm_user,
                 probe == 0 || probe == EAGAIN ? "something listens on it"
                                               : "heaptop may not connect to it to see if it is "
                                                 "in use",
                 owner);
        return -1;
    }
    if (!p->other_mnt_ns && (unlink(pl->sock) == 0 || errno == ENOENT)) return 0;
    char why[128];
    if (p->other_mnt_ns)
        snprintf(why, sizeof why, "heaptop does not remove files inside a container");
    else
        snprintf(why, sizeof why, "cannot be removed (%s)", strerror(errno));
    snprintf(err, errn,
             "pid %d's attach socket %s was left by an earlier process with that pid (owned by "
             "%s, nothing listens on it) and %s: remove it %s, then try again",
             (int)p->pid, pl->sock, owner, why,
             p->other_mnt_ns ? "inside the container"
             : st.st_uid     ? "as its owner or as root"
                             : "as root");
    return -1;
}

/* --- what the caller is told --- */

/* The reply on one line: newlines become "; ", trailing space dropped. */
static void one_line(const char *in, char *out, size_t n)
{
    size_t k = 0;
    for (const char *c = in; *c && k + 3 < n; c++) {
        if (*c == '\n' || *c == '\r') {
            if (k && c[1] && c[1] != '\n') {
                out[k++] = ';';
                out[k++] = ' ';
            }
        } else if ((unsigned char)*c >= 0x20) {
            out[k++] = *c;
        }
    }
    while (k && (out[k - 1] == ' ' || out[k - 1] == ';'))
        k--;
    out[k] = '\0';
}

/* 0 when the reply says the agent loaded: "0" then the agent's own return
 * code ("return code: 0" since JDK 9). */
static int judge_reply(const ht_proc *p, const char *agent, const outcome *o, char *err,
                       size_t errn)
{
    char *end;
    long code = strtol(o->reply, &end, 10);
    const char *rest = end;
    while (*rest == '\n' || *rest == '\r')
        rest++;
    long agent_rc = 0;
    if (end != o->reply && code == 0) {
        const char *v = strncmp(rest, "return code: ", 13) == 0 ? rest + 13 : rest;
        char *vend;
        agent_rc = strtol(v, &vend, 10);
        if (vend == v) agent_rc = 0; /* no code: nothing went wrong */
        if (agent_rc == 0) return 0;
    }
    char said[1024];
    one_line(o->reply, said, sizeof said);
    /* no reply at all: the JVM may be going (killed as it answered) */
    for (int i = 0; !said[0] && i < 10 && ht_proc_runs(p->pid); i++)
        ht_nap_ms(20);
    if (!said[0] && !ht_proc_runs(p->pid)) {
        snprintf(err, errn, "pid %d (%s) exited during the attach", (int)p->pid, ht_proc_name(p));
        return -1;
    }
    snprintf(err, errn, "pid %d (%s) could not load %s; the JVM replied: %s%s", (int)p->pid,
             ht_proc_name(p), agent, said[0] ? said : "(nothing)",
             agent_rc ? " (the agent refused to start: its reason is on the JVM's stderr)" : "");
    return -1;
}

static void say_outcome(const ht_proc *p, const plan *pl, const outcome *o, int timeout_ms,
                        char *err, size_t errn)
{
    int pid = (int)p->pid;
    char state[96] = "";
    ht_proc now;
    ht_proc_look(p->pid, &now);
    if (now.kind == HT_PROC_NONE) {
        snprintf(err, errn, "pid %d (%s) exited while heaptop attached to it", pid,
                 ht_proc_name(p));
        return;
    }
    if (now.state == 'T' || now.state == 't')
        snprintf(state, sizeof state, ": it is stopped (state %c; SIGCONT resumes it)", now.state);
    switch (o->stage) {
    case ST_IDS:
        snprintf(err, errn, "cannot become uid %u gid %u to attach to pid %d: %s",
                 (unsigned)pl->uid, (unsigned)pl->gid, pid, strerror(o->err_no));
        break;
    case ST_TRIGGER:
        snprintf(err, errn, "cannot create %s or %s to start pid %d's attach listener: %s",
                 pl->trigger[0], pl->trigger[1], pid, strerror(o->err_no));
        break;
    case ST_NO_SOCKET:
        snprintf(err, errn, "pid %d (%s) did not open its attach socket %s within %d ms%s", pid,
                 ht_proc_name(p), pl->sock, timeout_ms,
                 state[0] ? state
                          : " (attach disabled with -XX:+DisableAttachMechanism in a way "
                            "heaptop cannot see, or the JVM is too busy to answer)");
        break;
    case ST_CONNECT:
        snprintf(err, errn, "cannot connect to pid %d's attach socket %s: %s", pid, pl->sock,
                 strerror(o->err_no));
        break;
    case ST_SEND:
    case ST_RECV:
        snprintf(err, errn, "the attach connection to pid %d (%s) failed: %s", pid, ht_proc_name(p),
                 strerror(o->err_no));
        break;
    default:
        snprintf(err, errn, "pid %d (%s) did not answer the attach request within %d ms%s", pid,
                 ht_proc_name(p), timeout_ms, state);
        break;
    }
}

/* The plan for p: paths as this process sees the JVM's files, the request. */
static int make_plan(plan *pl, const ht_proc *p, const char *agent, const char *options,
                     int timeout_ms, char *err, size_t errn)
{
    memset(pl, 0, sizeof *pl);
    pl->pid = p->pid;
    char root[64] = "";
    if (p->other_mnt_ns) snprintf(root, sizeof root, "/proc/%d/root", (int)p->pid);
    int w = snprintf(pl->sock, sizeof pl->sock, "%s/tmp/.java_pid%d", root, (int)p->nspid);
    if (w < 0 || (size_t)w >= sizeof pl->sock) {
        snprintf(err, errn, "attach socket path of pid %d too long", (int)p->pid);
        return -1;
    }
    snprintf(pl->trigger[0], sizeof pl->trigger[0], "/proc/%d/cwd/.attach_pid%d", (int)p->pid,
             (int)p->nspid);
    snprintf(pl->trigger[1], sizeof pl->trigger[1], "%s/tmp/.attach_pid%d", root, (int)p->nspid);
    const char *opts = options ? options : "";
    size_t need = 2 + 5 + strlen(agent) + 1 + 5 + strlen(opts) + 1;
    if (need > sizeof pl->req) {
        snprintf(err, errn, "agent path and options too long for the attach request");
        return -1;
    }
    /* "1" NUL "load" NUL path NUL "true" (the path is absolute) NUL options NUL */
    char *at = pl->req;
    memcpy(at, "1\0load", 7);
    at += 7;
    memcpy(at, agent, strlen(agent) + 1);
    at += strlen(agent) + 1;
    memcpy(at, "true", 5);
    at += 5;
    memcpy(at, opts, strlen(opts) + 1);
    at += strlen(opts) + 1;
    pl->reqlen = (size_t)(at - pl->req);
    pl->deadline = ht_mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
    pl->switch_ids = geteuid() == 0 && (p->uid != 0 || p->gid != 0);
    pl->uid = p->uid;
    pl->gid = p->gid;
    return 0;
}

int ht_attach_load(pid_t pid, const char *agent_path, const char *options, int timeout_ms,
                   char *err, size_t errn)
{
    if (pid <= 0) {
        snprintf(err, errn, "no process with pid %d", (int)pid);
        return -1;
    }
    if (!agent_path || agent_path[0] != '/') {
        snprintf(err, errn, "the agent's path must be absolute (got '%s')",
                 agent_path ? agent_path : "");
        return -1;
    }
    ht_proc p;
    int kind = ht_proc_look(pid, &p);
    if (ht_preflight(&p, kind, agent_path, err, errn) != 0) return -1;
    /* An agent already in the JVM is loaded again on purpose: the library is
     * not mapped twice, and its Agent_OnAttach restarts an agent that was
     * detached and leaves a running one as it is (agent.c). */
    uint64_t until = ht_mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
    while (!ht_preflight_ready(&p) && ht_mono_ms() < until) {
        ht_nap_ms(20);
        kind = ht_proc_look(pid, &p);
        if (ht_preflight(&p, kind, agent_path, err, errn) != 0) return -1;
    }
    if (p.sigquit_caught != 0 && !ht_preflight_ready(&p)) {
        snprintf(err, errn, "pid %d (%s) did not finish starting within %d ms: try again later",
                 (int)pid, ht_proc_name(&p), timeout_ms);
        return -1;
    }
    if (p.sigquit_caught == 0) {
        snprintf(err, errn,
                 "pid %d (%s) did not handle SIGQUIT within %d ms (a JVM still starting, or -Xrs "
                 "given where heaptop cannot see it): the attach signal would kill it, so it was "
                 "not sent",
                 (int)pid, ht_proc_name(&p), timeout_ms);
        return -1;
    }
    plan *pl = malloc(sizeof *pl);
    outcome *o = malloc(sizeof *o);
    int rc = -1;
    if (!pl || !o) {
        snprintf(err, errn, "out of memory");
    } else if (make_plan(pl, &p, agent_path, options, timeout_ms, err, errn) == 0 &&
               clear_stale_socket(pl, &p, err, errn) == 0) {
        if (pl->switch_ids)
            exchange_as_user(pl, o);
        else
            exchange(pl, o);
        if (o->stage == ST_DONE)
            rc = judge_reply(&p, agent_path, o, err, errn);
        else
            say_outcome(&p, pl, o, timeout_ms, err, errn);
    }
    free(pl);
    free(o);
    return rc;
}
