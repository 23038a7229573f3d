/*
 * analysis.h - one heap dump, analysed: the mapped file, its graph, the
 * dominator tree, the shortest paths from GC roots (strong references only,
 * and, made when first asked, with weak referents), each class's retained
 * size, the groups of duplicate objects (duplicates.h) and the behaviour
 * ranking (behaviour.h, default options). What `heaptop heap`, `heaptop
 * record --heap` and the viewer's heap screens all read.
 *
 * HEAPTOP_NO_BEHAVIOUR in the environment leaves the behaviour ranking out
 * (x->bhv empty): for tests/bench/heap_analysis.py, which measures what it
 * adds to the analysis's time and peak memory.
 *
 * Threads: ht_heap_load runs on one thread (a job's worker in the viewer);
 * the result is then read-only, except ht_heap_paths(weak=1), which builds
 * the weak paths once on the caller's thread.
 *
 * Must never: leave a half-built analysis behind: on an error everything is
 * freed and x->h.err says what was wrong.
 */
#ifndef HEAPTOP_ANALYSIS_H
#define HEAPTOP_ANALYSIS_H

#include "behaviour.h"
#include "dominators.h"
#include "heap_sites.h"
#include "duplicates.h"
#include "paths.h"
#include "snapshot.h"

typedef struct ht_heap {
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_paths strong, weak;    /* weak: built on first use (weak.prev NULL until then) */
    uint64_t *class_retained; /* by class: a lower bound (see ht_heap_class_retained) */
    ht_heap_sites sites;      /* the agent's sampled objects by allocation site */
    ht_dups dups;             /* groups of deeply equal objects */
    ht_behaviour bhv;         /* the OGRG ranking, default options (empty: HEAPTOP_NO_BEHAVIOUR,
                                 or it failed: bhv.why says why; the rest stands) */
    char path[1024];
    double load_s; /* reading, indexing, dominators, behaviour, duplicates: seconds */
} ht_heap;

/* Open, read and analyse the dump at path (gzip or not). HT_HPROF_OK, or an
 * error code with x->h.err set and nothing left to free. */
int ht_heap_load(ht_heap *x, const char *path, const ht_snapshot_opts *opts);
void ht_heap_free(ht_heap *x);

/* The paths with (weak = 1) or without weak referents; NULL out of memory. */
const ht_paths *ht_heap_paths(ht_heap *x, int weak);

/* Per class: the retained size of its instances taken together, as the sum
 * over instances no other instance of the class dominates: a lower bound
 * (objects two instances share are retained by neither alone); the
 * dominator tree's keyed walk (ht_dominators_keyed_retained) keyed by
 * class. Indexed by class; the caller frees it. NULL out of memory. */
uint64_t *ht_heap_class_retained(const ht_snapshot *s, const ht_dominators *d);

#endif
