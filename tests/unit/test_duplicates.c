/*
 * test_duplicates: groups of deeply equal objects (tui/heap/analysis/duplicates.c) on
 * HPROF files written here, against truths worked out here the slow and
 * obvious way: deep equality as the largest relation that holds for equal
 * content (start from every pair of one class with equal values and equal
 * null and missing references, drop a pair while some field of it leads to
 * a pair not in the relation, until nothing drops: the all-pairs fixpoint
 * the module must never run).
 *  - hand-made cases: two rings of equal content grouped node by node, a
 *    ring differing in one field not, a ring of one value one group, equal
 *    fields in different classes not, missing references, int[] arrays,
 *    Object[] arrays; sizes, ranking and who holds the copies;
 *  - 300 random graphs of two classes against the fixpoint;
 *  - every case again with the test hook that makes every hash collide: the
 *    exact comparisons alone must give the same groups;
 *  - three chains of 333,334 objects (two equal, one differing at its far
 *    end): 333,334 groups of two, no recursion, no quadratic refinement.
 */
#include "analysis.h"
#include "check.h"
#include "dominators.h"
#include "duplicates.h"
#include "hprof_builder.h"
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C_NODE   0x700
#define C_OTHER  0x800
#define C_ARR    0x900
#define OBJ(i)   (0x100000ull + 16ull * (i))
#define MISSING1 0xdead0ull
#define MISSING2 0xbeef0ull
#define NAME_V   0x30
#define NAME_N   0x31
#define NAME_O   0x32

/* An object: class 0 demo.Node, 1 demo.Other (both { next; other; int v });
 * 2 an int[] of `v` elements equal to i * 7 except the last, `next`; 3 a
 * demo.Node[] whose elements are next and other. References: an object's
 * index, -1 null, -2 and -3 two ids the dump does not hold. */
typedef struct tobj {
    int cls, next, other, v;
} tobj;

static uint64_t ref_id(int r)
{
    return r >= 0 ? OBJ(r) : r == -1 ? 0 : r == -2 ? MISSING1 : MISSING2;
}

static void write_heap(hb *b, const tobj *o, int n, const int *roots, int nroots)
{
    memset(b, 0, sizeof *b);
    b->id = 8;
    const char *magic = "JAVA PROFILE 1.0.2";
    hb_bytes(b, magic, strlen(magic) + 1);
    hb_u4(b, 8);
    hb_u8(b, 1700000000000ull);
    hb_utf8(b, 0x10, "java/lang/Object");
    hb_utf8(b, 0x11, "demo/Node");
    hb_utf8(b, 0x12, "demo/Other");
    hb_utf8(b, 0x13, "[Ldemo/Node;");
    hb_utf8(b, NAME_V, "v");
    hb_utf8(b, NAME_N, "next");
    hb_utf8(b, NAME_O, "other");
    hb_load_class(b, 1, C_OBJECT, 0x10);
    hb_load_class(b, 2, C_NODE, 0x11);
    hb_load_class(b, 3, C_OTHER, 0x12);
    hb_load_class(b, 4, C_ARR, 0x13);
    size_t r = hb_begin(b, 0x1C);
    hb_class_dump(b, C_OBJECT, 0, 0, 0, NULL, NULL);
    uint64_t names[3] = {NAME_N, NAME_O, NAME_V};
    uint8_t types[3] = {2, 2, 10};
    hb_class_dump(b, C_NODE, C_OBJECT, 0, 3, names, types);
    hb_class_dump(b, C_OTHER, C_OBJECT, 0, 3, names, types);
    hb_class_dump(b, C_ARR, C_OBJECT, 0, 0, NULL, NULL);
    uint64_t sys[] = {C_OBJECT, C_NODE, C_OTHER, C_ARR};
    for (int i = 0; i < 4; i++) {
        hb_u1(b, 0x05);
        hb_id(b, sys[i]);
    }
    for (int i = 0; i < nroots; i++) {
        hb_u1(b, 0x01);
        hb_id(b, OBJ(roots[i]));
        hb_id(b, 0x99);
    }
    for (int i = 0; i < n; i++) {
        const tobj *t = &o[i];
        if (t->cls <= 1) {
            hb_u1(b, 0x21);
            hb_id(b, OBJ(i));
            hb_u4(b, 1);
            hb_id(b, t->cls ? C_OTHER : C_NODE);
            hb_u4(b, 2 * 8 + 4);
            hb_id(b, ref_id(t->next));
            hb_id(b, ref_id(t->other));
            hb_u4(b, (uint32_t)t->v);
        } else if (t->cls == 2) {
            hb_u1(b, 0x23);
            hb_id(b, OBJ(i));
            hb_u4(b, 1);
            hb_u4(b, (uint32_t)t->v);
            hb_u1(b, 10);
            for (int k = 0; k < t->v; k++)
                hb_u4(b, (uint32_t)(k == t->v - 1 ? t->next : k * 7));
        } else {
            hb_u1(b, 0x22);
            hb_id(b, OBJ(i));
            hb_u4(b, 1);
            hb_u4(b, 2);
            hb_id(b, C_ARR);
            hb_id(b, ref_id(t->next));
            hb_id(b, ref_id(t->other));
        }
    }
    hb_end(b, r);
    r = hb_begin(b, 0x2C);
    hb_end(b, r);
}

/* The truth: eq[i * n + j] when i and j are deeply equal (by the fixpoint). */
static int same_ref(const char *eq, int n, int a, int b)
{
    if (a < 0 || b < 0) return a == b;
    return eq[a * n + b];
}

static char *truth(const tobj *o, int n)
{
    char *eq = calloc((size_t)n * n, 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const tobj *a = &o[i], *b = &o[j];
            if (a->cls != b->cls)
                eq[i * n + j] = 0;
            else if (a->cls == 2) /* int[]: length and last element */
                eq[i * n + j] = a->v == b->v && a->next == b->next;
            else /* v (not in an Object[]), and where null and missing lie */
                eq[i * n + j] = (a->cls == 3 || a->v == b->v) &&
                                (a->next < 0 || b->next < 0 ? a->next == b->next : 1) &&
                                (a->other < 0 || b->other < 0 ? a->other == b->other : 1);
        }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (!eq[i * n + j] || o[i].cls == 2) continue;
                if (!same_ref(eq, n, o[i].next, o[j].next) ||
                    !same_ref(eq, n, o[i].other, o[j].other))
                    eq[i * n + j] = 0, changed = 1;
            }
    }
    return eq;
}

typedef struct loaded {
    hb b;
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_dups g;
    uint32_t *group_of; /* by object index: group, or UINT32_MAX */
} loaded;

static int load(loaded *l, const tobj *o, int n, const int *roots, int nroots)
{
    write_heap(&l->b, o, n, roots, nroots);
    if (ht_hprof_open_mem(&l->h, l->b.d, l->b.len) != HT_HPROF_OK) return -1;
    if (ht_snapshot_build(&l->s, &l->h, NULL) != HT_HPROF_OK) return -1;
    if (ht_dominators_build(&l->d, &l->s, NULL) != HT_HPROF_OK) return -1;
    if (ht_dups_build(&l->g, &l->s, &l->d, NULL) != HT_HPROF_OK) return -1;
    l->group_of = malloc((size_t)n * sizeof *l->group_of);
    for (int i = 0; i < n; i++)
        l->group_of[i] = UINT32_MAX;
    for (uint32_t k = 0; k < l->g.ngroups; k++)
        for (uint32_t c = 0; c < l->g.groups[k].copies; c++) {
            uint32_t x = l->g.members[l->g.groups[k].first + c];
            uint64_t id = l->s.ids[x];
            if (id >= OBJ(0) && id < OBJ(n) && (id - OBJ(0)) % 16 == 0)
                l->group_of[(id - OBJ(0)) / 16] = k;
        }
    return 0;
}

static void unload(loaded *l)
{
    free(l->group_of);
    ht_dups_free(&l->g);
    ht_dominators_free(&l->d);
    ht_snapshot_free(&l->s);
    ht_hprof_close(&l->h);
    free(l->b.d);
}

/* Every pair grouped exactly when the truth says equal; returns failures. */
static int against_truth(const char *what, const tobj *o, int n, const int *roots, int nroots)
{
    loaded l;
    if (load(&l, o, n, roots, nroots) != 0) {
        CHECK_MSG(0, "%s: load failed: %s", what, l.h.err);
        return 1;
    }
    char *eq = truth(o, n);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            int grouped = l.group_of[i] != UINT32_MAX && l.group_of[i] == l.group_of[j];
            if (grouped != eq[i * n + j]) {
                if (!bad)
                    fprintf(stderr, "%s: objects %d and %d: grouped %d, equal %d\n", what, i, j,
                            grouped, eq[i * n + j]);
                bad++;
            }
        }
    /* and every group has >= 2 copies of one class, ranked by waste */
    for (uint32_t k = 0; k < l.g.ngroups; k++) {
        const ht_dup_group *gr = &l.g.groups[k];
        if (gr->copies < 2 || gr->wasted != (uint64_t)(gr->copies - 1) * gr->bytes_each) bad++;
        if (k && l.g.groups[k - 1].wasted < gr->wasted) bad++;
    }
    CHECK_MSG(bad == 0, "%s: %d disagreements with the truth", what, bad);
    free(eq);
    unload(&l);
    return bad;
}

static int node(tobj *o, int i, int cls, int next, int other, int v)
{
    o[i] = (tobj){cls, next, other, v};
    return i;
}

/* The hand-made heap; *roots get the ring heads and the lone objects. */
static int hand_made(tobj *o, int *roots, int *nroots)
{
    int n = 0, r = 0;
    /* rings 1 and 2: values 1 2 3; ring 3: 1 2 4; ring 4 of demo.Other: 1 2 3 */
    static const int vals[4][3] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 4}, {1, 2, 3}};
    for (int k = 0; k < 4; k++) {
        int first = n;
        for (int i = 0; i < 3; i++, n++)
            node(o, n, k == 3, i == 2 ? first : n + 1, -1, vals[k][i]);
        roots[r++] = first;
    }
    /* a ring of four nodes of one value: one group of 4 */
    int first = n;
    for (int i = 0; i < 4; i++, n++)
        node(o, n, 0, i == 3 ? first : n + 1, -1, 5);
    roots[r++] = first;
    /* equal fields, two classes: Node(9) x2 is a group, Other(9) alone */
    roots[r++] = node(o, n++, 0, -1, -1, 9);
    roots[r++] = node(o, n++, 0, -1, -1, 9);
    roots[r++] = node(o, n++, 1, -1, -1, 9);
    /* references out of the dump: the same id equal, another not */
    roots[r++] = node(o, n++, 0, -2, -1, 7);
    roots[r++] = node(o, n++, 0, -2, -1, 7);
    roots[r++] = node(o, n++, 0, -3, -1, 7);
    /* int[]: three {0, 7, 99}, one {0, 7, 98}; Object[]s of equal rings */
    for (int i = 0; i < 3; i++)
        roots[r++] = node(o, n++, 2, 99, -1, 3);
    roots[r++] = node(o, n++, 2, 98, -1, 3);
    roots[r++] = node(o, n++, 3, 0, 7, 0); /* {ring 1 head, ring 3 head... } */
    roots[r++] = node(o, n++, 3, 3, 7, 0); /* {ring 2 head, same}: equal to the one before */
    roots[r++] = node(o, n++, 3, 6, 7, 0); /* {ring 3 head, ...}: not */
    *nroots = r;
    return n;
}

static uint32_t group_of(const loaded *l, int i)
{
    return l->group_of[i];
}

static void test_hand_made(void)
{
    tobj o[64];
    int roots[64], nroots;
    int n = hand_made(o, roots, &nroots);
    against_truth("hand-made", o, n, roots, nroots);
    loaded l;
    CHECK(load(&l, o, n, roots, nroots) == 0);
    /* rings 1 and 2 node by node; ring 3 and the Other ring nowhere */
    for (int i = 0; i < 3; i++) {
        CHECK(group_of(&l, i) != UINT32_MAX && group_of(&l, i) == group_of(&l, 3 + i));
        CHECK(l.g.groups[group_of(&l, i)].copies == 2);
        CHECK(group_of(&l, 6 + i) == UINT32_MAX);
        CHECK(group_of(&l, 9 + i) == UINT32_MAX);
    }
    /* the ring of one value */
    CHECK(group_of(&l, 12) != UINT32_MAX && l.g.groups[group_of(&l, 12)].copies == 4);
    /* Node(9) x2 a group, Other(9) not in it */
    CHECK(group_of(&l, 16) != UINT32_MAX && group_of(&l, 16) == group_of(&l, 17));
    CHECK(l.g.groups[group_of(&l, 16)].copies == 2);
    CHECK(group_of(&l, 18) == UINT32_MAX);
    /* missing references */
    CHECK(group_of(&l, 19) != UINT32_MAX && group_of(&l, 19) == group_of(&l, 20));
    CHECK(l.g.groups[group_of(&l, 19)].copies == 2);
    /* int[] {0, 7, 99} x3 */
    CHECK(group_of(&l, 22) != UINT32_MAX && l.g.groups[group_of(&l, 22)].copies == 3);
    CHECK(group_of(&l, 25) == UINT32_MAX);
    /* the two Object[] of equal content */
    CHECK(group_of(&l, 26) != UINT32_MAX && group_of(&l, 26) == group_of(&l, 27));
    CHECK(group_of(&l, 28) == UINT32_MAX);

    /* sizes: a ring head retains its ring (three 24-byte nodes: 12-byte
     * header, two 4-byte references, an int), a middle node only itself */
    uint32_t x0 = ht_snapshot_find(&l.s, OBJ(0)), x1 = ht_snapshot_find(&l.s, OBJ(1));
    uint64_t node_size = ht_snapshot_shallow(&l.s, x1);
    CHECK(node_size > 0);
    CHECK(l.g.groups[group_of(&l, 0)].bytes_each == 3 * node_size);
    CHECK(l.d.retained[x0] == 3 * node_size);
    CHECK(l.g.groups[group_of(&l, 1)].bytes_each == 2 * node_size); /* it holds the third */
    /* int[3]: its own size, twice wasted */
    uint64_t arr = ht_snapshot_shallow(&l.s, ht_snapshot_find(&l.s, OBJ(22)));
    CHECK(l.g.groups[group_of(&l, 22)].bytes_each == arr);
    CHECK(l.g.groups[group_of(&l, 22)].wasted == 2 * arr);
    /* the ring of four: its head retains all four, the others themselves */
    CHECK(l.g.groups[group_of(&l, 12)].bytes_each == node_size);

    /* who holds them: the middle nodes of rings 1 and 2 by demo.Node.next */
    ht_dup_holder *hd;
    uint32_t nh;
    CHECK(ht_dups_holders(&l.s, &l.g, group_of(&l, 1), &hd, &nh) == 0);
    CHECK(nh == 1 && strcmp(hd[0].name, "demo.Node.next") == 0 && hd[0].copies == 2);
    free(hd);
    /* the ring heads: held by a JNI global each, and by the last node and
     * an Object[] element */
    CHECK(ht_dups_holders(&l.s, &l.g, group_of(&l, 0), &hd, &nh) == 0);
    int jni = 0, next = 0, elem = 0;
    for (uint32_t i = 0; i < nh; i++) {
        if (strcmp(hd[i].name, "GC root (JNI global)") == 0) jni = (int)hd[i].copies;
        if (strcmp(hd[i].name, "demo.Node.next") == 0) next = (int)hd[i].copies;
        if (strcmp(hd[i].name, "demo.Node[] element") == 0) elem = (int)hd[i].copies;
    }
    CHECK_MSG(jni == 2 && next == 2 && elem == 2, "holders: jni %d next %d element %d", jni, next,
              elem);
    free(hd);
    unload(&l);
}

static void random_heap(unsigned seed)
{
    srand(seed);
    int n = 2 + rand() % 60;
    tobj *o = malloc((size_t)n * sizeof *o);
    int roots[8], nroots = 1 + rand() % 4;
    for (int i = 0; i < n; i++) {
        int kind = rand() % 10;
        int cls = kind < 6 ? 0 : kind < 8 ? 1 : kind < 9 ? 2 : 3;
        int next = rand() % 5 ? rand() % n : -1 - rand() % 3;
        int other = rand() % 3 ? -1 : rand() % n;
        int v = rand() % 2;
        if (cls == 2) next = rand() % 2, v = 1 + rand() % 2;
        o[i] = (tobj){cls, next, other, v};
    }
    for (int i = 0; i < nroots; i++)
        roots[i] = rand() % n;
    char what[64];
    snprintf(what, sizeof what, "random seed %u", seed);
    against_truth(what, o, n, roots, nroots);
    free(o);
}

/* Chains a -> a -> ..., b likewise, c differing at its far end. */
static void test_chains(int len)
{
    int n = 3 * len;
    tobj *o = malloc((size_t)n * sizeof *o);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < len; i++)
            o[k * len + i] =
                (tobj){0, i == len - 1 ? -1 : k * len + i + 1, -1, k == 2 && i == len - 1};
    int roots[3] = {0, len, 2 * len};
    loaded l;
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    int rc = load(&l, o, n, roots, 3);
    double t1 = (double)clock() / CLOCKS_PER_SEC;
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK_MSG(l.g.ngroups == (uint32_t)len, "chains of %d: %u groups", len, l.g.ngroups);
        int bad = 0;
        for (int i = 0; i < len; i++)
            bad += group_of(&l, i) == UINT32_MAX || group_of(&l, i) != group_of(&l, len + i) ||
                   group_of(&l, 2 * len + i) != UINT32_MAX;
        CHECK_MSG(bad == 0, "chains of %d: %d positions wrong", len, bad);
        /* the heads first: each retains its whole chain */
        CHECK(l.g.ngroups &&
              l.g.groups[0].bytes_each ==
                  ht_snapshot_shallow(&l.s, ht_snapshot_find(&l.s, OBJ(0))) * (uint64_t)len);
        printf("chains of %d (%d objects): %.2f s to load and group, collide=%d, %u rounds\n", len,
               n, t1 - t0, ht_dups_collide_for_tests, l.g.rounds);
        unload(&l);
    }
    free(o);
}

int main(void)
{
    for (int collide = 0; collide < 2; collide++) {
        ht_dups_collide_for_tests = collide;
        test_hand_made();
        for (unsigned seed = 1; seed <= 300; seed++)
            random_heap(seed);
        test_chains(collide ? 60 : 333334);
    }
    ht_dups_collide_for_tests = 0;
    return check_summary();
}
