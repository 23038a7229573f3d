/*
 * behaviour.h - which data structures cost the memory: the object-group
 * reference graph (OGRG) of a snapshot and its ranking by MCC, after Li,
 * Jiang, Qian, Wang and Ju, "Memory Behavior Profiling of Java Program Based
 * on Object Reference Relations", Acta Electronica Sinica 43(7), 2015,
 * with the corrections of docs/behaviour.md (the paper's three algorithms
 * are wrong as printed, its "the result is a DAG" is false, and counting
 * references makes DR exceed 1).
 *
 * What is computed, over Java-level references only (fields, array
 * elements, statics; not the snapshot's modelling edges object->class,
 * class->super/loader/signers/protection domain/constant pool, loader->
 * defined classes):
 *  - units: the objects reachable from the GC roots, each object-level
 *    strongly connected part of two or more objects collapsed into one unit
 *    (scc=literal; scc=none: every object is a unit); an object reachable
 *    only through modelling edges (a class mirror reached from its
 *    instances) is a root "via class metadata", counted apart;
 *  - nodes: units grouped by class (per loader: a class index), collapsed
 *    units by their set of classes into Cycle_1.. (numbered by MC
 *    descending, then by their classes' names), and a virtual ROOT
 *    (nodes[0]: one unit, MC 0, an edge to every node holding root units);
 *  - edges p->c: refs (references, the paper's R) and units (distinct units
 *    of c referenced from p); a self-edge (p->p) is kept out and counted in
 *    the node's rself; in the group graph's cycles, the edges that do not
 *    go farther from ROOT are dropped (kept = 0), in a distance where thin
 *    entries are long (behaviour_cycles.c);
 *  - k: units of c referenced through a kept edge from another node or by
 *    a root; DR = units / k (count=raw: refs / k), in (0, 1] with distinct
 *    counting;
 *  - MD once per node in reverse topological order of the kept edges, MD =
 *    sum over kept children of (MD + MC) x DR; CR = that child's term / MD
 *    of the parent (NaN when the parent's MD is 0); MCC = MC x (MD + MC);
 *  - rank: MCC descending, then MC descending, then name; ROOT not ranked;
 *  - beside each node, the exact retained size of its objects taken
 *    together (the dominator tree: objects of the node no other object of
 *    the node dominates) and its multiplicity f (f_ROOT = 1, f_c = sum of
 *    DR x f_p over kept parents): MD_ROOT / reachable bytes is the paper's
 *    overcount, 1 where every object has one referring node.
 * Thresholds (t1 on DR going up, "forward"; t2 on CR going down,
 * "backward"; 0.1 each by default) are the caller's, per query: changing
 * them costs a walk of the node graph, not of the heap.
 *
 * Owns: arrays of nodes and edges (thousands, not millions); the per-object
 * arrays of the build are freed before it returns.
 *
 * Threads: none of its own; built on the caller's (the snapshot's job),
 * then read-only: the query functions may run on any thread.
 *
 * Must never: recurse (chains of 10^7 objects), divide by zero, trust that
 * the class graph is acyclic, or hold more than ~24 bytes per object of the
 * snapshot while it builds (on a heap whose nodes and edges are few).
 *
 * What a hostile dump can cost at most: a node is a class or a set of
 * classes of a collapsed unit (two objects or more), so nodes <= classes +
 * objects / 2; an edge is a distinct (node, node) pair some reference or
 * root makes, so edges <= references + roots. Kept: 104 bytes a node (and
 * its member classes, 4 bytes each, at most one per object), 48 + 12 bytes
 * an edge; while building, the counts, signatures and hash map of the
 * nodes' keys and the edge array's growth come on top. On a dump of
 * nothing but distinct 2-object cycles (every node a Cycle_N of one unit,
 * an edge from ROOT to each; tests/unit/test_behaviour_limits.c) that is
 * 125 bytes an object at the peak, 76 of them kept. Time stays O(objects
 * + references) plus sorting the nodes. MD past a double is inf (counted
 * in overflow), never NaN.
 */
#ifndef HEAPTOP_BEHAVIOUR_H
#define HEAPTOP_BEHAVIOUR_H

#include "dominators.h"
#include "snapshot.h"

#include <stdint.h>

#define HT_BHV_ROOT 0u /* nodes[0] */

typedef struct ht_bhv_opts {
    int scc_none;  /* 1: no object-level collapse (scc=none); 0: literal (default) */
    int count_raw; /* 1: DR from references (count=raw); 0: distinct units (default) */
} ht_bhv_opts;

typedef struct ht_bhv_node {
    uint64_t units;    /* N */
    uint64_t objects;  /* objects in its units */
    uint64_t mc;       /* bytes, shallow, of its objects */
    double md;         /* bytes dominated, the paper's Eq. 3 (inf past a double: see overflow) */
    double mcc;        /* mc x (md + mc) */
    uint64_t k;        /* units entered through a kept edge from another node, or a root */
    uint64_t rself;    /* distinct units referenced from its own node */
    uint64_t retained; /* exact retained bytes of its objects together */
    double f;          /* multiplicity: how many times MD_ROOT counts its bytes */
    uint32_t cls;      /* class index of a class node, HT_NONE otherwise */
    uint32_t cycle;    /* N of Cycle_N, 0 for a class node, ROOT and HT_BHV_CLASSES */
    uint32_t members;  /* a cycle node's classes: member[members .. members+nmembers) */
    uint32_t nmembers; /* sorted by name */
    uint32_t depth;    /* breadth-first distance from ROOT in the node graph */
    uint32_t rank;     /* 1.. by MCC; 0 for ROOT */
    uint32_t sample;   /* its object of the biggest retained size, HT_NONE for ROOT */
    uint8_t samename;  /* a class node whose class's name another class node has too */
} ht_bhv_node;

typedef struct ht_bhv_edge {
    uint32_t from, to; /* node indexes */
    uint64_t refs;     /* references from `from`'s units into `to`'s */
    uint64_t units;    /* distinct units of `to` referenced */
    double dr;         /* (units or refs) / k of `to`; 0 when dropped */
    double cr;         /* share of `from`'s MD through this edge; NaN when MD of `from` is 0 */
    uint8_t kept;      /* 0: dropped by the cycle rule (outside MD, DR, CR and the paths) */
} ht_bhv_edge;

typedef struct ht_behaviour {
    ht_bhv_opts opts;
    ht_bhv_node *nodes; /* nodes[0] is ROOT */
    uint32_t nnodes;
    uint32_t *member;   /* class indexes of the cycle nodes' members */
    ht_bhv_edge *edges; /* by (from, to) */
    uint32_t nedges;
    uint32_t *out_start;      /* nnodes + 1: edges[out_start[n] .. out_start[n+1]) leave n */
    uint32_t *in_edge;        /* edge indexes by `to`: in_edge[in_start[n] .. in_start[n+1]) */
    uint32_t *in_start;       /* nnodes + 1 */
    uint32_t *ranked;         /* node indexes by rank, nnodes - 1 of them (ROOT left out) */
    uint64_t reachable_bytes; /* T: the sum of every node's mc */
    uint64_t reachable_objects;
    double md_root;           /* MD of ROOT; / reachable_bytes = the overcount */
    uint64_t meta_roots;      /* units given a ROOT edge "via class metadata" */
    uint64_t meta_root_bytes; /* their shallow bytes */
    uint32_t dropped;         /* edges dropped by the cycle rule */
    uint64_t cycle_units;     /* collapsed units (two or more objects) */
    uint32_t overflow;        /* nodes whose MD is not finite (past a double); 0 normally */
    double build_s;           /* seconds */
    char why[160];            /* no ranking (nnodes 0): the build's error in one line */
} ht_behaviour;

/* The object graph the analysis reads, whatever holds it: the snapshot
 * (behaviour_snapshot.c gives its Java-level references) or a test's graph
 * of exact sizes (the design note's worked examples). */
typedef struct ht_bhv_input {
    uint32_t nobjects, nclasses;
    /* class index by object (a class object: java.lang.Class's); HT_NONE:
     * a class object of a dump with no java.lang.Class record, grouped in a
     * node of their own named "java.lang.Class" */
    const uint32_t *cls;
    const void *ctx;                               /* for the functions below */
    uint64_t (*size)(const void *ctx, uint32_t n); /* shallow bytes */
    /* n's Java-level references: a run of `*count` object numbers (a
     * reference repeats when two fields hold it) */
    const uint32_t *(*refs)(const void *ctx, uint32_t n, uint32_t *count);
    const char *(*class_name)(const void *ctx, uint32_t c);
    const uint32_t *roots; /* GC-root objects (may repeat) */
    uint32_t nroots;
    /* objects to make roots "via class metadata" when no Java-level path
     * reaches them, in this order (class objects, then loaders), and after
     * them any other object for which reachable() says 1; NULL: none */
    const uint32_t *meta;
    uint32_t nmeta;
    int (*reachable)(const void *ctx, uint32_t n);
    const ht_dominators *dom; /* for each node's exact retained size; NULL: 0 */
} ht_bhv_input;

int ht_behaviour_build_input(ht_behaviour *b, const ht_bhv_input *in, const ht_bhv_opts *o,
                             const ht_snapshot_opts *p, ht_hprof *err);

/* Build b over the snapshot s, its dominator tree d (for the exact retained
 * sizes) and options o (NULL: the defaults). HT_HPROF_OK, or
 * HT_HPROF_ERR_NOMEM / HT_HPROF_ERR_CANCELLED with s->h->err set and b
 * empty. p: progress and cancellation, may be NULL. */
int ht_behaviour_build(ht_behaviour *b, const ht_snapshot *s, const ht_dominators *d,
                       const ht_bhv_opts *o, const ht_snapshot_opts *p);
void ht_behaviour_free(ht_behaviour *b);

/* The name of node n: a class's name as the heap screens give it, with its
 * loader in brackets when another class node has the same name ("a.B
 * [boot]", "a.B [app]": the heap classes screen's LOADER column,
 * ht_loader_label), "Cycle_N", "java.lang.Class" (the class objects of a
 * dump without that class) or "ROOT". Returns the class's own name or buf
 * (cap bytes, HT_BHV_NAME_MAX is enough but for very long names, which are
 * cut); s may be NULL (a class node is then "class N"). */
#define HT_BHV_NAME_MAX 512
const char *ht_bhv_name(const ht_behaviour *b, const ht_snapshot *s, uint32_t n, char *buf,
                        size_t cap);

/* Forward branches of node n at t1: kept parents p with DR(p->n) >= t1
 * (compared as units >= t1 x k, no rounding); *coverage (may be NULL) their
 * sum of DR, at most 1. A node with none is "flagged" (the paper filters
 * it out). */
uint32_t ht_bhv_branches(const ht_behaviour *b, uint32_t n, double t1, double *coverage);

/* The edges of n's hourglass: forward, every kept edge with DR >= t1 met
 * going up from n (to ROOT or to a node with no such parent); backward,
 * every kept edge with CR >= t2 met going down from n. Writes up to cap
 * edge indexes into out (each once, in breadth-first order from n) and
 * returns how many there are (more than cap: call again with more room).
 * Paths are read from these edges lazily, as the screens unfold them. */
uint32_t ht_bhv_forward(const ht_behaviour *b, uint32_t n, double t1, uint32_t *out, uint32_t cap);
uint32_t ht_bhv_backward(const ht_behaviour *b, uint32_t n, double t2, uint32_t *out, uint32_t cap);

#endif
