/*
 * launch.h - heaptop's launch mode: start `java ARGS...` with heaptop's agent
 * (`heaptop run -- java ...`, `heaptop record ... -- java ...`), or a program
 * that starts java itself (a wrapper script: jython, catalina.sh, gradle).
 *
 * Owns: the checks of the command after `--`; the java command line
 * (-agentpath:<the agent, found as heaptop PID finds it>=<options>,ipc=<base>
 * right after the launcher) and the private socket base (a fresh 0700
 * directory in the user's socket directory); for any other first word, the
 * script's way: the agent goes in JAVA_TOOL_OPTIONS (after what is there
 * already), every JVM the program starts loads it at its default socket
 * path, and the one watched is the first JVM of the program's session
 * (processes whose session is the program's pid) whose agent listens; the
 * log file (--log FILE: never through a symlink, mode 0600, a regular file
 * of the user's own); the child's own session and process group; the relay, a forked
 * copy of heaptop in that session that copies the program's stdout and
 * stderr into the log file and, while the viewer reads them, to the Console
 * as tagged lines (console.h); waiting for the agent's socket with a deadline
 * while the program is alive; reaping the program, its exit text; stopping it
 * (SIGTERM to its group, SIGKILL after a deadline).
 *
 * Runs on the caller's thread (main, before the TUI starts; then the UI
 * thread, which only reaps without waiting). The program and the relay never
 * write into a pipe heaptop holds alone: the relay ignores SIGPIPE and stops
 * feeding when the viewer is gone, and goes on writing the log, so a program
 * left running after heaptop exits never dies of a closed pipe. It never
 * signals anything but the program's own process group, and never waits
 * without a deadline. No terminal, no nng.
 */
#ifndef HEAPTOP_LAUNCH_H
#define HEAPTOP_LAUNCH_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "ipc_path.h"
#include "reach.h"

typedef struct ht_launch_req {
    int argc;             /* the command after `--`: java ARGS... */
    char **argv;          /* NULL-terminated */
    ht_reach_opts *reach; /* --agent, --interval, --agent-opts, checked (ht_reach_check) */
    const char *log;      /* --log FILE, or NULL: a new file in log_dir */
    const char *log_dir;  /* --out DIR, or NULL: $TMPDIR (else /tmp) */
    int console;          /* feed the Console screen (heaptop run) */
} ht_launch_req;

typedef struct ht_launch {
    pid_t pid;                 /* the program: its own session and process group */
    int script;                /* not a java launcher: the agent in JAVA_TOOL_OPTIONS */
    pid_t jvm;                 /* the JVM watched (a script's: once its agent listens) */
    char prog[256];            /* the first word after -- */
    pid_t relay;               /* copies its output into the log (0: gone) */
    char dir[HT_IPC_PATH_MAX]; /* the private directory of its sockets */
    char base[HT_IPC_PATH_MAX];
    char log[PATH_MAX];
    int feed_fd; /* tagged lines for the Console (console.h), -1: none */
    int exited;  /* reaped: status is its wait status */
    int status;
} ht_launch;

/* The command after `--` (argc words from argv): something to run. 0 for a
 * java launcher (its basename is `java`), 1 for anything else (a script
 * that starts java: the agent through JAVA_TOOL_OPTIONS), or -1 with one
 * line in err (nothing there). */
int ht_launch_check(int argc, char **argv, char *err, size_t errn);
/* Start the program under the agent. Everything that can be checked is
 * checked first (the agent found, the log file created); 0, or -1 with one
 * line in err and nothing running. Prints nothing. */
int ht_launch_start(ht_launch *l, const ht_launch_req *r, char *err, size_t errn);
/* Wait until the agent listens (0), or -1 with err: the program exited
 * first (its exit and the last lines of its output, one per line after the
 * first), or the deadline passed (the program is then stopped). A script's:
 * the first JVM of its session whose agent listens, in l->jvm and l->base. */
int ht_launch_wait_agent(ht_launch *l, int timeout_ms, char *err, size_t errn);
/* Reap without waiting: 1 when the program has exited (now or before). */
int ht_launch_poll(ht_launch *l);
/* "exited with code 3", "was killed by signal 9 (SIGKILL)", "is running". */
void ht_launch_exit_text(const ht_launch *l, char *out, size_t n);
/* Say on f, as prog, how the program ended and where its output is; when
 * it failed by itself (not stopped, and not code 0), its last lines too:
 * java's own error (a missing main class) is there. */
void ht_launch_say_end(const ht_launch *l, const char *prog, int stopped, FILE *f);
/* Stop the program: SIGTERM to its process group, SIGKILL after
 * deadline_ms; reaped. 0, or -1 if it outlived the SIGKILL too. */
int ht_launch_stop(ht_launch *l, int deadline_ms);
/* Close heaptop's end of things; the program, if still running, goes on
 * (its relay writes the log); its socket directory is removed when empty. */
void ht_launch_close(ht_launch *l);

#endif
