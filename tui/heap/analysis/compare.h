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
 * The agent's sampled objects (sampled.h) are joined too, by sample serial,
 * never by address (objects move between dumps): ht_survivors sorts each
 * sample present in either snapshot of one agent run into kept (alive in A
 * and B), new (not in A, alive in B: allocated after A was marked) and freed
 * (alive in A, gone from B), summed per allocation site, each with the
 * sample's weights (estimate.h). New objects still alive in B are a
 * mark-and-compare's leak suspects; kept ones the memory held all along.
 * Two snapshots of different runs (another JVM, or the agent restarted after
 * a detach: the ids start again) are not joined, and ht_survivors.why says
 * so, as it does when a snapshot has no marker.
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

/* One sampled object of a snapshot: what a survivor join needs of it. */
typedef struct ht_sample_fig {
    uint64_t serial;
    uint32_t trace_id, class_id; /* its site, as the run's stream names it */
    double instances, bytes;     /* what the sample stands for */
} ht_sample_fig;

/* What is kept of a snapshot for a compare once the snapshot is freed. */
typedef struct ht_heap_figures {
    char path[1024];
    uint64_t timestamp_ms; /* the dump's own time (ms since the epoch), 0 unknown */
    ht_class_fig *classes; /* one per class name with instances, by name */
    uint32_t nclasses;
    char *names; /* every class name, NUL-separated, one allocation */
    uint64_t objects, bytes;
    /* the agent's sampled objects present in the dump, by serial, and the
     * run that marked them (sampled.h; marked 0: a dump without the marker) */
    ht_sample_fig *samples;
    uint32_t nsamples;
    uint8_t marked;
    uint32_t run_pid;
    uint64_t run_start_ms;
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

/* One allocation site's sampled objects across the two snapshots, counted
 * (samples) and estimated (objects, bytes: the samples' weights). */
typedef struct ht_survivor_site {
    uint32_t trace_id, class_id;
    uint32_t kept, fresh, freed; /* samples alive in A and B; in B only; in A only */
    double kept_inst, fresh_inst, freed_inst;
    double kept_bytes, fresh_bytes, freed_bytes;
} ht_survivor_site;

typedef struct ht_survivors {
    ht_survivor_site *v; /* most new bytes first, then most kept bytes */
    uint32_t n;
    const char *why; /* NULL, or why no sample could be joined (static text) */
} ht_survivors;

/* Join a's and b's sampled objects by serial. 0 (sv->why says when there is
 * nothing to join), or -1 out of memory (sv empty). */
int ht_survivors_build(ht_survivors *sv, const ht_heap_figures *a, const ht_heap_figures *b);
void ht_survivors_free(ht_survivors *sv);

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
