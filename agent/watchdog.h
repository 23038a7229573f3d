/*
 * watchdog.h - checks that the agent's sockets still deliver messages.
 *
 * nng 1.5.2, the version Debian 12 ships, has a bug (nng issue #1518, fixed
 * upstream after 1.5.2): once a peer hangs up between sending its handshake
 * header and being accepted (a viewer killed or timed out while the JVM was
 * stopped or overloaded), later connections to that listener still complete
 * the handshake but never carry a message. The agent would look alive and
 * answer nothing.
 *
 * Owns: one native thread (not attached to the JVM, so it never allocates on
 * the Java heap and is never sampled) that every second acts as a viewer over a
 * raw socket: a HELLO request on BASE.ctl must be answered, and a stream
 * message on BASE.events must arrive (the agent publishes telemetry every
 * second). Two failures in a row raise a flag; the collector thread, which
 * owns the sockets, restarts that listener. A late restart leaves viewers
 * unanswered, hence the short waits; a needless one cuts every viewer's
 * connection (a request in flight is sent again, a snapshot being followed
 * is lost to the viewer) and writes a false diagnosis into the JVM's log.
 * So only failures during which the collector turned over count
 * (ht_watchdog_turn): in a stop-the-world pause of seconds (a full
 * collection of a big heap, a heap dump) its JNI calls wait for the pause to
 * end and nothing could answer through any listener. The thread never touches nng.
 * After raising a flag it also closes, for a while, the sockets nng 1.5.2
 * leaves open when it closes the deaf listener (leftovers.h).
 *
 * What wedges a listener, precisely (nng 1.5.2 source): its accept path sends
 * the SP header first; to a peer that is already gone that send fails with
 * EPIPE, reported as NNG_ECLOSED, which ipc_pipe_neg_cb hands to the core
 * listener's pending accept, and listener_accept_cb takes NNG_ECLOSED for "the
 * listener is closing" and never accepts again.
 */
#ifndef HEAPTOP_WATCHDOG_H
#define HEAPTOP_WATCHDOG_H

#include <stdatomic.h>

typedef struct ht_watchdog ht_watchdog;

/* Start probing BASE.ctl and BASE.events. NULL if the thread cannot start. */
ht_watchdog *ht_watchdog_start(const char *ctl_file, const char *events_file);
/* The collector, once a loop turn: it is alive, so a probe failing meanwhile
 * is the listener's fault. NULL is ignored. */
void ht_watchdog_turn(ht_watchdog *w);
/* Listener to restart (HT_LISTENER_CTL / HT_LISTENER_EVENTS), or -1; clears it. */
int ht_watchdog_take_alarm(ht_watchdog *w);
void ht_watchdog_stop(ht_watchdog *w);

#endif
