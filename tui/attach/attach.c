/* attach.c - see attach.h. */
#include "attach.h"

#include "jvms.h"
#include "perfdata.h"
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

#ifndef HEAPTOP_INSTALL_LIBDIR
#define HEAPTOP_INSTALL_LIBDIR "/usr/local/lib"
#endif

#define MIN_JDK 11 /* SampledObjectAlloc (JEP 331) */

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

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int left_ms(const plan *pl)
{
    uint64_t now = mono_ms();
    return now >= pl->deadline ? 0 : (int)(pl->deadline - now);
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
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
        nap_ms(step < left_ms(pl) ? step : left_ms(pl));
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
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, pl->sock, sizeof sa.sun_path);
    /* a full backlog (EAGAIN): the listener is busy; try again until the deadline */
    while (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if ((errno != EAGAIN && errno != EINTR) || left_ms(pl) == 0) {
            o->err_no = errno == EAGAIN ? ETIMEDOUT : errno;
            o->stage = ST_CONNECT;
            close(fd);
            return;
        }
        nap_ms(10);
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
    snprintf(err, errn, "pid %d (%s) could not load %s; the JVM replied: %s%s", (int)p->pid,
             p->main_class[0] ? p->main_class : p->comm, agent, said[0] ? said : "(nothing)",
             agent_rc ? " (the agent refused to start: its reason is on the JVM's stderr)" : "");
    return -1;
}

static const char *name_of(const ht_proc *p)
{
    return p->main_class[0] ? p->main_class : p->comm;
}

static void say_outcome(const ht_proc *p, const plan *pl, const outcome *o, int timeout_ms,
                        char *err, size_t errn)
{
    int pid = (int)p->pid;
    char state[96] = "";
    ht_proc now;
    ht_proc_look(p->pid, &now);
    if (now.kind == HT_PROC_NONE) {
        snprintf(err, errn, "pid %d (%s) exited while heaptop attached to it", pid, name_of(p));
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
                 name_of(p), pl->sock, timeout_ms,
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
        snprintf(err, errn, "the attach connection to pid %d (%s) failed: %s", pid, name_of(p),
                 strerror(o->err_no));
        break;
    default:
        snprintf(err, errn, "pid %d (%s) did not answer the attach request within %d ms%s", pid,
                 name_of(p), timeout_ms, state);
        break;
    }
}

/* What the JVM's perf data file says. */
typedef struct perf_facts {
    int init_done;  /* sun.rt.vmInitDoneTime set: JVMTI's live phase, when an agent can load */
    int attach_off; /* sun.rt.jvmCapabilities starts with 0: attach disabled */
} perf_facts;

static int perf_visit(void *ctx, const ht_perf_entry *e)
{
    perf_facts *f = ctx;
    int64_t v;
    char text[8];
    if (strcmp(e->name, "sun.rt.vmInitDoneTime") == 0 && ht_perf_long(e, &v))
        f->init_done = v != 0;
    else if (strcmp(e->name, "sun.rt.jvmCapabilities") == 0 && ht_perf_string(e, text, sizeof text))
        f->attach_off = text[0] == '0';
    return 0;
}

/* Read p's /tmp/hsperfdata_<user>/<nspid>. 0, or -1 when there is none
 * (-XX:-UsePerfData) or it cannot be read. */
static int perf_facts_of(const ht_proc *p, perf_facts *f)
{
    char user[64], path[PATH_MAX], err[PATH_MAX + 64];
    memset(f, 0, sizeof *f);
    ht_proc_user_name(p->uid, user, sizeof user);
    if (p->other_mnt_ns)
        snprintf(path, sizeof path, "/proc/%d/root/tmp/hsperfdata_%s/%d", (int)p->pid, user,
                 (int)p->nspid);
    else
        snprintf(path, sizeof path, "/tmp/hsperfdata_%s/%d", user, (int)p->nspid);
    uint8_t *buf;
    size_t n;
    if (ht_jvms_read_perf_file(path, p->uid, &buf, &n, err, sizeof err) != 0) return -1;
    int rc = ht_perf_walk(buf, n, perf_visit, f, err, sizeof err);
    free(buf);
    return rc;
}

/* Can an agent load now? A JVM that has only just started may not handle
 * SIGQUIT yet (the signal would kill it), or not be in JVMTI's live phase
 * (an agent cannot load before): its perf data says when it is (HotSpot
 * creates the file early in its start; a young JVM without one yet is
 * waited for, unless -XX:-UsePerfData). */
static int ready(const ht_proc *p)
{
    perf_facts pf;
    if (p->sigquit_caught == 0) return 0;
    if (perf_facts_of(p, &pf) == 0) return pf.init_done;
    return p->perf_data_off || p->age_ms > 5000;
}

/* Refusals that need no signal: 0 to go on, -1 with err. */
static int check_target(const ht_proc *p, int kind, const char *agent, char *err, size_t errn)
{
    int pid = (int)p->pid;
    char user[64];
    switch (kind) {
    case HT_PROC_NONE:
        snprintf(err, errn, "no process with pid %d", pid);
        return -1;
    case HT_PROC_OTHER:
        snprintf(err, errn, "process %d (%s) is not a Java VM (no libjvm.so in /proc/%d/maps)", pid,
                 p->comm, pid);
        return -1;
    case HT_PROC_UNKNOWN:
        snprintf(err, errn, "process %d (%s) is not a Java VM (its command is %s)", pid, p->comm,
                 p->argv0[0] ? p->argv0 : "unknown");
        return -1;
    default:
        break;
    }
    if (p->other_mnt_ns) {
        char seen[PATH_MAX + 64];
        snprintf(seen, sizeof seen, "/proc/%d/root%s", pid, agent);
        if (access(seen, R_OK) != 0) {
            snprintf(err, errn,
                     "pid %d runs in another mount namespace (a container) where %s does not "
                     "exist: copy libheaptop.so into it and give its path there with --agent",
                     pid, agent);
            return -1;
        }
    }
    if (geteuid() != 0 && p->uid != geteuid()) {
        ht_proc_user_name(p->uid, user, sizeof user);
        snprintf(err, errn, "pid %d belongs to user %s; run heaptop as %s (or as root)", pid, user,
                 user);
        return -1;
    }
    if (geteuid() != 0 && p->gid != getegid()) {
        snprintf(err, errn,
                 "pid %d runs as group %u and heaptop as group %u: the JVM accepts only its own "
                 "group (run heaptop with group %u, or as root)",
                 pid, (unsigned)p->gid, (unsigned)getegid(), (unsigned)p->gid);
        return -1;
    }
    if (p->attach_disabled) {
        snprintf(err, errn,
                 "pid %d (%s) runs with -XX:+DisableAttachMechanism: nothing can attach to it; "
                 "start it with -agentpath:%s",
                 pid, name_of(p), agent);
        return -1;
    }
    if (p->sigquit_caught == 0 && p->reduced_signals) {
        snprintf(err, errn,
                 "pid %d (%s) runs with -Xrs: it does not handle SIGQUIT, and the attach signal "
                 "would kill it; start it with -agentpath:%s",
                 pid, name_of(p), agent);
        return -1;
    }
    perf_facts pf;
    if (perf_facts_of(p, &pf) == 0 && pf.attach_off) {
        snprintf(err, errn,
                 "pid %d (%s) has the attach mechanism disabled (its perf data says so: "
                 "-XX:+DisableAttachMechanism): start it with -agentpath:%s",
                 pid, name_of(p), agent);
        return -1;
    }
    if (p->state == 'T' || p->state == 't') {
        /* it could not answer, and would run our request whenever it resumes */
        snprintf(err, errn,
                 "pid %d (%s) is stopped (state %c): it cannot answer an attach; "
                 "resume it with kill -CONT %d first",
                 pid, name_of(p), p->state, pid);
        return -1;
    }
    int jdk = ht_proc_jdk_feature(p);
    if (jdk && jdk < MIN_JDK) {
        snprintf(err, errn,
                 "pid %d (%s) runs JDK %d: heaptop's agent needs JDK %d or later (heap sampling, "
                 "JEP 331)",
                 pid, name_of(p), jdk, MIN_JDK);
        return -1;
    }
    return 0;
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
    pl->deadline = mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
    pl->switch_ids = geteuid() == 0 && (p->uid != 0 || p->gid != 0);
    pl->uid = p->uid;
    pl->gid = p->gid;
    return 0;
}

int ht_attach_check(pid_t pid, const char *agent_path, char *err, size_t errn)
{
    ht_proc p;
    int kind = ht_proc_look(pid, &p);
    if (check_target(&p, kind, agent_path ? agent_path : "/path/to/libheaptop.so", err, errn) != 0)
        return -1;
    return kind == HT_PROC_JVM_AGENT;
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
    if (check_target(&p, kind, agent_path, err, errn) != 0) return -1;
    if (kind == HT_PROC_JVM_AGENT) return 0; /* never twice */
    uint64_t until = mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
    while (!ready(&p) && mono_ms() < until) {
        nap_ms(20);
        kind = ht_proc_look(pid, &p);
        if (check_target(&p, kind, agent_path, err, errn) != 0) return -1;
    }
    if (p.sigquit_caught != 0 && !ready(&p)) {
        snprintf(err, errn, "pid %d (%s) did not finish starting within %d ms: try again later",
                 (int)pid, name_of(&p), timeout_ms);
        return -1;
    }
    if (p.sigquit_caught == 0) {
        snprintf(err, errn,
                 "pid %d (%s) did not handle SIGQUIT within %d ms (a JVM still starting, or -Xrs "
                 "given where heaptop cannot see it): the attach signal would kill it, so it was "
                 "not sent",
                 (int)pid, name_of(&p), timeout_ms);
        return -1;
    }
    plan *pl = malloc(sizeof *pl);
    outcome *o = malloc(sizeof *o);
    int rc = -1;
    if (!pl || !o) {
        snprintf(err, errn, "out of memory");
    } else if (make_plan(pl, &p, agent_path, options, timeout_ms, err, errn) == 0) {
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

/* --- where the agent is --- */

static int usable_file(const char *path, char *out, size_t n, char *err, size_t errn)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0) {
        snprintf(err, errn, "agent library %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errn, "agent library %s is not a regular file", path);
        return -1;
    }
    if (access(real, R_OK) != 0) {
        snprintf(err, errn, "agent library %s cannot be read: %s", path, strerror(errno));
        return -1;
    }
    if (strlen(real) >= n) {
        snprintf(err, errn, "agent library path %s is too long", real);
        return -1;
    }
    snprintf(out, n, "%s", real);
    return 0;
}

int ht_attach_find_agent(char *out, size_t n, const char *override, char *err, size_t errn)
{
    char scratch[512];
    if (override) return usable_file(override, out, n, err, errn);
    /* next to this heaptop: the build tree, then installed layouts */
    static const char *const near[] = {"../agent/libheaptop.so", "../lib/libheaptop.so",
                                       "../lib/heaptop/libheaptop.so", "libheaptop.so"};
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", exe, near[i]);
            if (usable_file(path, out, n, scratch, sizeof scratch) == 0) return 0;
        }
    }
    if (usable_file(HEAPTOP_INSTALL_LIBDIR "/libheaptop.so", out, n, scratch, sizeof scratch) == 0)
        return 0;
    snprintf(err, errn,
             "cannot find heaptop's agent libheaptop.so next to heaptop (%s) or "
             "in " HEAPTOP_INSTALL_LIBDIR ": give its path with --agent PATH",
             k > 0 ? exe : "?");
    return -1;
}
