/*
 * behaviour_int.h - what behaviour.c (units, nodes, edges) hands to
 * behaviour_rank.c (the cycle rule, K, DR, MD, CR, MCC, the ranking and the
 * exact retained sizes) during one build: the per-object and per-unit
 * arrays, which the build frees before it returns.
 *
 * Threads: the build's only. Must never: outlive ht_behaviour_build_input.
 */
#ifndef HEAPTOP_BEHAVIOUR_INT_H
#define HEAPTOP_BEHAVIOUR_INT_H

#include "behaviour.h"

/* Flags of a unit (uflag[]). */
enum {
    BHV_U_ROOT = 1, /* holds a GC root object or a root "via class metadata" */
    BHV_U_META = 2, /* entered "via class metadata" */
    BHV_U_K = 4,    /* counted in its node's k */
};

typedef struct bhv_work {
    ht_behaviour *b;
    const ht_bhv_input *in;
    const ht_snapshot_opts *p;
    ht_hprof *err;
    uint32_t n;     /* objects */
    uint32_t *unit; /* by object: its unit, HT_NONE when unreachable */
    uint32_t nunits;
    uint32_t *unode;      /* by unit: its node */
    uint8_t *uflag;       /* by unit: BHV_U_* */
    uint32_t *stamp;      /* by unit: the last node that referenced it */
    uint32_t *order;      /* reachable objects, by node then number */
    uint32_t *node_start; /* nnodes + 1 into order */
    uint32_t *rootobj;    /* distinct GC-root objects, then the metadata roots */
    uint32_t nrootobj, rootcap;
    uint64_t *k1; /* by node: units referenced from another node or a root */
    uint64_t ticks;
} bhv_work;

/* Progress every 2^20 objects and the caller's cancel: 0, or
 * HT_HPROF_ERR_CANCELLED with the error set. */
int ht_bhv_tick(bhv_work *w, const char *phase, uint64_t done, uint64_t total);
int ht_bhv_fail(bhv_work *w, int rc, const char *what);

/* behaviour_cycles.c: inside each strongly connected part of the node graph
 * (part[] by node), drop (kept = 0, b->dropped) the edges that do not go
 * farther from ROOT, in a distance where an entry thinner than a tenth of
 * its node's heaviest is long. 0, or -1 out of memory. */
int ht_bhv_cycle_order(ht_behaviour *b, const uint32_t *part);

/* behaviour_rank.c: everything after the edges, on b and w. */
int ht_bhv_rank(bhv_work *w);

#endif
