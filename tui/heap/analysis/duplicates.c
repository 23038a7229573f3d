/*
 * duplicates.c - groups of deeply equal objects (see duplicates.h).
 *
 * Numbers: objects by their snapshot number; candidates (objects whose
 * first-partition group has another member) by a dense index c, anode[c]
 * being the object; groups ("blocks") of candidates by ids below the number
 * of candidates; every other object x is alone in block ncand + x. blk[x] is
 * object x's block, which is what the references of an object are compared
 * by.
 */
#include "duplicates_int.h"

#include "clock.h"
#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ht_dups_collide_for_tests;

#define SEED 0x9e3779b97f4a7c15ull

/* ---- the refinement's state ---- */

typedef struct in_ref {
    uint32_t from; /* candidate */
    uint32_t slot; /* its content reference's index */
} in_ref;

typedef struct st {
    const ht_snapshot *s;
    const ht_snapshot_opts *o;
    ht_dups *g;
    size_t mem; /* held now */
    uint32_t n, ncand, nb;
    uint32_t *blk;          /* by object: its block */
    uint32_t *anode;        /* by candidate: the object */
    uint32_t *E;            /* candidates, each block's together */
    uint32_t *pos;          /* by candidate: its place in E */
    uint32_t *bf, *be, *bd; /* by block: E[bf, be) its members, the first bd of them dirty */
    uint32_t *wl, nwl;      /* blocks with dirty members */
    uint32_t *moved;        /* reassign's list of the candidates that moved */
    uint64_t *key;          /* by candidate: sum of ref_term over its references */
    uint32_t *ain_start;    /* by candidate: its referrers among the candidates */
    in_ref *ain;
    uint64_t nain, steps;
} st;

static void *take(st *t, size_t bytes, int zero)
{
    void *p = ht_heap_array(bytes, zero);
    if (p) {
        t->mem += bytes;
        if (t->mem > t->g->peak_bytes) t->g->peak_bytes = t->mem;
    }
    return p;
}

static void give(st *t, void *p, size_t bytes)
{
    if (!p) return;
    free(p);
    t->mem -= bytes;
}

static uint64_t ref_term(uint32_t slot, uint32_t block)
{
    if (ht_dups_collide_for_tests) return 0;
    return ht_mix64(((uint64_t)slot << 32 | block) ^ SEED);
}

static uint32_t cstart(const st *t, uint32_t x)
{
    return t->s->out_start[x] + (t->s->classes[t->s->cls[x]].obj != HT_NONE);
}

static int cancelled(const st *t)
{
    return t->o && t->o->cancelled && t->o->cancelled(t->o->ctx);
}

/* Candidate p's references changed: it may no longer belong with its block. */
static void mark(st *t, uint32_t p)
{
    uint32_t B = t->blk[t->anode[p]];
    uint32_t f = t->bf[B], d = t->bd[B];
    if (t->be[B] - f < 2 || t->pos[p] < f + d) return;
    uint32_t q = t->E[f + d], at = t->pos[p];
    t->E[at] = q, t->pos[q] = at;
    t->E[f + d] = p, t->pos[p] = f + d;
    if (t->bd[B]++ == 0) t->wl[t->nwl++] = B;
}

/* The members of block X now lie in parts [cut[i], cut[i+1]) of E: the
 * largest keeps X, the others get new blocks, and the referrers of the
 * objects that moved are told (their keys updated, marked). */
static void reassign(st *t, uint32_t X, const uint32_t *cut, uint32_t nparts)
{
    uint32_t big = 0;
    for (uint32_t i = 1; i < nparts; i++)
        if (cut[i + 1] - cut[i] > cut[big + 1] - cut[big]) big = i;
    uint32_t first_new = t->nb;
    for (uint32_t i = 0; i < nparts; i++) {
        uint32_t id = i == big ? X : t->nb++;
        t->bf[id] = cut[i], t->be[id] = cut[i + 1], t->bd[id] = 0;
        if (id != X)
            for (uint32_t j = cut[i]; j < cut[i + 1]; j++)
                t->blk[t->anode[t->E[j]]] = id;
    }
    /* the objects that moved, listed first: marking reorders blocks */
    uint32_t nmoved = 0;
    for (uint32_t id = first_new; id < t->nb; id++)
        for (uint32_t j = t->bf[id]; j < t->be[id]; j++)
            t->moved[nmoved++] = t->E[j];
    for (uint32_t i = 0; i < nmoved; i++) {
        uint32_t c = t->moved[i], id = t->blk[t->anode[c]];
        for (uint32_t k = t->ain_start[c]; k < t->ain_start[c + 1]; k++) {
            const in_ref *r = &t->ain[k];
            t->key[r->from] += ref_term(r->slot, id) - ref_term(r->slot, X);
            mark(t, r->from);
            t->steps++;
        }
    }
}

typedef struct by_key_ctx {
    const uint64_t *key;
    uint64_t ref;
    int has_ref;
} by_key_ctx;

/* Dirty members by key, those whose key is the clean members' last. */
static int by_key(const void *a, const void *b, void *ctx)
{
    const by_key_ctx *k = ctx;
    uint64_t x = k->key[*(const uint32_t *)a], y = k->key[*(const uint32_t *)b];
    int rx = k->has_ref && x == k->ref, ry = k->has_ref && y == k->ref;
    if (rx != ry) return rx - ry;
    return (x > y) - (x < y);
}

/* Split block X by the keys of its dirty members. */
static int split(st *t, uint32_t X, uint32_t *cut)
{
    uint32_t f = t->bf[X], e = t->be[X], d = t->bd[X];
    t->bd[X] = 0;
    if (d == 0 || e - f < 2) return 0;
    by_key_ctx k = {t->key, 0, d < e - f};
    if (k.has_ref) k.ref = t->key[t->E[f + d]];
    if (d > 1) qsort_r(t->E + f, d, sizeof *t->E, by_key, &k);
    for (uint32_t i = f; i < f + d; i++)
        t->pos[t->E[i]] = i;
    uint32_t nparts = 0, i = f;
    while (i < e) {
        cut[nparts++] = i;
        if (i >= f + d || (k.has_ref && t->key[t->E[i]] == k.ref)) break; /* with the clean */
        uint32_t j = i + 1;
        while (j < f + d && t->key[t->E[j]] == t->key[t->E[i]])
            j++;
        i = j;
    }
    cut[nparts] = e;
    if (nparts > 1) reassign(t, X, cut, nparts);
    return 0;
}

/* The blocks the references of candidates a and b lead to, in order. */
static int cmp_refs(const st *t, uint32_t a, uint32_t b)
{
    uint32_t x = t->anode[a], y = t->anode[b];
    uint32_t ea = cstart(t, x), eb = cstart(t, y), end = t->s->out_start[x + 1];
    for (; ea < end; ea++, eb++) {
        uint32_t p = t->blk[t->s->out[ea]], q = t->blk[t->s->out[eb]];
        if (p != q) return p < q ? -1 : 1;
    }
    return 0;
}

static int by_refs(const void *a, const void *b, void *ctx)
{
    return cmp_refs(ctx, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* Step 3: each block against its first member, field by field; a block
 * that differs is split exactly. Returns how many blocks split. */
static uint32_t verify(st *t, uint32_t *cut)
{
    uint32_t bad = 0, nb = t->nb;
    for (uint32_t X = 0; X < nb; X++) {
        uint32_t f = t->bf[X], e = t->be[X];
        if (e - f < 2) continue;
        uint32_t x = t->anode[t->E[f]];
        if (cstart(t, x) == t->s->out_start[x + 1]) continue; /* no references */
        uint32_t i = f + 1;
        while (i < e && cmp_refs(t, t->E[f], t->E[i]) == 0)
            i++;
        if (i == e) continue;
        bad++;
        t->g->collisions++;
        qsort_r(t->E + f, e - f, sizeof *t->E, by_refs, t);
        uint32_t nparts = 0;
        for (uint32_t j = f; j < e; j++) {
            t->pos[t->E[j]] = j;
            if (j == f || cmp_refs(t, t->E[j - 1], t->E[j]) != 0) cut[nparts++] = j;
        }
        cut[nparts] = e;
        t->bd[X] = 0;
        reassign(t, X, cut, nparts);
    }
    return bad;
}

/* ---- step 1: the first partition ---- */

/* Candidates are the objects whose bit is set in comp; a candidate's index is
 * the number of bits before it (rank: per 64-bit word, the bits before it). */
static int is_cand(const uint64_t *comp, uint32_t x)
{
    return (comp[x >> 6] >> (x & 63)) & 1;
}

static uint32_t cand_of(const uint64_t *comp, const uint32_t *rank, uint32_t x)
{
    uint64_t below = comp[x >> 6] & ((1ull << (x & 63)) - 1);
    return rank[x >> 6] + (uint32_t)__builtin_popcountll(below);
}

/* blk[x] = the first object with x's content (x itself for the first), and
 * the bit of each object that has company set in `comp`. */
static int first_partition(st *t, uint64_t *comp, const uint8_t *ident)
{
    const ht_snapshot *s = t->s;
    uint32_t n = s->nobjects;
    uint64_t T = (uint64_t)n + n / 2 + 64;
    uint64_t *table = take(t, T * sizeof *table, 1); /* tag << 32 | (object + 1), 0: empty */
    if (!table) return HT_HPROF_ERR_NOMEM;
    /* in batches, pipelined: the hashes of the next batch are made (and
     * their slots asked for from memory) before this batch goes in the
     * table, so a slot's cache miss overlaps a batch of hashing */
    enum { BATCH = 32 };
    uint64_t hb[2][BATCH];
    uint32_t xb[2][BATCH], nb[2] = {0, 0}, next = 0;
    for (uint32_t x0 = 0, cur = 0;; cur ^= 1) {
        nb[cur ^ 1] = 0;
        if ((next & 0xfffff) == 0) {
            if (t->o && t->o->progress) t->o->progress(t->o->ctx, "duplicates", next, n);
            if (cancelled(t)) {
                give(t, table, T * sizeof *table);
                return HT_HPROF_ERR_CANCELLED;
            }
        }
        for (; next < n && next < x0 + BATCH; next++) {
            uint32_t x = next, k = nb[cur ^ 1];
            t->blk[x] = x;
            if (ident[x >> 3] & (1u << (x & 7))) continue;
            hb[cur ^ 1][k] = ht_dup_content_hash(s, x);
            xb[cur ^ 1][k] = x;
            __builtin_prefetch(&table[((hb[cur ^ 1][k] >> 32) * T) >> 32]);
            nb[cur ^ 1]++;
        }
        x0 = next;
        for (uint32_t k = 0; k < nb[cur]; k++) {
            uint32_t x = xb[cur][k], tag = (uint32_t)hb[cur][k];
            uint64_t i = ((hb[cur][k] >> 32) * T) >> 32;
            for (;;) {
                uint64_t v = table[i];
                if (v == 0) {
                    table[i] = (uint64_t)tag << 32 | ((uint64_t)x + 1);
                    break;
                }
                uint32_t r = (uint32_t)v - 1;
                if ((uint32_t)(v >> 32) == tag) {
                    if (ht_dup_same_content(s, r, x)) {
                        t->blk[x] = r;
                        comp[x >> 6] |= 1ull << (x & 63);
                        comp[r >> 6] |= 1ull << (r & 63);
                        break;
                    }
                    t->g->collisions++;
                }
                if (++i == T) i = 0;
            }
        }
        if (nb[cur ^ 1] == 0 && next >= n) break;
    }
    give(t, table, T * sizeof *table);
    return HT_HPROF_OK;
}

/* ---- the results ---- */

typedef struct by_waste_ctx {
    const ht_snapshot *s;
    const ht_dup_group *g;
} by_waste_ctx;

static int by_waste(const void *a, const void *b, void *ctx)
{
    const by_waste_ctx *k = ctx;
    const ht_dup_group *x = &k->g[*(const uint32_t *)a], *y = &k->g[*(const uint32_t *)b];
    if (x->wasted != y->wasted) return x->wasted < y->wasted ? 1 : -1;
    if (x->copies != y->copies) return x->copies < y->copies ? 1 : -1;
    int c = strcmp(k->s->classes[x->cls].name, k->s->classes[y->cls].name);
    return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int by_number(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int results(st *t, const ht_dominators *d)
{
    const ht_snapshot *s = t->s;
    ht_dups *g = t->g;
    uint32_t ng = 0;
    uint64_t nm = 0;
    for (uint32_t X = 0; X < t->nb; X++)
        if (t->be[X] - t->bf[X] >= 2) ng++, nm += t->be[X] - t->bf[X];
    ht_dup_group *raw = take(t, (ng ? ng : 1) * sizeof *raw, 0);
    uint32_t *order = take(t, (ng ? ng : 1) * sizeof *order, 0);
    g->members = take(t, (nm ? nm : 1) * sizeof *g->members, 0);
    g->groups = take(t, (ng ? ng : 1) * sizeof *g->groups, 0);
    if (!raw || !order || !g->members || !g->groups) {
        give(t, raw, (ng ? ng : 1) * sizeof *raw);
        give(t, order, (ng ? ng : 1) * sizeof *order);
        return HT_HPROF_ERR_NOMEM;
    }
    uint64_t at = 0;
    uint32_t k = 0;
    for (uint32_t X = 0; X < t->nb; X++) {
        uint32_t f = t->bf[X], e = t->be[X];
        if (e - f < 2) continue;
        ht_dup_group *r = &raw[k];
        r->first = at;
        r->copies = e - f;
        uint64_t least = UINT64_MAX;
        for (uint32_t j = f; j < e; j++) {
            uint32_t x = t->anode[t->E[j]];
            g->members[at++] = x;
            uint64_t b = d && d->idom[x] != HT_NONE ? d->retained[x] : ht_snapshot_shallow(s, x);
            if (b < least) least = b;
        }
        qsort(g->members + r->first, r->copies, sizeof *g->members, by_number);
        r->cls = s->cls[g->members[r->first]];
        r->bytes_each = least;
        r->wasted = (uint64_t)(r->copies - 1) * least;
        order[k] = k;
        k++;
    }
    by_waste_ctx ctx = {s, raw};
    qsort_r(order, ng, sizeof *order, by_waste, &ctx);
    for (uint32_t i = 0; i < ng; i++)
        g->groups[i] = raw[order[i]];
    g->ngroups = ng;
    g->nmembers = nm;
    give(t, raw, (ng ? ng : 1) * sizeof *raw);
    give(t, order, (ng ? ng : 1) * sizeof *order);
    return HT_HPROF_OK;
}

/* ---- the whole ---- */

int ht_dups_build(ht_dups *g, const ht_snapshot *s, const ht_dominators *d,
                  const ht_snapshot_opts *o)
{
    memset(g, 0, sizeof *g);
    double t0 = ht_mono_s();
    uint32_t n = s->nobjects;
    if (n > (UINT32_MAX >> 1) - 1)
        return ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "too many objects to look for duplicates");
    st t = {.s = s, .o = o, .g = g, .n = n};
    size_t bits = (size_t)n / 8 + 1, W = ((size_t)n + 1) * sizeof(uint32_t);
    size_t words = (size_t)n / 64 + 1;
    uint8_t *ident = take(&t, bits, 1);
    uint64_t *comp = take(&t, words * sizeof *comp, 1);
    t.blk = take(&t, W, 0);
    uint32_t *rank = NULL;
    size_t CW = 0;
    int rc = HT_HPROF_OK;
    if (!ident || !comp || !t.blk) goto nomem;
    /* class objects and loaders are themselves only */
    for (uint32_t x = 0; x < n; x++)
        if (s->kind[x] == HT_OBJ_CLASS || s->cls[x] == HT_NONE)
            ident[x >> 3] |= (uint8_t)(1u << (x & 7));
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t l = s->classes[c].loader;
        if (l < n) ident[l >> 3] |= (uint8_t)(1u << (l & 7));
    }
    if ((rc = first_partition(&t, comp, ident))) goto out;
    give(&t, ident, bits);
    ident = NULL;

    /* candidates, numbered; their first blocks numbered densely */
    rank = take(&t, words * sizeof *rank, 0);
    if (!rank) goto nomem;
    uint32_t nc = 0;
    for (size_t w = 0; w < words; w++) {
        rank[w] = nc;
        nc += (uint32_t)__builtin_popcountll(comp[w]);
    }
    t.ncand = nc;
    g->candidates = nc;
    CW = ((size_t)nc + 1) * sizeof(uint32_t);
    t.anode = take(&t, CW, 0);
    t.E = take(&t, CW, 0);
    t.pos = take(&t, CW, 0);
    t.bf = take(&t, CW, 0);
    t.be = take(&t, CW, 1);
    t.bd = take(&t, CW, 1);
    t.wl = take(&t, CW, 0);
    t.moved = take(&t, CW, 0);
    t.key = take(&t, ((size_t)nc + 1) * sizeof *t.key, 1);
    t.ain_start = take(&t, CW + sizeof(uint32_t), 1);
    if (!t.anode || !t.E || !t.pos || !t.bf || !t.be || !t.bd || !t.wl || !t.moved || !t.key ||
        !t.ain_start)
        goto nomem;
    for (uint32_t x = 0, c = 0; x < n; x++)
        if (is_cand(comp, x)) t.anode[c++] = x;
    uint32_t *bid = t.pos; /* free until E is made */
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t x = t.anode[c], r = t.blk[x];
        bid[c] = r == x ? t.nb++ : bid[cand_of(comp, rank, r)];
    }
    for (uint32_t x = 0, c = 0; x < n; x++)
        t.blk[x] = is_cand(comp, x) ? bid[c++] : nc + x;
    for (uint32_t c = 0; c < nc; c++)
        t.be[bid[c]]++;
    for (uint32_t b = 0, sum = 0; b < t.nb; b++) {
        t.bf[b] = sum;
        sum += t.be[b];
        t.be[b] = t.bf[b]; /* a cursor until filled */
    }
    for (uint32_t c = 0; c < nc; c++)
        t.E[t.be[bid[c]]++] = c;
    for (uint32_t i = 0; i < nc; i++)
        t.pos[t.E[i]] = i;

    /* keys, and each candidate's referrers among the candidates (a block
     * below nc is a candidate's) */
    uint64_t nain = 0;
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t x = t.anode[c];
        uint32_t e0 = cstart(&t, x);
        for (uint32_t e = e0; e < s->out_start[x + 1]; e++) {
            uint32_t y = s->out[e];
            t.key[c] += ref_term(e - e0, t.blk[y]);
            if (t.blk[y] < nc) t.ain_start[cand_of(comp, rank, y) + 1]++, nain++;
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        t.ain_start[c + 1] += t.ain_start[c];
    t.nain = nain;
    t.ain = take(&t, (nain ? nain : 1) * sizeof *t.ain, 0);
    if (!t.ain) goto nomem;
    uint32_t *cursor = t.moved; /* free until the refinement */
    memcpy(cursor, t.ain_start, CW);
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t x = t.anode[c];
        uint32_t e0 = cstart(&t, x);
        for (uint32_t e = e0; e < s->out_start[x + 1]; e++) {
            uint32_t y = s->out[e];
            if (t.blk[y] < nc) t.ain[cursor[cand_of(comp, rank, y)]++] = (in_ref){c, e - e0};
        }
    }
    give(&t, rank, words * sizeof *rank);
    give(&t, comp, words * sizeof *comp);
    rank = NULL;
    comp = NULL;

    /* step 2 from every block whose members have references, all dirty;
     * then step 3 until nothing splits */
    for (uint32_t b = 0; b < t.nb; b++) {
        uint32_t x = t.anode[t.E[t.bf[b]]];
        if (t.be[b] - t.bf[b] >= 2 && cstart(&t, x) < s->out_start[x + 1]) {
            t.bd[b] = t.be[b] - t.bf[b];
            t.wl[t.nwl++] = b;
        }
    }
    uint32_t *cut = take(&t, CW + sizeof(uint32_t), 0);
    if (!cut) goto nomem;
    uint64_t splits = 0;
    for (;;) {
        while (t.nwl) {
            split(&t, t.wl[--t.nwl], cut);
            if ((++splits & 0xffff) == 0 && cancelled(&t)) {
                give(&t, cut, CW + sizeof(uint32_t));
                rc = HT_HPROF_ERR_CANCELLED;
                goto out;
            }
        }
        g->rounds++;
        if (verify(&t, cut) == 0) break;
    }
    give(&t, cut, CW + sizeof(uint32_t));
    rc = results(&t, d);
    goto out;
nomem:
    rc = ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "out of memory");
out:
    give(&t, ident, bits);
    give(&t, comp, words * sizeof *comp);
    give(&t, rank, words * sizeof *rank);
    give(&t, t.blk, W);
    give(&t, t.anode, CW);
    give(&t, t.E, CW);
    give(&t, t.pos, CW);
    give(&t, t.bf, CW);
    give(&t, t.be, CW);
    give(&t, t.bd, CW);
    give(&t, t.wl, CW);
    give(&t, t.moved, CW);
    give(&t, t.key, ((size_t)t.ncand + 1) * sizeof *t.key);
    give(&t, t.ain_start, CW + sizeof(uint32_t));
    give(&t, t.ain, (t.nain ? t.nain : 1) * sizeof *t.ain);
    if (rc == HT_HPROF_ERR_CANCELLED) ht_hprof_error(s->h, HT_HPROF_ERR_CANCELLED, "cancelled");
    if (rc) {
        ht_dups_free(g);
        return rc;
    }
    g->seconds = ht_mono_s() - t0;
    return HT_HPROF_OK;
}

void ht_dups_free(ht_dups *g)
{
    free(g->groups);
    free(g->members);
    memset(g, 0, sizeof *g);
}
