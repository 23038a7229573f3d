/*
 * attach.h - load heaptop's agent into a running HotSpot JVM that has none
 * (HotSpot dynamic attach, written in C: the host may have a JRE without jcmd).
 *
 * Owns: the attach protocol (.attach_pid file, SIGQUIT, the .java_pid socket,
 * protocol 1 `load` command), the JVM's temp directory and namespace pid (a
 * JVM in another mount namespace), switching to the JVM's uid/gid for the
 * attach (in a forked child, never in this process): attach.c. The refusals
 * checked without signalling the JVM (ht_attach_check) and where the agent
 * library is (ht_attach_find_agent): preflight.c.
 *
 * Runs on whichever thread calls it (the CLI's main thread, a job thread of
 * the TUI): blocking, no globals, no signals handlers installed.
 *
 * It never waits without a deadline, never changes this process's ids, and
 * never uses curses or nng.
 */
#ifndef HEAPTOP_ATTACH_H
#define HEAPTOP_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

/* Load heaptop's agent into JVM `pid` (HotSpot dynamic attach: .attach_pid
 * file, SIGQUIT, the .java_pid socket, `load` command). Blocking, no globals:
 * safe on any thread. agent_path: absolute path of libheaptop.so; options: the
 * agent's option string or NULL. Returns 0 when the JVM loaded it (or the
 * agent was already loaded), -1 with one line in err (no such process; not a
 * JVM; a JVM of another user - naming the user; attach disabled; JVM too old
 * (< JDK 11); the JVM did not answer within timeout_ms (e.g. stopped with
 * SIGSTOP); the agent failed to load - quoting the JVM's own reply). */
int ht_attach_load(pid_t pid, const char *agent_path, const char *options, int timeout_ms,
                   char *err, size_t errn);

/* The refusals of ht_attach_load that need no signal to the JVM (no such
 * process, not a JVM, another user's, attach disabled, SIGQUIT not handled,
 * stopped, JDK < 11, the agent missing in its mount namespace), without
 * attaching: 0 when an attach may be tried, 1 when the agent is already
 * loaded, -1 with one line in err. agent_path may be NULL. */
int ht_attach_check(pid_t pid, const char *agent_path, char *err, size_t errn);

/* Where the agent library is: `override` when given (checked: exists,
 * readable; made absolute), else next to the heaptop binary, else the
 * installed path (CMAKE_INSTALL_PREFIX/lib/libheaptop.so). 0, or -1 with one
 * line in err. */
int ht_attach_find_agent(char *out, size_t n, const char *override, char *err, size_t errn);

#endif
