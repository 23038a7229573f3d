/*
 * target.h - which agent a viewer means: `--ipc PATH` or a PID, resolved to a
 * socket base path, and what is (or is not) listening there.
 *
 * Owns: the syntax of the target arguments (PATH.ctl and PATH.events mean
 * PATH; a PID is a positive decimal that fits a pid_t), the checks that turn
 * "nothing happens" into one line naming what is wrong (no such process, not
 * a JVM, a JVM without heaptop's agent, a file that is not a socket, socket
 * files nobody listens on), the one reader of /proc/net/unix, and the removal
 * of stale socket files. Used by the TUI, `heaptop record` and `heaptop
 * control` before they connect, on whichever thread runs them.
 *
 * It never connects to a socket to find out whether someone listens (a bare
 * connect-and-close breaks nng 1.5.2's listener, nng issue #1518: it reads
 * /proc/net/unix instead), and it never removes anything but socket files that
 * nobody listens on and whose owner is gone (or which are old enough that no
 * listener can be starting on them). No terminal, no nng.
 */
#ifndef HEAPTOP_TARGET_H
#define HEAPTOP_TARGET_H

#include <stddef.h>
#include <sys/types.h>

#include "ipc_path.h"

typedef struct ht_target {
    char base[HT_IPC_PATH_MAX]; /* socket base path: base.ctl, base.events */
    pid_t pid;                  /* the process named on the command line; 0 for --ipc */
    uid_t owner;                /* whose agent it is: the user of its socket directory */
    char key[1024];             /* --key FILE: the agent's key, for a TCP base (auth.h) */
} ht_target;

typedef enum ht_target_status {
    HT_TARGET_READY = 0, /* an agent listens at base */
    HT_TARGET_ABSENT,    /* no agent there now, but one may come (no socket yet; stale
                            files just removed from an --ipc path; an agent starting) */
    HT_TARGET_FATAL,     /* waiting cannot help: not a socket, no such process, not a
                            JVM */
    HT_TARGET_NO_AGENT,  /* a JVM without heaptop's agent: attaching can load one
                            (ht_target_attach), waiting alone cannot */
} ht_target_status;

/* From `--ipc PATH`. 0, or -1 with a message in err (path too long). */
int ht_target_from_ipc(ht_target *t, const char *path, char *err, size_t errn);
/* From a PID argument. 0, or -1 with "'X' is not a process id" in err.
 * Where the pid's agent listens: the ipc= of its command line; else, for a
 * JVM in another mount namespace or (run by root) of another user, the
 * JVM's own default (its /tmp seen through /proc/PID/root, its uid, its own
 * pid: where heaptop attaches one, reach.h) and owner is that user; else
 * our default for the pid. */
int ht_target_from_pid(ht_target *t, const char *text, char *err, size_t errn);
/* --key FILE for a TCP target: 0, or -1 with one line in err (a TCP base
 * without a key, or a key for a local socket, where it means nothing). Call
 * once the arguments are read, before anything connects. */
int ht_target_set_key(ht_target *t, const char *key_file, char *err, size_t errn);
/* Look at what is there now. For anything but READY, err holds one line
 * saying what is wrong (and what was removed, if stale files were). */
ht_target_status ht_target_resolve(const ht_target *t, char *err, size_t errn);
/* 1 when /proc/net/unix shows no listener bound to the socket file `file`.
 * Unknown (no /proc) counts as listening. */
int ht_target_nobody_listening(const char *file);
/* The -agentpath: argument that loads this heaptop's agent (the library next
 * to this binary when found, else /path/to/libheaptop.so). */
void ht_target_agent_arg(char *out, size_t n);

#endif
