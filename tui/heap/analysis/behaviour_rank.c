/*
 * behaviour_rank.c - what is read from the object-group reference graph
 * (see behaviour.h): the cycle rule (D6: the node graph's strongly
 * connected parts by an iterative Tarjan, breadth-first depth from ROOT,
 * and within each part the edges that do not go farther from ROOT
 * dropped, behaviour_cycles.c), k and DR, MD in
 * reverse topological order of the kept edges, the multiplicity f, CR, MCC,
 * the ranking, the exact retained sizes; and the queries (branches, the
 * hourglass's edges, names).
 *
 * Everything here walks the node graph (thousands of nodes), except the
 * second count of k when the cycle rule dropped an edge (over the objects
 * of the nodes with a kept edge into a node a dropped edge enters: k of
 * the others is the count made with the edges) and the walk of the
 * dominator tree, once over the objects, iteratively.
 */
#include "behaviour_int.h"

#include "labels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the cycle rule ---- */

/* Strongly connected parts of the node graph (Tarjan, iterative): part[]
 * by node. */
static int node_parts(const ht_behaviour *b, uint32_t *part)
{
    uint32_t nn = b->nnodes, idx = 0, np = 0, top = 0, ftop = 0;
    uint32_t *index = malloc((size_t)nn * sizeof *index), *low = malloc((size_t)nn * sizeof *low);
    uint32_t *stack = malloc((size_t)nn * sizeof *stack), *fv = malloc((size_t)nn * sizeof *fv);
    uint32_t *fe = malloc((size_t)nn * sizeof *fe);
    uint8_t *on = calloc(nn, 1);
    int rc = -1;
    if (!index || !low || !stack || !fv || !fe || !on) goto out;
    for (uint32_t i = 0; i < nn; i++)
        index[i] = HT_NONE;
    for (uint32_t s = 0; s < nn; s++) {
        if (index[s] != HT_NONE) continue;
        index[s] = low[s] = idx++, stack[top++] = s, on[s] = 1;
        fv[ftop] = s, fe[ftop] = b->out_start[s], ftop++;
        while (ftop) {
            uint32_t v = fv[ftop - 1];
            if (fe[ftop - 1] < b->out_start[v + 1]) {
                uint32_t x = b->edges[fe[ftop - 1]++].to;
                if (index[x] == HT_NONE) {
                    index[x] = low[x] = idx++, stack[top++] = x, on[x] = 1;
                    fv[ftop] = x, fe[ftop] = b->out_start[x], ftop++;
                } else if (on[x] && index[x] < low[v]) {
                    low[v] = index[x];
                }
                continue;
            }
            ftop--;
            if (low[v] == index[v]) {
                uint32_t x;
                do {
                    x = stack[--top], on[x] = 0, part[x] = np;
                } while (x != v);
                np++;
            }
            if (ftop && low[v] < low[fv[ftop - 1]]) low[fv[ftop - 1]] = low[v];
        }
    }
    rc = 0;
out:
    free(index), free(low), free(stack), free(fv), free(fe), free(on);
    return rc;
}

static int cycle_rule(ht_behaviour *b)
{
    uint32_t nn = b->nnodes;
    uint32_t *part = malloc((size_t)nn * sizeof *part), *queue = malloc((size_t)nn * sizeof *queue);
    int rc = -1;
    if (!part || !queue || node_parts(b, part) != 0) goto out;
    for (uint32_t i = 0; i < nn; i++)
        b->nodes[i].depth = HT_NONE;
    uint32_t head = 0, tail = 0;
    b->nodes[0].depth = 0, queue[tail++] = 0;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = b->out_start[v]; e < b->out_start[v + 1]; e++) {
            uint32_t x = b->edges[e].to;
            if (b->nodes[x].depth == HT_NONE)
                b->nodes[x].depth = b->nodes[v].depth + 1, queue[tail++] = x;
        }
    }
    /* depth is the hops shown; the rule's distance is behaviour_cycles.c's */
    if (ht_bhv_cycle_order(b, part) != 0) goto out;
    rc = 0;
out:
    free(part), free(queue);
    return rc;
}

/* ---- k: units entered through a kept edge from another node or a root ---- */

static int count_k(bhv_work *w)
{
    ht_behaviour *b = w->b;
    uint32_t nn = b->nnodes;
    for (uint32_t i = 0; i < nn; i++) /* every edge into i kept: the count made with the edges */
        b->nodes[i].k = w->k1[i];
    if (!b->dropped) return HT_HPROF_OK;
    /* counted again only for the nodes a dropped edge enters (affected),
     * from the objects of the nodes with a kept edge into one of them */
    uint32_t *from = calloc(nn, sizeof *from); /* from[c] == p: p -> c is kept */
    uint8_t *affected = calloc(nn, 1), *walk = calloc(nn, 1);
    if (!from || !affected || !walk) {
        free(from), free(affected), free(walk);
        return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    for (uint32_t e = 0; e < b->nedges; e++)
        if (!b->edges[e].kept) affected[b->edges[e].to] = 1;
    for (uint32_t e = 0; e < b->nedges; e++)
        if (b->edges[e].kept && affected[b->edges[e].to]) walk[b->edges[e].from] = 1;
    for (uint32_t i = 0; i < nn; i++)
        if (affected[i]) b->nodes[i].k = 0;
    for (uint32_t u = 0; u < w->nunits; u++)
        w->uflag[u] &= (uint8_t)~BHV_U_K;
    for (uint32_t i = 0; i < w->nrootobj; i++) {
        uint32_t u = w->unit[w->rootobj[i]], c = w->unode[u];
        if (affected[c] && !(w->uflag[u] & BHV_U_K)) w->uflag[u] |= BHV_U_K, b->nodes[c].k++;
    }
    int rc = HT_HPROF_OK;
    for (uint32_t p = 1; p < nn && rc == HT_HPROF_OK; p++) {
        if (!walk[p]) continue;
        for (uint32_t e = b->out_start[p]; e < b->out_start[p + 1]; e++)
            if (b->edges[e].kept) from[b->edges[e].to] = p;
        for (uint32_t j = w->node_start[p]; j < w->node_start[p + 1] && rc == HT_HPROF_OK; j++) {
            uint32_t o = w->order[j], cnt = 0;
            const uint32_t *r = w->in->refs(w->in->ctx, o, &cnt);
            for (uint32_t i = 0; r && i < cnt; i++) {
                uint32_t x = r[i], cu = x < w->n ? w->unit[x] : HT_NONE;
                if (cu == HT_NONE || (w->uflag[cu] & BHV_U_K)) continue;
                uint32_t cn = w->unode[cu];
                if (cn != p && from[cn] == p && affected[cn])
                    w->uflag[cu] |= BHV_U_K, b->nodes[cn].k++;
            }
            rc = ht_bhv_tick(w, "behaviour", j, w->node_start[nn]);
        }
    }
    free(from), free(affected), free(walk);
    return rc;
}

/* ---- MD, f, CR, MCC ---- */

/* The nodes in topological order of the kept edges (Kahn). */
static uint32_t *topological(const ht_behaviour *b)
{
    uint32_t nn = b->nnodes, head = 0, tail = 0;
    uint32_t *indeg = calloc(nn, sizeof *indeg), *q = malloc((size_t)nn * sizeof *q);
    if (!indeg || !q) {
        free(indeg), free(q);
        return NULL;
    }
    for (uint32_t e = 0; e < b->nedges; e++)
        indeg[b->edges[e].to] += b->edges[e].kept;
    for (uint32_t i = 0; i < nn; i++)
        if (!indeg[i]) q[tail++] = i;
    while (head < tail) {
        uint32_t v = q[head++];
        for (uint32_t e = b->out_start[v]; e < b->out_start[v + 1]; e++)
            if (b->edges[e].kept && --indeg[b->edges[e].to] == 0) q[tail++] = b->edges[e].to;
    }
    free(indeg);
    if (tail != nn) { /* cannot be: the kept edges make no cycle */
        free(q);
        return NULL;
    }
    return q;
}

static int figures(bhv_work *w)
{
    ht_behaviour *b = w->b;
    uint32_t nn = b->nnodes;
    uint32_t *topo = topological(b);
    if (!topo) return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    for (uint32_t e = 0; e < b->nedges; e++) {
        ht_bhv_edge *x = &b->edges[e];
        uint64_t k = b->nodes[x->to].k, r = b->opts.count_raw ? x->refs : x->units;
        x->dr = x->kept && k ? (double)r / (double)k : 0;
    }
    for (uint32_t i = nn; i-- > 0;) {
        ht_bhv_node *g = &b->nodes[topo[i]];
        g->md = 0;
        /* a dropped edge's DR is 0, but 0 x inf is NaN: dropped edges stay out */
        for (uint32_t e = b->out_start[topo[i]]; e < b->out_start[topo[i] + 1]; e++) {
            const ht_bhv_node *c = &b->nodes[b->edges[e].to];
            if (b->edges[e].kept) g->md += (c->md + (double)c->mc) * b->edges[e].dr;
        }
        b->overflow += !isfinite(g->md);
    }
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t v = topo[i];
        double f = v == HT_BHV_ROOT ? 1 : 0;
        for (uint32_t j = b->in_start[v]; j < b->in_start[v + 1]; j++) {
            const ht_bhv_edge *x = &b->edges[b->in_edge[j]];
            if (x->kept) f += x->dr * b->nodes[x->from].f;
        }
        b->nodes[v].f = f;
    }
    for (uint32_t e = 0; e < b->nedges; e++) {
        ht_bhv_edge *x = &b->edges[e];
        const ht_bhv_node *p = &b->nodes[x->from], *c = &b->nodes[x->to];
        x->cr = p->md > 0 ? (c->md + (double)c->mc) * x->dr / p->md : NAN;
    }
    for (uint32_t i = 0; i < nn; i++) {
        ht_bhv_node *g = &b->nodes[i];
        g->mcc = (double)g->mc * (g->md + (double)g->mc);
        b->reachable_bytes += g->mc, b->reachable_objects += g->objects;
    }
    b->md_root = b->nodes[0].md;
    free(topo);
    return HT_HPROF_OK;
}

/* ---- the ranking and the exact retained sizes ---- */

static const char *sort_name(const ht_behaviour *b, const ht_bhv_input *in, uint32_t n)
{
    const ht_bhv_node *g = &b->nodes[n];
    if (g->cls == HT_NONE) return g->cycle ? "Cycle_" : "java.lang.Class";
    const char *s =
        in->class_name && g->cls < in->nclasses ? in->class_name(in->ctx, g->cls) : NULL;
    return s ? s : "";
}

/* a before b: 1, after: -1, neither: 0; NaN after every number */
static int desc(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) == isnan(b) ? 0 : isnan(a) ? 1 : -1;
    return a == b ? 0 : a < b ? 1 : -1;
}

typedef struct rank_ctx {
    const ht_behaviour *b;
    const ht_bhv_input *in;
} rank_ctx;

static int by_rank(const void *a, const void *b, void *ctx)
{
    const rank_ctx *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const ht_bhv_node *g = &r->b->nodes[x], *h = &r->b->nodes[y];
    int d = desc(g->mcc, h->mcc);
    if (d) return d;
    if (g->mc != h->mc) return g->mc < h->mc ? 1 : -1;
    d = strcmp(sort_name(r->b, r->in, x), sort_name(r->b, r->in, y));
    if (d) return d;
    if (g->cycle != h->cycle) return g->cycle < h->cycle ? -1 : 1; /* Cycle_9 before Cycle_10 */
    return (x > y) - (x < y);
}

/* unit[] holds each object's node by then (ht_bhv_rank): one read, not two */
static uint32_t node_of(const void *ctx, uint32_t o)
{
    const bhv_work *w = ctx;
    return o < w->n ? w->unit[o] : HT_NONE;
}

int ht_bhv_rank(bhv_work *w)
{
    ht_behaviour *b = w->b;
    if (cycle_rule(b) != 0) return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    int rc = count_k(w);
    if (rc == HT_HPROF_OK) rc = figures(w);
    if (rc != HT_HPROF_OK) return rc;
    b->ranked = malloc(((size_t)b->nnodes) * sizeof *b->ranked);
    if (!b->ranked) return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    for (uint32_t i = 1; i < b->nnodes; i++)
        b->ranked[i - 1] = i;
    rank_ctx rc_ = {.b = b, .in = w->in};
    qsort_r(b->ranked, b->nnodes - 1, sizeof *b->ranked, by_rank, &rc_);
    for (uint32_t i = 0; i + 1 < b->nnodes; i++)
        b->nodes[b->ranked[i]].rank = i + 1;
    const ht_dominators *d = w->in->dom;
    if (!d || d->n != w->n) return HT_HPROF_OK;
    /* the walk's stack takes two words an object: the order and the stamps go first */
    free(w->order), free(w->stamp);
    w->order = w->stamp = NULL;
    for (uint32_t o = 0; o < w->n; o++) /* the last use of units: each object's node */
        if (w->unit[o] != HT_NONE) w->unit[o] = w->unode[w->unit[o]];
    uint64_t *sum = calloc(b->nnodes, sizeof *sum);
    if (!sum || ht_dominators_keyed_retained(d, node_of, w, b->nnodes, sum) != 0) {
        free(sum);
        return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 1; i < b->nnodes; i++)
        b->nodes[i].retained = sum[i];
    free(sum);
    return HT_HPROF_OK;
}

/* ---- queries ---- */

/* DR(e) >= t1, compared as units (or refs) >= t1 x k, no rounding of DR,
 * and t1 x k's own rounding forgiven (0.55 x 100 is 55.000000000000007):
 * r and k are exact in a double, and within a relative 1e-12 of t1 x k
 * counts as equal, as CR does (the design note's D8): a threshold of two
 * decimals and an r/k below it differ by more than that while k < 10^10. */
static int dr_passes(const ht_behaviour *b, const ht_bhv_edge *e, double t1)
{
    if (!e->kept) return 0;
    uint64_t r = b->opts.count_raw ? e->refs : e->units;
    double tk = t1 * (double)b->nodes[e->to].k;
    return (double)r >= tk - 1e-12 * fabs(tk);
}

static int cr_passes(const ht_bhv_edge *e, double t2)
{
    return e->kept && !isnan(e->cr) && e->cr >= t2 - 1e-12 * fabs(t2);
}

uint32_t ht_bhv_branches(const ht_behaviour *b, uint32_t n, double t1, double *coverage)
{
    uint32_t count = 0;
    double sum = 0;
    if (n < b->nnodes)
        for (uint32_t j = b->in_start[n]; j < b->in_start[n + 1]; j++) {
            const ht_bhv_edge *e = &b->edges[b->in_edge[j]];
            if (dr_passes(b, e, t1)) count++, sum += e->dr;
        }
    if (coverage) *coverage = sum > 1 ? 1 : sum;
    return count;
}

/* Breadth-first from n over the qualifying edges, up (forward) or down;
 * HT_NONE out of memory. */
static uint32_t hourglass(const ht_behaviour *b, uint32_t n, double t, int up, uint32_t *out,
                          uint32_t cap)
{
    if (n >= b->nnodes) return 0;
    uint32_t *queue = malloc((size_t)b->nnodes * sizeof *queue);
    uint8_t *seen = calloc(b->nnodes, 1);
    if (!queue || !seen) {
        free(queue), free(seen);
        return HT_NONE;
    }
    uint32_t head = 0, tail = 0, count = 0;
    queue[tail++] = n, seen[n] = 1;
    while (head < tail) {
        uint32_t x = queue[head++];
        uint32_t a = up ? b->in_start[x] : b->out_start[x];
        uint32_t z = up ? b->in_start[x + 1] : b->out_start[x + 1];
        for (uint32_t j = a; j < z; j++) {
            uint32_t ei = up ? b->in_edge[j] : j;
            const ht_bhv_edge *e = &b->edges[ei];
            if (up ? !dr_passes(b, e, t) : !cr_passes(e, t)) continue;
            if (count < cap) out[count] = ei;
            count++;
            uint32_t next = up ? e->from : e->to;
            if (!seen[next]) seen[next] = 1, queue[tail++] = next;
        }
    }
    free(queue), free(seen);
    return count;
}

uint32_t ht_bhv_forward(const ht_behaviour *b, uint32_t n, double t1, uint32_t *out, uint32_t cap)
{
    return hourglass(b, n, t1, 1, out, cap);
}

uint32_t ht_bhv_backward(const ht_behaviour *b, uint32_t n, double t2, uint32_t *out, uint32_t cap)
{
    return hourglass(b, n, t2, 0, out, cap);
}

const char *ht_bhv_name(const ht_behaviour *b, const ht_snapshot *s, uint32_t n, char *buf,
                        size_t cap)
{
    if (!cap) return "";
    buf[0] = '\0';
    if (n >= b->nnodes) return buf;
    const ht_bhv_node *g = &b->nodes[n];
    if (n == HT_BHV_ROOT) return "ROOT";
    if (g->cycle) {
        snprintf(buf, cap, "Cycle_%u", g->cycle);
        return buf;
    }
    if (g->cls == HT_NONE) return "java.lang.Class";
    if (!s || g->cls >= s->nclasses || !s->classes[g->cls].name) {
        snprintf(buf, cap, "class %u", g->cls);
        return buf;
    }
    if (!g->samename) return s->classes[g->cls].name;
    char loader[128];
    ht_loader_label(s, g->cls, loader, sizeof loader);
    snprintf(buf, cap, "%s [%s]", s->classes[g->cls].name, loader);
    return buf;
}

void ht_behaviour_free(ht_behaviour *b)
{
    free(b->nodes), free(b->member), free(b->edges), free(b->out_start), free(b->in_edge);
    free(b->in_start), free(b->ranked);
    memset(b, 0, sizeof *b);
}
