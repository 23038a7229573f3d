/*
 * source_rows.h - a store's rows as the margin's stacks (source_margin.h).
 *
 * Owns: the adapters from the store (store.h) to ht_stacks, one per column:
 * the allocation rows, each (trace, class) row a stack weighing its
 * est_bytes; the CPU rows, each (thread, stack) row a stack weighing its
 * cpu_ns in ms (a bucket's row, a sample without a stack, has no frames
 * and is skipped: it is in no file); and which of the store's methods are
 * of a file (by the file's relative name, source_find.h). Both columns are
 * the store's totals since the agent started, as the files' are.
 *
 * Threads: whoever owns the store (the UI thread for the loop's, a job for
 * its copy, record's main thread); nothing is kept after the call.
 */
#ifndef HEAPTOP_SOURCE_ROWS_H
#define HEAPTOP_SOURCE_ROWS_H

#include "source_margin.h"
#include "store.h"

/* Row i of s's rows of column col as a stack: 1 and *out filled, or 0 when
 * it has none (its trace unknown or empty, a CPU bucket, i out of range). */
int ht_store_stack_at(const ht_store *s, ht_margin_col col, uint32_t i, ht_stack *out);
/* How many rows column col has in s (some may have no stack). */
uint32_t ht_store_stack_rows(const ht_store *s, ht_margin_col col);

/* The iteration over s's rows of one column (state: `at`, kept by the
 * caller). */
typedef struct ht_store_stacks {
    const ht_store *s;
    ht_margin_col col;
    uint32_t at;
} ht_store_stacks;
ht_stacks ht_store_alloc_stacks(ht_store_stacks *st, const ht_store *s);
ht_stacks ht_store_cpu_stacks(ht_store_stacks *st, const ht_store *s);

/* Has s CPU data for the margin: CPU rows, or a CPU sampler in force (then
 * a line without any is "no samples", not "not sampled"). */
int ht_store_has_cpu(const ht_store *s);

/* ht_in_file over a store: ctx is an ht_store_file. */
typedef struct ht_store_file {
    const ht_store *s;
    const char *rel; /* pkg/Outer.java */
} ht_store_file;
int ht_store_in_file(void *ctx, uint32_t method_id);

/* m (as many lines as the file) cleared and filled from everything s has
 * for the file rel: the allocation column, and the CPU column when s has
 * CPU data (ht_store_has_cpu; m->has[HT_MARGIN_CPU] says so). 0, or -1 out
 * of memory. */
int ht_margin_from_store(ht_margin *m, const ht_store *s, const char *rel);

#endif
