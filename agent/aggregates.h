/*
 * aggregates.h - cumulative per-(trace, class) totals for the whole run.
 *
 * Owns: one record per distinct (trace, class) pair with samples and estimated
 * bytes/instances allocated, live and young (see live_set.h for the two), the
 * live set that tracks sampled objects, and the list of records changed since
 * the last publication. Bounded: past max_rows a new pair goes to
 * the (HT_TRACE_OVERFLOW, class) row of its class, which is reported as an
 * overflow and never merged into another site. Collector thread only; pure C,
 * no JVMTI, unit-tested.
 */
#ifndef HEAPTOP_AGGREGATES_H
#define HEAPTOP_AGGREGATES_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "live_set.h"
#include "protocol.h"

typedef struct ht_aggs {
    ht_agg_rec *rows;
    uint8_t *dirty_flag;
    uint32_t *dirty;
    uint32_t n, cap, max_rows, ndirty;
    ht_map index; /* (trace, class) key -> row */
    ht_live_set live;
    uint64_t samples;       /* all samples aggregated */
    uint64_t overflow_rows; /* samples that went to an overflow row for lack of rows */
} ht_aggs;

int ht_aggs_init(ht_aggs *a, uint32_t max_rows, size_t max_live);
void ht_aggs_destroy(ht_aggs *a);
/* Count one sample; when ref != 0 track it (as young; epoch: GC pauses
 * started before it was taken). Returns 0, or -1 when the live set is full
 * (the sample is still counted, not tracked, and the caller still owns ref). */
int ht_aggs_add(ht_aggs *a, uint32_t trace, uint32_t cls, uint64_t size, uint64_t interval,
                uint64_t ref, uint32_t epoch);
/* A sweep of a->live found a tracked sample dead (from the young or the live
 * list): take it out of its row's figures. Releasing its reference is the
 * caller's. */
void ht_aggs_tracked_died(ht_aggs *a, const ht_live_entry *e, int was_young);
/* A sweep proved a young sample alive: move it to its row's live figures. */
void ht_aggs_tracked_proven(ht_aggs *a, const ht_live_entry *e);
/* Samples of (trace, cls) lost so far (an absolute count, creating the row if
 * needed); marks the row changed when the count moved. */
void ht_aggs_set_dropped(ht_aggs *a, uint32_t trace, uint32_t cls, uint64_t dropped);
/* Mark every row changed (the mark's diff columns of all of them moved). */
void ht_aggs_mark_all_dirty(ht_aggs *a);
/* Row of (trace, cls), or NULL. */
const ht_agg_rec *ht_aggs_find(const ht_aggs *a, uint32_t trace, uint32_t cls);
/* Forget the dirty list after it was published. */
void ht_aggs_clear_dirty(ht_aggs *a);

#endif
