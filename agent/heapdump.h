/*
 * heapdump.h - heap dumps the JVM writes on request (HEAP_DUMP_REQ).
 *
 * Owns: the dump directory, BASE.dumps (0700, ours, inside the sockets'
 * private directory), the one dump thread, the hand-off of its outcome, the
 * records of the running dump and of the last few ended ones (streamed and
 * synced as HT_MSG_HEAP_DUMP), and the files to remove when the JVM exits.
 *
 * A dump is HotSpotDiagnosticMXBean.dumpHeap(path, live) called through JNI: a
 * stop-the-world VM operation (with live, a full GC first) of seconds for a
 * big heap, about 7x faster than a JVMTI walk of the same heap. Before it
 * starts, the request is checked: no dump already running, the directory
 * safe, the disk's free space at least the heap's used bytes.
 *
 * Threads: ht_dumps_start, _poll, _emit on the collector thread, which owns
 * ht_dumps. The dump itself runs on a JVMTI agent thread of its own
 * ("heaptop-heapdump", excluded from sampling), started per dump; it sees only
 * its job (path, flags) and hands back its outcome under a mutex, never
 * touching sockets or the collector's state. ht_heapdump_remove_files on any
 * thread, at the way out.
 *
 * Must never: run a dump on the collector thread (while one runs, the
 * collector makes no JNI or JVMTI call either: those would wait for the dump's
 * safepoint, and the stream and the control socket would stall with them);
 * leave a Java exception pending or a local reference behind; leave a partial
 * file; run two dumps at once.
 */
#ifndef HEAPTOP_HEAPDUMP_H
#define HEAPTOP_HEAPDUMP_H

#include <jvmti.h>
#include <stdint.h>

#include "aggregates.h"
#include "emit.h"
#include "protocol.h"

#define HT_DUMP_PATH_MAX 1024
#define HT_DUMPS_ENDED   8 /* ended dumps kept for syncs */

typedef struct ht_dump_entry {
    ht_heap_dump_rec rec; /* its path and error strings are the arrays below */
    char path[HT_DUMP_PATH_MAX];
    char error[2048];
    uint64_t start_ns;
    size_t marked;       /* sampled objects marked in it (dump_marker.h) */
    char mark_note[256]; /* why none were, or "" */
} ht_dump_entry;

typedef struct ht_dumps {
    int running; /* a dump thread is at work on `current` */
    ht_dump_entry current;
    ht_dump_entry ended[HT_DUMPS_ENDED]; /* oldest first */
    uint32_t nended;
    uint64_t next_id;
} ht_dumps;

/* Ask the JVM for a dump of the heap into the agent's dump directory. HT_OK
 * and *id, or an HT_E* code with the reason in err: HT_EBUSY (one is being
 * written), HT_ENOSPACE (the disk has less free space than heap_used bytes),
 * HT_EINTERNAL (unsafe directory, no thread). base: the socket base path.
 * The samples tracked in `tracked` are marked in the dump (dump_marker.h),
 * with the session's bytes, when the heap has room for it (heap_max -
 * heap_used; 0 = unknown). */
int ht_dumps_start(ht_dumps *ds, jvmtiEnv *jvmti, JNIEnv *jni, const char *base, uint8_t flags,
                   uint64_t heap_used, uint64_t heap_max, const ht_aggs *tracked,
                   const uint8_t *session, size_t session_len, uint64_t *id, char *err,
                   size_t errn);
/* 1 when the running dump has just ended (its record is the last of ended). */
int ht_dumps_poll(ht_dumps *ds);
/* The running dump's record, its elapsed time as of now (ht_agent_ms). */
void ht_dumps_emit_current(ht_dumps *ds, ht_sink *sink);
/* The last ended dump's record. */
void ht_dumps_emit_last(const ht_dumps *ds, ht_sink *sink);
/* Every record a late viewer needs: the ended ones, then the running one. */
void ht_dumps_emit_all(ht_dumps *ds, ht_sink *sink);
/* Remove the dump files not asked to be kept, and the directory if that
 * empties it. Idempotent; any thread (VM death, exit hook, Agent_OnUnload). A
 * dump still being written is unlinked too: the JVM finishes it into a file
 * that no longer has a name. */
void ht_heapdump_remove_files(void);

#endif
