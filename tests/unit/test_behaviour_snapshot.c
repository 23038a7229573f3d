/*
 * test_behaviour_snapshot: the behaviour analysis (behaviour.h) over real
 * snapshots (analysis/behaviour_snapshot.c): HPROF files written here, read
 * by the snapshot builder, their dominator tree computed, then the analysis.
 *  - modelling edges: one dump holding every kind the snapshot puts in out[]
 *    (an instance's class edge, an object array's, a class object's super,
 *    loader and constant-pool references beside its statics, a loader's
 *    defined classes); the group graph must hold exactly the fields,
 *    elements and statics, each counted as written;
 *  - "via class metadata" roots (design note D1b): the class mirrors,
 *    loader and constant-pool object no Java reference reaches are each
 *    made a root once, and the groups' bytes add up to the dominator tree's
 *    reachable bytes; with no root, the loader and its classes are garbage;
 *  - the property test: random object trees (one referrer an object) whose
 *    classes have one parent class each: MD_ROOT = the reachable bytes, and
 *    MD + MC of every node = the exact retained size of its objects taken
 *    together, computed here from the immediate dominators the slow way;
 *    with several parent classes a class (cycles in the class graph
 *    included), MD_ROOT = the reachable bytes still; and on both,
 *    ht_heap_class_retained (the heap screens' figure, the dominator
 *    tree's keyed walk) = each class's retained size the slow way.
 */
#include "analysis.h"
#include "behaviour.h"
#include "check.h"
#include "dominators.h"
#include "hprof_builder.h"
#include "snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers over a built analysis ---- */

static uint32_t node_of(const ht_behaviour *b, const ht_snapshot *s, const char *name)
{
    char nb[HT_BHV_NAME_MAX];
    for (uint32_t i = 0; i < b->nnodes; i++)
        if (strcmp(ht_bhv_name(b, s, i, nb, sizeof nb), name) == 0) return i;
    return HT_NONE;
}

static const ht_bhv_edge *edge_of(const ht_behaviour *b, uint32_t from, uint32_t to)
{
    if (from == HT_NONE || to == HT_NONE) return NULL;
    for (uint32_t e = 0; e < b->nedges; e++)
        if (b->edges[e].from == from && b->edges[e].to == to) return &b->edges[e];
    return NULL;
}

static uint64_t refs_between(const ht_behaviour *b, const ht_snapshot *s, const char *from,
                             const char *to)
{
    const ht_bhv_edge *e = edge_of(b, node_of(b, s, from), node_of(b, s, to));
    return e ? e->refs : 0;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* ---- one dump with every modelling edge (hb_loader_dump) ---- */

static void modelling_edges(int scc_none)
{
    hb b;
    hb_loader_dump(&b, 1);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_behaviour g;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "model dump: %s", h.err);
    if (rc) return;
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    /* what the snapshot itself holds: the modelling edges are there */
    uint32_t l = ht_snapshot_find(&s, HB_L), holder = ht_snapshot_find(&s, HB_M_HOLDER);
    CHECK_MSG(s.out_start[l + 1] - s.out_start[l] == 5, "L: class, parent, three classes (%u)",
              s.out_start[l + 1] - s.out_start[l]);
    CHECK_MSG(ht_snapshot_static_refs(&s, holder) == 3, "Holder: three statics in out[] (%u)",
              ht_snapshot_static_refs(&s, holder));
    CHECK(ht_snapshot_static_refs(&s, l) == 0);
    ht_bhv_opts o = {.scc_none = scc_none};
    rc = ht_behaviour_build(&g, &s, &d, &o, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "behaviour: %s", h.err);
    if (rc) return;
    /* the Java-level runs: fields, elements and statics, as written */
    CHECK_MSG(refs_between(&g, &s, "demo.Node[]", "demo.Node") == 3, "ARR's three elements (%lu)",
              (unsigned long)refs_between(&g, &s, "demo.Node[]", "demo.Node"));
    const ht_bhv_edge *e =
        edge_of(&g, node_of(&g, &s, "demo.Node[]"), node_of(&g, &s, "demo.Node"));
    CHECK(e && e->units == 2);
    CHECK(refs_between(&g, &s, "demo.Loader", "demo.Parent") == 1);
    CHECK(refs_between(&g, &s, "demo.Node", "char[]") == 1);
    CHECK(refs_between(&g, &s, "java.lang.Class", "demo.Node[]") == 1); /* static INST */
    uint32_t nclass = node_of(&g, &s, "java.lang.Class"), nnode = node_of(&g, &s, "demo.Node");
    CHECK(nclass != HT_NONE && nnode != HT_NONE);
    if (nclass == HT_NONE || nnode == HT_NONE) return;
    CHECK_MSG(g.nodes[nnode].rself == 1, "n1.next = n2: one unit from its own node (%lu)",
              (unsigned long)g.nodes[nnode].rself);
    /* Holder's MIRROR static is the one reference from a class object to
     * another (super and loader are not; SELF is Holder's own) */
    CHECK_MSG(g.nodes[nclass].rself == 1, "java.lang.Class: only the MIRROR static (%lu)",
              (unsigned long)g.nodes[nclass].rself);
    /* none of the modelling edges: nothing into java.lang.Class but ROOT,
     * no class to its loader or its constant pool, no loader to a class */
    uint64_t into_class = 0, all = 0;
    for (uint32_t i = 0; i < g.nedges; i++) {
        all += g.edges[i].refs;
        if (g.edges[i].to == nclass && g.edges[i].from != HT_BHV_ROOT) into_class++;
    }
    CHECK_MSG(into_class == 0, "%lu edges into java.lang.Class from a node",
              (unsigned long)into_class);
    CHECK(refs_between(&g, &s, "java.lang.Class", "demo.Loader") == 0);
    CHECK(refs_between(&g, &s, "java.lang.Class", "demo.CpTarget") == 0);
    CHECK(refs_between(&g, &s, "java.lang.Class", "java.lang.Object") == 0);
    CHECK(refs_between(&g, &s, "demo.Loader", "java.lang.Class") == 0);
    /* D1b: Node's, Node[]'s and Holder's mirrors (reached from their
     * instances and loader only), then L, then CPT (the constant pool's) */
    uint64_t meta_bytes =
        ht_snapshot_shallow(&s, l) + ht_snapshot_shallow(&s, ht_snapshot_find(&s, HB_CPT));
    for (uint64_t c = HB_M_NODE; c <= HB_M_HOLDER; c++)
        meta_bytes += ht_snapshot_shallow(&s, ht_snapshot_find(&s, c));
    CHECK_MSG(g.meta_roots == 5, "five roots via class metadata (%lu)",
              (unsigned long)g.meta_roots);
    CHECK_MSG(g.meta_root_bytes == meta_bytes, "their bytes %lu, not %lu",
              (unsigned long)g.meta_root_bytes, (unsigned long)meta_bytes);
    uint64_t mc = 0, objects = 0;
    for (uint32_t i = 0; i < g.nnodes; i++)
        mc += g.nodes[i].mc, objects += g.nodes[i].objects;
    CHECK_MSG(mc == d.reachable_bytes && g.reachable_bytes == d.reachable_bytes,
              "sum of MC %lu = the tree's reachable bytes %lu", (unsigned long)mc,
              (unsigned long)d.reachable_bytes);
    CHECK_MSG(objects == d.reachable && g.reachable_objects == d.reachable,
              "each reachable object counted once (%lu of %u)", (unsigned long)objects,
              d.reachable);
    CHECK_MSG(g.nodes[nclass].objects == HB_M_NCLASSES,
              "every class mirror in java.lang.Class once");
    ht_behaviour_free(&g);
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d);
}

/* The same dump with no root but the boot classes: the loader, its classes
 * and what they hold are garbage, not roots via class metadata (a fuzzed
 * dump found them counted: the groups' bytes above the reachable bytes). */
static void garbage_loader(void)
{
    hb b;
    hb_loader_dump(&b, 0);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_behaviour g;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "garbage loader dump: %s", h.err);
    if (rc) return;
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    CHECK(d.idom[ht_snapshot_find(&s, HB_L)] == HT_NONE); /* garbage, as the tree says */
    CHECK(ht_behaviour_build(&g, &s, &d, NULL, NULL) == HT_HPROF_OK);
    uint64_t mc = 0, objects = 0;
    for (uint32_t i = 0; i < g.nnodes; i++)
        mc += g.nodes[i].mc, objects += g.nodes[i].objects;
    CHECK_MSG(g.meta_roots == 0, "no root via class metadata (%lu)", (unsigned long)g.meta_roots);
    CHECK_MSG(mc == d.reachable_bytes && objects == d.reachable,
              "groups: %lu bytes, %lu objects; reachable %lu bytes, %u objects", (unsigned long)mc,
              (unsigned long)objects, (unsigned long)d.reachable_bytes, d.reachable);
    ht_behaviour_free(&g);
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d);
}

/* ---- the property test ---- */

#define T_CLS(c) (0x1000ull + (c))
#define T_OBJ(i) (0x100000ull + 64ull * (i))
#define T_MAXF   4 /* reference fields a class */

/* Random objects: roots are of class 0, which no class has for a parent;
 * every other object has one referrer, an earlier object of one of its
 * class's parent classes (parents[c * 3 + k], k < npar[c]), in one of its
 * T_MAXF reference fields. */
typedef struct tree {
    int ncls, n;
    int npar[8], parents[24], extra[8];
    int *cls, *field; /* field[i * T_MAXF + f]: the child, or -1 */
    char *root;
} tree;

static void make_tree(tree *t, unsigned seed, int several)
{
    srand(seed);
    t->ncls = 2 + rand() % 7;
    for (int c = 0; c < t->ncls; c++) {
        t->extra[c] = rand() % 4; /* long fields: sizes differ by class */
        t->npar[c] = c == 0 ? 0 : several ? 1 + rand() % 3 : 1;
        for (int k = 0; k < t->npar[c]; k++) /* several: any class, itself included */
            t->parents[c * 3 + k] = several ? rand() % t->ncls : rand() % c;
    }
    t->parents[1 * 3] = 0; /* class 0 has a child class */
    t->n = 2 + rand() % 400;
    t->cls = calloc((size_t)t->n, sizeof *t->cls);
    t->root = calloc((size_t)t->n, 1);
    t->field = malloc((size_t)t->n * T_MAXF * sizeof *t->field);
    for (int i = 0; i < t->n * T_MAXF; i++)
        t->field[i] = -1;
    for (int i = 0; i < t->n; i++) {
        int placed = 0;
        for (int tries = 0; i > 0 && tries < 200 && !placed; tries++) {
            int j = rand() % i, c = 1 + rand() % (t->ncls - 1), slot = rand() % T_MAXF;
            for (int k = 0; k < t->npar[c]; k++)
                if (t->parents[c * 3 + k] == t->cls[j] && t->field[j * T_MAXF + slot] < 0) {
                    t->cls[i] = c, t->field[j * T_MAXF + slot] = i, placed = 1;
                    break;
                }
        }
        if (!placed) t->cls[i] = 0, t->root[i] = 1;
    }
}

static void free_tree(tree *t)
{
    free(t->cls), free(t->field), free(t->root);
}

static void write_tree(hb *b, const tree *t)
{
    hb_start(b, 8, 1700000000000ull);
    hb_utf8(b, 0x10, "java/lang/Object");
    hb_utf8(b, 0x11, "java/lang/Class");
    hb_utf8(b, 0x20, "f");
    hb_load_class(b, 1, C_OBJECT, 0x10);
    hb_load_class(b, 2, C_CLASS, 0x11);
    for (int c = 0; c < t->ncls; c++) {
        char name[32];
        snprintf(name, sizeof name, "t/C%d", c);
        hb_utf8(b, 0x30 + (uint64_t)c, name);
        hb_load_class(b, 3 + (uint32_t)c, T_CLS(c), 0x30 + (uint64_t)c);
    }
    size_t r = hb_begin(b, 0x1C);
    hb_class_dump(b, C_OBJECT, 0, 0, 0, NULL, NULL);
    hb_class_dump(b, C_CLASS, C_OBJECT, 0, 0, NULL, NULL);
    for (int c = 0; c < t->ncls; c++) {
        uint64_t names[T_MAXF + 3];
        uint8_t types[T_MAXF + 3];
        for (int f = 0; f < T_MAXF + t->extra[c]; f++)
            names[f] = 0x20, types[f] = f < T_MAXF ? 2 : 11; /* references, then longs */
        hb_class_dump(b, T_CLS(c), C_OBJECT, 0, (unsigned)(T_MAXF + t->extra[c]), names, types);
    }
    for (int i = 0; i < t->n; i++) {
        if (t->root[i]) hb_u1(b, 0x01), hb_id(b, T_OBJ(i)), hb_id(b, 0x99);
        hb_u1(b, 0x21), hb_id(b, T_OBJ(i)), hb_u4(b, 1), hb_id(b, T_CLS(t->cls[i]));
        hb_u4(b, 8u * (T_MAXF + (unsigned)t->extra[t->cls[i]]));
        for (int f = 0; f < T_MAXF; f++)
            hb_id(b, t->field[i * T_MAXF + f] < 0 ? 0 : T_OBJ(t->field[i * T_MAXF + f]));
        for (int f = 0; f < t->extra[t->cls[i]]; f++)
            hb_u8(b, (uint64_t)i);
    }
    hb_end(b, r);
    hb_end(b, hb_begin(b, 0x2C));
}

/* The retained bytes of class c's objects together, the slow way: each
 * reachable object of c whose immediate-dominator chain holds no other
 * object of c adds its retained size. */
static uint64_t class_retained_slow(const ht_snapshot *s, const ht_dominators *d, uint32_t c)
{
    uint64_t sum = 0;
    for (uint32_t o = 0; o < s->nobjects; o++) {
        if (s->cls[o] != c || d->idom[o] == HT_NONE) continue;
        int inside = 0;
        for (uint32_t u = d->idom[o]; u != HT_ROOT && u != HT_NONE && !inside; u = d->idom[u])
            inside = s->cls[u] == c;
        if (!inside) sum += d->retained[o];
    }
    return sum;
}

static void property(unsigned seed, int several, int scc_none)
{
    tree t;
    make_tree(&t, seed, several);
    hb b;
    write_tree(&b, &t);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_behaviour g;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "seed %u: %s", seed, h.err);
    if (rc) goto out;
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    ht_bhv_opts o = {.scc_none = scc_none};
    rc = ht_behaviour_build(&g, &s, &d, &o, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "seed %u: behaviour: %s", seed, h.err);
    if (rc) goto out_d;
    double T = (double)d.reachable_bytes;
    CHECK_MSG(g.reachable_bytes == d.reachable_bytes, "seed %u: T %lu, tree %lu", seed,
              (unsigned long)g.reachable_bytes, (unsigned long)d.reachable_bytes);
    CHECK_MSG(near(g.md_root, T), "seed %u (%s, %d objects, %d classes): MD_ROOT %.17g, T %.0f",
              seed, several ? "several parents" : "one parent", t.n, t.ncls, g.md_root, T);
    CHECK_MSG(g.cycle_units == 0 && g.meta_roots == 0, "seed %u: a tree has no cycle, no meta root",
              seed);
    /* the heap screens' retained size by class: the same walk, keyed by class */
    uint64_t *by_class = ht_heap_class_retained(&s, &d);
    CHECK(by_class != NULL);
    int same = by_class != NULL;
    for (uint32_t c = 0; by_class && c < s.nclasses; c++)
        same &= by_class[c] == class_retained_slow(&s, &d, c);
    CHECK_MSG(same, "seed %u: ht_heap_class_retained = each class's exact retained size", seed);
    free(by_class);
    if (!several) {
        int ok = 1;
        for (uint32_t i = 1; i < g.nnodes; i++) {
            const ht_bhv_node *nd = &g.nodes[i];
            if (nd->cls == HT_NONE) {
                ok = 0;
                continue;
            }
            uint64_t want = class_retained_slow(&s, &d, nd->cls);
            if (!near(nd->md + (double)nd->mc, (double)want) || nd->retained != want) {
                ok = 0;
                char nb[HT_BHV_NAME_MAX];
                fprintf(stderr, "seed %u: %s: MD %.17g + MC %lu, retained %lu, exact %lu\n", seed,
                        ht_bhv_name(&g, &s, i, nb, sizeof nb), nd->md, (unsigned long)nd->mc,
                        (unsigned long)nd->retained, (unsigned long)want);
            }
        }
        CHECK_MSG(ok, "seed %u: MD + MC = the exact retained size of every node", seed);
    }
    ht_behaviour_free(&g);
out_d:
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
out:
    ht_hprof_close(&h);
    free(b.d);
    free_tree(&t);
}

int main(void)
{
    modelling_edges(0);
    modelling_edges(1);
    garbage_loader();
    for (unsigned seed = 1; seed <= 200; seed++) {
        property(seed, 0, seed & 1);
        property(1000 + seed, 1, seed & 1);
    }
    return check_summary();
}
