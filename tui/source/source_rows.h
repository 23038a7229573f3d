/*
 * source_rows.h - a store's rows as the margin's stacks (source_margin.h).
 *
 * Owns: the adapters from the store (store.h) to ht_stacks, one per column:
 * the allocation rows, each (trace, class) row a stack weighing its
 * est_bytes; and which of the store's methods are of a file (by the file's
 * relative name, source_find.h). The CPU rows plug in here: an adapter
 * over them (cpu_ms per trace) and one ht_margin_add call for
 * HT_MARGIN_CPU in ht_margin_from_store.
 *
 * Threads: whoever owns the store (the UI thread for the loop's, a job for
 * its copy); nothing is kept after the call.
 */
#ifndef HEAPTOP_SOURCE_ROWS_H
#define HEAPTOP_SOURCE_ROWS_H

#include "source_margin.h"
#include "store.h"

/* The iteration over s's allocation rows (state: `at`, kept by the caller). */
typedef struct ht_store_stacks {
    const ht_store *s;
    uint32_t at;
} ht_store_stacks;
ht_stacks ht_store_alloc_stacks(ht_store_stacks *st, const ht_store *s);

/* ht_in_file over a store: ctx is an ht_store_file. */
typedef struct ht_store_file {
    const ht_store *s;
    const char *rel; /* pkg/Outer.java */
} ht_store_file;
int ht_store_in_file(void *ctx, uint32_t method_id);

/* m (as many lines as the file) cleared and filled from everything s has
 * for the file rel. 0, or -1 out of memory. */
int ht_margin_from_store(ht_margin *m, const ht_store *s, const char *rel);

#endif
