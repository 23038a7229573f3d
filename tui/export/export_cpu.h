/*
 * export_cpu.h - the CPU sampler's files from a store: cpu.csv and
 * threads.csv (libcsv, through export_csv.h's writer).
 *
 * Owns: their column layouts, row order and number formatting.
 *   cpu.csv:     thread,frame,stack,samples,cpu_ms,truncated -- one row per
 *                thread and stack (or bucket), most CPU first. frame is the
 *                stack's leaf written as sites.csv writes a frame, stack the
 *                whole stack as sites.csv writes it (leaf first, " <- "); a
 *                sample without a stack is a row of its bucket, frame and
 *                stack both "[bucket_name]" (e.g. "[unknown_Java]").
 *                truncated: 1 for a stack as deep as the agent's depth
 *                option (its outer frames may be cut).
 *   threads.csv: thread,state,cpu_ms,samples -- one row per thread the CPU
 *                sampler saw, most CPU first; cpu_ms the thread's measured
 *                CPU time (exact under cpu=on), samples its stacks and
 *                buckets.
 * cpu_ms is milliseconds with three decimals. Totals count from the agent's
 * start (the mark's figures on request), as the other files' do. Shared by
 * `heaptop record` and the TUI's CPU screens, which pass a store (a job's
 * copy, ht_store_snapshot, which keeps the stacks the CPU rows use), never a
 * screen. No terminal, no network; runs on whichever thread calls it.
 */
#ifndef HEAPTOP_EXPORT_CPU_H
#define HEAPTOP_EXPORT_CPU_H

#include <stdint.h>
#include <stdio.h>

#include "export_csv.h"
#include "store.h"

/* Which rows of cpu.csv, and which figures. A NULL ht_cpu_export is
 * `record`'s: every thread, one row per thread and stack, the totals. */
#define HT_CPU_EXPORT_ALL_THREADS 0u /* thread ids start at 1 */
typedef struct ht_cpu_export {
    uint32_t thread; /* only this thread's rows, or HT_CPU_EXPORT_ALL_THREADS */
    int merged;      /* one row per stack summed over the threads; thread is "" */
    int mark;        /* the mark's figures (diff_*) instead of the totals */
} ht_cpu_export;

/* cpu.csv from s's CPU rows; p (NULL: none) told as it goes, may stop it.
 * 0, or -1 with errno (ECANCELED when p stopped it; nothing written). */
int ht_export_cpu(const ht_store *s, const char *path, const ht_cpu_export *how,
                  const ht_progress *p);
/* threads.csv from s's CPU threads (mark: the mark's figures). */
int ht_export_cpu_threads(const ht_store *s, const char *path, int mark, const ht_progress *p);
/* Both files' headers, one line each ("cpu.csv:     thread,...",
 * "threads.csv: ..."), for `heaptop --csv-headers` (docs/csv-formats.md
 * holds them). */
void ht_export_cpu_headers(FILE *f);
/* "on" -> "at safepoints (JVMTI stacks)": where the frames of a CPU mode's
 * samples are taken, as summary.csv and the screens say it; "" for off. */
const char *ht_cpu_attribution(int cpu_mode);

#endif
