/*
 * drag_int.h - what drag mode's two files share: drag.c (on and off, the
 * ClassFileLoadHook, the helper class, the class ids) and drag_watch.c (the
 * sampled objects tracked, the cost guard, DRAG_STATE and DRAG_ROWS). Not
 * for other files: drag.h is drag mode's interface.
 *
 * Owns nothing of its own; the state lives in drag.c (ht_dg). Which thread
 * may touch what is said at each field: the hook runs on any thread and
 * takes `lock`; everything else is the collector thread's.
 */
#ifndef HEAPTOP_DRAG_INT_H
#define HEAPTOP_DRAG_INT_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "drag_guard.h"
#include "drag_track.h"
#include "hashmap.h"
#include "protocol_drag.h"

typedef struct ht_drag_shared {
    /* shared with the hook (any thread): under lock */
    pthread_mutex_t lock;
    atomic_int on;                       /* the hook rewrites while 1 */
    char filter[HT_DRAG_FILTER_MAX + 1]; /* the filter in force, or the last one */
    uint32_t gen;                        /* drag mode's turns on; a class rewritten in this one */
    char *name[HT_DRAG_MAX_CID + 1];     /* cid -> internal name */
    uint32_t rewritten[HT_DRAG_MAX_CID + 1]; /* cid -> gen it was last rewritten in */
    uint32_t ncids;
    ht_drag_state_rec st; /* classes, methods, skipped_*, failed, hot: this turn's */
    /* collector thread only */
    jclass helper; /* global ref to heaptop/Drag, once defined */
    jmethodID reg, first, last, release;
    jfieldID scans; /* Drag.SCANS */
    int track_ready;
    ht_drag_track track;
    ht_map chains;       /* agent class id -> its chain of cids, packed (this turn) */
    char why[512];       /* why off or failed; while on, the classes too hot to watch */
    int state_dirty;     /* DRAG_STATE to send at the next publish */
    ht_drag_guard guard; /* reset at each turn on */
} ht_drag_shared;

extern ht_drag_shared ht_dg;

/* The cid of an internal class name, given one if new (add). 0 when the
 * table is full or out of memory. Under ht_dg.lock. */
uint16_t ht_drag_cid_of(const char *name, int add);
/* Frees a helper slot (Drag.release). Collector thread. */
void ht_drag_release_slot(JNIEnv *jni, uint16_t cid, uint8_t slot);

#endif
