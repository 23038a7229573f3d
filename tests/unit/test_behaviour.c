/*
 * test_behaviour: the object-group reference graph ranking
 * (tui/heap/analysis/behaviour.c, behaviour_rank.c) on graphs built here by
 * hand with the exact sizes of the design note's worked examples, checked
 * to a relative 1e-9:
 *  - §2.1: every N, MC, R, DR, MD, CR, MCC, the rank, the exact retained
 *    sizes, forward and backward edge sets at each listed threshold,
 *    branches and coverage, String flagged at t1 = 0.4; again with
 *    scc=none (A and B apart, B->A dropped by the cycle rule);
 *  - §2.2 (the holder first) and its variant at 24 bytes a holder (not);
 *  - E1 (the diamond's overcount), E2 (count=raw 64 against 32), E3 (a
 *    list: MD_H 72, MD_Node 0), E4 (MD_ROOT 480, two edges dropped), E5 (a
 *    root inside a cycle counted once); roots via class metadata;
 *  - invariants: sum of CR 1 per parent with MD > 0, sum of MC = T, MD_ROOT
 *    = T on random trees, and MD + MC the exact retained size where every
 *    node has one parent node (retained sizes from a dominator tree made
 *    here the slow way: an object's dominated set is what its removal cuts
 *    off from the roots);
 *  - a list of 10^7 objects and a ring of 10^6 (nothing recurses), with
 *    the build's peak memory per object;
 *  - bad input: class indexes out of range, references past the objects.
 */
#include "behaviour_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---- §2.1 ---- */

enum { MAIN, HOLDER, PARA, GLUE, A, B, POS, STRING, CHARS };
static const char *const names21[] = {"Main", "Holder", "Para",   "Glue",  "A",
                                      "B",    "Pos",    "String", "char[]"};

static void make21(tg *g)
{
    /* m h1 p1 p2 g1 g2 g3 a1 a2 b1 b2 l1..l5 s1 s2 s3 c1 c2 c3 */
    static const uint32_t cls[] = {MAIN,   HOLDER, PARA,   PARA,  GLUE,  GLUE, GLUE, A,
                                   A,      B,      B,      POS,   POS,   POS,  POS,  POS,
                                   STRING, STRING, STRING, CHARS, CHARS, CHARS};
    static const uint32_t size[] = {16, 16, 24, 24, 32, 32, 32, 16, 16, 24, 24,
                                    16, 16, 16, 16, 16, 24, 24, 24, 24, 40, 56};
    enum { m, h1, p1, p2, g1, g2, g3, a1, a2, b1, b2, l1, l2, l3, l4, l5, s1, s2, s3, c1, c2, c3 };
    static const uint32_t e[] = {m,  h1, m,  s3, h1, p1, h1, p2, h1, s1, p1, g1, p1, g2, p2, g3,
                                 p1, a1, a1, b1, b1, a1, p2, a2, a2, b2, b2, a2, g1, l1, g2, l2,
                                 g3, l3, g1, s2, b1, l4, b2, l5, s1, c1, s2, c2, s3, c3};
    static const uint32_t r[] = {m};
    tg_make(g, 22, cls, size, e, sizeof e / sizeof *e / 2, r, 1, names21, 9);
}

static void test_21(void)
{
    tg g;
    make21(&g);
    tg_dominators(&g);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    CHECK(b.nnodes == 9); /* ROOT, 7 classes, Cycle_1 */
    CHECK(b.nodes[0].cls == HT_NONE && b.nodes[0].mc == 0 && b.nodes[0].rank == 0);
    CHECK(strcmp(nm(&b, 0), "ROOT") == 0);
    CHECK(node(&b, "A") == HT_NONE && node(&b, "B") == HT_NONE); /* only inside the cycle */
    uint32_t cy = node(&b, "Cycle_1");
    CHECK(cy != HT_NONE && b.nodes[cy].nmembers == 2);
    if (cy != HT_NONE) {
        CHECK(b.member[b.nodes[cy].members] == A && b.member[b.nodes[cy].members + 1] == B);
        CHECK(b.nodes[cy].objects == 4);
    }
    CHECK(b.cycle_units == 2 && b.dropped == 0 && b.meta_roots == 0);
    CHECK(b.reachable_bytes == 528 && b.reachable_objects == 22);
    CHECK_V(b.md_root, 528);
    /* N, MC, MD, MCC, rank */
    check_node(&b, "Glue", 3, 96, 112, 1);
    check_node(&b, "Para", 2, 48, 320, 2);
    check_node(&b, "char[]", 3, 120, 0, 3);
    check_node(&b, "String", 3, 72, 120, 4);
    check_node(&b, "Cycle_1", 2, 80, 32, 5);
    check_node(&b, "Main", 1, 16, 512, 6);
    check_node(&b, "Holder", 1, 16, 432, 7);
    check_node(&b, "Pos", 5, 80, 0, 8);
    check_node(&b, "ROOT", 1, 0, 528, 0);
    static const char *const order[] = {"Glue",    "Para", "char[]", "String",
                                        "Cycle_1", "Main", "Holder", "Pos"};
    for (uint32_t i = 0; i < 8; i++)
        CHECK_MSG(strcmp(nm(&b, b.ranked[i]), order[i]) == 0, "rank %u: %s, want %s", i + 1,
                  nm(&b, b.ranked[i]), order[i]);
    /* R, DR, CR of every edge */
    CHECK(b.nedges == 11);
    check_edge(&b, "ROOT", "Main", 1, 1, 1, 1);
    check_edge(&b, "Main", "Holder", 1, 1, 1, 448.0 / 512);
    check_edge(&b, "Main", "String", 1, 1, 1.0 / 3, 64.0 / 512);
    check_edge(&b, "Holder", "Para", 2, 2, 1, 368.0 / 432);
    check_edge(&b, "Holder", "String", 1, 1, 1.0 / 3, 64.0 / 432);
    check_edge(&b, "Para", "Glue", 3, 3, 1, 208.0 / 320);
    check_edge(&b, "Para", "Cycle_1", 2, 2, 1, 112.0 / 320);
    check_edge(&b, "Glue", "Pos", 3, 3, 0.6, 48.0 / 112);
    check_edge(&b, "Glue", "String", 1, 1, 1.0 / 3, 64.0 / 112);
    check_edge(&b, "Cycle_1", "Pos", 2, 2, 0.4, 1);
    check_edge(&b, "String", "char[]", 3, 3, 1, 1);
    check_invariants(&b);
    /* the exact retained sizes of the nodes' objects together; f 1 everywhere */
    static const struct {
        const char *n;
        uint64_t r;
    } ret[] = {{"Glue", 208},    {"Para", 368}, {"char[]", 120}, {"String", 192},
               {"Cycle_1", 112}, {"Main", 528}, {"Holder", 432}, {"Pos", 80}};
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t n = node(&b, ret[i].n);
        CHECK_MSG(b.nodes[n].retained == ret[i].r, "%s retained %llu, want %llu", ret[i].n,
                  (unsigned long long)b.nodes[n].retained, (unsigned long long)ret[i].r);
        CHECK_V(b.nodes[n].f, 1);
    }
    CHECK(b.nodes[node(&b, "Pos")].depth == 5 && b.nodes[node(&b, "Main")].depth == 1);
    CHECK(b.nodes[node(&b, "Glue")].sample == 4); /* g1 */
    /* forward paths, branches and coverage */
    double cov = -1;
    check_paths(
        &b, "Glue", 1, 0.1,
        (const char *const[]){"Para>Glue", "Holder>Para", "Main>Holder", "ROOT>Main", NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "Glue"), 0.1, &cov) == 1 && near(cov, 1));
    check_paths(&b, "String", 1, 0.1,
                (const char *const[]){"Main>String", "Holder>String", "Glue>String", "ROOT>Main",
                                      "Main>Holder", "Holder>Para", "Para>Glue", NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "String"), 0.1, &cov) == 3 && near(cov, 1));
    check_paths(&b, "String", 1, 0.4, (const char *const[]){NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "String"), 0.4, &cov) == 0 && cov == 0); /* flagged */
    check_paths(&b, "Pos", 1, 0.5,
                (const char *const[]){"Glue>Pos", "Para>Glue", "Holder>Para", "Main>Holder",
                                      "ROOT>Main", NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "Pos"), 0.5, &cov) == 1 && near(cov, 0.6));
    CHECK(ht_bhv_branches(&b, node(&b, "Pos"), 0.1, &cov) == 2 && near(cov, 1));
    /* DR 1/3 against t1 = 1/3 exactly: units >= t1 x k, 1 >= 1 */
    CHECK(ht_bhv_branches(&b, node(&b, "String"), 1.0 / 3, NULL) == 3);
    /* backward paths */
    check_paths(&b, "Para", 0, 0.1,
                (const char *const[]){"Para>Glue", "Para>Cycle_1", "Glue>Pos", "Glue>String",
                                      "String>char[]", "Cycle_1>Pos", NULL});
    check_paths(&b, "Para", 0, 0.5,
                (const char *const[]){"Para>Glue", "Glue>String", "String>char[]", NULL});
    check_paths(&b, "Main", 0, 0.2,
                (const char *const[]){"Main>Holder", "Holder>Para", "Para>Glue", "Para>Cycle_1",
                                      "Glue>Pos", "Glue>String", "String>char[]", "Cycle_1>Pos",
                                      NULL});
    check_paths(&b, "Main", 0, 0.1,
                (const char *const[]){"Main>Holder", "Holder>Para", "Para>Glue", "Para>Cycle_1",
                                      "Glue>Pos", "Glue>String", "String>char[]", "Cycle_1>Pos",
                                      "Main>String", "Holder>String", NULL});
    ht_behaviour_free(&b);

    /* scc=none: A and B apart; B -> A goes back up inside the class cycle */
    CHECK(build(&b, &g, 1, 0, NULL) == HT_HPROF_OK);
    CHECK(node(&b, "Cycle_1") == HT_NONE && b.cycle_units == 0 && b.nnodes == 10);
    check_node(&b, "A", 2, 32, 80, 0);
    check_node(&b, "B", 2, 48, 32, 0);
    const ht_bhv_edge *ba = edge(&b, "B", "A");
    CHECK(ba && !ba->kept && ba->dr == 0 && b.dropped == 1);
    check_edge(&b, "Para", "A", 2, 2, 1, 112.0 / 320);
    check_edge(&b, "A", "B", 2, 2, 1, 1);
    check_edge(&b, "B", "Pos", 2, 2, 0.4, 1);
    check_node(&b, "Para", 2, 48, 320, 2);
    CHECK_V(b.md_root, 528);
    CHECK(b.nodes[node(&b, "A")].retained == 112 && b.nodes[node(&b, "B")].retained == 80);
    check_invariants(&b);
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* ---- §2.2: a Fop-like holder ---- */

static const char *const names22[] = {"LLM", "H", "Glue", "Box", "Penalty", "LeafPosition"};

static void make22(tg *g, uint32_t hsize)
{
    uint32_t n = 1 + 100 + 3000 + 3000, ne = 100 + 3000 + 3000, k = 0, o = 0;
    uint32_t *cls = malloc(n * 4), *size = malloc(n * 4), *e = malloc(ne * 8), r[] = {0};
    cls[o] = 0, size[o++] = 40;
    for (uint32_t h = 0; h < 100; h++) {
        uint32_t ho = o;
        cls[o] = 1, size[o++] = hsize;
        e[k++] = 0, e[k++] = ho;
        for (uint32_t c = 2; c <= 4; c++)
            for (uint32_t i = 0; i < 10; i++) {
                uint32_t el = o;
                cls[o] = c, size[o++] = 32;
                e[k++] = ho, e[k++] = el;
                cls[o] = 5, size[o++] = 16;
                e[k++] = el, e[k++] = el + 1;
            }
    }
    tg_make(g, n, cls, size, e, ne, r, 1, names22, 6);
    free(cls), free(size), free(e);
}

static void test_22(void)
{
    tg g;
    make22(&g, 240);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_node(&b, "H", 100, 24000, 144000, 1);
    check_node(&b, "LeafPosition", 3000, 48000, 0, 2);
    check_node(&b, "Box", 1000, 32000, 16000, 3); /* the tie broken by name */
    check_node(&b, "Glue", 1000, 32000, 16000, 4);
    check_node(&b, "Penalty", 1000, 32000, 16000, 5);
    check_node(&b, "LLM", 1, 40, 168000, 6);
    CHECK_V(b.nodes[node(&b, "H")].mcc, 4.032e9);
    CHECK_V(b.md_root, 168040);
    CHECK(b.reachable_bytes == 168040);
    check_edge(&b, "H", "Glue", 1000, 1000, 1, 1.0 / 3);
    check_edge(&b, "Box", "LeafPosition", 1000, 1000, 1.0 / 3, 1);
    check_invariants(&b);
    double cov;
    check_paths(&b, "H", 1, 0.1, (const char *const[]){"LLM>H", "ROOT>LLM", NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "H"), 0.1, &cov) == 1 && near(cov, 1));
    check_paths(&b, "H", 0, 0.1,
                (const char *const[]){"H>Glue", "H>Box", "H>Penalty", "Glue>LeafPosition",
                                      "Box>LeafPosition", "Penalty>LeafPosition", NULL});
    check_paths(&b, "H", 0, 0.4, (const char *const[]){NULL});
    CHECK(ht_bhv_branches(&b, node(&b, "LeafPosition"), 0.1, &cov) == 3 && near(cov, 1));
    CHECK(ht_bhv_branches(&b, node(&b, "LeafPosition"), 0.34, &cov) == 0);
    ht_behaviour_free(&b);
    tg_free(&g);

    /* 24 bytes a holder: H below every element class */
    make22(&g, 24);
    cur_g = &g;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_node(&b, "H", 100, 2400, 144000, 5);
    CHECK_V(b.nodes[node(&b, "H")].mcc, 2400.0 * 146400);
    check_node(&b, "LeafPosition", 3000, 48000, 0, 1);
    check_node(&b, "Box", 1000, 32000, 16000, 2);
    check_node(&b, "LLM", 1, 40, 146400, 6);
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* ---- E1-E5 ---- */

static const char *const namesE[] = {"R", "X", "Y", "Z", "Node", "A", "B", "C"};

static void test_e1(void)
{
    tg g;
    static const uint32_t cls[] = {0, 1, 2, 3}, size[] = {16, 16, 16, 100};
    static const uint32_t e[] = {0, 1, 0, 2, 1, 3, 2, 3}, r[] = {0};
    tg_make(&g, 4, cls, size, e, 4, r, 1, namesE, 8);
    tg_dominators(&g);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_node(&b, "Z", 1, 100, 0, 1);
    check_node(&b, "R", 1, 16, 232, 2);
    check_node(&b, "X", 1, 16, 100, 3);
    check_node(&b, "Y", 1, 16, 100, 4);
    CHECK_V(b.md_root, 248);
    CHECK(b.reachable_bytes == 148);
    CHECK_V(b.nodes[node(&b, "Z")].f, 2);
    CHECK(b.nodes[node(&b, "X")].retained == 16 && b.nodes[node(&b, "R")].retained == 148);
    CHECK(b.nodes[node(&b, "Z")].retained == 100);
    check_invariants(&b);
    ht_behaviour_free(&b);
    tg_free(&g);
}

static void test_e2(void)
{
    tg g;
    static const uint32_t cls[] = {5, 6}, size[] = {16, 32};
    static const uint32_t e[] = {0, 1, 0, 1}, r[] = {0};
    tg_make(&g, 2, cls, size, e, 2, r, 1, namesE, 8);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_edge(&b, "A", "B", 2, 1, 1, 1);
    check_node(&b, "A", 1, 16, 32, 0);
    ht_behaviour_free(&b);
    CHECK(build(&b, &g, 0, 1, NULL) == HT_HPROF_OK); /* count=raw */
    check_edge(&b, "A", "B", 2, 1, 2, 1);
    check_node(&b, "A", 1, 16, 64, 0);
    /* and the branch test reads refs: 2 >= 1.5 x 1 */
    CHECK(ht_bhv_branches(&b, node(&b, "B"), 1.5, NULL) == 1);
    ht_behaviour_free(&b);
    tg_free(&g);
}

static void test_e3(void)
{
    tg g;
    static const uint32_t cls[] = {0, 4, 4, 4}, size[] = {16, 24, 24, 24};
    static const uint32_t e[] = {0, 1, 1, 2, 2, 3}, r[] = {0};
    tg_make(&g, 4, cls, size, e, 3, r, 1, namesE, 8);
    tg_dominators(&g);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    uint32_t nd = node(&b, "Node");
    CHECK(b.nodes[nd].rself == 2 && b.nodes[nd].k == 1 && b.nedges == 2);
    check_edge(&b, "R", "Node", 1, 1, 1, 1);
    check_node(&b, "Node", 3, 72, 0, 1);
    check_node(&b, "R", 1, 16, 72, 2);
    CHECK_V(b.nodes[nd].mcc, 5184);
    CHECK_V(b.nodes[node(&b, "R")].mcc, 1408);
    CHECK_V(b.md_root, 88);
    CHECK(b.nodes[node(&b, "R")].retained == 88 && b.nodes[nd].retained == 72);
    ht_behaviour_free(&b);
    tg_free(&g);
}

static void test_e4(void)
{
    tg g;
    uint32_t cls[30], size[30], e[2 * 38], k = 0, r[] = {0};
    for (uint32_t i = 0; i < 10; i++) {
        cls[i] = 5, cls[10 + i] = 6, cls[20 + i] = 7; /* a_i, b_i, c_i */
        size[i] = size[10 + i] = size[20 + i] = 16;
        e[k++] = i, e[k++] = 10 + i, e[k++] = i, e[k++] = 20 + i;
        if (i < 9) e[k++] = 10 + i, e[k++] = i + 1, e[k++] = 20 + i, e[k++] = i + 1;
    }
    tg_make(&g, 30, cls, size, e, k / 2, r, 1, namesE, 8);
    tg_dominators(&g);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    CHECK(b.dropped == 2);
    const ht_bhv_edge *ba = edge(&b, "B", "A"), *ca = edge(&b, "C", "A");
    CHECK(ba && !ba->kept && ba->units == 9 && ca && !ca->kept);
    CHECK(b.nodes[node(&b, "A")].depth == 1 && b.nodes[node(&b, "B")].depth == 2);
    CHECK(b.nodes[node(&b, "A")].k == 1);
    check_edge(&b, "ROOT", "A", 1, 1, 1, 1);
    check_edge(&b, "A", "B", 10, 10, 1, 0.5);
    check_node(&b, "A", 10, 160, 320, 1);
    check_node(&b, "B", 10, 160, 0, 0);
    CHECK_V(b.md_root, 480);
    CHECK(b.nodes[node(&b, "A")].retained == 480 && b.nodes[node(&b, "B")].retained == 160);
    check_invariants(&b);
    ht_behaviour_free(&b);
    tg_free(&g);
}

static void test_e5(void)
{
    /* t (A) <-> g (B), both roots (t twice), g -> x (C, 8) */
    tg g;
    static const uint32_t cls[] = {5, 6, 7}, size[] = {16, 24, 8};
    static const uint32_t e[] = {0, 1, 1, 0, 1, 2}, r[] = {0, 1, 0};
    tg_make(&g, 3, cls, size, e, 3, r, 3, namesE, 8);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_edge(&b, "ROOT", "Cycle_1", 2, 1, 1, 1);
    CHECK(b.nodes[node(&b, "Cycle_1")].k == 1);
    check_node(&b, "Cycle_1", 1, 40, 8, 0);
    CHECK_V(b.md_root, 48);
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* Objects only the modelling edges reach become roots "via class metadata". */
static void test_meta(void)
{
    tg g;
    static const uint32_t cls[] = {0, 1, 2, 3}, size[] = {16, 16, 24, 100};
    static const uint32_t e[] = {0, 1, 2, 3}, r[] = {0};
    tg_make(&g, 4, cls, size, e, 2, r, 1, namesE, 8);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    CHECK(b.reachable_bytes == 32 && b.meta_roots == 0 && node(&b, "Z") == HT_NONE);
    ht_behaviour_free(&b);
    g.meta = malloc(2 * 4), g.nmeta = 2, g.meta[0] = 1, g.meta[1] = 2; /* 1: already reached */
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    CHECK(b.reachable_bytes == 156 && b.meta_roots == 1 && b.meta_root_bytes == 24);
    check_edge(&b, "ROOT", "Y", 1, 1, 1, 124.0 / 156);
    CHECK_V(b.md_root, 156);
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* ---- invariants on random graphs ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static const char *const namesR[] = {"C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"};

/* kind 0: a random forest of random classes; 1: a forest whose class is
 * the depth (every node one parent node); 2: any graph (cycles too). */
static void random_graph(tg *g, int kind)
{
    uint32_t n = 1 + rnd(150), ncls = 1 + rnd(8), ne = 0, nr = 0;
    uint32_t *cls = malloc(n * 4), *size = malloc(n * 4), *e = malloc(n * 4 * 8),
             *r = malloc((n + 1) * 4), *depth = malloc(n * 4);
    for (uint32_t i = 0; i < n; i++) {
        size[i] = 8 * (1 + rnd(25));
        if (i == 0 || rnd(10) == 0) {
            r[nr++] = i, depth[i] = 0;
        } else {
            uint32_t p = rnd(i);
            e[2 * ne] = p, e[2 * ne + 1] = i, ne++;
            depth[i] = depth[p] + 1;
        }
        cls[i] = kind == 1 ? (depth[i] < 8 ? depth[i] : 7) : rnd(ncls);
        if (kind == 1 && depth[i] >= 8) cls[i] = 7, size[i] = 0 + size[i];
    }
    if (kind == 2)
        for (uint32_t i = 0, m = rnd(3 * n); i < m; i++)
            e[2 * ne] = rnd(n), e[2 * ne + 1] = rnd(n), ne++;
    /* edges grouped by their source for tg_make: a counting sort is its job */
    tg_make(g, n, cls, size, e, ne, r, nr, namesR, 8);
    free(cls), free(size), free(e), free(r), free(depth);
}

static void test_random(void)
{
    for (int round = 0; round < 300; round++) {
        int kind = round % 3;
        tg g;
        random_graph(&g, kind);
        tg_dominators(&g);
        cur_g = &g;
        for (int none = 0; none <= 1; none++) {
            ht_behaviour b;
            CHECK(build(&b, &g, none, 0, NULL) == HT_HPROF_OK);
            CHECK(b.reachable_bytes == g.dom.reachable_bytes);
            check_invariants(&b);
            if (kind == 2) {
                CHECK(b.md_root >= (double)b.reachable_bytes * (1 - 1e-9));
            } else {
                CHECK_MSG(near(b.md_root, (double)b.reachable_bytes),
                          "round %d: MD_ROOT %.12g, T %llu", round, b.md_root,
                          (unsigned long long)b.reachable_bytes);
                for (uint32_t i = 1; i < b.nnodes; i++)
                    CHECK_MSG(near(b.nodes[i].f, 1), "round %d: f of %s %.12g", round, nm(&b, i),
                              b.nodes[i].f);
            }
            /* depth classes below 7: one parent node each, so MD + MC is exact */
            for (uint32_t i = 1; kind == 1 && i < b.nnodes; i++) {
                if (b.nodes[i].cls >= 6) continue;
                CHECK_MSG(near(b.nodes[i].md + (double)b.nodes[i].mc, (double)b.nodes[i].retained),
                          "round %d: %s MD+MC %.12g, retained %llu", round, nm(&b, i),
                          b.nodes[i].md + (double)b.nodes[i].mc,
                          (unsigned long long)b.nodes[i].retained);
            }
            ht_behaviour_free(&b);
        }
        tg_free(&g);
    }
}

/* ---- big graphs: nothing recurses ---- */

static long maxrss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static int cancel_now(void *ctx)
{
    (void)ctx;
    return 1;
}

static void big(uint32_t n, int ring)
{
    static const char *const names[] = {"Node"};
    tg g = {.n = n, .ncls = 1, .names = names};
    g.cls = calloc(n, 4), g.size = malloc((size_t)n * 4);
    g.start = malloc(((size_t)n + 1) * 4), g.out = malloc((size_t)n * 4);
    g.roots = malloc(4), g.nroots = 1, g.roots[0] = 0;
    uint32_t ne = 0;
    for (uint32_t i = 0; i < n; i++) {
        g.size[i] = 16, g.start[i] = ne;
        if (i + 1 < n)
            g.out[ne++] = i + 1;
        else if (ring)
            g.out[ne++] = 0;
    }
    g.start[n] = ne;
    cur_g = &g;
    long before = maxrss_kb();
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    long after = maxrss_kb();
    double per = (double)(after - before) * 1024 / n;
    printf("%s of %u objects: %.2f s, peak +%.1f bytes an object\n", ring ? "ring" : "list", n,
           b.build_s, per);
#if !defined(__SANITIZE_ADDRESS__)
    CHECK_MSG(per <= 24, "%.1f bytes an object", per);
#endif
    CHECK(b.reachable_objects == n && b.reachable_bytes == 16ull * n);
    CHECK_V(b.md_root, 16.0 * n);
    if (ring) {
        uint32_t c = node(&b, "Cycle_1");
        CHECK(b.nnodes == 2 && c == 1 && b.nodes[c].units == 1 && b.nodes[c].objects == n);
        CHECK(b.cycle_units == 1 && b.nodes[c].rself == 0);
    } else {
        uint32_t c = node(&b, "Node");
        CHECK(b.nnodes == 2 && b.nodes[c].units == n && b.nodes[c].rself == n - 1);
        CHECK(b.nodes[c].k == 1 && b.nedges == 1 && near(b.edges[0].dr, 1));
    }
    ht_behaviour_free(&b);
    /* cancelled: an error and nothing kept */
    ht_hprof h = {0};
    ht_snapshot_opts p = {.cancelled = cancel_now};
    ht_bhv_input in = {.nobjects = n,
                       .nclasses = 1,
                       .cls = g.cls,
                       .ctx = &g,
                       .size = tg_size,
                       .refs = tg_refs,
                       .class_name = tg_name,
                       .roots = g.roots,
                       .nroots = 1};
    if (n >= (1u << 21)) {
        CHECK(ht_behaviour_build_input(&b, &in, NULL, &p, &h) == HT_HPROF_ERR_CANCELLED);
        CHECK(b.nnodes == 0 && b.nodes == NULL && strstr(h.err, "cancelled"));
    }
    tg_free(&g);
}

/* ---- bad input ---- */

static void test_bad(void)
{
    tg g;
    static const uint32_t cls[] = {0, 1, 9}, size[] = {16, 16, 16};
    static const uint32_t e[] = {0, 1, 0, 77, 1, 2}, r[] = {0, 1000};
    tg_make(&g, 3, cls, size, e, 3, r, 2, namesE, 8);
    cur_g = &g;
    ht_behaviour b;
    ht_hprof h = {0};
    CHECK(build(&b, &g, 0, 0, &h) == HT_HPROF_ERR_FORMAT);
    CHECK(b.nodes == NULL && strstr(h.err, "object 2 has class index 9") != NULL);
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_ERR_FORMAT); /* no err: no crash */
    g.cls[2] = 3;                                            /* now only 77 and 1000 are bad */
    CHECK(build(&b, &g, 0, 0, &h) == HT_HPROF_OK);
    CHECK(b.reachable_objects == 3 && b.nedges == 3);
    ht_behaviour_free(&b);
    tg_free(&g);
    /* no objects at all */
    ht_bhv_input in = {0};
    CHECK(ht_behaviour_build_input(&b, &in, NULL, NULL, NULL) == HT_HPROF_OK);
    CHECK(b.nnodes == 1 && b.md_root == 0 && b.reachable_bytes == 0);
    CHECK(ht_bhv_forward(&b, 0, 0.1, NULL, 0) == 0 && ht_bhv_branches(&b, 5, 0.1, NULL) == 0);
    ht_behaviour_free(&b);
}

int main(void)
{
    test_21();
    test_22();
    test_e1();
    test_e2();
    test_e3();
    test_e4();
    test_e5();
    test_meta();
    test_random();
    test_bad();
#if defined(__SANITIZE_ADDRESS__)
    big(1000000, 1);
    big(1000000, 0);
#else
    big(1000000, 1);
    big(10000000, 0);
#endif
    return check_summary();
}
