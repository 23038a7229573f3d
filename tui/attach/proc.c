/* proc.c - see proc.h. */
#include "proc.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int ht_proc_runs(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return errno == ENOENT ? 0 : (kill(pid, 0) == 0 || errno == EPERM);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

/* Up to n-1 bytes of a small /proc file; returns the length read. */
static size_t read_small(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(out, 1, n - 1, f) : 0;
    if (f) fclose(f);
    out[len] = '\0';
    return len;
}

/* Copy what fits of src into out (n > 0). */
static void copy_text(char *out, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n) k = n - 1;
    memcpy(out, src, k);
    out[k] = '\0';
}

/* Java launcher options whose value is the next word. */
static int takes_value(const char *a)
{
    static const char *const opts[] = {
        "-cp",           "-classpath",      "--class-path",          "-p",
        "--module-path", "--add-modules",   "--add-opens",           "--add-exports",
        "--add-reads",   "--limit-modules", "--upgrade-module-path", "--patch-module",
        "--source"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strcmp(a, opts[i]) == 0) return 1;
    return 0;
}

/* The main class (or -jar file, or -m module/class) of a java command line:
 * words separated by NULs. */
static void main_class_of(const char *args, size_t len, char *out, size_t n)
{
    out[0] = '\0';
    size_t at = strlen(args) + 1; /* past argv[0] */
    while (at < len) {
        const char *a = args + at;
        at += strlen(a) + 1;
        int jar = strcmp(a, "-jar") == 0, mod = strcmp(a, "-m") == 0 || !strcmp(a, "--module");
        if (jar || mod) {
            if (at < len) copy_text(out, n, jar ? base_name(args + at) : args + at);
            return;
        }
        if (takes_value(a)) {
            if (at < len) at += strlen(args + at) + 1;
        } else if (a[0] != '-' && a[0] != '@') { /* @argfiles hold options */
            copy_text(out, n, a);
            return;
        }
    }
}

/* The last of the words `on` (1) and `off` (0) in a list of words separated
 * by sep; -1 when neither is there. */
static int last_flag(const char *words, size_t len, int sep, const char *on, const char *off)
{
    int v = -1;
    for (size_t at = 0; at < len;) {
        const char *w = words + at;
        size_t wl = 0;
        while (at + wl < len && w[wl] != sep && w[wl] != '\0')
            wl++;
        if (wl == strlen(on) && strncmp(w, on, wl) == 0) v = 1;
        if (off && wl == strlen(off) && strncmp(w, off, wl) == 0) v = 0;
        at += wl + 1;
    }
    return v;
}

/* A JVM flag as the JVM sees it: from JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS,
 * the command line, then _JAVA_OPTIONS (HotSpot's order: the last wins).
 * Flags in an @argfile are not seen. */
static int java_flag(const char *env, size_t envlen, const char *cmd, size_t cmdlen, const char *on,
                     const char *off)
{
    static const char *const vars[] = {"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", NULL,
                                       "_JAVA_OPTIONS="};
    int v = -1, w;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (!vars[i]) {
            if ((w = last_flag(cmd, cmdlen, '\0', on, off)) >= 0) v = w;
            continue;
        }
        size_t k = strlen(vars[i]);
        for (size_t at = 0; env && at < envlen; at += strlen(env + at) + 1)
            if (strncmp(env + at, vars[i], k) == 0 &&
                (w = last_flag(env + at + k, strlen(env + at + k), ' ', on, off)) >= 0)
                v = w;
    }
    return v == 1;
}

static void scan_flags(ht_proc *p, const char *cmd, size_t cmdlen)
{
    char path[64];
    char *env = malloc(65536);
    size_t envlen = 0;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)p->pid);
    if (env) envlen = read_small(path, env, 65536);
    p->attach_disabled = java_flag(env, envlen, cmd, cmdlen, "-XX:+DisableAttachMechanism",
                                   "-XX:-DisableAttachMechanism");
    p->reduced_signals = java_flag(env, envlen, cmd, cmdlen, "-Xrs", NULL);
    p->perf_data_off = java_flag(env, envlen, cmd, cmdlen, "-XX:-UsePerfData", "-XX:+UsePerfData");
    free(env);
}

/* Effective ids, innermost NSpid and SIGQUIT handling from /proc/PID/status. */
static void read_status(ht_proc *p)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/status", (int)p->pid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        unsigned long long mask;
        unsigned r, e;
        if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
            p->uid = (uid_t)e;
        } else if (sscanf(line, "Gid: %u %u", &r, &e) == 2) {
            p->gid = (gid_t)e;
        } else if (strncmp(line, "NSpid:", 6) == 0) {
            char *save = NULL;
            for (char *t = strtok_r(line + 6, " \t\n", &save); t;
                 t = strtok_r(NULL, " \t\n", &save))
                p->nspid = (pid_t)atoi(t);
        } else if (sscanf(line, "SigCgt: %llx", &mask) == 1) {
            p->sigquit_caught = (mask >> (SIGQUIT - 1)) & 1;
        }
    }
    fclose(f);
}

static void read_state(ht_proc *p)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
    read_small(path, buf, sizeof buf);
    const char *rp = strrchr(buf, ')');
    p->state = rp && rp[1] == ' ' && rp[2] ? rp[2] : '?';
    /* field 22, starttime, in clock ticks since boot; rp is field 2's end */
    unsigned long long start = 0;
    double up = 0;
    char upbuf[64];
    if (rp &&
        sscanf(rp + 2,
               "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
               "%*s %*s %llu",
               &start) == 1 &&
        read_small("/proc/uptime", upbuf, sizeof upbuf) && sscanf(upbuf, "%lf", &up) == 1) {
        double age = up - (double)start / (double)sysconf(_SC_CLK_TCK);
        p->age_ms = age > 0 ? (uint64_t)(age * 1000) : 0;
    }
}

static int other_mount_ns(pid_t pid)
{
    char path[64];
    struct stat mine, theirs;
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    if (stat("/proc/self/ns/mnt", &mine) != 0 || stat(path, &theirs) != 0) return 0;
    return mine.st_ino != theirs.st_ino || mine.st_dev != theirs.st_dev;
}

ht_proc_kind ht_proc_look(pid_t pid, ht_proc *p)
{
    memset(p, 0, sizeof *p);
    p->pid = p->nspid = pid;
    p->state = '?';
    p->sigquit_caught = -1;
    if (!ht_proc_runs(pid)) return p->kind = HT_PROC_NONE;
    char path[64];
    char *cmd = malloc(65536); /* a long class path: too big for a job thread's stack */
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    read_small(path, p->comm, sizeof p->comm);
    p->comm[strcspn(p->comm, "\n")] = '\0';
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    if (cmd) {
        len = read_small(path, cmd, 65536);
        copy_text(p->argv0, sizeof p->argv0, cmd);
        main_class_of(cmd, len, p->main_class, sizeof p->main_class);
        scan_flags(p, cmd, len);
        free(cmd);
    }
    p->uid = (uid_t)-1;
    p->gid = (gid_t)-1;
    read_status(p);
    read_state(p);
    p->other_mnt_ns = other_mount_ns(pid);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        p->maps_errno = errno;
        if (!ht_proc_runs(pid)) return p->kind = HT_PROC_NONE;
        int java = strcmp(p->comm, "java") == 0 || strcmp(base_name(p->argv0), "java") == 0;
        return p->kind = java ? HT_PROC_JVM : HT_PROC_UNKNOWN;
    }
    char *line = NULL;
    size_t cap = 0;
    int agent = 0, mapped = 0;
    while (getline(&line, &cap, f) > 0) {
        mapped = 1;
        const char *slash = strchr(line, '/');
        if (!p->libjvm[0] && slash && strstr(slash, "/libjvm.so")) {
            copy_text(p->libjvm, sizeof p->libjvm, slash);
            p->libjvm[strcspn(p->libjvm, "\n")] = '\0';
        }
        if (strstr(line, "/libheaptop.so")) agent = 1;
    }
    free(line);
    fclose(f);
    /* a java whose memory is already gone is exiting (killed a moment ago):
     * gone, not "not a JVM" (a kernel thread, also unmapped, is not java) */
    if (!mapped && (strcmp(p->comm, "java") == 0 || !ht_proc_runs(pid)))
        return p->kind = HT_PROC_NONE;
    return p->kind = p->libjvm[0] && agent ? HT_PROC_JVM_AGENT
                     : p->libjvm[0]        ? HT_PROC_JVM
                                           : HT_PROC_OTHER;
}

int ht_proc_jdk_feature(const ht_proc *p)
{
    if (!p->libjvm[0]) return 0;
    char dir[PATH_MAX], file[PATH_MAX + 64], text[4096];
    /* as this process sees the JVM's files */
    int w = p->other_mnt_ns ? snprintf(dir, sizeof dir, "/proc/%d/root%s", (int)p->pid, p->libjvm)
                            : snprintf(dir, sizeof dir, "%s", p->libjvm);
    if (w < 0 || (size_t)w >= sizeof dir) return 0;
    /* .../lib/server/libjvm.so (9+) or .../jre/lib/amd64/server/libjvm.so (8) */
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) return 0;
        *slash = '\0';
        snprintf(file, sizeof file, "%s/release", dir);
        if (read_small(file, text, sizeof text) == 0) continue;
        const char *v = strstr(text, "JAVA_VERSION=\"");
        if (!v) return 0;
        v += 14;
        int major = atoi(v);
        if (major == 1 && v[1] == '.') major = atoi(v + 2); /* 1.8.0_392 */
        return major;
    }
    return 0;
}

const char *ht_proc_name(const ht_proc *p)
{
    return p->main_class[0] ? p->main_class : p->comm;
}

void ht_proc_user_name(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *found = NULL;
    char buf[2048];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        copy_text(out, n, found->pw_name);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
}

int ht_proc_perf_path(const ht_proc *p, char *out, size_t n)
{
    char user[64];
    ht_proc_user_name(p->uid, user, sizeof user);
    int w = p->other_mnt_ns ? snprintf(out, n, "/proc/%d/root/tmp/hsperfdata_%s/%d", (int)p->pid,
                                       user, (int)p->nspid)
                            : snprintf(out, n, "/tmp/hsperfdata_%s/%d", user, (int)p->nspid);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}
