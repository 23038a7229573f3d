/*
 * behaviour.c - the object-group reference graph's units, nodes and edges
 * (see behaviour.h); behaviour_rank.c computes what is read from them.
 *
 * Units: Pearce's space-efficient variant of Tarjan's algorithm ("A
 * space-efficient algorithm for finding strongly connected components",
 * IPL 116(1), 2016), iterative: one rindex word an object (its visit index
 * while on the stack, its component's number once done, 0 unvisited), an
 * explicit stack of (object, next reference) and the stack of the objects
 * of unfinished components. Components come out sinks first; numbered from
 * UINT32_MAX - 1 down, so a finished object's rindex is above every index
 * in use. Units are numbered 0.. in that order.
 *
 * Memory, per object at the peak: the search 16 bytes (rindex 4, the
 * explicit stack 8 and the component stack 4, the two stacks only as deep
 * as the graph makes them) and a bit; then unit 4, order 4 and two words a
 * unit (its node and a stamp) and a byte a unit: 17 bytes.
 */
#include "behaviour_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C0 (UINT32_MAX - 1u) /* the first component's number */

int ht_bhv_fail(bhv_work *w, int rc, const char *what)
{
    if (w->err) ht_hprof_error(w->err, rc, "behaviour: %s", what);
    if (!w->b->why[0]) snprintf(w->b->why, sizeof w->b->why, "%s", what);
    return rc;
}

int ht_bhv_tick(bhv_work *w, const char *phase, uint64_t done, uint64_t total)
{
    if ((++w->ticks & 0xfffff) != 0) return 0;
    const ht_snapshot_opts *p = w->p;
    if (p && p->progress) p->progress(p->ctx, phase, done, total);
    if (p && p->cancelled && p->cancelled(p->ctx))
        return ht_bhv_fail(w, HT_HPROF_ERR_CANCELLED, "cancelled");
    return 0;
}

static const uint32_t *refs_of(const ht_bhv_input *in, uint32_t o, uint32_t *count)
{
    *count = 0;
    const uint32_t *r = in->refs ? in->refs(in->ctx, o, count) : NULL;
    if (!r) *count = 0;
    return r;
}

/* ---- units: strongly connected parts of the reachable object graph ---- */

typedef struct scc {
    bhv_work *w;
    uint32_t *rindex;
    uint32_t *fv, *fi; /* the explicit stack: object, next reference */
    uint32_t ftop;
    uint32_t *S; /* objects of unfinished components */
    uint32_t stop;
    uint8_t *notroot; /* bit per object */
    uint32_t index, c;
    uint64_t visited;
} scc;

static void scc_begin(scc *t, uint32_t v)
{
    t->rindex[v] = t->index++;
    t->fv[t->ftop] = v, t->fi[t->ftop] = 0, t->ftop++;
    t->visited++;
}

static void scc_finish(scc *t, uint32_t v)
{
    if (t->notroot[v >> 3] & (1u << (v & 7))) {
        t->S[t->stop++] = v;
        return;
    }
    uint32_t size = 1;
    t->index--;
    while (t->stop && t->rindex[v] <= t->rindex[t->S[t->stop - 1]]) {
        t->rindex[t->S[--t->stop]] = t->c;
        t->index--, size++;
    }
    t->rindex[v] = t->c--;
    t->w->nunits++;
    if (size > 1) t->w->b->cycle_units++;
}

static void scc_lower(scc *t, uint32_t v, uint32_t to)
{
    if (to < t->rindex[v]) {
        t->rindex[v] = to;
        t->notroot[v >> 3] |= (uint8_t)(1u << (v & 7));
    }
}

/* One depth-first search from `start` when it is unvisited; 1 when it was. */
static int scc_from(scc *t, uint32_t start, int none, int *rc)
{
    const ht_bhv_input *in = t->w->in;
    if (start >= t->w->n || t->rindex[start]) return 0;
    scc_begin(t, start);
    /* the top frame's references, read again only when the top changes:
     * once an object and once more after each object it led to */
    const uint32_t *r = NULL;
    uint32_t cnt = 0, reload = 1;
    while (t->ftop) {
        uint32_t v = t->fv[t->ftop - 1];
        if (reload) r = refs_of(in, v, &cnt), reload = 0;
        if (t->fi[t->ftop - 1] < cnt) {
            uint32_t x = r[t->fi[t->ftop - 1]++];
            if (x >= t->w->n) continue;
            if (!t->rindex[x]) {
                if ((*rc = ht_bhv_tick(t->w, "behaviour", t->visited, t->w->n)) != 0) return 1;
                scc_begin(t, x);
                reload = 1;
            } else if (!none) {
                scc_lower(t, v, t->rindex[x]);
            }
            continue;
        }
        t->ftop--;
        scc_finish(t, v);
        if (t->ftop && !none) scc_lower(t, t->fv[t->ftop - 1], t->rindex[v]);
        reload = 1;
    }
    return 1;
}

static int add_rootobj(bhv_work *w, uint32_t o)
{
    if (w->nrootobj == w->rootcap) {
        uint32_t cap = w->rootcap ? w->rootcap * 2 : 64;
        uint32_t *r = realloc(w->rootobj, (size_t)cap * sizeof *r);
        if (!r) return -1;
        w->rootobj = r, w->rootcap = cap;
    }
    w->rootobj[w->nrootobj++] = o;
    return 0;
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int find_units(bhv_work *w, int none)
{
    const ht_bhv_input *in = w->in;
    uint32_t n = w->n;
    size_t W = ((size_t)n + 1) * sizeof(uint32_t);
    scc t = {.w = w, .index = 1, .c = C0};
    t.rindex = ht_heap_array(W, 1);
    t.fv = malloc(W), t.fi = malloc(W), t.S = malloc(W);
    t.notroot = calloc((size_t)n / 8 + 1, 1);
    int rc = HT_HPROF_OK;
    if (!t.rindex || !t.fv || !t.fi || !t.S || !t.notroot) {
        rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the GC roots, each object once */
    for (uint32_t i = 0; i < in->nroots; i++)
        if (in->roots[i] < n && add_rootobj(w, in->roots[i]) != 0) {
            rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
            goto out;
        }
    if (w->nrootobj > 1) qsort(w->rootobj, w->nrootobj, sizeof *w->rootobj, by_u32);
    uint32_t m = 0;
    for (uint32_t i = 0; i < w->nrootobj; i++)
        if (m == 0 || w->rootobj[m - 1] != w->rootobj[i]) w->rootobj[m++] = w->rootobj[i];
    w->nrootobj = m;
    for (uint32_t i = 0; i < m && rc == HT_HPROF_OK; i++)
        scc_from(&t, w->rootobj[i], none, &rc);
    /* then what only the modelling edges reach: roots "via class metadata" */
    uint32_t first_meta = w->nrootobj;
    for (uint32_t i = 0; i < in->nmeta && rc == HT_HPROF_OK; i++)
        if (in->meta[i] < n && !t.rindex[in->meta[i]] && scc_from(&t, in->meta[i], none, &rc) &&
            rc == HT_HPROF_OK && add_rootobj(w, in->meta[i]) != 0)
            rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    for (uint32_t o = 0; in->reachable && o < n && rc == HT_HPROF_OK; o++)
        if (!t.rindex[o] && in->reachable(in->ctx, o) && scc_from(&t, o, none, &rc) &&
            rc == HT_HPROF_OK && add_rootobj(w, o) != 0)
            rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    if (rc != HT_HPROF_OK) goto out;
    /* rindex becomes the unit: numbered 0.. in the order they finished */
    for (uint32_t o = 0; o < n; o++)
        t.rindex[o] = t.rindex[o] ? C0 - t.rindex[o] : HT_NONE;
    w->unit = t.rindex, t.rindex = NULL;
    w->uflag = calloc((size_t)w->nunits + 1, 1);
    if (!w->uflag) {
        rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < w->nrootobj; i++)
        w->uflag[w->unit[w->rootobj[i]]] |= BHV_U_ROOT | (i >= first_meta ? BHV_U_META : 0);
    w->b->meta_roots = w->nrootobj - first_meta;
out:
    free(t.rindex), free(t.fv), free(t.fi), free(t.S), free(t.notroot);
    return rc;
}

/* ---- nodes: units by class, collapsed units by their set of classes ---- */

typedef struct sigs {
    ht_map map;      /* hash of a sorted class list -> signature */
    uint32_t *cls;   /* the classes of every signature, one run each */
    uint32_t *start; /* nsig + 1 */
    uint32_t nsig, ncls;
    size_t cap_cls, cap_sig; /* never past UINT32_MAX - 1 entries (sig_find) */
} sigs;

/* The signature of the sorted distinct classes c[0..k): found or added;
 * HT_NONE out of memory. A hash collision probes on with the next salt. */
static uint32_t sig_find(sigs *g, const uint32_t *c, uint32_t k)
{
    uint64_t h = ht_hash_bytes(c, (size_t)k * sizeof *c), v, key = h;
    for (uint32_t salt = 0;; salt++) {
        key = ht_map_salt(h, salt);
        if (!ht_map_get(&g->map, key, &v)) break;
        uint32_t s = (uint32_t)v, a = g->start[s];
        if (g->start[s + 1] - a == k && memcmp(g->cls + a, c, (size_t)k * sizeof *c) == 0) return s;
    }
    /* both counts stay below the objects; a 32-bit index must never wrap */
    if ((uint64_t)g->ncls + k >= UINT32_MAX - 1 || (uint64_t)g->nsig + 2 >= UINT32_MAX - 1)
        return HT_NONE;
    if ((size_t)g->ncls + k > g->cap_cls) {
        size_t cap = g->cap_cls ? g->cap_cls : 256;
        while (cap < (size_t)g->ncls + k)
            cap *= 2;
        uint32_t *p = realloc(g->cls, cap * sizeof *p);
        if (!p) return HT_NONE;
        g->cls = p, g->cap_cls = cap;
    }
    if ((size_t)g->nsig + 2 > g->cap_sig) {
        size_t cap = g->cap_sig ? g->cap_sig * 2 : 64;
        uint32_t *p = realloc(g->start, cap * sizeof *p);
        if (!p) return HT_NONE;
        g->start = p, g->cap_sig = cap;
    }
    if (ht_map_put(&g->map, key, g->nsig) != 0) return HT_NONE;
    if (g->nsig == 0) g->start[0] = 0;
    memcpy(g->cls + g->ncls, c, (size_t)k * sizeof *c);
    g->ncls += k;
    g->start[++g->nsig] = g->ncls;
    return g->nsig - 1;
}

static const char *class_name(const ht_bhv_input *in, uint32_t c)
{
    const char *s = in->class_name && c < in->nclasses ? in->class_name(in->ctx, c) : NULL;
    return s ? s : "";
}

static int by_name(const void *a, const void *b, void *ctx)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int d = strcmp(class_name(ctx, x), class_name(ctx, y));
    return d ? d : (x > y) - (x < y);
}

typedef struct cyc_order {
    const sigs *g;
    const uint64_t *mc; /* by signature */
    const ht_bhv_input *in;
} cyc_order;

/* Cycle_1.. by MC descending, then their classes' names. */
static int by_cycle(const void *a, const void *b, void *ctx)
{
    const cyc_order *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (c->mc[x] != c->mc[y]) return c->mc[x] < c->mc[y] ? 1 : -1;
    uint32_t i = c->g->start[x], ie = c->g->start[x + 1], j = c->g->start[y],
             je = c->g->start[y + 1];
    for (; i < ie && j < je; i++, j++) {
        int d = strcmp(class_name(c->in, c->g->cls[i]), class_name(c->in, c->g->cls[j]));
        if (d) return d;
    }
    if (i < ie || j < je) return i < ie ? 1 : -1;
    return (x > y) - (x < y);
}

/* unode[] for every unit: its class; nclasses for a class object of a dump
 * with no java.lang.Class (class HT_NONE); or nclasses + 1 + its signature
 * (the classes of its objects, HT_NONE left out). */
static int unit_keys(bhv_work *w, sigs *g)
{
    const ht_bhv_input *in = w->in;
    uint32_t n = w->n, U = w->nunits;
    uint32_t *ustart = calloc((size_t)U + 1, sizeof *ustart);
    uint32_t *distinct = malloc(((size_t)in->nclasses + 1) * sizeof *distinct);
    uint32_t *seen = malloc(((size_t)in->nclasses + 1) * sizeof *seen); /* by class: last unit */
    w->order = ht_heap_array(((size_t)n + 1) * sizeof *w->order, 0);
    w->unode = malloc(((size_t)U + 1) * sizeof *w->unode);
    if (!ustart || !distinct || !seen || !w->order || !w->unode) {
        free(ustart), free(distinct), free(seen);
        return ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    memset(seen, 0xff, ((size_t)in->nclasses + 1) * sizeof *seen);
    int rc = HT_HPROF_OK;
    for (uint32_t o = 0; o < n; o++)
        if (w->unit[o] != HT_NONE) {
            if (in->cls[o] >= in->nclasses && in->cls[o] != HT_NONE) {
                char m[96];
                snprintf(m, sizeof m, "object %u has class index %u, past the %u classes", o,
                         in->cls[o], in->nclasses);
                rc = ht_bhv_fail(w, HT_HPROF_ERR_FORMAT, m);
                goto out;
            }
            ustart[w->unit[o]]++;
        }
    /* objects by unit: a counting sort, each unit's objects ascending */
    uint32_t run = 0;
    for (uint32_t u = 0; u < U; u++)
        run += ustart[u], ustart[u] = run;
    ustart[U] = run;
    for (uint32_t o = n; o-- > 0;)
        if (w->unit[o] != HT_NONE) w->order[--ustart[w->unit[o]]] = o;
    for (uint32_t u = 0; u < U && rc == HT_HPROF_OK; u++) {
        uint32_t a = ustart[u], e = ustart[u + 1];
        if (e - a == 1) {
            uint32_t c = in->cls[w->order[a]];
            w->unode[u] = c == HT_NONE ? in->nclasses : c;
            continue;
        }
        /* its distinct classes by a stamp per class, then only those sorted */
        uint32_t k = 0;
        for (uint32_t i = a; i < e; i++) {
            uint32_t c = in->cls[w->order[i]];
            if (c != HT_NONE && seen[c] != u) seen[c] = u, distinct[k++] = c;
        }
        if (k > 1) qsort(distinct, k, sizeof *distinct, by_u32);
        uint32_t s = sig_find(g, distinct, k);
        if (s == HT_NONE || (uint64_t)in->nclasses + 1 + s >= HT_NONE - 1)
            rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
        w->unode[u] = in->nclasses + 1 + s;
        rc = rc ? rc : ht_bhv_tick(w, "behaviour", a, n);
    }
out:
    free(ustart), free(distinct), free(seen);
    return rc;
}

typedef struct name_order {
    const ht_behaviour *b;
    const ht_bhv_input *in;
} name_order;

static int by_node_name(const void *a, const void *b, void *ctx)
{
    const name_order *c = ctx;
    uint32_t x = c->b->nodes[*(const uint32_t *)a].cls, y = c->b->nodes[*(const uint32_t *)b].cls;
    return strcmp(class_name(c->in, x), class_name(c->in, y));
}

/* Class nodes first .. end-1 of one name: samename on each (ht_bhv_name
 * then adds the loader). -1 out of memory. */
static int mark_samename(ht_behaviour *b, const ht_bhv_input *in, uint32_t first, uint32_t end)
{
    uint32_t n = end - first, *id = malloc(((size_t)n + 1) * sizeof *id);
    if (!id) return -1;
    for (uint32_t i = 0; i < n; i++)
        id[i] = first + i;
    name_order c = {.b = b, .in = in};
    qsort_r(id, n, sizeof *id, by_node_name, &c);
    for (uint32_t i = 0; i + 1 < n; i++)
        if (by_node_name(&id[i], &id[i + 1], &c) == 0)
            b->nodes[id[i]].samename = b->nodes[id[i + 1]].samename = 1;
    free(id);
    return 0;
}

/* The nodes: ROOT, the classes holding units of one object by class index,
 * the class objects of a dump without java.lang.Class, Cycle_1.. */
static int make_nodes(bhv_work *w)
{
    const ht_bhv_input *in = w->in;
    ht_behaviour *b = w->b;
    uint32_t n = w->n, U = w->nunits;
    sigs g = {0};
    ht_map_init(&g.map);
    int rc = unit_keys(w, &g);
    uint32_t nc = in->nclasses, nk = nc + 1 + g.nsig, *remap = NULL, *corder = NULL, *cur = NULL;
    uint64_t *kunits = NULL, *kobj = NULL, *kmc = NULL;
    if (rc != HT_HPROF_OK) goto out;
    kunits = calloc((size_t)nk + 1, sizeof *kunits);
    kobj = calloc((size_t)nk + 1, sizeof *kobj);
    kmc = calloc((size_t)nk + 1, sizeof *kmc);
    remap = malloc(((size_t)nk + 1) * sizeof *remap);
    corder = malloc(((size_t)g.nsig + 1) * sizeof *corder);
    if (!kunits || !kobj || !kmc || !remap || !corder) goto nomem;
    for (uint32_t u = 0; u < U; u++)
        kunits[w->unode[u]]++;
    for (uint32_t o = 0; o < n; o++) {
        uint32_t u = w->unit[o];
        if (u == HT_NONE) continue;
        uint64_t sz = in->size ? in->size(in->ctx, o) : 0;
        kobj[w->unode[u]]++, kmc[w->unode[u]] += sz;
        if (w->uflag[u] & BHV_U_META) b->meta_root_bytes += sz;
    }
    uint32_t nclass_nodes = 0;
    for (uint32_t c = 0; c <= nc; c++) /* nc: the class objects without a class */
        nclass_nodes += kunits[c] > 0;
    b->nnodes = 1 + nclass_nodes + g.nsig;
    b->nodes = calloc(b->nnodes, sizeof *b->nodes);
    b->member = malloc(((size_t)g.ncls + 1) * sizeof *b->member);
    w->node_start = calloc((size_t)b->nnodes + 1, sizeof *w->node_start);
    cur = malloc((size_t)b->nnodes * sizeof *cur);
    if (!b->nodes || !b->member || !w->node_start || !cur) goto nomem;
    b->nodes[0] = (ht_bhv_node){.cls = HT_NONE, .units = 1, .sample = HT_NONE};
    uint32_t id = 1;
    for (uint32_t c = 0; c <= nc; c++)
        if (kunits[c]) {
            remap[c] = id;
            b->nodes[id++] = (ht_bhv_node){
                .cls = c < nc ? c : HT_NONE, .units = kunits[c], .objects = kobj[c], .mc = kmc[c]};
        }
    if (mark_samename(b, in, 1, id - (kunits[nc] > 0)) != 0) goto nomem;
    /* each signature's classes by name, then the signatures in Cycle order */
    for (uint32_t s = 0; s < g.nsig; s++) {
        corder[s] = s;
        uint32_t a = g.start[s], e = g.start[s + 1];
        qsort_r(g.cls + a, e - a, sizeof *g.cls, by_name, (void *)in);
    }
    cyc_order co = {.g = &g, .mc = kmc + nc + 1, .in = in};
    qsort_r(corder, g.nsig, sizeof *corder, by_cycle, &co);
    uint32_t mpos = 0;
    for (uint32_t i = 0; i < g.nsig; i++, id++) {
        uint32_t s = corder[i], k = nc + 1 + s, a = g.start[s], e = g.start[s + 1];
        remap[k] = id;
        ht_bhv_node *d = &b->nodes[id];
        *d = (ht_bhv_node){.cls = HT_NONE,
                           .cycle = i + 1,
                           .members = mpos,
                           .nmembers = e - a,
                           .units = kunits[k],
                           .objects = kobj[k],
                           .mc = kmc[k]};
        memcpy(b->member + mpos, g.cls + a, (size_t)(e - a) * sizeof *g.cls);
        mpos += e - a;
    }
    for (uint32_t u = 0; u < U; u++)
        w->unode[u] = remap[w->unode[u]];
    /* the reachable objects again, by node */
    for (uint32_t i = 0; i < b->nnodes; i++)
        w->node_start[i + 1] = w->node_start[i] + (uint32_t)b->nodes[i].objects;
    memcpy(cur, w->node_start, (size_t)b->nnodes * sizeof *cur);
    for (uint32_t o = 0; o < n; o++)
        if (w->unit[o] != HT_NONE) w->order[cur[w->unode[w->unit[o]]]++] = o;
    /* the node's object of the biggest retained size (the first, without a
     * dominator tree): what the reference browser opens for it */
    const ht_dominators *dom = w->in->dom;
    for (uint32_t i = 1; i < b->nnodes; i++) {
        uint32_t best = HT_NONE;
        for (uint32_t j = w->node_start[i]; j < w->node_start[i + 1]; j++)
            if (best == HT_NONE ||
                (dom && w->order[j] < dom->n && dom->retained[w->order[j]] > dom->retained[best]))
                best = w->order[j];
        b->nodes[i].sample = best;
    }
    goto out;
nomem:
    rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
out:
    free(kunits), free(kobj), free(kmc), free(remap), free(corder), free(cur);
    free(g.cls), free(g.start);
    ht_map_free(&g.map);
    return rc;
}

/* ---- edges: references and distinct units between nodes ---- */

typedef struct edger {
    bhv_work *w;
    uint64_t *raw, *dist; /* by child node, for the parent being walked */
    uint32_t *touched, nt;
    uint32_t cap;
} edger;

static void touch(edger *e, uint32_t p, uint32_t cu, uint32_t cn)
{
    bhv_work *w = e->w;
    if (!e->raw[cn]) e->touched[e->nt++] = cn;
    e->raw[cn]++;
    if (w->stamp[cu] == p) return;
    w->stamp[cu] = p;
    e->dist[cn]++;
    if (cn != p && !(w->uflag[cu] & BHV_U_K)) w->uflag[cu] |= BHV_U_K, w->k1[cn]++;
}

static int flush(edger *e, uint32_t p)
{
    ht_behaviour *b = e->w->b;
    qsort(e->touched, e->nt, sizeof *e->touched, by_u32);
    for (uint32_t i = 0; i < e->nt; i++) {
        uint32_t c = e->touched[i];
        if (c == p) {
            b->nodes[p].rself = e->dist[c];
        } else {
            if (b->nedges == e->cap) {
                uint32_t cap = e->cap ? e->cap * 2 : 256;
                ht_bhv_edge *x = cap > e->cap ? realloc(b->edges, (size_t)cap * sizeof *x) : NULL;
                if (!x) return ht_bhv_fail(e->w, HT_HPROF_ERR_NOMEM, "out of memory");
                b->edges = x, e->cap = cap;
            }
            b->edges[b->nedges++] = (ht_bhv_edge){
                .from = p, .to = c, .refs = e->raw[c], .units = e->dist[c], .kept = 1};
        }
        e->raw[c] = e->dist[c] = 0;
    }
    e->nt = 0;
    return HT_HPROF_OK;
}

static int make_edges(bhv_work *w)
{
    ht_behaviour *b = w->b;
    uint32_t nn = b->nnodes, U = w->nunits;
    edger e = {.w = w};
    e.raw = calloc(nn, sizeof *e.raw), e.dist = calloc(nn, sizeof *e.dist);
    e.touched = malloc((size_t)nn * sizeof *e.touched);
    w->k1 = calloc(nn, sizeof *w->k1);
    w->stamp = malloc(((size_t)U + 1) * sizeof *w->stamp);
    b->out_start = calloc((size_t)nn + 1, sizeof *b->out_start);
    b->in_start = calloc((size_t)nn + 1, sizeof *b->in_start);
    int rc = HT_HPROF_OK;
    if (!e.raw || !e.dist || !e.touched || !w->k1 || !w->stamp || !b->out_start || !b->in_start) {
        rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
        goto out;
    }
    memset(w->stamp, 0xff, ((size_t)U + 1) * sizeof *w->stamp);
    for (uint32_t i = 0; i < w->nrootobj; i++) {
        uint32_t u = w->unit[w->rootobj[i]];
        touch(&e, HT_BHV_ROOT, u, w->unode[u]);
    }
    rc = flush(&e, HT_BHV_ROOT);
    for (uint32_t p = 1; p < nn && rc == HT_HPROF_OK; p++) {
        for (uint32_t j = w->node_start[p]; j < w->node_start[p + 1] && rc == HT_HPROF_OK; j++) {
            uint32_t o = w->order[j], uo = w->unit[o], cnt;
            const uint32_t *r = refs_of(w->in, o, &cnt);
            for (uint32_t i = 0; i < cnt; i++) {
                uint32_t x = r[i], cu = x < w->n ? w->unit[x] : HT_NONE;
                if (cu != HT_NONE && cu != uo) touch(&e, p, cu, w->unode[cu]);
            }
            rc = ht_bhv_tick(w, "behaviour", j, w->node_start[nn]);
        }
        rc = rc ? rc : flush(&e, p);
    }
    if (rc != HT_HPROF_OK) goto out;
    /* edges leaving each node (already in (from, to) order), and entering */
    b->in_edge = malloc(((size_t)b->nedges + 1) * sizeof *b->in_edge);
    if (!b->in_edge) {
        rc = ht_bhv_fail(w, HT_HPROF_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < b->nedges; i++)
        b->out_start[b->edges[i].from + 1]++, b->in_start[b->edges[i].to + 1]++;
    for (uint32_t i = 0; i < nn; i++)
        b->out_start[i + 1] += b->out_start[i], b->in_start[i + 1] += b->in_start[i];
    memset(e.touched, 0, (size_t)nn * sizeof *e.touched); /* a cursor per node */
    for (uint32_t i = 0; i < b->nedges; i++) {
        uint32_t t = b->edges[i].to;
        b->in_edge[b->in_start[t] + e.touched[t]++] = i;
    }
out:
    free(e.raw), free(e.dist), free(e.touched);
    return rc;
}

static void work_free(bhv_work *w)
{
    free(w->unit), free(w->unode), free(w->uflag), free(w->stamp), free(w->order);
    free(w->node_start), free(w->rootobj), free(w->k1);
    memset(w, 0, sizeof *w);
}

int ht_behaviour_build_input(ht_behaviour *b, const ht_bhv_input *in, const ht_bhv_opts *o,
                             const ht_snapshot_opts *p, ht_hprof *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(b, 0, sizeof *b);
    b->opts = o ? *o : (ht_bhv_opts){0};
    bhv_work w = {.b = b, .in = in, .p = p, .err = err, .n = in->nobjects};
    int rc = HT_HPROF_OK;
    if (in->nobjects >= UINT32_MAX - 2 || in->nclasses >= UINT32_MAX / 2)
        rc = ht_bhv_fail(&w, HT_HPROF_ERR_FORMAT, "too many objects or classes");
    else if (in->nobjects && (!in->cls || !in->refs))
        rc = ht_bhv_fail(&w, HT_HPROF_ERR_FORMAT, "no classes or references given");
    if (rc == HT_HPROF_OK) rc = find_units(&w, b->opts.scc_none);
    if (rc == HT_HPROF_OK) rc = make_nodes(&w);
    if (rc == HT_HPROF_OK) rc = make_edges(&w);
    if (rc == HT_HPROF_OK) rc = ht_bhv_rank(&w);
    work_free(&w);
    if (rc != HT_HPROF_OK) {
        ht_bhv_opts keep = b->opts;
        char why[sizeof b->why];
        memcpy(why, b->why, sizeof why);
        ht_behaviour_free(b);
        b->opts = keep;
        memcpy(b->why, why, sizeof why);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    b->build_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return rc;
}
