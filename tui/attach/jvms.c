/* jvms.c - see jvms.h. */
#include "jvms.h"

#include "perfdata.h"
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERF_FILE_MAX (4u << 20) /* HotSpot's default is 32 KiB (PerfDataMemorySize) */

int ht_jvms_read_perf_file(const char *path, uid_t uid, uint8_t **buf, size_t *n, char *err,
                           size_t errn)
{
    *buf = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errn, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = "cannot be looked at";
    else if (!S_ISREG(st.st_mode))
        bad = "is not a regular file";
    else if (st.st_uid != uid)
        bad = "belongs to another user";
    else if (st.st_size > (off_t)PERF_FILE_MAX)
        bad = "is larger than 4 MiB";
    if (bad) {
        snprintf(err, errn, "%s %s", path, bad);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size, got = 0;
    uint8_t *b = malloc(size ? size : 1);
    if (!b) {
        snprintf(err, errn, "out of memory");
        close(fd);
        return -1;
    }
    while (got < size) {
        ssize_t r = read(fd, b + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* shorter than it said: parse what is there */
        got += (size_t)r;
    }
    close(fd);
    *buf = b;
    *n = got;
    return 0;
}

/* Seconds since pid started: /proc/PID/stat's start time against /proc/uptime. */
static uint64_t uptime_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    if (!p) return 0;
    /* after ") ": state is field 3, starttime field 22 */
    unsigned long long start = 0;
    int field = 2;
    for (const char *s = p + 1; *s && field < 22; s++)
        if (*s == ' ' && ++field == 22) start = strtoull(s + 1, NULL, 10);
    double up = 0;
    f = fopen("/proc/uptime", "r");
    if (f) {
        if (fscanf(f, "%lf", &up) != 1) up = 0;
        fclose(f);
    }
    long hz = sysconf(_SC_CLK_TCK);
    double since = up - (double)start / (double)(hz > 0 ? hz : 100);
    return since > 0 ? (uint64_t)since : 0;
}

/* The main class or jar from perf data's command: its first word, a jar by
 * its file name. */
static void main_of_command(const char *cmd, char *out, size_t n)
{
    size_t w = strcspn(cmd, " ");
    const char *word = cmd;
    if (w > 4 && strncmp(cmd + w - 4, ".jar", 4) == 0) {
        for (size_t i = 0; i < w; i++)
            if (cmd[i] == '/') word = cmd + i + 1;
        w -= (size_t)(word - cmd);
    }
    snprintf(out, n, "%.*s", (int)w, word);
}

/* The feature release in a java.version ("1.8.0_392": 8, "17.0.15": 17), 0 unknown. */
static int feature_of(const char *v)
{
    int major = atoi(v);
    if (major == 1 && v[1] == '.') major = atoi(v + 2);
    return major;
}

static void perf_details(ht_jvm *j, const ht_proc *p, const char *perf_dir, int *attach)
{
    char path[PATH_MAX], err[256];
    if (perf_dir)
        snprintf(path, sizeof path, "%s/%d", perf_dir, (int)j->pid);
    else if (ht_proc_perf_path(p, path, sizeof path) != 0)
        return;
    uint8_t *buf;
    size_t n;
    ht_perf_summary *s = malloc(sizeof *s);
    if (s && ht_jvms_read_perf_file(path, p->uid, &buf, &n, err, sizeof err) == 0) {
        if (ht_perf_summarize(buf, n, s, err, sizeof err) == 0) {
            j->from_perf = 1;
            if (s->command[0]) main_of_command(s->command, j->main, sizeof j->main);
            j->heap_known = s->heap_known;
            j->heap_used = s->heap_used;
            snprintf(j->java_version, sizeof j->java_version, "%s", s->java_version);
            *attach = s->attach;
        }
        free(buf);
    }
    free(s);
}

/* What the AGENT column says of a JVM without heaptop's agent. */
static void judge_attach(ht_jvm *j, const ht_proc *p, int perf_attach)
{
    int feature = j->java_version[0] ? feature_of(j->java_version) : ht_proc_jdk_feature(p);
    const char *why = NULL;
    char buf[sizeof j->reason];
    if (perf_attach == 0 || p->attach_disabled) {
        why = "attach is disabled (-XX:+DisableAttachMechanism)";
    } else if (feature > 0 && feature < 11) {
        snprintf(buf, sizeof buf, "JDK %d, heaptop needs 11 or later", feature);
        why = buf;
    } else if (p->state == 'T' || p->state == 't') {
        why = "stopped (SIGSTOP), it cannot answer";
    } else if (p->sigquit_caught == 0) {
        why = "it ignores SIGQUIT (-Xrs, or still starting)";
    }
    j->agent = why ? HT_JVM_NOT_ATTACHABLE : HT_JVM_ATTACHABLE;
    snprintf(j->reason, sizeof j->reason, "%s", why ? why : "");
}

/* Text from other processes goes to a terminal: no control characters. */
static void clean(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) *s = '?';
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const ht_jvm *)a)->pid, y = ((const ht_jvm *)b)->pid;
    return (x > y) - (x < y);
}

/* A decimal pid, else 0. */
static pid_t pid_name(const char *s)
{
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000) return 0;
        v = v * 10 + (*s - '0');
    }
    return (pid_t)v;
}

static int add(ht_jvm_list *l, size_t *cap, const ht_jvm *j)
{
    if (l->n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        ht_jvm *v = realloc(l->v, c * sizeof *v);
        if (!v) return -1;
        l->v = v;
        *cap = c;
    }
    l->v[l->n++] = *j;
    return 0;
}

int ht_jvms_list(ht_jvm_list *l, const char *perf_dir, ht_jvm_agent_probe probe, void *ctx,
                 char *err, size_t errn)
{
    memset(l, 0, sizeof *l);
    uid_t uid = geteuid();
    ht_proc_user_name(uid, l->user, sizeof l->user);
    l->all_users = uid == 0;
    DIR *d = opendir("/proc");
    if (!d) {
        snprintf(err, errn, "cannot read /proc: %s", strerror(errno));
        return -1;
    }
    ht_proc *p = malloc(sizeof *p);
    ht_jvm *j = malloc(sizeof *j);
    size_t cap = 0;
    int rc = p && j ? 0 : -1;
    struct dirent *e;
    pid_t self = getpid();
    while (rc == 0 && (e = readdir(d))) {
        pid_t pid = pid_name(e->d_name);
        if (pid <= 0 || pid == self) continue;
        char path[64];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d", (int)pid);
        /* the owner of /proc/PID first: reading every process's map is the cost */
        if (stat(path, &st) != 0 || (!l->all_users && st.st_uid != uid)) continue;
        ht_proc_kind kind = ht_proc_look(pid, p);
        if ((kind != HT_PROC_JVM && kind != HT_PROC_JVM_AGENT) || (!l->all_users && p->uid != uid))
            continue;
        memset(j, 0, sizeof *j);
        j->pid = pid;
        j->uid = p->uid;
        ht_proc_user_name(p->uid, j->owner, sizeof j->owner);
        if (strncmp(j->owner, "uid ", 4) == 0) /* no name: the number alone, one word */
            memmove(j->owner, j->owner + 4, strlen(j->owner + 4) + 1);
        snprintf(j->main, sizeof j->main, "%s", p->main_class[0] ? p->main_class : "?");
        j->uptime_s = uptime_of(pid);
        int attach = -1;
        perf_details(j, p, perf_dir, &attach);
        if (kind == HT_PROC_JVM_AGENT) {
            char why[sizeof j->reason] = "";
            int ready = probe ? probe(pid, why, sizeof why, ctx) : 1;
            j->agent = ready ? HT_JVM_AGENT_READY : HT_JVM_AGENT_ELSEWHERE;
            snprintf(j->reason, sizeof j->reason, "%s", ready ? "" : why);
        } else {
            judge_attach(j, p, attach);
        }
        clean(j->main);
        clean(j->owner);
        clean(j->reason);
        if (add(l, &cap, j) != 0) rc = -1;
    }
    closedir(d);
    free(p);
    free(j);
    if (rc != 0) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    if (l->n) qsort(l->v, l->n, sizeof *l->v, by_pid);
    return 0;
}

void ht_jvms_free(ht_jvm_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

void ht_jvm_agent_text(const ht_jvm *j, char *out, size_t n)
{
    switch (j->agent) {
    case HT_JVM_AGENT_READY:
        snprintf(out, n, "heaptop");
        break;
    case HT_JVM_AGENT_ELSEWHERE:
        snprintf(out, n, "heaptop (%s)", j->reason);
        break;
    case HT_JVM_ATTACHABLE:
        snprintf(out, n, "attachable");
        break;
    default:
        snprintf(out, n, "not attachable: %s", j->reason);
        break;
    }
}
