/*
 * test_behaviour_cycles: the cycle rule of the behaviour ranking
 * (tui/heap/analysis/behaviour_cycles.c) on graphs built by hand:
 *  - FOP's shape: lists each holding their own array, one array that a GC
 *    root holds directly, and one array holding a list (so ArrayList and
 *    Object[] are one strongly connected part of the node graph). The
 *    design note's hop rule dropped ArrayList -> Object[] (Object[] is one
 *    hop from ROOT), leaving the arrays entered by the root's one and
 *    ArrayList with MD 0; with thin entries long (the root's 1 array against
 *    the lists' 100) it is kept: MD of ArrayList = MC of Object[] x
 *    100/101, and Object[] -> ArrayList is dropped instead;
 *  - on random graphs of few classes and many references: every node is
 *    entered (k >= 1) through at least one kept edge, the kept edges make
 *    no cycle (MD is finite and MD_ROOT >= T), and an edge is dropped only
 *    inside a part of the node graph.
 */
#include "behaviour_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HOLDER, LIST, ARRAY };
static const char *const names[] = {"Holder", "java.util.ArrayList", "java.lang.Object[]"};

static void test_fop_shape(void)
{
    /* 0: holder h (root); 1..100: lists; 101..200: their arrays; 201: an
     * array a root holds; array 101 also holds list 50 */
    enum { NL = 100, N = 2 + 2 * NL };
    uint32_t cls[N], size[N], e[2 * (2 * NL + 1)], ne = 0;
    cls[0] = HOLDER, size[0] = 16;
    for (uint32_t i = 0; i < NL; i++) {
        cls[1 + i] = LIST, size[1 + i] = 24;
        cls[1 + NL + i] = ARRAY, size[1 + NL + i] = 56;
        e[2 * ne] = 0, e[2 * ne + 1] = 1 + i, ne++;
        e[2 * ne] = 1 + i, e[2 * ne + 1] = 1 + NL + i, ne++;
    }
    cls[N - 1] = ARRAY, size[N - 1] = 40;
    e[2 * ne] = 1 + NL, e[2 * ne + 1] = 50, ne++;
    uint32_t roots[] = {0, N - 1};
    tg g;
    tg_make(&g, N, cls, size, e, ne, roots, 2, names, 3);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    const ht_bhv_edge *la = edge(&b, "java.util.ArrayList", "java.lang.Object[]");
    const ht_bhv_edge *al = edge(&b, "java.lang.Object[]", "java.util.ArrayList");
    CHECK_MSG(la && la->kept, "ArrayList -> Object[] kept (the lists' own arrays)");
    CHECK_MSG(al && !al->kept, "Object[] -> ArrayList dropped (one array holds a list)");
    CHECK(b.dropped == 1);
    uint32_t arr = node(&b, "java.lang.Object[]");
    CHECK(arr != HT_NONE && b.nodes[arr].k == NL + 1);
    double mc_arr = NL * 56 + 40;
    check_node(&b, "java.util.ArrayList", NL, NL * 24, mc_arr * NL / (NL + 1), 0);
    const ht_bhv_edge *ra = edge(&b, "ROOT", "java.lang.Object[]");
    CHECK(ra && ra->units == 1 && near(ra->dr, 1.0 / (NL + 1)));
    check_invariants(&b);
    ht_behaviour_free(&b);
    tg_free(&g);
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void test_random(void)
{
    uint64_t seed = 24;
    uint32_t bad_k = 0, bad_md = 0, bad_part = 0, graphs = 400;
    static const char *const rn[] = {"C0", "C1", "C2", "C3", "C4", "C5"};
    for (uint32_t t = 0; t < graphs; t++) {
        uint32_t n = 20 + rnd(&seed) % 60, ncls = 2 + rnd(&seed) % 5;
        uint32_t ne = n * (1 + rnd(&seed) % 3), nr = 1 + rnd(&seed) % 3;
        uint32_t *cls = malloc(n * 4), *size = malloc(n * 4), *e = malloc(ne * 8), r[3];
        for (uint32_t i = 0; i < n; i++)
            cls[i] = rnd(&seed) % ncls, size[i] = 8 * (2 + rnd(&seed) % 6);
        for (uint32_t i = 0; i < ne; i++)
            e[2 * i] = rnd(&seed) % n, e[2 * i + 1] = rnd(&seed) % n;
        for (uint32_t i = 0; i < nr; i++)
            r[i] = rnd(&seed) % n;
        tg g;
        tg_make(&g, n, cls, size, e, ne, r, nr, rn, ncls);
        cur_g = &g;
        for (int none = 0; none < 2; none++) {
            ht_behaviour b;
            CHECK(build(&b, &g, none, t & 1, NULL) == HT_HPROF_OK);
            for (uint32_t i = 1; i < b.nnodes; i++) {
                int entered = 0;
                for (uint32_t j = b.in_start[i]; j < b.in_start[i + 1]; j++)
                    entered |= b.edges[b.in_edge[j]].kept;
                bad_k += b.nodes[i].k == 0 || !entered;
            }
            bad_md += !(b.md_root >= (double)b.reachable_bytes * (1 - 1e-9));
            /* an edge between different parts is never dropped: a dropped
             * edge p -> c has a kept path back from c to p */
            for (uint32_t j = 0; j < b.nedges; j++) {
                const ht_bhv_edge *x = &b.edges[j];
                if (x->kept) continue;
                uint8_t *seen = calloc(b.nnodes, 1);
                uint32_t *q = malloc(b.nnodes * 4), head = 0, tail = 0;
                seen[x->to] = 1, q[tail++] = x->to;
                while (head < tail) {
                    uint32_t v = q[head++];
                    for (uint32_t k = b.out_start[v]; k < b.out_start[v + 1]; k++)
                        if (!seen[b.edges[k].to])
                            seen[b.edges[k].to] = 1, q[tail++] = b.edges[k].to;
                }
                bad_part += !seen[x->from];
                free(seen), free(q);
            }
            ht_behaviour_free(&b);
        }
        tg_free(&g);
        free(cls), free(size), free(e);
    }
    CHECK_MSG(bad_k == 0, "%u nodes without a kept entry", bad_k);
    CHECK_MSG(bad_md == 0, "%u graphs with MD_ROOT below the reachable bytes", bad_md);
    CHECK_MSG(bad_part == 0, "%u dropped edges outside a cycle of the node graph", bad_part);
}

int main(void)
{
    (void)check_paths, (void)tg_dominators, (void)check_edge; /* used by the other tests */
    test_fop_shape();
    test_random();
    return check_summary();
}
