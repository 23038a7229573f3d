/*
 * thread_table.h - one row per thread the CPU sampler saw, for the Threads
 * screen.
 *
 * Owns: the rows (a thread's id and its figures by column: state, CPU % in
 * the last second, exact CPU ms since the sampler first saw it, samples, the
 * mark's diff), the thread-name filter, the sort (any of its columns or the
 * name, either direction) and, for the column layout, the largest magnitude
 * in each column. Names are not kept: rows name their thread by id, and the
 * store (or a job's copy of it) names it, so a thread renamed or a store
 * grown never leaves a row pointing at freed text. Pure C over the store: no
 * terminal.
 */
#ifndef HEAPTOP_THREAD_TABLE_H
#define HEAPTOP_THREAD_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "filter.h"
#include "store.h"

typedef struct ht_thread_row {
    uint32_t id;            /* the thread's id (protocol_cpu.h) */
    double v[HT_COL_COUNT]; /* by column (ht_col_from_thread) */
} ht_thread_row;

typedef struct ht_thread_table {
    ht_thread_row *rows;
    uint32_t nrows, cap;
    ht_col sort_col; /* HT_COL_NAME: by name */
    int ascending;
    double max_abs[HT_COL_COUNT];
    int has_neg[HT_COL_COUNT]; /* never: the layout's arguments */
    int name_max;              /* longest name, in bytes */
} ht_thread_table;

void ht_thread_table_init(ht_thread_table *t);
void ht_thread_table_free(ht_thread_table *t);
/* Rebuild from the store's threads, filtered by name (f NULL: all) and
 * sorted. 0, or -1 out of memory. */
int ht_thread_table_build(ht_thread_table *t, const ht_store *s, const ht_filter *f);
/* Sort by t->sort_col (names from s). */
void ht_thread_table_sort(ht_thread_table *t, const ht_store *s);
/* The row of thread id, or UINT32_MAX. */
uint32_t ht_thread_table_find(const ht_thread_table *t, uint32_t id);
/* Make dst (initialised) a copy of src, for a job. 0, or -1 out of memory. */
int ht_thread_table_copy(ht_thread_table *dst, const ht_thread_table *src);

#endif
