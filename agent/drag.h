/*
 * drag.h - drag mode (docs/drag.md, protocol_drag.h): turning it on and off,
 * the instrumentation of the filter's classes, and the tracking of their
 * sampled objects for last use.
 *
 * Owns: the filter in force, the capabilities drag mode needs
 * (can_retransform_classes, can_generate_all_class_hook_events: taken at
 * OnLoad only when drag= is given, else at the first request, since merely
 * possessing them has costs), the ClassFileLoadHook that rewrites the
 * filter's classes (class_rewrite.h) with a class id (cid) per class name,
 * the helper class heaptop/Drag (defined in the boot loader from the bytes
 * embedded at build time, once per JVM), drag_track.h's bookkeeping and the
 * DRAG_STATE / DRAG_ROWS messages.
 *
 * drag.c turns it on and off and holds the hook; drag_watch.c tracks the
 * objects, runs the cost guard and sends the messages (drag_int.h between).
 *
 * Threads: the hook runs on any thread that loads or retransforms a class:
 * it takes one mutex for the name table, never calls into Java and never
 * waits for the collector. Everything else runs on the collector thread.
 * Off (or never on) costs nothing: the hook is disabled and every class it
 * rewrote is retransformed back to its original bytes.
 */
#ifndef HEAPTOP_DRAG_H
#define HEAPTOP_DRAG_H

#include <jvmti.h>
#include <stdint.h>

#include "agent_state.h"
#include "emit.h"
#include "live_set.h"

/* agent.c, before the callbacks are set: drag='s capabilities (a warning
 * when the JVM refuses them: drag mode then stays off). */
void ht_drag_onload(jvmtiEnv *jvmti);
/* agent.c's ClassFileLoadHook. */
void JNICALL ht_drag_on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined,
                                        jobject loader, const char *name, jobject domain, jint len,
                                        const unsigned char *data, jint *new_len,
                                        unsigned char **new_data);

/* Collector thread from here on. */
/* The collector starts: drag= turns drag mode on (a failure is one line in
 * the JVM's log, and the state's why). */
void ht_drag_start(jvmtiEnv *jvmti, JNIEnv *jni);
/* A DRAG_REQ: filter (len bytes, not terminated) on, "" or "off" off; a new
 * filter while on is off then on. HT_OK with *classes (the classes
 * instrumented), or an HT_E* code with one line in err. */
int ht_drag_request(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, size_t len, uint64_t *classes,
                    char *err, size_t errn);
/* Drag mode off for good (a detach): classes back, slots released. */
void ht_drag_stop(jvmtiEnv *jvmti, JNIEnv *jni);
/* A sample the live set took in (serial, bytes: its entry's), now: is its
 * class in the filter? Then counted, and tracked when a slot is free. */
void ht_drag_sample(jvmtiEnv *jvmti, JNIEnv *jni, const ht_event *e, uint64_t serial, double bytes,
                    uint64_t now);
/* The live sweep found an entry dead at now; t_alive: the start of the last
 * GC pause before its list's previous sweep, which found it alive (it was
 * not collected then; it may have become unreachable right after, so not
 * the sweep's own time: that made drag_lo no lower bound). */
void ht_drag_died(JNIEnv *jni, const ht_live_entry *e, uint64_t t_alive, uint64_t now);
/* Once a second while on: the cost guard (drag_guard.h) reads the helper's
 * counts and stops tracking in classes too hot to watch. Collector thread. */
void ht_drag_tick(JNIEnv *jni, uint64_t now);
/* The publish step: DRAG_STATE when it changed and once a second while on,
 * the changed DRAG_ROWS once a second. */
void ht_drag_publish(ht_sink *sink, uint64_t now);
/* A SYNC: the state and every row. */
void ht_drag_emit_all(ht_sink *sink);
/* The mark (ht_mark_op) on the drag rows. 0, or -1 out of memory. */
int ht_drag_mark(int op);

#endif
