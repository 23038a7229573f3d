/*
 * marks.h - Begin / End / Continue mark, with the semantics of seed 003.
 *
 * Owns: per-(trace, class) baselines that turn the cumulative totals into the
 * "diff" columns. With no mark the diff is the total. Begin zeroes the diff and
 * starts counting; End freezes it; Continue resumes adding to the same diff;
 * a later End freezes again. Keys are (trace id, class id), not row positions,
 * so a resync that rebuilds the store does not disturb a running mark. Also
 * keeps how long the mark has been counting. Pure: no I/O, no terminal.
 */
#ifndef HEAPTOP_MARKS_H
#define HEAPTOP_MARKS_H

#include <stdint.h>

#include "store.h"

typedef enum ht_mark_state { HT_MARK_NONE = 0, HT_MARK_RUNNING, HT_MARK_STOPPED } ht_mark_state;

typedef struct ht_mark_entry {
    uint64_t key; /* trace << 32 | class; 0 = empty slot (trace 0 class 0 never occurs) */
    double bytes, instances; /* baseline while running, frozen diff while stopped */
} ht_mark_entry;

typedef struct ht_marks {
    ht_mark_state state;
    ht_mark_entry *slots;
    uint32_t mask, count;
    uint64_t counted_ms; /* time spent running before the current run */
    uint64_t run_start_ms;
} ht_marks;

void ht_marks_init(ht_marks *m);
void ht_marks_free(ht_marks *m);
/* now_ms: any monotonic clock, used for the length of the mark. 0 or -1 (OOM). */
int ht_marks_begin(ht_marks *m, const ht_store *s, uint64_t now_ms);
int ht_marks_end(ht_marks *m, const ht_store *s, uint64_t now_ms);
int ht_marks_continue(ht_marks *m, const ht_store *s, uint64_t now_ms);
/* Diff of one row. */
void ht_marks_diff(const ht_marks *m, const ht_agg_rec *row, double *bytes, double *instances);
/* How long the mark has counted (ms). */
uint64_t ht_marks_length_ms(const ht_marks *m, uint64_t now_ms);

#endif
