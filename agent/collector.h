/*
 * collector.h - the agent's one thread: drain, aggregate, publish, answer.
 *
 * Owns: every piece of agent state that is not on the hot path: dictionaries,
 * aggregates, live set, telemetry, sockets, the stream sequence number. It runs
 * as a JVMTI agent thread (a daemon Java thread excluded from sampling) and
 * loops: drain the sampler's rings, resolve names, fold samples into the
 * aggregates, sweep the tracked objects after GC pauses (the dead leave, the
 * young that a collection has proven alive become live), publish changes on
 * the stream every 100 ms and telemetry every second, and answer control
 * requests between steps (a DETACH request ends the loop: ht_collector_detach).
 * While the JVM writes a heap dump (heapdump.h, on a thread of its own) the
 * collector makes no JNI or JVMTI call, since each would wait for the dump's
 * safepoint: it answers requests and streams the dump's progress once a second
 * in place of telemetry, and drains, sweeps and reads the VM again once the
 * dump has ended. Application threads never wait for it: if it falls behind,
 * the rings fill and samples are dropped and counted. Nothing else touches its
 * state, so it takes no locks except to swap the sampler's "new class/thread"
 * lists. collector.c runs the loop; collector_requests.c holds what control.c
 * asks of it. This header is what agent.c starts and stops it with; its state
 * and the functions its own thread calls are in collector_int.h.
 */
#ifndef HEAPTOP_COLLECTOR_H
#define HEAPTOP_COLLECTOR_H

#include <jvmti.h>
#include <stddef.h>

/* Open the sockets (at load time, so a bad path refuses to load). */
int ht_collector_open(char *err, size_t errn);
/* Start the collector thread once the VM is live. The thread calls
 * open_sockets (which makes the socket files) only once it can answer: after
 * its JNI set-up, which loads the management classes and so reads the JDK's
 * modules file: 30 ms warm, 0.2-0.3 s behind a disk busy writing back, 0.6 s
 * at 40 disk reads a second from a cold page cache, and more on a fresh CI
 * machine, where a viewer that saw the socket earlier ran out of its 10 s
 * waiting for its first answer (test_first_answer).
 * The socket's existence is the agent's "ready": a viewer's patience starts there. */
int ht_collector_start(jvmtiEnv *jvmti, JNIEnv *jni, void (*open_sockets)(void));
/* At VM death: flush, say goodbye on the stream, close; waits at most ~2 s. */
void ht_collector_stop(void);
/* A restart that failed after ht_collector_open, before the thread started:
 * close the sockets and free the figures it opened. */
void ht_collector_abandon(void);

#endif
