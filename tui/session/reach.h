/*
 * reach.h - the ways in by pid: a JVM without heaptop's agent gets one loaded
 * (tui/attach), and the viewer then waits for the agent's socket.
 *
 * Owns: heaptop's attach options (--agent, --interval, --agent-opts), checked
 * with the agent's own option parser before anything is attached; where an
 * attached agent's sockets go (the ipc= it is given); the one stderr line
 * while attaching; the line saying options were not applied to an agent that
 * already runs. Used by `heaptop PID` and `heaptop record PID` on their main
 * thread, before they start any other thread (root attaching to another
 * user's JVM becomes that user for the rest of the run: the agent accepts
 * viewers of its own user only); `heaptop control` uses ht_reach_existing.
 *
 * It never starts a second agent instance: a JVM whose agent listens is
 * connected to, and a load into one whose agent is loaded but idle (detached)
 * restarts it (agent.c). It never waits past its deadline, and never attaches
 * for `heaptop control`. No terminal, no nng.
 */
#ifndef HEAPTOP_REACH_H
#define HEAPTOP_REACH_H

#include <stddef.h>
#include <sys/types.h>

#include "target.h"

typedef struct ht_reach_opts {
    const char *agent;      /* --agent PATH, or NULL: found next to heaptop */
    const char *interval;   /* --interval BYTES, or NULL */
    const char *agent_opts; /* --agent-opts 'k=v,...', or NULL */
    int timeout_ms;         /* for the attach, then for the agent's socket */
    char text[1024];        /* the option string the agent gets (ht_reach_check) */
} ht_reach_opts;

/* Take option `flag` (--agent, --interval, --agent-opts) with `value`:
 * 0 when it is one of them, -1 when not. */
int ht_reach_set(ht_reach_opts *o, const char *flag, const char *value);
/* Check the options (the agent's own parser) and the agent's path. 0, or -1
 * with one line in err. Call before anything else happens. */
int ht_reach_check(ht_reach_opts *o, char *err, size_t errn);
/* An agent already in JVM t->pid of another user (t->owner, for root:
 * ht_target_from_pid) whose socket is there: root goes on as the JVM's user
 * (the agent accepts viewers of its own user only). 0 (nothing done when
 * there is no such agent), or -1 with one line in err. ht_reach does this
 * first; heaptop control, which never attaches, calls it alone. Whether
 * heaptop will switch is known before: t->owner != geteuid(). */
int ht_reach_existing(ht_target *t, const char *prog, char *err, size_t errn);
/* The user this process went on as (ht_reach_existing, ht_reach), or NULL
 * while it runs as the user who started it. */
const char *ht_reach_became(void);
/* Resolve t (ht_target_resolve); a JVM without the agent (pid targets only)
 * is attached to and waited for, saying so on stderr as `prog`; options given
 * to a JVM that already runs the agent are said not to be applied. Returns
 * the status as ht_target_resolve does (err set unless READY); t->base is
 * where the attached agent listens. */
ht_target_status ht_reach(ht_target *t, ht_reach_opts *o, const char *prog, char *err, size_t errn);

#endif
