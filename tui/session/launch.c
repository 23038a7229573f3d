/* launch.c - see launch.h. */
#include "launch.h"

#include "attach.h"
#include "clock.h"
#include "console.h"
#include "options.h"
#include "proc.h"
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ht_launch_check(int argc, char **argv, char *err, size_t errn)
{
    if (argc < 1 || !argv[0] || !argv[0][0]) {
        snprintf(err, errn, "nothing after --: give the program, e.g. -- java -jar app.jar");
        return -1;
    }
    const char *slash = strrchr(argv[0], '/');
    return strcmp(slash ? slash + 1 : argv[0], "java") != 0;
}

/* The private directory of the agent's sockets and its base path. */
static int make_dir(ht_launch *l, char *err, size_t errn)
{
    char parent[HT_IPC_PATH_MAX], probe[HT_IPC_PATH_MAX + 8];
    if (ht_ipc_default_dir(parent, sizeof parent) != 0) {
        snprintf(err, errn, "no socket directory for this user");
        return -1;
    }
    snprintf(probe, sizeof probe, "%s/x", parent);
    if (ht_ipc_secure_dir(probe, err, errn) != 0) return -1;
    int w = snprintf(l->dir, sizeof l->dir, "%s/run-XXXXXX", parent);
    if (w < 0 || (size_t)w + sizeof "/agent.events" > sizeof l->dir) {
        snprintf(err, errn, "the socket directory %s is too long for a socket path", parent);
        return -1;
    }
    if (!mkdtemp(l->dir)) { /* mode 0700 */
        snprintf(err, errn, "cannot create a directory in %s: %s", parent, strerror(errno));
        l->dir[0] = '\0';
        return -1;
    }
    w = snprintf(l->base, sizeof l->base, "%s/agent", l->dir);
    return w < 0 || (size_t)w >= sizeof l->base ? -1 : 0;
}

/* --log FILE: created 0600, or emptied as `> FILE` would, but never
 * through a symlink, and only a regular file of the user's own (made 0600:
 * the program's output may be private). The fd, or -1 with err. */
static int open_named_log(const char *path, char *err, size_t errn)
{
    /* O_NONBLOCK: a FIFO without a reader is refused here, not waited on */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0) {
        if (errno == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            snprintf(err, errn,
                     "--log %s is a symlink; heaptop does not follow one there: give the file "
                     "itself",
                     path);
        else
            snprintf(err, errn, "cannot create the log file %s: %s", path, strerror(errno));
        return -1;
    }
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_uid != geteuid())
        bad = "it belongs to another user";
    else if (fchmod(fd, 0600) != 0 || ftruncate(fd, 0) != 0 ||
             fcntl(fd, F_SETFL, O_APPEND) != 0) /* blocking writes from here */
        bad = strerror(errno);
    if (bad) {
        snprintf(err, errn, "--log %s: %s", path, bad);
        close(fd);
        return -1;
    }
    return fd;
}

/* The log file: --log FILE (open_named_log), else a new heaptop-run-*.log
 * in log_dir or $TMPDIR. The fd, or -1 with err. */
static int open_log(ht_launch *l, const ht_launch_req *r, char *err, size_t errn)
{
    int fd;
    if (r->log) {
        snprintf(l->log, sizeof l->log, "%s", r->log);
        return open_named_log(r->log, err, errn);
    } else {
        const char *dir = r->log_dir ? r->log_dir : getenv("TMPDIR");
        if (!dir || !dir[0]) dir = "/tmp";
        struct tm tm;
        time_t t = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
        snprintf(l->log, sizeof l->log, "%s/heaptop-run-%s-XXXXXX.log", dir, when);
        fd = mkstemps(l->log, 4);
        if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (fd >= 0) fcntl(fd, F_SETFL, O_APPEND);
    }
    if (fd < 0) snprintf(err, errn, "cannot create the log file %s: %s", l->log, strerror(errno));
    return fd;
}

/* --- the relay: the program's stdout and stderr into the log and the Console --- */

typedef struct relay_stream {
    int fd;
    char tag; /* HT_CONSOLE_OUT, HT_CONSOLE_ERR */
    char line[HT_CONSOLE_LINE_MAX];
    size_t n;
} relay_stream;

typedef struct relay_feed {
    int fd;
    char *buf;
    size_t len, cap;
    uint64_t dropped; /* lines the Console did not get (the viewer lagged) */
} relay_feed;

#define FEED_MAX (4u << 20) /* what the relay holds for a viewer that lags */

static void feed_line(relay_feed *f, char tag, const char *s, size_t n)
{
    if (f->fd < 0) return;
    if (f->len + n + 2 > FEED_MAX) {
        f->dropped++;
        return;
    }
    if (f->dropped) {
        char note[128];
        int k =
            snprintf(note, sizeof note, "[heaptop: %llu lines not shown here: the log has them]",
                     (unsigned long long)f->dropped);
        f->dropped = 0;
        feed_line(f, HT_CONSOLE_NOTE, note, (size_t)k);
    }
    if (f->len + n + 2 > f->cap) {
        size_t cap = f->cap ? f->cap : 65536;
        while (cap < f->len + n + 2)
            cap *= 2;
        char *b = realloc(f->buf, cap);
        if (!b) {
            f->dropped++;
            return;
        }
        f->buf = b;
        f->cap = cap;
    }
    f->buf[f->len++] = tag;
    memcpy(f->buf + f->len, s, n);
    f->len += n;
    f->buf[f->len++] = '\n';
}

static void flush_partial(relay_stream *s, relay_feed *f)
{
    if (!s->n) return;
    feed_line(f, s->tag, s->line, s->n);
    s->n = 0;
}

static void feed_push(relay_feed *f)
{
    if (f->fd < 0 || !f->len) return;
    ssize_t w = write(f->fd, f->buf, f->len);
    if (w > 0) {
        memmove(f->buf, f->buf + w, f->len - (size_t)w);
        f->len -= (size_t)w;
    } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        close(f->fd); /* the viewer is gone (EPIPE): the log alone from now on */
        f->fd = -1;
        f->len = 0;
    }
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void relay(int out, int errfd, int log, int feed, const char *dir)
{
    signal(SIGPIPE, SIG_IGN);
    relay_stream s[2] = {{.fd = out, .tag = HT_CONSOLE_OUT}, {.fd = errfd, .tag = HT_CONSOLE_ERR}};
    relay_feed f = {.fd = feed};
    if (feed >= 0) fcntl(feed, F_SETFL, O_NONBLOCK);
    static char buf[65536];
    while (s[0].fd >= 0 || s[1].fd >= 0) {
        struct pollfd p[3] = {{s[0].fd, POLLIN, 0}, {s[1].fd, POLLIN, 0}, {-1, POLLOUT, 0}};
        if (f.fd >= 0 && f.len) p[2].fd = f.fd;
        int k = poll(p, 3, 200);
        if (k == 0) /* quiet: a prompt without its newline shows now */
            for (int i = 0; i < 2; i++)
                flush_partial(&s[i], &f);
        for (int i = 0; i < 2; i++) {
            if (s[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t r = read(s[i].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                flush_partial(&s[i], &f);
                close(s[i].fd);
                s[i].fd = -1;
                continue;
            }
            write_all(log, buf, (size_t)r);
            for (ssize_t j = 0; j < r; j++) {
                if (buf[j] == '\n' || s[i].n == sizeof s[i].line) {
                    feed_line(&f, s[i].tag, s[i].line, s[i].n);
                    s[i].n = 0;
                    if (buf[j] == '\n') continue;
                }
                s[i].line[s[i].n++] = buf[j];
            }
        }
        feed_push(&f);
    }
    /* the program closed its output: hand the viewer the rest, briefly */
    for (uint64_t end = ht_mono_ms() + 1000; f.fd >= 0 && f.len && ht_mono_ms() < end;) {
        struct pollfd p = {f.fd, POLLOUT, 0};
        poll(&p, 1, 100);
        feed_push(&f);
    }
    /* its agent removes its sockets as the JVM exits: then the directory goes */
    for (int i = 0; i < 20 && rmdir(dir) != 0 && errno == ENOTEMPTY; i++)
        ht_nap_ms(100);
    _exit(0);
}

/* --- starting --- */

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0) close(p[i]);
    p[0] = p[1] = -1;
}

static void child_io(int out, int errfd)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, 0);
    if (out >= 0) dup2(out, 1);
    dup2(errfd >= 0 ? errfd : null, 2);
    if (out < 0) dup2(null, 1);
    if (null > 2) close(null);
}

int ht_launch_start(ht_launch *l, const ht_launch_req *r, char *err, size_t errn)
{
    memset(l, 0, sizeof *l);
    l->feed_fd = -1;
    char agent[PATH_MAX];
    ht_options parsed;
    char why[512];
    if (ht_attach_find_agent(agent, sizeof agent, r->reach->agent, err, errn) != 0) return -1;
    if (ht_options_parse(r->reach->text, &parsed, why, sizeof why) != 0) {
        snprintf(err, errn, "%s", why);
        return -1;
    }
    if (parsed.ipc[0]) {
        snprintf(err, errn,
                 "--agent-opts ipc=%s: heaptop chooses the socket of a program it "
                 "starts (a private one)",
                 parsed.ipc);
        return -1;
    }
    int script = ht_launch_check(r->argc, r->argv, err, errn);
    if (script < 0) return -1;
    /* JAVA_TOOL_OPTIONS is split at white space, and quotes are not for every JDK */
    if (script && (strpbrk(agent, " \t\n\"'\\") || strpbrk(r->reach->text, " \t\n\"'\\"))) {
        snprintf(err, errn,
                 "'%s' is not a java launcher, and the agent's path or options hold a space or "
                 "quote, which JAVA_TOOL_OPTIONS cannot carry: give java itself after --",
                 r->argv[0]);
        return -1;
    }
    l->script = script;
    snprintf(l->prog, sizeof l->prog, "%s", r->argv[0]);
    if (!script && make_dir(l, err, errn) != 0) return -1;
    int log = open_log(l, r, err, errn);
    if (log < 0) {
        if (l->dir[0]) rmdir(l->dir);
        return -1;
    }
    const char *tool = getenv("JAVA_TOOL_OPTIONS");
    size_t alen = strlen(agent) + strlen(r->reach->text) + strlen(l->base) + 32 +
                  (script && tool ? strlen(tool) : 0);
    char *agentarg = malloc(alen);
    char **argv = calloc((size_t)r->argc + 2, sizeof *argv);
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, feed[2] = {-1, -1}, ex[2] = {-1, -1};
    if (!agentarg || !argv || pipe2(outp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
        pipe2(ex, O_CLOEXEC) || (r->console && pipe2(feed, O_CLOEXEC))) {
        snprintf(err, errn, "cannot start the program: %s", strerror(errno ? errno : ENOMEM));
        goto fail;
    }
    if (script) { /* after what JAVA_TOOL_OPTIONS holds already; each JVM its default path */
        snprintf(agentarg, alen, "%s%s-agentpath:%s%s%s", tool && tool[0] ? tool : "",
                 tool && tool[0] ? " " : "", agent, r->reach->text[0] ? "=" : "", r->reach->text);
        for (int i = 0; i < r->argc; i++)
            argv[i] = r->argv[i];
    } else {
        snprintf(agentarg, alen, "-agentpath:%s=%s%sipc=%s", agent, r->reach->text,
                 r->reach->text[0] ? "," : "", l->base);
        argv[0] = r->argv[0];
        argv[1] = agentarg;
        for (int i = 1; i < r->argc; i++)
            argv[i + 1] = r->argv[i];
        l->jvm = 0; /* known once it runs: the program itself */
    }
    fflush(NULL);
    l->pid = fork();
    if (l->pid < 0) {
        snprintf(err, errn, "cannot start the program: fork: %s", strerror(errno));
        goto fail;
    }
    if (l->pid == 0) { /* the program: its own session, away from heaptop's terminal */
        setsid();
        child_io(outp[1], errp[1]);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (script) setenv("JAVA_TOOL_OPTIONS", agentarg, 1);
        execvp(argv[0], argv);
        int e = errno;
        write_all(ex[1], (const char *)&e, sizeof e);
        _exit(127);
    }
    close(ex[1]);
    ex[1] = -1;
    l->relay = fork();
    if (l->relay == 0) { /* the relay: in a session of its own, outliving heaptop */
        setsid();
        close(outp[1]);
        close(errp[1]);
        if (feed[0] >= 0) close(feed[0]);
        child_io(-1, -1);
        relay(outp[0], errp[0], log, feed[1], l->dir);
    }
    if (l->relay < 0) l->relay = 0; /* the pipes fill and the program blocks: stopped below */
    close_pair(outp);
    close_pair(errp);
    close(log);
    log = -1;
    if (feed[1] >= 0) close(feed[1]);
    l->feed_fd = feed[0];
    if (l->feed_fd >= 0) fcntl(l->feed_fd, F_SETFL, O_NONBLOCK);
    int e = 0;
    ssize_t got;
    while ((got = read(ex[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(ex[0]);
    free(agentarg);
    free(argv);
    if (!script) l->jvm = l->pid;
    if (got == (ssize_t)sizeof e || !l->relay) {
        if (got == (ssize_t)sizeof e)
            snprintf(err, errn, "cannot run %s: %s", r->argv[0], strerror(e));
        else
            snprintf(err, errn, "cannot start the relay of the program's output: %s",
                     strerror(errno));
        ht_launch_stop(l, 1000);
        ht_launch_close(l);
        if (!r->log) unlink(l->log);
        return -1;
    }
    return 0;
fail:
    close_pair(outp);
    close_pair(errp);
    close_pair(feed);
    close_pair(ex);
    free(agentarg);
    free(argv);
    close(log);
    if (!r->log) unlink(l->log);
    if (l->dir[0]) rmdir(l->dir);
    return -1;
}

/* --- while it runs --- */

static void reap_relay(ht_launch *l, int wait_ms)
{
    for (uint64_t end = ht_mono_ms() + (uint64_t)wait_ms; l->relay;) {
        if (waitpid(l->relay, NULL, WNOHANG) != 0) {
            l->relay = 0;
            break;
        }
        if (ht_mono_ms() >= end) break;
        ht_nap_ms(10);
    }
}

int ht_launch_poll(ht_launch *l)
{
    if (!l->exited && l->pid > 0) {
        int st;
        if (waitpid(l->pid, &st, WNOHANG) == l->pid) {
            l->exited = 1;
            l->status = st;
        }
    }
    reap_relay(l, 0);
    return l->exited;
}

void ht_launch_exit_text(const ht_launch *l, char *out, size_t n)
{
    if (!l->exited)
        snprintf(out, n, "is running");
    else if (WIFEXITED(l->status))
        snprintf(out, n, "exited with code %d", WEXITSTATUS(l->status));
    else if (WIFSIGNALED(l->status))
        snprintf(out, n, "was killed by signal %d (%s)", WTERMSIG(l->status),
                 strsignal(WTERMSIG(l->status)));
    else
        snprintf(out, n, "ended (status %#x)", (unsigned)l->status);
}

/* The last `want` lines of the log, each indented on a line of its own. */
static void log_tail(const char *path, int want, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[4096];
    fseek(f, 0, SEEK_END);
    long size = ftell(f), from = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
    fseek(f, from, SEEK_SET);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (got && buf[got - 1] == '\n')
        got--;
    buf[got] = '\0';
    char *p = buf + got;
    for (int lines = 0; p > buf; p--)
        if (p[-1] == '\n' && ++lines == want) break;
    size_t k = 0;
    for (char *line = strtok(p, "\n"); line && k + 8 < n; line = strtok(NULL, "\n"))
        k += (size_t)snprintf(out + k, n - k, "\n  %s", line);
}

/* The session of pid (field 6 of /proc/PID/stat), or -1. */
static pid_t session_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name in parentheses may hold anything */
    int sid;
    return p && sscanf(p + 1, " %*c %*d %*d %d", &sid) == 1 ? (pid_t)sid : -1;
}

/* A script's JVM: the first (lowest pid) process of the program's session
 * that is a JVM whose agent listens at its default path; 1 found (l->jvm,
 * l->base), 0 not yet. */
static int find_script_jvm(ht_launch *l)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    pid_t best = 0;
    ht_target found;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || v <= 0 || (best && v >= best) || session_of((pid_t)v) != l->pid) continue;
        ht_proc p;
        ht_target t;
        char why[512];
        if (ht_proc_look((pid_t)v, &p) != HT_PROC_JVM_AGENT ||
            ht_target_from_pid(&t, e->d_name, why, sizeof why) != 0 ||
            ht_target_resolve(&t, why, sizeof why) != HT_TARGET_READY)
            continue;
        best = (pid_t)v;
        found = t;
    }
    closedir(d);
    if (!best) return 0;
    l->jvm = best;
    snprintf(l->base, sizeof l->base, "%s", found.base);
    return 1;
}

int ht_launch_wait_agent(ht_launch *l, int timeout_ms, char *err, size_t errn)
{
    ht_target t;
    if (!l->script && ht_target_from_ipc(&t, l->base, err, errn) != 0) return -1;
    for (uint64_t end = ht_mono_ms() + (uint64_t)timeout_ms;;) {
        char why[512];
        if (l->script ? find_script_jvm(l)
                      : ht_target_resolve(&t, why, sizeof why) == HT_TARGET_READY)
            return 0;
        if (ht_launch_poll(l)) {
            reap_relay(l, 2000); /* its output is all in the log */
            char how[128], tail[2048];
            ht_launch_exit_text(l, how, sizeof how);
            log_tail(l->log, 8, tail, sizeof tail);
            snprintf(err, errn, "the program %s before %s listened%s%s", how,
                     l->script ? "any JVM it started" : "its agent",
                     tail[0] ? "; its last lines:" : " (it printed nothing)", tail);
            return -1;
        }
        if (ht_mono_ms() >= end) {
            ht_launch_stop(l, 2000);
            if (l->script)
                snprintf(err, errn,
                         "no JVM that %s started listened with heaptop's agent within %d ms; the "
                         "program was stopped (its output is in %s)",
                         l->prog, timeout_ms, l->log);
            else
                snprintf(err, errn,
                         "the agent did not open %s.ctl within %d ms; the program was stopped "
                         "(its output is in %s)",
                         l->base, timeout_ms, l->log);
            return -1;
        }
        ht_nap_ms(l->script ? 50 : 20); /* a script's: a walk of /proc each time */
    }
}

void ht_launch_say_end(const ht_launch *l, const char *prog, int stopped, FILE *f)
{
    char how[128], tail[2048] = "";
    ht_launch_exit_text(l, how, sizeof how);
    int failed = !stopped && !(WIFEXITED(l->status) && WEXITSTATUS(l->status) == 0);
    if (failed) log_tail(l->log, 8, tail, sizeof tail);
    fprintf(f, "%s: the program (pid %d) %s; its output is in %s%s%s\n", prog, (int)l->pid, how,
            l->log, tail[0] ? "; its last lines:" : "", tail);
}

int ht_launch_stop(ht_launch *l, int deadline_ms)
{
    if (l->pid <= 0 || ht_launch_poll(l)) return 0;
    kill(-l->pid, SIGTERM);
    for (uint64_t end = ht_mono_ms() + (uint64_t)deadline_ms; ht_mono_ms() < end; ht_nap_ms(20))
        if (ht_launch_poll(l)) return 0;
    kill(-l->pid, SIGKILL);
    for (uint64_t end = ht_mono_ms() + 5000; ht_mono_ms() < end; ht_nap_ms(20))
        if (ht_launch_poll(l)) return 0;
    return -1;
}

void ht_launch_close(ht_launch *l)
{
    if (l->feed_fd >= 0) close(l->feed_fd);
    l->feed_fd = -1;
    if (l->exited) {
        reap_relay(l, 1000);
        if (l->dir[0]) rmdir(l->dir);
    }
}
