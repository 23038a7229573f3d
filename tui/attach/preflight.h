/*
 * preflight.h - before an attach: what refuses it without a signal to the JVM,
 * when a JVM that has just started can take an agent, and where the agent
 * library is. Internal to tui/attach (attach.c); ht_attach_check and
 * ht_attach_find_agent (attach.h) are its public face.
 *
 * Owns: the refusals (no process, not a JVM, another user's, attach disabled
 * as its flags or its perf data say, -Xrs, stopped, JDK < 11, the agent
 * missing in its mount namespace) and the readiness of a starting JVM
 * (SIGQUIT handled, VM init done per its hsperfdata file). Any thread; it
 * reads /proc and files, and never signals, connects or writes.
 */
#ifndef HEAPTOP_PREFLIGHT_H
#define HEAPTOP_PREFLIGHT_H

#include <stddef.h>

#include "proc.h"

/* 0 when an attach to p (of kind `kind`, ht_proc_look's) may be tried, -1
 * with one line in err. agent: the library's path, named in advice. */
int ht_preflight(const ht_proc *p, int kind, const char *agent, char *err, size_t errn);
/* 1 when p can take an agent now: it handles SIGQUIT and (as far as its perf
 * data tells) has finished starting. */
int ht_preflight_ready(const ht_proc *p);

#endif
