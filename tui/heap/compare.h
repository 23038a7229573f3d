/*
 * compare.h - two heap snapshots compared class by class: what is kept of a
 * snapshot once it is freed (ht_heap_figures), and the join of two of them
 * by class name (ht_compare). What `heaptop heap A B` writes as compare.csv
 * and the viewer's Compare screen shows.
 *
 * Owns: the figures' copies of the class names (they outlive the snapshot),
 * the join, and its order. Classes are joined by name, as `jcmd
 * GC.class_histogram` prints it: two loaders' classes of one name are one
 * row, their instances and bytes summed (a loader is an object whose address
 * changes between two dumps, so nothing else could match them across dumps;
 * the heap classes screen still shows them apart). Bytes are shallow bytes,
 * as the histogram counts them. A class with no instance in either snapshot
 * has no row.
 *
 * The seam for the sampled objects of a run (issue 11, "alive in both
 * snapshots by sample id"): a snapshot's table of the agent's sampled objects
 * (sample id, allocation site, weight) belongs in ht_heap_figures beside the
 * classes, copied out of the snapshot the same way, so the older one is kept
 * after its snapshot is freed; the survivors are the ids present in both
 * figures, grouped by site, a second table of ht_compare built in
 * ht_compare_build.
 *
 * Threads: none of its own; ht_heap_figures_read runs on the caller's thread
 * (a job's worker in the viewer); the rest is cheap and runs anywhere. Pure
 * C: no terminal, no files but the dump read.
 *
 * Must never: keep a pointer into a snapshot (figures outlive it), nor leave
 * a half-built table on an error (everything is freed).
 */
#ifndef HEAPTOP_COMPARE_H
#define HEAPTOP_COMPARE_H

#include "snapshot.h"

#include <stdint.h>

/* One class name's figures in one snapshot. */
typedef struct ht_class_fig {
    const char *name; /* into ht_heap_figures.names */
    uint64_t instances, bytes;
} ht_class_fig;

/* What is kept of a snapshot for a compare once the snapshot is freed. */
typedef struct ht_heap_figures {
    char path[1024];
    uint64_t timestamp_ms; /* the dump's own time (ms since the epoch), 0 unknown */
    ht_class_fig *classes; /* one per class name with instances, by name */
    uint32_t nclasses;
    char *names; /* every class name, NUL-separated, one allocation */
    uint64_t objects, bytes;
    /* to come (issue 11): the agent's sampled objects of this snapshot */
} ht_heap_figures;

/* The figures of snapshot s (of the dump at path). 0, or -1 out of memory
 * (f empty). */
int ht_heap_figures_of(ht_heap_figures *f, const ht_snapshot *s, const char *path);
/* Read the dump at path as far as the class figures need (the graph, not
 * its dominators or paths), keep them, free the rest: the cheaper way to the
 * older snapshot of a compare. HT_HPROF_OK, or an error with the message in
 * err (f empty). opts may be NULL. */
int ht_heap_figures_read(ht_heap_figures *f, const char *path, const ht_snapshot_opts *opts,
                         char *err, size_t cap);
void ht_heap_figures_free(ht_heap_figures *f);

/* One class name in either snapshot. */
typedef struct ht_compare_row {
    const char *name; /* into one of the figures: they must outlive the compare */
    uint64_t inst_a, inst_b, bytes_a, bytes_b;
} ht_compare_row;

typedef struct ht_compare {
    ht_compare_row *rows; /* the biggest change of bytes (either way) first, then by name */
    uint32_t nrows;
} ht_compare;

/* Join a (the older) and b by class name. 0, or -1 out of memory (c empty). */
int ht_compare_build(ht_compare *c, const ht_heap_figures *a, const ht_heap_figures *b);
void ht_compare_free(ht_compare *c);

static inline int64_t ht_compare_dbytes(const ht_compare_row *r)
{
    return (int64_t)r->bytes_b - (int64_t)r->bytes_a;
}
static inline int64_t ht_compare_dinst(const ht_compare_row *r)
{
    return (int64_t)r->inst_b - (int64_t)r->inst_a;
}
/* qsort order of ht_compare.rows: |bytes_b - bytes_a| descending, then name. */
int ht_compare_row_order(const void *x, const void *y);

#endif
