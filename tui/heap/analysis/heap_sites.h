/*
 * heap_sites.h - the allocation sites of a heap dump's sampled objects: per
 * site (the stream's (trace, class) pair), the objects of that site the dump
 * holds and the bytes they retain, estimated from the agent's live samples
 * (sampled.h) and the dominator tree.
 *
 * Each sample found in the dump stands for `instances` objects of its site
 * (its weight, estimate.h): the site's estimated objects in the heap are the
 * sum of those weights, its estimated retained bytes the sum of weight x the
 * sampled object's retained size, its shallow bytes likewise. Retained sets
 * of two sites can overlap (a HashMap's Node[] site and its Node site: the
 * array retains the nodes), so the sum over sites is not the heap; per site
 * the figure is what removing that site's objects would free, estimated.
 * Retained sets also nest (every node of a linked list retains the rest of
 * it), so a site's estimate, a sum of its samples' retained sizes, can exceed
 * the whole snapshot though no object retains more than it: such a site is
 * flagged `over` its bound, the snapshot's bytes (columns.h, ht_col_bounds),
 * and its figure kept as estimated.
 *
 * Threads: built with the analysis (a job), then read-only.
 * Must never: allocate per sample (arrays sized once, one map).
 */
#ifndef HEAPTOP_HEAP_SITES_H
#define HEAPTOP_HEAP_SITES_H

#include "dominators.h"
#include "hashmap.h"
#include "snapshot.h"

typedef struct ht_heap_site {
    uint32_t trace_id, class_id; /* as the stream names them */
    uint32_t samples;            /* its samples present in the dump */
    double instances;            /* estimated objects of the site in the heap */
    double shallow, retained;    /* estimated bytes */
    int over;                    /* retained is above the snapshot's bytes */
} ht_heap_site;

typedef struct ht_heap_sites {
    ht_heap_site *v; /* biggest estimated retained bytes first */
    uint32_t n;
    ht_map index;   /* trace << 32 | class -> index in v */
    double bound;   /* the snapshot's bytes: what no site can retain more than */
    uint32_t nover; /* sites over it */
} ht_heap_sites;

/* HT_HPROF_OK or HT_HPROF_ERR_NOMEM. A dump without the marker gives none. */
int ht_heap_sites_build(ht_heap_sites *hs, const ht_snapshot *s, const ht_dominators *d);
void ht_heap_sites_free(ht_heap_sites *hs);
/* The site (trace, cls), or NULL when no sample of it is in the dump. */
const ht_heap_site *ht_heap_sites_find(const ht_heap_sites *hs, uint32_t trace, uint32_t cls);

#endif
