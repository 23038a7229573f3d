/* target.c - see target.h. */
#include "target.h"

#include "attach.h"
#include "bytesize.h"
#include "proc.h"
#include "trust.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A socket file nobody listens on is stale once it is this old: an agent
 * binds, sets the mode and listens within microseconds of creating it. */
#define STALE_AGE_S 2

_Static_assert(sizeof(pid_t) == sizeof(int), "pid_t is an int");

int ht_target_from_ipc(ht_target *t, const char *path, char *err, size_t errn)
{
    memset(t, 0, sizeof *t);
    t->owner = geteuid();
    if (ht_base_is_tcp(path)) { /* an agent started with listen=HOST:PORT */
        char host[64];
        unsigned port;
        if (ht_tcp_parse(path + 6, host, sizeof host, &port, err, errn) != 0) return -1;
        snprintf(t->base, sizeof t->base, "tcp://%s:%u", host, port);
        return 0;
    }
    size_t n = strlen(path);
    static const char *const suffixes[] = {".ctl", ".events"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n >= k && strcmp(path + n - k, suffixes[i]) == 0) {
            n -= k; /* PATH.ctl or PATH.events: the base is PATH */
            break;
        }
    }
    if (n == 0) {
        snprintf(err, errn, "--ipc needs the agent's socket base path (its ipc= option)");
        return -1;
    }
    if (n + strlen(".events") >= HT_IPC_PATH_MAX) {
        snprintf(err, errn, "socket path '%s' is too long (at most %d bytes before .events)", path,
                 HT_IPC_PATH_MAX - 8);
        return -1;
    }
    memcpy(t->base, path, n);
    t->base[n] = '\0';
    return 0;
}

static int agent_ipc_of(pid_t pid, char *out, size_t n);

int ht_target_set_key(ht_target *t, const char *key_file, char *err, size_t errn)
{
    int tcp = ht_base_is_tcp(t->base);
    if (tcp && (!key_file || !key_file[0])) {
        snprintf(err, errn,
                 "%s needs the agent's key: --key FILE (the agent wrote it beside its sockets "
                 "as BASE.key, or was given key=@FILE; copy it with its 0600 mode)",
                 t->base);
        return -1;
    }
    if (!tcp && key_file) {
        snprintf(err, errn,
                 "--key is for an agent's TCP endpoint (--ipc tcp://HOST:PORT); a local socket "
                 "needs none");
        return -1;
    }
    if (key_file && snprintf(t->key, sizeof t->key, "%s", key_file) >= (int)sizeof t->key) {
        snprintf(err, errn, "--key: the path is too long");
        return -1;
    }
    return 0;
}

int ht_target_from_pid(ht_target *t, const char *text, char *err, size_t errn)
{
    memset(t, 0, sizeof *t);
    uint64_t v;
    if (ht_parse_count(text, INT_MAX, &v, NULL, 0) != HT_NUM_OK || v == 0 ||
        ht_ipc_default_base(t->base, sizeof t->base, (pid_t)v) != 0) {
        snprintf(err, errn, "'%s' is not a process id", text);
        return -1;
    }
    t->pid = (pid_t)v;
    t->owner = geteuid();
    /* an agent started with its own ipc= path: that is where it listens */
    char ipc[PATH_MAX];
    if (agent_ipc_of(t->pid, ipc, sizeof ipc) == 0 && strlen(ipc) + 8 < sizeof t->base) {
        snprintf(t->base, sizeof t->base, "%s", ipc);
        return 0;
    }
    /* a JVM whose default is not ours: its own (target.h) */
    ht_proc p;
    ht_proc_kind k = ht_proc_look(t->pid, &p);
    if ((k != HT_PROC_JVM && k != HT_PROC_JVM_AGENT) ||
        !(p.other_mnt_ns || (geteuid() == 0 && p.uid != 0)))
        return 0;
    char root[64] = "";
    if (p.other_mnt_ns) snprintf(root, sizeof root, "/proc/%d/root", (int)p.pid);
    int w = snprintf(t->base, sizeof t->base, "%s/tmp/heaptop-%u/%d", root, (unsigned)p.uid,
                     (int)p.nspid);
    if (w < 0 || (size_t)w + 8 >= sizeof t->base) {
        snprintf(err, errn, "the socket path of pid %d's agent is too long", (int)t->pid);
        return -1;
    }
    if (geteuid() == 0) t->owner = p.uid; /* root goes on as the JVM's user (reach.h) */
    return 0;
}

/* --- who listens: /proc/net/unix --- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Absolute path of `file` with its directory resolved (symlinks, "..").
 * 0 on success. */
static int canonical(const char *file, char *out, size_t n)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(file, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == file)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
    if (!realpath(dir, real)) return -1;
    int w = snprintf(out, n, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base_name(file));
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Does a listener bound to `bound` (as /proc/net/unix shows it) listen on
 * `file`? A relative bound path depends on the binder's working directory,
 * which we cannot know: then the same file name counts as a match, so a
 * socket that may be alive is never called stale. */
static int names_file(const char *bound, const char *file, const char *file_canon)
{
    if (strcmp(bound, file) == 0) return 1;
    if (strcmp(base_name(bound), base_name(file)) != 0) return 0;
    if (bound[0] != '/') return 1;
    char b[PATH_MAX];
    return file_canon[0] && canonical(bound, b, sizeof b) == 0 && strcmp(b, file_canon) == 0;
}

int ht_target_nobody_listening(const char *file)
{
    /* a file under /proc/N/root (a JVM in another mount namespace, reach.c)
     * is bound under the rest of its path, in N's network namespace */
    char table[64] = "/proc/net/unix";
    int pid = 0, at = 0;
    if (sscanf(file, "/proc/%d/root%n", &pid, &at) == 1 && at > 0 && file[at] == '/') {
        snprintf(table, sizeof table, "/proc/%d/net/unix", pid);
        file += at;
    }
    FILE *f = fopen(table, "r");
    if (!f) return 0;
    char canon[PATH_MAX];
    if (canonical(file, canon, sizeof canon) != 0) canon[0] = '\0';
    char line[4096];
    int listening = 0;
    while (!listening && fgets(line, sizeof line, f)) {
        unsigned long flags = 0;
        char path[4096] = "";
        /* Num RefCount Protocol Flags Type St Inode Path; 0x10000 = listening */
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %4095s", &flags, path) == 2 &&
            (flags & 0x10000ul) && names_file(path, file, canon))
            listening = 1;
    }
    fclose(f);
    return !listening;
}

/* The ipc= path a JVM's command line gives heaptop's agent, made absolute
 * against the JVM's working directory. 0 when found. */
static int agent_ipc_of(pid_t pid, char *out, size_t n)
{
    char path[64], args[65536];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t len = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    args[len] = '\0';
    for (size_t at = 0; at < len; at += strlen(args + at) + 1) {
        const char *a = args + at;
        if (strncmp(a, "-agentpath:", 11) != 0 || !strstr(a, "libheaptop")) continue;
        const char *opts = strchr(a + 11, '=');
        for (const char *o = opts; o; o = strchr(o + 1, ',')) {
            if (strncmp(o + 1, "ipc=", 4) != 0) continue;
            const char *v = o + 5;
            int vl = (int)strcspn(v, ",");
            char cwd[PATH_MAX] = "";
            if (v[0] != '/') {
                snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
                ssize_t k = readlink(path, cwd, sizeof cwd - 2);
                if (k <= 0) return -1;
                cwd[k] = '/';
                cwd[k + 1] = '\0';
            }
            int w = snprintf(out, n, "%s%.*s", cwd, vl, v);
            return w < 0 || (size_t)w >= n ? -1 : 0;
        }
    }
    return -1;
}

void ht_target_agent_arg(char *out, size_t n)
{
    char path[PATH_MAX], err[PATH_MAX + 128];
    if (ht_attach_find_agent(path, sizeof path, NULL, err, sizeof err) == 0)
        snprintf(out, n, "-agentpath:%s", path);
    else
        snprintf(out, n, "-agentpath:/path/to/libheaptop.so");
}

/* --- stale socket files --- */

/* The pid in a default base path (<default dir>/<pid>), else 0. */
static pid_t pid_of_default_base(const char *base)
{
    char dir[HT_IPC_PATH_MAX];
    if (ht_ipc_default_dir(dir, sizeof dir) != 0) return 0;
    size_t d = strlen(dir);
    uint64_t v;
    if (strncmp(base, dir, d) != 0 || base[d] != '/' ||
        ht_parse_count(base + d + 1, INT_MAX, &v, NULL, 0) != HT_NUM_OK)
        return 0;
    return (pid_t)v;
}

/* Remove base.ctl and base.events where they are sockets nobody listens on.
 * 0, or -1 with errno when the .ctl file could not be removed. */
static int remove_stale(const char *base)
{
    static const char *const suffixes[] = {".ctl", ".events"};
    int rc = 0;
    for (size_t i = 0; i < 2; i++) {
        char file[HT_IPC_PATH_MAX + 8];
        struct stat st;
        if (ht_ipc_file(file, sizeof file, base, suffixes[i]) != 0) continue;
        if (lstat(file, &st) != 0 || !S_ISSOCK(st.st_mode) || !ht_target_nobody_listening(file))
            continue;
        if (unlink(file) != 0 && errno != ENOENT && i == 0) rc = -1;
    }
    return rc;
}

static const char *file_kind(mode_t m)
{
    return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : "not a socket file";
}

/* base.ctl is a socket nobody listens on: stale when its owner no longer runs
 * or it is too old for a listener to be starting on it. */
static ht_target_status silent_socket(const ht_target *t, const char *ctl, const struct stat *st,
                                      char *err, size_t errn)
{
    pid_t owner = t->pid ? t->pid : pid_of_default_base(t->base);
    int gone = owner && !ht_proc_runs(owner);
    time_t changed = st->st_ctime > st->st_mtime ? st->st_ctime : st->st_mtime;
    if (!gone && time(NULL) - changed < STALE_AGE_S) {
        snprintf(err, errn, "nobody listens at %s yet (an agent may be starting)", ctl);
        return HT_TARGET_ABSENT;
    }
    int saved = 0;
    if (remove_stale(t->base) != 0) saved = errno;
    char what[HT_IPC_PATH_MAX + 96];
    if (gone)
        snprintf(what, sizeof what, "left by pid %d, which no longer runs", (int)owner);
    else
        snprintf(what, sizeof what, "at %s: nobody listens on them (the JVM that made them exited)",
                 t->base);
    if (saved)
        snprintf(err, errn, "found stale socket files %s, and cannot remove them: %s", what,
                 strerror(saved));
    else
        snprintf(err, errn, "removed stale socket files %s", what);
    /* a pid is gone for good; a path may get a new agent */
    return t->pid ? HT_TARGET_FATAL : HT_TARGET_ABSENT;
}

/* --- resolution --- */

static ht_target_status no_socket_for_pid(const ht_target *t, const char *ctl, char *err,
                                          size_t errn)
{
    char ipc[PATH_MAX], arg[PATH_MAX + 16];
    ht_proc pi;
    int pid = (int)t->pid;
    switch (ht_proc_look(t->pid, &pi)) {
    case HT_PROC_NONE:
        snprintf(err, errn, "no process with pid %d", pid);
        return HT_TARGET_FATAL;
    case HT_PROC_OTHER:
        snprintf(err, errn, "process %d (%s) is not a Java VM (no libjvm.so in /proc/%d/maps)", pid,
                 pi.comm, pid);
        return HT_TARGET_FATAL;
    case HT_PROC_UNKNOWN:
        snprintf(err, errn,
                 "process %d (%s) is not a Java VM (its command is %s, and /proc/%d/maps "
                 "cannot be read: %s)",
                 pid, pi.comm, pi.argv0[0] ? pi.argv0 : "unknown", pid, strerror(pi.maps_errno));
        return HT_TARGET_FATAL;
    case HT_PROC_JVM_AGENT:
        if (agent_ipc_of(t->pid, ipc, sizeof ipc) == 0) {
            snprintf(err, errn,
                     "pid %d (%s) runs heaptop's agent with its own socket path %s, where "
                     "nobody listens (was it detached? start the JVM again, or attach it "
                     "anew with --agent-opts ipc=%s)",
                     pid, pi.comm, ipc, ipc);
            return HT_TARGET_FATAL;
        }
        /* Loaded, not listening: detached (the library stays in the JVM), or
         * starting. A load restarts a detached agent and is a no-op on a
         * running one (agent.c), so attaching is right either way. */
        snprintf(err, errn,
                 "heaptop's agent is loaded in pid %d (%s) but does not listen at %s: it was "
                 "detached (heaptop PID and heaptop record PID start it again) or is starting",
                 pid, pi.comm, ctl);
        return HT_TARGET_NO_AGENT;
    default:
        ht_target_agent_arg(arg, sizeof arg);
        snprintf(err, errn,
                 "pid %d (%s) is a JVM without heaptop's agent (no socket %s); heaptop PID and "
                 "heaptop record PID attach it (heaptop control does not), or start the JVM with "
                 "java %s ...",
                 pid, pi.comm, ctl, arg);
        return HT_TARGET_NO_AGENT;
    }
}

ht_target_status ht_target_resolve(const ht_target *t, char *err, size_t errn)
{
    /* nothing to look at without connecting (which nng 1.5.2 punishes, see
     * above): the connection says whether anyone answers */
    if (ht_base_is_tcp(t->base)) return HT_TARGET_READY;
    char ctl[HT_IPC_PATH_MAX + 8];
    if (ht_ipc_file(ctl, sizeof ctl, t->base, ".ctl") != 0) {
        snprintf(err, errn, "socket path '%s' is too long", t->base);
        return HT_TARGET_FATAL;
    }
    /* whose directory it is comes first: nothing in another user's is looked
     * at further, let alone removed (trust.h) */
    int dfd = ht_trust_open_dir(t->base, t->owner, err, errn);
    if (dfd < 0 && errno != ENOENT) return HT_TARGET_FATAL;
    struct stat st;
    if (lstat(ctl, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            if (dfd >= 0) close(dfd);
            snprintf(err, errn, "%s is %s, not a socket", ctl, file_kind(st.st_mode));
            return HT_TARGET_FATAL;
        }
        int mine =
            dfd >= 0 && ht_trust_check_socket(dfd, t->base, ".ctl", t->owner, err, errn) == 0;
        if (dfd >= 0) close(dfd);
        if (!mine) return HT_TARGET_FATAL;
        if (!ht_target_nobody_listening(ctl)) return HT_TARGET_READY;
        return silent_socket(t, ctl, &st, err, errn);
    }
    int e = errno;
    if (dfd >= 0) close(dfd);
    if (e != ENOENT && e != ENOTDIR) {
        snprintf(err, errn, "cannot look at %s: %s", ctl, strerror(e));
        return HT_TARGET_FATAL;
    }
    if (t->pid) return no_socket_for_pid(t, ctl, err, errn);
    if (stat(t->base, &st) == 0 && !S_ISSOCK(st.st_mode)) {
        snprintf(err, errn,
                 "%s is %s, not a socket (--ipc takes the agent's socket base path, the value of "
                 "its ipc= option)",
                 t->base, file_kind(st.st_mode));
        return HT_TARGET_FATAL;
    }
    char arg[PATH_MAX + 16];
    ht_target_agent_arg(arg, sizeof arg);
    snprintf(err, errn, "no heaptop agent at %s (no socket %s); start the JVM with java %s=ipc=%s",
             t->base, ctl, arg, t->base);
    return HT_TARGET_ABSENT;
}
