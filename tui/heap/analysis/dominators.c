/*
 * dominators.c - semi-NCA over a snapshot (see dominators.h).
 *
 * Vertices are numbered in depth-first preorder, 0 for the virtual root; all
 * arrays below are indexed by preorder number except `pre` (by object).
 */
#include "dominators.h"

#include <stdlib.h>
#include <string.h>

static int fail_nomem(const ht_snapshot *s)
{
    return ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

static int cancelled(const ht_snapshot_opts *o)
{
    return o && o->cancelled && o->cancelled(o->ctx);
}

/* Children of the tree, biggest retained first, then by number. */
static int by_retained(const void *a, const void *b, void *ctx)
{
    const uint64_t *retained = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t rx = retained[x], ry = retained[y];
    return rx < ry ? 1 : rx > ry ? -1 : (x > y) - (x < y);
}

void ht_dominators_children(ht_dominators *d, uint32_t o)
{
    uint32_t p = o == HT_ROOT ? d->n : o;
    if (p > d->n || (d->sorted && d->sorted[p >> 3] & (1u << (p & 7)))) return;
    uint32_t a = d->child_start[p], b = d->child_start[p + 1];
    if (b - a > 1) qsort_r(d->child + a, b - a, sizeof *d->child, by_retained, d->retained);
    if (!d->sorted) d->sorted = calloc((size_t)d->n / 8 + 1, 1);
    if (d->sorted) d->sorted[p >> 3] |= (uint8_t)(1u << (p & 7));
}

int ht_dominators_build(ht_dominators *d, const ht_snapshot *s, const ht_snapshot_opts *o)
{
    memset(d, 0, sizeof *d);
    uint32_t n = s->nobjects, V = n + 1; /* objects and the virtual root */
    d->n = n;
    /* Seven words an object at the peak, four of them freed before the
     * retained sizes (two words) and the children (two) are made. */
    const size_t W = (size_t)V * sizeof(uint32_t);
    uint32_t *pre = ht_heap_array(W, 0);    /* object -> preorder */
    uint32_t *vertex = ht_heap_array(W, 0); /* preorder -> object (n: root) */
    uint32_t *parent = ht_heap_array(W, 0);
    uint32_t *semi = ht_heap_array(W, 0);
    uint32_t *label = ht_heap_array(W, 0);
    uint32_t *anc = ht_heap_array(W, 0);
    uint8_t *is_root = calloc((size_t)n / 8 + 1, 1);
    d->idom = ht_heap_array((size_t)n * sizeof *d->idom, 0);
    int rc = HT_HPROF_OK;
    if (!pre || !vertex || !parent || !semi || !label || !anc || !is_root || !d->idom) {
        rc = fail_nomem(s);
        goto out;
    }
    for (uint32_t i = 0; i < V; i++)
        pre[i] = HT_NONE;
    for (uint32_t r = 0; r < s->nroots; r++)
        is_root[s->roots[r].obj >> 3] |= (uint8_t)(1u << (s->roots[r].obj & 7));

    /* Depth-first search from the virtual root, iterative: `label` holds the
     * stack of preorder numbers, `anc` each one's next edge to follow. The
     * root's successors are the root objects, in the dump's order. */
    uint32_t count = 0, top = 0;
    pre[n] = 0, vertex[0] = n, parent[0] = 0, anc[0] = 0, count = 1;
    label[top++] = 0;
    while (top) {
        uint32_t v = label[top - 1], obj = vertex[v];
        uint32_t next = HT_NONE;
        if (obj == n) {
            while (anc[v] < s->nroots) {
                uint32_t w = s->roots[anc[v]++].obj;
                if (pre[w] == HT_NONE) {
                    next = w;
                    break;
                }
            }
        } else {
            uint32_t end = s->out_start[obj + 1] - s->out_start[obj];
            while (anc[v] < end) {
                uint32_t w = s->out[s->out_start[obj] + anc[v]++];
                if (pre[w] == HT_NONE) {
                    next = w;
                    break;
                }
            }
        }
        if (next == HT_NONE) {
            top--;
            continue;
        }
        pre[next] = count, vertex[count] = next, parent[count] = v, anc[count] = 0;
        label[top++] = count++;
        if ((count & 0xfffff) == 0 && o && o->progress) o->progress(o->ctx, "dominators", count, n);
    }
    d->reachable = count - 1;
    if (cancelled(o)) {
        rc = HT_HPROF_ERR_CANCELLED;
        goto out;
    }

    /* Semidominators in reverse preorder. label[v] is the smallest semi on
     * v's path in the link-eval forest; anc[v] its forest parent, HT_NONE
     * while v is a forest root (not yet processed). */
    for (uint32_t i = 0; i < count; i++)
        semi[i] = label[i] = i, anc[i] = HT_NONE;
    uint32_t *stack = d->idom; /* free until the end: eval's path, at most n long */
    for (uint32_t i = count - 1; i > 0; i--) {
        uint32_t w = vertex[i], best = semi[i];
        for (uint32_t e = s->in_start[w]; e < s->in_start[w + 1]; e++) {
            uint32_t u = pre[s->in[e]];
            if (u == HT_NONE) continue; /* a predecessor no root reaches */
            uint32_t cand;
            if (anc[u] == HT_NONE) {
                cand = label[u];
            } else {
                /* eval(u) with path compression, iterative */
                uint32_t sp = 0, x = u;
                while (anc[anc[x]] != HT_NONE) {
                    stack[sp++] = x;
                    x = anc[x];
                }
                while (sp) {
                    uint32_t y = stack[--sp], a = anc[y];
                    if (label[a] < label[y]) label[y] = label[a];
                    anc[y] = anc[a];
                }
                cand = label[u];
            }
            if (cand < best) best = cand;
        }
        /* a root object's predecessor is the virtual root */
        if (is_root[w >> 3] & (1u << (w & 7))) best = 0;
        semi[i] = best;
        label[i] = best;
        anc[i] = parent[i];
        if ((i & 0xfffff) == 0 && cancelled(o)) {
            rc = HT_HPROF_ERR_CANCELLED;
            goto out;
        }
    }
    /* Immediate dominators: the nearest common ancestor of parent and semi. */
    uint32_t *idom_pre = anc; /* reuse: by preorder */
    idom_pre[0] = 0;
    for (uint32_t i = 1; i < count; i++) {
        uint32_t x = parent[i];
        while (x > semi[i])
            x = idom_pre[x];
        idom_pre[i] = x;
    }
    for (uint32_t i = 0; i < n; i++)
        d->idom[i] = HT_NONE;
    for (uint32_t i = 1; i < count; i++)
        d->idom[vertex[i]] = idom_pre[i] == 0 ? HT_ROOT : vertex[idom_pre[i]];
    free(parent), free(label), free(semi);
    parent = label = semi = NULL;
    d->retained = ht_heap_array((size_t)n * sizeof *d->retained, 1);
    if (!d->retained) {
        rc = fail_nomem(s);
        goto out;
    }

    /* Retained sizes: children come after their dominator in preorder. */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t b = ht_snapshot_shallow(s, i);
        if (pre[i] == HT_NONE)
            d->unreachable_bytes += b;
        else
            d->retained[i] = b, d->reachable_bytes += b;
    }
    for (uint32_t i = count - 1; i > 0; i--)
        if (idom_pre[i] != 0) d->retained[vertex[idom_pre[i]]] += d->retained[vertex[i]];

    free(pre), free(anc);
    pre = anc = NULL;

    /* The tree's children lists (the root's at index n), unsorted:
     * ht_dominators_children sorts one when it is shown. */
    d->child_start = ht_heap_array(((size_t)n + 2) * sizeof *d->child_start, 1);
    d->child = ht_heap_array((size_t)count * sizeof *d->child, 0);
    if (!d->child_start || !d->child) {
        rc = fail_nomem(s);
        goto out;
    }
    for (uint32_t w = 0; w < n; w++)
        if (d->idom[w] != HT_NONE) d->child_start[(d->idom[w] == HT_ROOT ? n : d->idom[w]) + 1]++;
    for (uint32_t i = 0; i <= n; i++)
        d->child_start[i + 1] += d->child_start[i];
    uint32_t *fill = vertex; /* done with: a cursor per parent, V = n + 1 entries */
    memcpy(fill, d->child_start, W);
    for (uint32_t w = 0; w < n; w++)
        if (d->idom[w] != HT_NONE) d->child[fill[d->idom[w] == HT_ROOT ? n : d->idom[w]]++] = w;
out:
    free(pre), free(vertex), free(parent), free(semi), free(label), free(anc), free(is_root);
    if (rc) ht_dominators_free(d);
    return rc;
}

void ht_dominators_free(ht_dominators *d)
{
    free(d->idom);
    free(d->retained);
    free(d->child_start);
    free(d->child);
    free(d->sorted);
    memset(d, 0, sizeof *d);
}

int ht_dominators_keyed_retained(const ht_dominators *d,
                                 uint32_t (*key)(const void *ctx, uint32_t o), const void *ctx,
                                 uint32_t nkeys, uint64_t *sum)
{
    uint32_t *active = calloc(nkeys ? nkeys : 1, sizeof *active);
    /* an explicit stack of (object, next child) for a walk of the tree */
    uint32_t *node = malloc(((size_t)d->reachable + 1) * sizeof *node);
    uint32_t *next = malloc(((size_t)d->reachable + 1) * sizeof *next);
    if (!active || !node || !next || !d->child_start) {
        free(active), free(node), free(next);
        return -1;
    }
    memset(sum, 0, (size_t)nkeys * sizeof *sum);
    uint32_t top = 0, n = d->n;
    node[0] = n, next[0] = d->child_start[n], top = 1;
    while (top) {
        uint32_t v = node[top - 1];
        if (next[top - 1] == d->child_start[v + 1]) {
            top--;
            uint32_t k = v == n ? HT_NONE : key(ctx, v);
            if (k < nkeys) active[k]--;
            continue;
        }
        uint32_t w = d->child[next[top - 1]++];
        uint32_t k = key(ctx, w);
        if (k < nkeys) {
            if (active[k] == 0) sum[k] += d->retained[w];
            active[k]++;
        }
        if (top > d->reachable) break; /* a tree deeper than its objects: not a tree */
        node[top] = w, next[top] = d->child_start[w], top++;
    }
    free(active), free(node), free(next);
    return 0;
}
