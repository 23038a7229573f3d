/*
 * heap_marker.h - how the agent makes its sampled objects recognisable in a
 * heap dump, and how the viewer finds them: the one definition both ends
 * read (the agent writes it in agent/dump_marker.c, the viewer reads it in
 * tui/heap/graph/sampled.c).
 *
 * Just before a dump the agent builds, in the JVM's heap:
 *
 *   Object[] marker   held by a JNI global reference (a GC root of the dump)
 *     [0]    long[] table = {HT_MARKER_MAGIC, HT_MARKER_VERSION, n,
 *                            then per sample HT_MARKER_WORDS longs:
 *                            serial, trace_id << 32 | class_id,
 *                            estimated bytes (a double's bits),
 *                            estimated instances (a double's bits)}
 *     [1]    byte[] session: what a viewer gets on connecting to the agent, as
 *                          two messages, each after its u32 length: the
 *                          HELLO reply and the SYNC reply (protocol.h), so
 *                          a dump names its sites (and carries the run's
 *                          figures as of the dump) without a connection
 *     [2+i]  java.lang.ref.WeakReference whose referent is sample i's object
 *
 * Weak, not strong: a live dump starts with a full collection, which clears
 * the referent of a sampled object that was already garbage. A strong
 * reference would keep such an object alive into the dump (and through the
 * collection), which is exactly what the dump must not show. A sample whose
 * referent is null in the dump died before it.
 *
 * The viewer takes the marker's objects (the array, the table, the
 * WeakReferences) out of the snapshot before anything is counted, with the
 * JNI global root that holds them and every reference from or to them, so no
 * class count, size, retained size or path differs from a dump without it.
 *
 * serial is the sample's number in the agent's run (1, 2, ...): the same
 * object has the same serial in every dump of the run, whatever its address.
 * trace_id and class_id are the ids of the stream (protocol.h), which the
 * session's dictionaries name.
 */
#ifndef HEAPTOP_HEAP_MARKER_H
#define HEAPTOP_HEAP_MARKER_H

#define HT_MARKER_MAGIC   0x68656170746f7021LL /* "heaptop!" */
#define HT_MARKER_VERSION 1
#define HT_MARKER_HEAD    3 /* magic, version, n */
#define HT_MARKER_WORDS   4 /* longs per sample */
#define HT_MARKER_FIRST   2 /* the array's first WeakReference */

#endif
