/* preflight.c - see preflight.h. */
#include "preflight.h"

#include "attach.h"
#include "jvms.h"
#include "perfdata.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HEAPTOP_INSTALL_LIBDIR
#define HEAPTOP_INSTALL_LIBDIR "/usr/local/lib"
#endif

#define MIN_JDK 11 /* SampledObjectAlloc (JEP 331) */
/* HotSpot creates its perf data file within a few tens of ms of starting;
 * a JVM older than this without one has none (-XX:-UsePerfData unseen) */
#define YOUNG_MS 2000

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
    char path[PATH_MAX], err[PATH_MAX + 64];
    memset(f, 0, sizeof *f);
    if (ht_proc_perf_path(p, path, sizeof path) != 0) return -1;
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
int ht_preflight_ready(const ht_proc *p)
{
    perf_facts pf;
    if (p->sigquit_caught == 0) return 0;
    if (perf_facts_of(p, &pf) == 0) return pf.init_done;
    return p->perf_data_off || p->age_ms > YOUNG_MS;
}

/* Refusals that need no signal: 0 to go on, -1 with err. */
int ht_preflight(const ht_proc *p, int kind, const char *agent, char *err, size_t errn)
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
        snprintf(err, errn, "pid %d belongs to user %s; run heaptop as %s%s", pid, user, user,
                 p->uid == 0 ? "" : " (or as root)");
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
                 pid, ht_proc_name(p), agent);
        return -1;
    }
    if (p->sigquit_caught == 0 && p->reduced_signals) {
        snprintf(err, errn,
                 "pid %d (%s) runs with -Xrs: it does not handle SIGQUIT, and the attach signal "
                 "would kill it; start it with -agentpath:%s",
                 pid, ht_proc_name(p), agent);
        return -1;
    }
    perf_facts pf;
    if (perf_facts_of(p, &pf) == 0 && pf.attach_off) {
        snprintf(err, errn,
                 "pid %d (%s) has the attach mechanism disabled (its perf data says so: "
                 "-XX:+DisableAttachMechanism): start it with -agentpath:%s",
                 pid, ht_proc_name(p), agent);
        return -1;
    }
    if (p->state == 'T' || p->state == 't') {
        /* it could not answer, and would run our request whenever it resumes */
        snprintf(err, errn,
                 "pid %d (%s) is stopped (state %c): it cannot answer an attach; "
                 "resume it with kill -CONT %d first",
                 pid, ht_proc_name(p), p->state, pid);
        return -1;
    }
    int jdk = ht_proc_jdk_feature(p);
    if (jdk && jdk < MIN_JDK) {
        snprintf(err, errn,
                 "pid %d (%s) runs JDK %d: heaptop's agent needs JDK %d or later (heap sampling, "
                 "JEP 331)",
                 pid, ht_proc_name(p), jdk, MIN_JDK);
        return -1;
    }
    return 0;
}

int ht_attach_check(pid_t pid, const char *agent_path, char *err, size_t errn)
{
    ht_proc p;
    int kind = ht_proc_look(pid, &p);
    if (ht_preflight(&p, kind, agent_path ? agent_path : "/path/to/libheaptop.so", err, errn) != 0)
        return -1;
    return kind == HT_PROC_JVM_AGENT;
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
