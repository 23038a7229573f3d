/*
 * export_drag.h - drag mode's file from a store: drag.csv (libcsv, through
 * export_csv.h's writer).
 *
 * Owns: its column layout, row order and number formatting.
 *   drag.csv: class,frame,stack,samples,tracked,drag_byte_s_lo,
 *             drag_byte_s_hi,lag_byte_s,use_byte_s,void_samples,truncated
 *             -- one row per allocation site (class, stack) drag mode saw,
 *             `record`'s ranked by drag_byte_s_hi (most first), the Drag
 *             screen's in the order it shows. class, frame and stack are
 *             written as sites.csv writes them (the allocating frame, the
 *             whole stack leaf first joined by " <- "); samples the site's
 *             sampled objects of a filter class, tracked those tracked for
 *             last use; the byte-second figures (estimates, rounded) sum
 *             over the dead among the tracked, times samples / tracked so
 *             that they estimate the whole site (ht_drag_row_estimate;
 *             multiply by tracked / samples to undo): drag from the last use
 *             to the last time seen alive (lo) or to the collection that
 *             found the object dead (hi), lag from allocation to first use,
 *             use from first to last use; void_samples the dead never used
 *             after construction, scaled alike (rounded); truncated 1 for a
 *             stack as deep as the agent's depth option. Exported from the
 *             screen's class view: one row per class, frame and stack
 *             empty, the figures its sites' summed.
 * Totals count from the time drag mode was first turned on (the mark's
 * figures on request). Shared by `heaptop record` and the Drag screen, which
 * pass a store (a job's copy, ht_store_snapshot, which keeps the stacks the
 * drag rows use), never a screen. No terminal, no network; runs on
 * whichever thread calls it.
 */
#ifndef HEAPTOP_EXPORT_DRAG_H
#define HEAPTOP_EXPORT_DRAG_H

#include <stdint.h>
#include <stdio.h>

#include "export_csv.h"
#include "store.h"

/* Which rows of drag.csv, and which figures. A NULL ht_drag_export is
 * `record`'s: every row, most drag (hi) first, the totals. */
typedef struct ht_drag_export {
    const uint64_t *sites; /* ht_row_key(trace, class) of the rows, in order; NULL: all */
    uint32_t nsites;
    int mark;     /* the mark's figures (diff_*) instead of the totals */
    int by_class; /* sites[] are class ids: one row per class, its sites'
                   * estimates summed (ht_drag_class_sums), frame and stack
                   * empty, truncated 0 (the Drag screen's class view, g) */
} ht_drag_export;

/* drag.csv from s's drag rows; p (NULL: none) told as it goes, may stop it.
 * 0, or -1 with errno (ECANCELED when p stopped it; nothing written). A site
 * of `how` the store has no row of is left out. */
int ht_export_drag(const ht_store *s, const char *path, const ht_drag_export *how,
                   const ht_progress *p);
/* Its header, one line ("drag.csv:    class,..."), for `heaptop
 * --csv-headers` (docs/csv-formats.md holds it). */
void ht_export_drag_headers(FILE *f);

#endif
