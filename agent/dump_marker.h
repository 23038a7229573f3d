/*
 * dump_marker.h - the agent's sampled objects, made recognisable in a heap
 * dump (the structure is common/heap_marker.h's), so the viewer can tell each
 * live sampled object's allocation site and follow the same sample from one
 * dump to the next.
 *
 * Owns: for one dump, a copy of the live set as it stood when the dump was
 * asked for (a weak global reference of its own per sample, with the
 * sample's serial, site and weights), then the marker built from it in the
 * Java heap and the JNI global reference that holds it during the dump.
 *
 * Threads: ht_marker_prepare on the collector thread (it reads the live set,
 * which only that thread touches), when the dump is asked for; the rest on
 * the dump thread, which owns the marker from then on. The copy's own weak
 * references are why: the collector may drop the live set's references (a
 * sweep after the dump, a detach) while the dump thread still reads its own.
 *
 * Costs, paid per dump, never per sample: one NewWeakGlobalRef per tracked
 * sample on the collector thread (~0.1 us each), then on the dump thread one
 * WeakReference per sample in the Java heap (~32 bytes) and 32 bytes of
 * table: ~70 bytes a sample, freed when the dump ends.
 *
 * Must never: keep an object alive that the dump would not hold (weak
 * references only, see heap_marker.h); push the Java heap into an
 * OutOfMemoryError (it is skipped when the heap's free room is less than
 * four times its size, and an allocation that fails anyway ends the marking,
 * the exception cleared: the dump goes on without it); leave a Java exception
 * pending or a local or global reference behind.
 */
#ifndef HEAPTOP_DUMP_MARKER_H
#define HEAPTOP_DUMP_MARKER_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregates.h"

typedef struct ht_marker_sample {
    jweak ref;
    uint64_t serial;
    uint32_t trace_id, class_id;
    double bytes, instances;
} ht_marker_sample;

typedef struct ht_marker {
    ht_marker_sample *v;
    size_t n;
    uint8_t *session; /* what a viewer gets on connecting (control.c), for the names */
    size_t session_len;
    size_t marked;  /* samples whose object was still there when the marker was built */
    char note[256]; /* why nothing was marked, or "" */
} ht_marker;

/* Copy the tracked samples of a, with references of their own, and the
 * session's bytes (len, may be 0). headroom: bytes the Java heap has free
 * (max - used; 0 = unknown). Leaves m empty with a note when there is
 * nothing to mark or no room for it. */
void ht_marker_prepare(ht_marker *m, JNIEnv *jni, const ht_aggs *a, const uint8_t *session,
                       size_t len, uint64_t headroom);
/* Build the marker in the Java heap: a JNI global reference to it, or NULL
 * (nothing to mark, or it could not be built: m->note says why). */
jobject ht_marker_build(ht_marker *m, JNIEnv *jni);
/* After the dump: the global reference (may be NULL) and every copied
 * reference deleted, the copy freed. */
void ht_marker_release(ht_marker *m, JNIEnv *jni, jobject marker);

#endif
