/*
 * drag_track.h - drag mode's bookkeeping: which helper slots are taken, the
 * sampled objects tracked for last use, and the drag figures per allocation
 * site (protocol_drag.h's rows).
 *
 * Owns: per instrumented class id (cid, 1..HT_DRAG_MAX_CID) the occupancy
 * of its HT_DRAG_SLOTS slots in the Java helper (heaptop/Drag: the slot
 * holds the object's weak reference and its first and last use); one record
 * per tracked object (its live-set serial, its slots, when it was taken in,
 * its row and estimated bytes); one row per (trace, class) with the drag
 * figures, the list of rows changed since the last publication, and the
 * mark's baselines that turn the rows' totals into their diff columns (as
 * mark.c does for the allocation rows). Rows are cumulative for the agent's
 * run; tracked objects are let go when drag mode goes off.
 *
 * Pure C, no JNI: drag.c calls the helper for the slots this hands out and
 * passes back what it read. Collector thread only; unit-tested.
 */
#ifndef HEAPTOP_DRAG_TRACK_H
#define HEAPTOP_DRAG_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "protocol.h"

#define HT_DRAG_SLOTS   8     /* Drag.SLOTS */
#define HT_DRAG_MAX_CID 32767 /* Drag.MAX_CLASSES - 1: sipush's largest */
#define HT_DRAG_CHAIN   4     /* instrumented classes of one object's chain it is tracked in */

/* One tracked object. */
typedef struct ht_drag_obj {
    uint64_t serial;   /* the live-set entry's serial (live_set.h): its key */
    uint64_t alloc_ns; /* when it was taken in (CLOCK_MONOTONIC: System.nanoTime's clock) */
    double bytes;      /* its estimated bytes (the live entry's) */
    uint32_t row;
    uint8_t n; /* slots taken, one per class of its chain that had one free */
    uint16_t cid[HT_DRAG_CHAIN];
    uint8_t slot[HT_DRAG_CHAIN];
} ht_drag_obj;

typedef struct ht_drag_track {
    uint8_t taken[HT_DRAG_MAX_CID + 1]; /* bit k: slot k of the cid is taken */
    ht_drag_obj *objs;                  /* free ones have serial 0 */
    uint32_t nobjs, capobjs, free_head;
    uint32_t *free_next;
    ht_map by_serial; /* serial -> index in objs */

    ht_drag_row_rec *rows;
    uint8_t *dirty_flag;
    uint32_t *dirty;
    uint32_t nrows, caprows, max_rows, ndirty;
    ht_map by_site; /* (trace << 32 | class) -> row */

    /* the mark (mark.h): per row the 9 diff figures' baselines while it
     * runs, the frozen diffs once it stopped; rows at or past nbase have none */
    int mark_state; /* ht_mark_state */
    double (*base)[9];
    uint32_t nbase;

    uint64_t samples, tracked, untracked; /* since drag mode was first on */
} ht_drag_track;

/* max_rows: sites with a row of their own; past it a site's figures go to
 * its class's (HT_TRACE_OVERFLOW, class) row. 0, or -1 out of memory. */
int ht_drag_track_init(ht_drag_track *t, uint32_t max_rows);
void ht_drag_track_destroy(ht_drag_track *t);

/* A sample of a class in the filter (or of a subclass of one): counted in
 * its site's row. Returns the row, or UINT32_MAX out of memory. */
uint32_t ht_drag_track_sample(ht_drag_track *t, uint32_t trace, uint32_t cls);
/* Take a free slot in each of cids[0..n) that has one, for the object of
 * live-set serial `serial` (row from ht_drag_track_sample). Returns the
 * record, whose cid/slot pairs the caller registers in the helper, or NULL:
 * no slot free in any (counted untracked) or out of memory (not counted). */
const ht_drag_obj *ht_drag_track_take(ht_drag_track *t, uint32_t row, uint64_t serial,
                                      uint64_t alloc_ns, double bytes, const uint16_t *cids, int n);
/* The object of a serial, or NULL when it is not tracked. */
const ht_drag_obj *ht_drag_track_find(const ht_drag_track *t, uint64_t serial);
/* A tracked object was found dead at t_detect; first and last are the
 * earliest first use and the latest last use over its slots (0: never
 * used), t_alive the last time it was seen alive (at least its alloc_ns).
 * Adds it to its row's figures and frees its slots and record. */
void ht_drag_track_died(ht_drag_track *t, uint64_t serial, uint64_t first, uint64_t last,
                        uint64_t t_alive, uint64_t t_detect);
/* Let go of an object without figures (its slot was released for another
 * reason, e.g. it could not be registered), or of every one (drag off). */
void ht_drag_track_forget(ht_drag_track *t, uint64_t serial);
void ht_drag_track_forget_all(ht_drag_track *t);
/* Let go of an object that can no longer be watched (its class went too hot,
 * drag_guard.h): counted untracked instead of tracked, in its row too, so
 * that the row's samples / tracked scaling leaves it out. */
void ht_drag_track_untrack(ht_drag_track *t, uint64_t serial);
/* Objects tracked now. */
uint32_t ht_drag_track_count(const ht_drag_track *t);

/* The mark's operation (ht_mark_op) at this moment; every row becomes
 * dirty. 0, or -1 out of memory (unchanged). */
int ht_drag_track_mark(ht_drag_track *t, int op);
/* Row r as published: its totals and its diff columns. */
void ht_drag_track_row(const ht_drag_track *t, uint32_t r, ht_drag_row_rec *out);
void ht_drag_track_clear_dirty(ht_drag_track *t);

#endif
