/*
 * class_table.h - one row per class, for the Classes screen.
 *
 * Owns: per-class sums over the store's rows (estimated bytes and instances
 * allocated, live, young, the mark's diff and growth, and the samples each
 * rests on), the class filter, the sort order (any column, either direction)
 * and, for the column layout, the largest magnitude in each column and the
 * longest name. Rows are keyed by class name, so one class allocated at many
 * sites is one row. Each row also says which of its figures are above the
 * bound the data give (columns.h: LIVE and GROWTH above the heap's used
 * bytes as of the latest telemetry). Pure C over the store: no terminal.
 */
#ifndef HEAPTOP_CLASS_TABLE_H
#define HEAPTOP_CLASS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "filter.h"
#include "store.h"

typedef struct ht_class_row {
    const char *name;       /* owned by the store */
    uint32_t class_id;      /* one id of this class (for "open in tree") */
    double v[HT_COL_COUNT]; /* v[HT_COL_NAME] unused; v[HT_COL_PCT] share of bytes */
    uint64_t young_samples; /* the samples YOUNG rests on (no column of its own) */
    unsigned over;          /* bit c: v[c] is above its bound (columns.h) */
} ht_class_row;

typedef struct ht_class_table {
    ht_class_row *rows;
    uint32_t nrows, cap;
    ht_col sort_col;
    int ascending;
    double max_abs[HT_COL_COUNT]; /* largest |value| of each column */
    int has_neg[HT_COL_COUNT];    /* a value below zero (growth) */
    int name_max;                 /* longest class name, in bytes */
    ht_col_bounds bounds;         /* as of the last build */
    unsigned over;                /* the rows' over bits, or-ed */
} ht_class_table;

void ht_class_table_init(ht_class_table *t);
void ht_class_table_free(ht_class_table *t);
/* Rebuild from the store, filtered and sorted. 0 or -1 (out of memory). */
int ht_class_table_build(ht_class_table *t, const ht_store *s, const ht_filter *f);
void ht_class_table_sort(ht_class_table *t);
/* Make dst (initialised) a copy of src whose names come from `names` (a copy
 * of the store src was built from), for a job that writes it while src and
 * its store change. 0, or -1 out of memory. */
int ht_class_table_copy(ht_class_table *dst, const ht_class_table *src, const ht_store *names);
/* The row of a class by name, or UINT32_MAX (for keeping the cursor on a
 * class while rows move). */
uint32_t ht_class_table_find(const ht_class_table *t, const char *name);

#endif
