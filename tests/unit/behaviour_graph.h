/*
 * behaviour_graph.h - test_behaviour's object graphs built by hand (an
 * ht_bhv_input over arrays), their dominator tree the slow way (an object
 * dominates what its removal cuts off from the roots), and the checks that
 * read a ht_behaviour back by node and edge names, to a relative 1e-9.
 * Small graphs only for the dominators: quadratic by design.
 */
#ifndef HEAPTOP_TEST_BEHAVIOUR_GRAPH_H
#define HEAPTOP_TEST_BEHAVIOUR_GRAPH_H

#include "behaviour.h"
#include "check.h"
#include "dominators.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a graph of objects built by hand ---- */

typedef struct tg {
    uint32_t n, ncls;
    uint32_t *cls, *size;
    uint32_t *start, *out; /* references, CSR */
    uint32_t *roots, nroots;
    const char *const *names;
    uint32_t *meta, nmeta;
    ht_dominators dom;
    int has_dom;
} tg;

static uint64_t tg_size(const void *ctx, uint32_t o)
{
    return ((const tg *)ctx)->size[o];
}

static const uint32_t *tg_refs(const void *ctx, uint32_t o, uint32_t *count)
{
    const tg *g = ctx;
    *count = g->start[o + 1] - g->start[o];
    return g->out + g->start[o];
}

static const char *tg_name(const void *ctx, uint32_t c)
{
    return ((const tg *)ctx)->names[c];
}

/* n objects of classes cls[] and sizes size[], references e[2 * ne]
 * (from, to, in this order per object), roots r[]. */
static void tg_make(tg *g, uint32_t n, const uint32_t *cls, const uint32_t *size, const uint32_t *e,
                    uint32_t ne, const uint32_t *r, uint32_t nr, const char *const *names,
                    uint32_t ncls)
{
    memset(g, 0, sizeof *g);
    g->n = n, g->ncls = ncls, g->names = names;
    g->cls = malloc(((size_t)n + 1) * 4), g->size = malloc(((size_t)n + 1) * 4);
    g->start = calloc((size_t)n + 2, 4), g->out = malloc(((size_t)ne + 1) * 4);
    g->roots = malloc(((size_t)nr + 1) * 4), g->nroots = nr;
    memcpy(g->cls, cls, (size_t)n * 4), memcpy(g->size, size, (size_t)n * 4);
    memcpy(g->roots, r, (size_t)nr * 4);
    for (uint32_t i = 0; i < ne; i++)
        g->start[e[2 * i] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    uint32_t *cur = malloc(((size_t)n + 1) * 4);
    memcpy(cur, g->start, (size_t)n * 4);
    for (uint32_t i = 0; i < ne; i++)
        g->out[cur[e[2 * i]]++] = e[2 * i + 1];
    free(cur);
}

static void tg_free(tg *g)
{
    free(g->cls), free(g->size), free(g->start), free(g->out), free(g->roots), free(g->meta);
    if (g->has_dom) {
        free(g->dom.idom), free(g->dom.retained), free(g->dom.child_start), free(g->dom.child);
    }
    memset(g, 0, sizeof *g);
}

/* The objects reachable from the roots without passing through `cut`. */
static void reach(const tg *g, uint32_t cut, uint8_t *seen, uint32_t *queue)
{
    uint32_t head = 0, tail = 0;
    memset(seen, 0, g->n);
    for (uint32_t i = 0; i < g->nroots; i++)
        if (g->roots[i] != cut && !seen[g->roots[i]])
            seen[g->roots[i]] = 1, queue[tail++] = g->roots[i];
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t j = g->start[v]; j < g->start[v + 1]; j++) {
            uint32_t x = g->out[j];
            if (x != cut && !seen[x]) seen[x] = 1, queue[tail++] = x;
        }
    }
}

/* The dominator tree the slow way (small graphs only). */
static void tg_dominators(tg *g)
{
    uint32_t n = g->n;
    ht_dominators *d = &g->dom;
    memset(d, 0, sizeof *d);
    d->n = n;
    uint8_t *all = malloc(n), *cut = malloc(n), *dom = calloc((size_t)n * n, 1);
    uint32_t *q = malloc((size_t)n * 4), *cnt = calloc(n, 4);
    d->idom = malloc((size_t)n * 4), d->retained = calloc(n, 8);
    reach(g, HT_NONE, all, q);
    for (uint32_t v = 0; v < n; v++) {
        if (!all[v]) continue;
        d->reachable++, d->reachable_bytes += g->size[v];
        reach(g, v, cut, q);
        for (uint32_t o = 0; o < n; o++)
            if (all[o] && !cut[o])
                dom[(size_t)v * n + o] = 1, cnt[v]++, d->retained[v] += g->size[o];
    }
    for (uint32_t o = 0; o < n; o++) {
        d->idom[o] = all[o] ? HT_ROOT : HT_NONE;
        uint32_t best = HT_NONE;
        for (uint32_t v = 0; v < n && all[o]; v++)
            if (v != o && dom[(size_t)v * n + o] && (best == HT_NONE || cnt[v] < cnt[best]))
                best = v;
        if (best != HT_NONE) d->idom[o] = best;
    }
    d->child_start = calloc((size_t)n + 2, 4), d->child = malloc(((size_t)n + 1) * 4);
    for (uint32_t o = 0; o < n; o++)
        if (d->idom[o] != HT_NONE) d->child_start[(d->idom[o] == HT_ROOT ? n : d->idom[o]) + 1]++;
    for (uint32_t i = 0; i <= n; i++)
        d->child_start[i + 1] += d->child_start[i];
    uint32_t *cur = malloc(((size_t)n + 1) * 4);
    memcpy(cur, d->child_start, ((size_t)n + 1) * 4);
    for (uint32_t o = 0; o < n; o++)
        if (d->idom[o] != HT_NONE) d->child[cur[d->idom[o] == HT_ROOT ? n : d->idom[o]]++] = o;
    free(cur), free(all), free(cut), free(dom), free(q), free(cnt);
    g->has_dom = 1;
}

static int build(ht_behaviour *b, tg *g, int scc_none, int count_raw, ht_hprof *err)
{
    ht_bhv_input in = {.nobjects = g->n,
                       .nclasses = g->ncls,
                       .cls = g->cls,
                       .ctx = g,
                       .size = tg_size,
                       .refs = tg_refs,
                       .class_name = tg_name,
                       .roots = g->roots,
                       .nroots = g->nroots,
                       .meta = g->meta,
                       .nmeta = g->nmeta,
                       .dom = g->has_dom ? &g->dom : NULL};
    ht_bhv_opts o = {.scc_none = scc_none, .count_raw = count_raw};
    return ht_behaviour_build_input(b, &in, &o, NULL, err);
}

/* ---- reading the result ---- */

static const tg *cur_g;

/* A class node by its class's name in cur_g; ROOT, Cycle_N and the others
 * as ht_bhv_name says them (into a buffer of its own: one call at a time). */
static const char *nm(const ht_behaviour *b, uint32_t n)
{
    static char buf[HT_BHV_NAME_MAX];
    const ht_bhv_node *x = &b->nodes[n];
    return x->cls != HT_NONE ? cur_g->names[x->cls] : ht_bhv_name(b, NULL, n, buf, sizeof buf);
}

static uint32_t node(const ht_behaviour *b, const char *name)
{
    for (uint32_t i = 0; i < b->nnodes; i++)
        if (strcmp(nm(b, i), name) == 0) return i;
    return HT_NONE;
}

static const ht_bhv_edge *edge(const ht_behaviour *b, const char *from, const char *to)
{
    uint32_t f = node(b, from), t = node(b, to);
    for (uint32_t e = 0; f != HT_NONE && e < b->nedges; e++)
        if (b->edges[e].from == f && b->edges[e].to == t) return &b->edges[e];
    fprintf(stderr, "no edge %s -> %s\n", from, to);
    return NULL;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

#define CHECK_V(got, want)                                                                         \
    CHECK_MSG(near((double)(got), (double)(want)), "%s = %.12g, want %.12g", #got, (double)(got),  \
              (double)(want))

static void check_node(const ht_behaviour *b, const char *name, uint64_t units, uint64_t mc,
                       double md, uint32_t rank)
{
    uint32_t n = node(b, name);
    CHECK_MSG(n != HT_NONE, "node %s", name);
    if (n == HT_NONE) return;
    const ht_bhv_node *x = &b->nodes[n];
    CHECK_MSG(x->units == units, "%s: N %llu, want %llu", name, (unsigned long long)x->units,
              (unsigned long long)units);
    CHECK_MSG(x->mc == mc, "%s: MC %llu, want %llu", name, (unsigned long long)x->mc,
              (unsigned long long)mc);
    CHECK_MSG(near(x->md, md), "%s: MD %.12g, want %.12g", name, x->md, md);
    CHECK_MSG(near(x->mcc, (double)mc * (md + (double)mc)), "%s: MCC %.12g", name, x->mcc);
    if (rank) CHECK_MSG(x->rank == rank, "%s: rank %u, want %u", name, x->rank, rank);
}

static void check_edge(const ht_behaviour *b, const char *from, const char *to, uint64_t refs,
                       uint64_t units, double dr, double cr)
{
    const ht_bhv_edge *e = edge(b, from, to);
    CHECK(e != NULL);
    if (!e) return;
    CHECK_MSG(e->refs == refs && e->units == units, "%s->%s: R %llu/%llu, want %llu/%llu", from, to,
              (unsigned long long)e->refs, (unsigned long long)e->units, (unsigned long long)refs,
              (unsigned long long)units);
    CHECK_MSG(near(e->dr, dr), "%s->%s: DR %.12g, want %.12g", from, to, e->dr, dr);
    CHECK_MSG(isnan(cr) ? isnan(e->cr) : near(e->cr, cr), "%s->%s: CR %.12g, want %.12g", from, to,
              e->cr, cr);
}

/* The forward (up) or backward edge set of `of` at t is exactly want[]
 * ("From>To" strings, NULL-terminated). */
static void check_paths(const ht_behaviour *b, const char *of, int up, double t,
                        const char *const *want)
{
    uint32_t out[256], n = node(b, of);
    uint32_t k = up ? ht_bhv_forward(b, n, t, out, 256) : ht_bhv_backward(b, n, t, out, 256);
    uint32_t nwant = 0;
    while (want[nwant])
        nwant++;
    CHECK_MSG(k == nwant, "%s %s at %g: %u edges, want %u", up ? "forward" : "backward", of, t, k,
              nwant);
    for (uint32_t i = 0; i < nwant; i++) {
        char f[64], to[64];
        const char *gt = strchr(want[i], '>');
        snprintf(f, sizeof f, "%.*s", (int)(gt - want[i]), want[i]);
        snprintf(to, sizeof to, "%s", gt + 1);
        const ht_bhv_edge *e = edge(b, f, to);
        int found = 0;
        for (uint32_t j = 0; e && j < k && j < 256; j++)
            found |= &b->edges[out[j]] == e;
        CHECK_MSG(found, "%s %s at %g: missing %s", up ? "forward" : "backward", of, t, want[i]);
    }
    /* and the query with too little room says how many there are */
    if (k > 1) {
        uint32_t k2 = up ? ht_bhv_forward(b, n, t, out, 1) : ht_bhv_backward(b, n, t, out, 1);
        CHECK(k2 == k);
    }
}

/* Sum of CR = 1 over the children of every node with MD > 0; sum MC = T. */
static void check_invariants(const ht_behaviour *b)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        t += b->nodes[i].mc;
        if (!(b->nodes[i].md > 0)) continue;
        double s = 0;
        for (uint32_t e = b->out_start[i]; e < b->out_start[i + 1]; e++)
            if (b->edges[e].kept) s += b->edges[e].cr;
        CHECK_MSG(near(s, 1), "sum of CR below %s = %.12g", nm(b, i), s);
    }
    CHECK(t == b->reachable_bytes);
}

#endif
