/*
 * proc.h - what runs as a pid, read from /proc: a JVM or not, with heaptop's
 * agent or without, its user, its namespaces, its main class and JDK.
 *
 * Owns: the one reader of /proc/<pid>/{stat,status,comm,cmdline,maps} that
 * tells a JVM (libjvm.so mapped) from other processes, and heaptop's agent
 * (libheaptop.so mapped) in it. Used by the attach (attach.c) and by the
 * target checks of the viewer (tui/session/target.c), on any thread.
 *
 * It only reads /proc and the JVM's `release` file: it never signals, opens
 * a socket, or changes anything.
 */
#ifndef HEAPTOP_PROC_H
#define HEAPTOP_PROC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum ht_proc_kind {
    HT_PROC_NONE,      /* no such process (or a zombie) */
    HT_PROC_OTHER,     /* runs, and is not a JVM */
    HT_PROC_JVM,       /* a JVM without heaptop's agent */
    HT_PROC_JVM_AGENT, /* a JVM with libheaptop.so loaded */
    HT_PROC_UNKNOWN,   /* runs, its memory map cannot be read and its command is not java */
} ht_proc_kind;

typedef struct ht_proc {
    pid_t pid;
    ht_proc_kind kind;
    char comm[64];         /* /proc/PID/comm */
    char argv0[256];       /* first word of /proc/PID/cmdline */
    char main_class[256];  /* the main class (or -jar file, or module/class), or "" */
    int maps_errno;        /* why /proc/PID/maps could not be read, or 0 */
    char libjvm[PATH_MAX]; /* the libjvm.so it maps, as the process sees it, or "" */
    uid_t uid;             /* effective uid and gid (/proc/PID/status) */
    gid_t gid;
    pid_t nspid;         /* its pid in its own pid namespace (last NSpid), else pid */
    int other_mnt_ns;    /* 1 when it runs in another mount namespace than we do */
    char state;          /* R, S, T (stopped), t (traced), ... or '?' */
    int sigquit_caught;  /* 1 when it handles SIGQUIT (SigCgt), 0 not, -1 unknown */
    int attach_disabled; /* -XX:+DisableAttachMechanism on its command line or in
                            JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, _JAVA_OPTIONS */
    int reduced_signals; /* -Xrs there too: SIGQUIT would kill it */
    int perf_data_off;   /* -XX:-UsePerfData there too: no hsperfdata file */
    uint64_t age_ms;     /* since the process started */
} ht_proc;

/* 1 while pid runs (not a zombie). */
int ht_proc_runs(pid_t pid);
/* Fill p for pid. Returns p->kind. */
ht_proc_kind ht_proc_look(pid_t pid, ht_proc *p);
/* The JDK's feature release (8, 11, 17, ...) from the `release` file of the
 * JDK whose libjvm.so p maps; 0 when unknown. */
int ht_proc_jdk_feature(const ht_proc *p);
/* What to call it: its main class, else its command name. */
const char *ht_proc_name(const ht_proc *p);
/* The name of user uid (or its number), into out. */
void ht_proc_user_name(uid_t uid, char *out, size_t n);
/* Where HotSpot writes p's perf data, /tmp/hsperfdata_<user>/<pid>, as its
 * mount namespace sees it (its own /tmp, its own pid). 0, or -1 if too long. */
int ht_proc_perf_path(const ht_proc *p, char *out, size_t n);

#endif
