/*
 * mark.h - the Begin / End / Continue mark: a stretch of the run, what was
 * allocated in it and how much the live set grew, kept in the agent.
 *
 * Owns: the mark's state and clock, and one baseline per aggregate row that
 * turns the cumulative totals into the diff columns (allocated while the mark
 * ran) and the growth columns (live now minus live at Begin). Begin takes the
 * baseline, End freezes the diff and growth, Continue resumes adding to the
 * same diff. A row born after Begin has a baseline of zero; a row born after
 * End has no diff. The mark lives in the agent so every viewer, `heaptop
 * control` and `heaptop record` see the same phase, and a viewer that
 * reconnects finds it as it was. Collector thread only; pure C, unit-tested.
 */
#ifndef HEAPTOP_MARK_H
#define HEAPTOP_MARK_H

#include <stdint.h>

#include "aggregates.h"
#include "protocol.h"

typedef struct ht_mark {
    ht_mark_state state;
    /* per row: [0] bytes, [1] instances: the baseline while running, the
     * frozen diff while stopped; [2] live bytes, [3] live instances: the same
     * for growth. Rows at or past nrows have never been seen by the mark. */
    double (*base)[4];
    uint32_t nrows;
    uint64_t counted_ms;   /* time counted before the current run */
    uint64_t run_start_ms; /* start of the current run */
} ht_mark;

void ht_mark_init(ht_mark *m);
void ht_mark_free(ht_mark *m);
/* Apply an operation at now_ms (any monotonic clock). Every row becomes dirty
 * when the diffs move. 0, or -1 out of memory (the mark is then unchanged). */
int ht_mark_apply(ht_mark *m, ht_aggs *a, ht_mark_op op, uint64_t now_ms);
/* Row r of the aggregates as published: its figures plus its diff and growth. */
void ht_mark_row(const ht_mark *m, const ht_aggs *a, uint32_t r, ht_agg_rec *out);
uint64_t ht_mark_length_ms(const ht_mark *m, uint64_t now_ms);

#endif
