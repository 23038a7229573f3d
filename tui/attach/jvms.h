/*
 * jvms.h - which JVMs the current user may attach to: what `heaptop` with no
 * argument lists (the chooser). Root's are every user's (root attaches to
 * another user's JVM as `heaptop PID` does, becoming its user, reach.h);
 * anyone else's are their own.
 *
 * Owns: discovery. Every such process is looked at through proc.h
 * (libjvm.so mapped: a JVM, libheaptop.so: with heaptop's agent), so a JVM
 * started with -XX:-UsePerfData is found too and a perf data file left by a
 * killed JVM is not taken for a running one; its HotSpot perf data file
 * (/tmp/hsperfdata_<user>/<pid>, read through perfdata.h) adds the main
 * class or jar as the JVM reports it, the heap in use and whether it
 * supports attach. Also what the chooser says of a JVM's agent: heaptop's
 * agent is there and listens, it is there but cannot be reached by pid, or
 * none, and then whether it can be attached or why not.
 *
 * Runs on whichever thread calls it (the TUI runs it as a job): blocking
 * (it reads /proc and small files, about 1 ms a process), no globals. It
 * never connects to a socket, never signals a process, never writes: whether
 * an agent listens is the caller's question (target.h reads /proc/net/unix),
 * asked through a callback so this part does not depend on the session.
 */
#ifndef HEAPTOP_JVMS_H
#define HEAPTOP_JVMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum ht_jvm_agent {
    HT_JVM_AGENT_READY,     /* heaptop's agent is in it and listens at its default path */
    HT_JVM_AGENT_ELSEWHERE, /* heaptop's agent is in it, not reachable by pid (why: reason) */
    HT_JVM_ATTACHABLE,      /* no agent; it can be attached */
    HT_JVM_NOT_ATTACHABLE,  /* no agent, and attach cannot work (why: reason) */
} ht_jvm_agent;

typedef struct ht_jvm {
    pid_t pid;
    uid_t uid;             /* its effective user */
    char owner[32];        /* that user's name (or number) */
    char main[256];        /* main class, jar (its file name) or module/class; "?" unknown */
    uint64_t uptime_s;     /* since the process started */
    int heap_known;        /* heap_used is a measurement (the perf data had one) */
    uint64_t heap_used;    /* bytes in the generations' spaces */
    char java_version[32]; /* "17.0.15", "" unknown */
    int from_perf;         /* its perf data file was read */
    ht_jvm_agent agent;
    char reason[200]; /* one short line for ELSEWHERE and NOT_ATTACHABLE */
} ht_jvm;

typedef struct ht_jvm_list {
    ht_jvm *v; /* sorted by pid */
    size_t n;
    char user[64]; /* who asked: the effective user */
    int all_users; /* root: every user's JVMs, else user's own */
} ht_jvm_list;

/* Does heaptop's agent in JVM pid listen where `heaptop PID` looks? 1 yes;
 * 0 no, with a short reason in why. */
typedef int (*ht_jvm_agent_probe)(pid_t pid, char *why, size_t n, void *ctx);

/* List the JVMs the effective user may attach to (root: all; others: their
 * own) into l (freed by ht_jvms_free even on failure). perf_dir: where the
 * perf data files are, NULL for /tmp/hsperfdata_<the JVM's user> (each
 * read only when it belongs to the JVM's user). probe: asked for each JVM that has libheaptop.so
 * mapped; NULL counts them all as ready. 0, or -1 with one line in err (out
 * of memory, /proc unreadable). */
int ht_jvms_list(ht_jvm_list *l, const char *perf_dir, ht_jvm_agent_probe probe, void *ctx,
                 char *err, size_t errn);
void ht_jvms_free(ht_jvm_list *l);

/* Read one perf data file (a regular file of at most 4 MiB owned by uid,
 * opened without following a link and without blocking on a FIFO) into a
 * malloc'ed buffer. 0 with *buf and *n, or -1 with one line in err. */
int ht_jvms_read_perf_file(const char *path, uid_t uid, uint8_t **buf, size_t *n, char *err,
                           size_t errn);

/* The AGENT column's text for j: "heaptop", "attachable", "not attachable:
 * REASON", "heaptop (REASON)". */
void ht_jvm_agent_text(const ht_jvm *j, char *out, size_t n);

#endif
