/*
 * behaviour_cycles.c - the cycle rule of the behaviour ranking (behaviour.h,
 * docs/behaviour.md D6): which edges inside a strongly connected part of
 * the node graph are dropped so that what is kept is acyclic.
 *
 * The design note's rule drops, inside a part, every edge p -> c with
 * depth(c) <= depth(p), depth the breadth-first hops from ROOT. Kept as it
 * is, one thin entry makes a big node shallow: on FOP's heap a GC root
 * holds one java.lang.Object[] directly (1 of 39,894 arrays), so Object[]
 * is one hop from ROOT and every edge into it from its part is dropped;
 * the arrays are then entered by 9 units only, and the four
 * OutOfMemoryError objects that hold 4 of them are credited with 34.5 MiB.
 *
 * So the depth here is a shortest distance from ROOT in which an entry
 * counts as one hop only when it is thick: it carries at least a tenth of
 * the node's heaviest entry (distinct units, or references with
 * count=raw); a thin entry is as long as a path through every node
 * (nnodes + 1 hops). Then the same rule drops p -> c inside a part when
 * dist(c) <= dist(p). What follows:
 *  - the edge by which a node's shortest path enters it goes farther, so it
 *    is kept: every node keeps an entry (k >= 1), and MD of ROOT is never
 *    below the reachable bytes;
 *  - where every entry is thick (all the design note's worked examples, a
 *    node of one unit, whose entries all carry 1), it is the hop rule;
 *  - a node of one unit stays where its first entry puts it, so a giant
 *    object cycle (Jython's interpreter state, one unit of 849,000 objects)
 *    is not credited to each of its dozens of referrers (a rule ordering
 *    the nodes by the weight of their entries was tried: it kept those
 *    parallel entries and read 157 times the retained size at the median
 *    of Jython's top 30);
 *  - on FOP, OutOfMemoryError's MD falls from 34.5 MiB to 0.2 MiB; the
 *    estimates of the top 30 are as close to the retained sizes as with
 *    hops (median 1.15 against 1.10). It does not choose which edge of a
 *    cycle of thick edges to cut: that is still where the cycle is first
 *    entered (FOP's Block -> ArrayList -> Object[] -> Block is cut before
 *    Object[], so ArrayList still reads MD 0; the hourglass lists the
 *    dropped edges);
 *  - Dijkstra over the nodes with a heap of lazy entries: O((nodes + edges)
 *    log edges); nodes only, never objects.
 *
 * Threads: the build's. Must never: leave a node without a kept entry, or
 * take time quadratic in the nodes.
 */
#include "behaviour_int.h"

#include <stdlib.h>

typedef struct entry {
    uint64_t dist;
    uint32_t node;
} entry;

typedef struct heap {
    entry *e;
    size_t n, cap;
} heap;

static int push(heap *h, entry x)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        entry *p = realloc(h->e, cap * sizeof *p);
        if (!p) return -1;
        h->e = p, h->cap = cap;
    }
    size_t i = h->n++;
    while (i && x.dist < h->e[(i - 1) / 2].dist) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
    return 0;
}

static entry pop(heap *h)
{
    entry top = h->e[0], last = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->e[c + 1].dist < h->e[c].dist) c++;
        if (h->e[c].dist >= last.dist) break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n) h->e[i] = last;
    return top;
}

static uint64_t weight(const ht_behaviour *b, const ht_bhv_edge *e)
{
    return b->opts.count_raw ? e->refs : e->units;
}

int ht_bhv_cycle_order(ht_behaviour *b, const uint32_t *part)
{
    uint32_t nn = b->nnodes;
    uint64_t *heaviest = calloc(nn ? nn : 1, sizeof *heaviest);
    uint64_t *dist = malloc((nn ? nn : 1) * sizeof *dist);
    uint8_t *done = calloc(nn ? nn : 1, 1);
    heap h = {0};
    int rc = -1;
    if (!heaviest || !dist || !done) goto out;
    for (uint32_t e = 0; e < b->nedges; e++) {
        uint64_t w = weight(b, &b->edges[e]);
        if (w > heaviest[b->edges[e].to]) heaviest[b->edges[e].to] = w;
    }
    for (uint32_t i = 0; i < nn; i++)
        dist[i] = UINT64_MAX;
    const uint64_t thin = (uint64_t)nn + 1;
    if (nn) {
        dist[0] = 0;
        if (push(&h, (entry){0, 0}) != 0) goto out;
    }
    while (h.n) {
        entry t = pop(&h);
        if (done[t.node]) continue; /* a stale entry */
        done[t.node] = 1;
        for (uint32_t e = b->out_start[t.node]; e < b->out_start[t.node + 1]; e++) {
            const ht_bhv_edge *x = &b->edges[e];
            uint32_t c = x->to;
            uint64_t len = weight(b, x) * 10 >= heaviest[c] ? 1 : thin;
            if (!done[c] && t.dist + len < dist[c]) {
                dist[c] = t.dist + len;
                if (push(&h, (entry){dist[c], c}) != 0) goto out;
            }
        }
    }
    for (uint32_t e = 0; e < b->nedges; e++) {
        ht_bhv_edge *x = &b->edges[e];
        if (part[x->from] == part[x->to] && dist[x->to] <= dist[x->from]) x->kept = 0, b->dropped++;
    }
    rc = 0;
out:
    free(heaviest), free(dist), free(done), free(h.e);
    return rc;
}
