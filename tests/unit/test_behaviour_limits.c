/*
 * test_behaviour_limits: the behaviour analysis (behaviour.h) where a dump
 * or the arithmetic is at its edge:
 *  - memory: a graph of nothing but distinct 2-object cycles (a Cycle_N
 *    node per two objects) stays within the bytes an object behaviour.h
 *    promises, and a node is no bigger than it says (run first: the peak
 *    RSS is a high-water mark);
 *  - a dump with no java.lang.Class record: the class objects (class
 *    HT_NONE) are one "java.lang.Class" node, the build and ht_heap_load
 *    succeed; a build that fails says why in b.why;
 *  - thresholds at equality: DR = t1 exactly (55 of 100 units at 0.55,
 *    where 0.55 x 100 rounds up) and CR = t2 pass;
 *  - MD past a double: a chain of 1,100 diamonds with dropped edges around
 *    it: MD is inf, never NaN, overflow counts it, the ranking is a total order
 *    and behaviour.csv writes "inf";
 *  - a loader with 40,000 reference fields defining 40,000 classes is read
 *    in linear time;
 *  - two classes of one name from two loaders get two names, each with its
 *    loader; Cycle_9 ranks before Cycle_10 when all else is equal;
 *  - the hourglass out of memory returns HT_NONE, not "no paths".
 */
#include "analysis.h"
#include "behaviour_graph.h"
#include "export_behaviour.h"
#include "hprof_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static long maxrss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* C classes, a 2-object cycle for every pair of them, all held by object 0. */
static void test_many_cycles(uint32_t C)
{
    uint32_t P = C * (C - 1) / 2, n = 1 + 2 * P;
    tg g = {.n = n, .ncls = C};
    const char **names = malloc(C * sizeof *names);
    char(*buf)[16] = malloc((size_t)C * 16);
    for (uint32_t i = 0; i < C; i++)
        snprintf(buf[i], 16, "K%u", i), names[i] = buf[i];
    g.names = names;
    g.cls = calloc(n, 4), g.size = malloc((size_t)n * 4), g.start = malloc(((size_t)n + 1) * 4);
    g.out = malloc(((size_t)3 * P + 1) * 4), g.roots = malloc(4), g.nroots = 1, g.roots[0] = 0;
    uint32_t ne = 0, k = 0;
    g.start[0] = 0, g.size[0] = 16;
    for (uint32_t i = 0; i < P; i++)
        g.out[ne++] = 1 + 2 * i;
    for (uint32_t a = 0; a < C; a++)
        for (uint32_t c = a + 1; c < C; c++, k++) {
            uint32_t x = 1 + 2 * k, y = x + 1;
            g.cls[x] = a, g.cls[y] = c, g.size[x] = g.size[y] = 16;
            g.start[x] = ne, g.out[ne++] = y, g.start[y] = ne, g.out[ne++] = x;
        }
    g.start[n] = ne;
    cur_g = &g;
    long before = maxrss_kb();
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    double per = (double)(maxrss_kb() - before) * 1024 / n;
    printf("%u distinct 2-object cycles: %u nodes, peak +%.1f bytes an object\n", P, b.nnodes, per);
    CHECK(b.nnodes == 2 + P && b.cycle_units == P); /* ROOT, K0, the cycles */
    CHECK(sizeof(ht_bhv_node) <= 104);
#if !defined(__SANITIZE_ADDRESS__)
    CHECK_MSG(per <= 130, "%.1f bytes an object", per); /* 155 with a name[64] in every node */
#endif
    ht_behaviour_free(&b);
    tg_free(&g);
    free(names), free(buf);
}

/* ---- a dump without java.lang.Class ---- */

static void noclass_dump(hb *b)
{
    hb_start(b, 8, 1700000000000ull);
    hb_utf8(b, 0x10, "java/lang/Object");
    hb_utf8(b, 0x11, "demo/A");
    hb_load_class(b, 1, 0x100, 0x10);
    hb_load_class(b, 2, 0x101, 0x11);
    size_t r = hb_begin(b, 0x1C);
    hb_class_dump(b, 0x100, 0, 0, 0, NULL, NULL);
    hb_class_dump(b, 0x101, 0x100, 0, 0, NULL, NULL);
    hb_u1(b, 0x01), hb_id(b, 0x9000), hb_id(b, 0x99); /* JNI global */
    hb_u1(b, 0x21), hb_id(b, 0x9000), hb_u4(b, 1), hb_id(b, 0x101), hb_u4(b, 0);
    hb_end(b, r);
    hb_end(b, hb_begin(b, 0x2C));
}

static void test_noclass(void)
{
    hb d = {0};
    noclass_dump(&d);
    char path[] = "/tmp/test_behaviour_noclass_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, d.d, d.len) == (ssize_t)d.len);
    close(fd);
    ht_heap *x = calloc(1, sizeof *x);
    int rc = ht_heap_load(x, path, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "ht_heap_load: %s", x->h.err);
    if (rc == HT_HPROF_OK) {
        CHECK(x->s.class_class == HT_NONE && x->bhv.nnodes == 3 && x->bhv.why[0] == '\0');
        char nb[HT_BHV_NAME_MAX];
        uint32_t top = x->bhv.ranked[0];
        CHECK(strcmp(ht_bhv_name(&x->bhv, &x->s, top, nb, sizeof nb), "java.lang.Class") == 0);
        CHECK(x->bhv.nodes[top].objects == 2 && x->bhv.reachable_objects == x->d.reachable);
        CHECK(x->dups.ngroups == 0 && x->class_retained != NULL); /* the rest is there */
    }
    ht_heap_free(x);
    free(x);
    unlink(path);
    free(d.d);
    /* a build that fails says why, and keeps nothing else */
    tg g;
    static const char *const names[] = {"A", "B"};
    static const uint32_t cls[] = {0, 7}, size[] = {16, 16}, e[] = {0, 1}, r[] = {0};
    tg_make(&g, 2, cls, size, e, 1, r, 1, names, 2);
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_ERR_FORMAT);
    CHECK(b.nnodes == 0 && strstr(b.why, "object 1 has class index 7") == b.why);
    tg_free(&g);
}

/* ---- thresholds at equality ---- */

static void test_thresholds(void)
{
    /* M -> P, M -> Q; P refers to 55 of C's 100 objects, Q to 45 */
    static const char *const names[] = {"M", "P", "Q", "C"};
    uint32_t cls[103], size[103], e[2 * 110], k = 0;
    cls[0] = 0, cls[1] = 1, cls[2] = 2;
    for (int i = 0; i < 103; i++)
        size[i] = 16, cls[i] = i < 3 ? cls[i] : 3;
    e[2 * k] = 0, e[2 * k + 1] = 1, k++;
    e[2 * k] = 0, e[2 * k + 1] = 2, k++;
    for (int i = 0; i < 100; i++)
        e[2 * k] = i < 55 ? 1 : 2, e[2 * k + 1] = 3 + (uint32_t)i, k++;
    uint32_t r0 = 0;
    tg g;
    tg_make(&g, 103, cls, size, e, k, &r0, 1, names, 4);
    tg_dominators(&g);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    check_node(&b, "C", 100, 1600, 0, 0);
    check_edge(&b, "P", "C", 55, 55, 0.55, 1);
    check_invariants(&b);
    uint32_t c = node(&b, "C");
    CHECK(b.nodes[c].retained == 1600);
    double t = 0.05;
    for (int i = 0; i < 10; i++) /* 0.55 as the screen's key steps it from 0.05 */
        t += 0.05;
    double cov;
    CHECK_MSG(ht_bhv_branches(&b, c, 0.55, &cov) == 1 && near(cov, 0.55), "DR 55/100 at t1 0.55");
    CHECK(ht_bhv_branches(&b, c, t, NULL) == 1);
    CHECK(ht_bhv_branches(&b, c, 0.45, NULL) == 2 && ht_bhv_branches(&b, c, 0.56, NULL) == 0);
    static const char *const up[] = {"P>C", "M>P", "ROOT>M", NULL};
    check_paths(&b, "C", 1, 0.55, up);
    /* CR below M: P's share (55 x 16 + 16) / (100 x 16 + 32), Q's the rest;
     * at t2 = P's share exactly, M->P passes (and P->C, CR 1, under it) */
    const ht_bhv_edge *mp = edge(&b, "M", "P");
    CHECK(mp != NULL);
    if (mp) {
        double cr = mp->cr;
        uint32_t out[8];
        CHECK(ht_bhv_backward(&b, node(&b, "M"), cr, out, 8) == 2); /* M->P, P->C */
        CHECK(ht_bhv_backward(&b, node(&b, "M"), cr * (1 + 1e-9), out, 8) == 0);
    }
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* ---- MD past a double ---- */

static void test_overflow(void)
{
    /* a chain of diamonds X_i -> Y_i, Z_i -> X_i+1 (classes K1..), MD
     * doubling at each; a root p of class P (class 0, so its node comes
     * first) refers to an object of X_0's class, and the last X to another
     * P: the edges close a class cycle; the cycle rule drops the last X ->
     * P (DR 0), read after P's MD is inf (0 x inf is NaN) */
    uint32_t L = 1100, c0 = 3 * L + 1, n = c0 + 3, ne = 4 * L + 2, k = 0;
    uint32_t *cls = malloc(n * 4), *size = malloc(n * 4), *e = malloc(ne * 8);
    const char **names = malloc(n * sizeof *names);
    char(*buf)[16] = malloc((size_t)n * 16);
    for (uint32_t i = 0; i < n; i++)
        cls[i] = i + 1, size[i] = 16, snprintf(buf[i], 16, "K%05u", i), names[i] = buf[i];
    names[0] = "P";
    cls[c0] = 0, cls[c0 + 1] = 1, cls[c0 + 2] = 0; /* p, X_0's kin, the last X's P */
    for (uint32_t i = 0; i < L; i++) {
        uint32_t x = 3 * i, y = x + 1, z = x + 2, nx = x + 3;
        e[2 * k] = x, e[2 * k + 1] = y, k++;
        e[2 * k] = x, e[2 * k + 1] = z, k++;
        e[2 * k] = y, e[2 * k + 1] = nx, k++;
        e[2 * k] = z, e[2 * k + 1] = nx, k++;
    }
    e[2 * k] = c0, e[2 * k + 1] = c0 + 1, k++;
    e[2 * k] = 3 * L, e[2 * k + 1] = c0 + 2, k++;
    uint32_t roots[] = {0, c0};
    tg g;
    tg_make(&g, n, cls, size, e, k, roots, 2, names, c0 + 1);
    cur_g = &g;
    ht_behaviour b;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    CHECK(b.dropped >= 1 && isinf(b.md_root) && b.overflow > 0);
    uint32_t nan = 0;
    for (uint32_t i = 0; i < b.nnodes; i++)
        nan += isnan(b.nodes[i].md) || isnan(b.nodes[i].f);
    CHECK_MSG(nan == 0, "%u nodes with MD or f NaN", nan);
    /* the ranking: MCC never rises (NaN last), each node once */
    uint8_t *seen = calloc(b.nnodes, 1);
    int ordered = 1;
    for (uint32_t i = 0; i + 1 < b.nnodes; i++) {
        uint32_t x = b.ranked[i];
        ordered &= x > 0 && x < b.nnodes && !seen[x] && b.nodes[x].rank == i + 1;
        seen[x < b.nnodes ? x : 0] = 1;
        if (i + 2 < b.nnodes) {
            double m = b.nodes[x].mcc, m2 = b.nodes[b.ranked[i + 1]].mcc;
            ordered &= isnan(m2) || (!isnan(m) && m >= m2);
        }
    }
    CHECK(ordered);
    free(seen);
    /* behaviour.csv: "inf", never "" */
    char path[] = "/tmp/test_behaviour_inf_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ht_snapshot s = {0}; /* names from no snapshot: "class N" */
    CHECK(ht_export_behaviour(&b, &s, 0.1, path) == 0);
    FILE *f = fopen(path, "r");
    char line[512] = "";
    CHECK(f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f));
    CHECK_MSG(strstr(line, ",\"inf\",\"inf\",") != NULL, "first row: %s", line);
    if (f) fclose(f);
    unlink(path);
    ht_behaviour_free(&b);
    tg_free(&g);
    free(cls), free(size), free(e), free(names), free(buf);
}

/* ---- a loader of many fields and many classes ---- */

static void test_loader(unsigned F, unsigned D)
{
    hb d = {0};
    hb_start(&d, 8, 1700000000000ull);
    hb_utf8(&d, 0x10, "java/lang/Object");
    hb_utf8(&d, 0x11, "java/lang/Class");
    hb_utf8(&d, 0x12, "demo/Loader");
    hb_utf8(&d, 0x13, "demo/P");
    hb_utf8(&d, 0x14, "f");
    hb_utf8(&d, 0x15, "demo/K");
    hb_load_class(&d, 1, 0x100, 0x10);
    hb_load_class(&d, 2, 0x101, 0x11);
    hb_load_class(&d, 3, 0x102, 0x12);
    hb_load_class(&d, 4, 0x103, 0x13);
    for (unsigned i = 0; i < D; i++)
        hb_load_class(&d, 5 + i, 0x100000 + i, 0x15);
    size_t r = hb_begin(&d, 0x1C);
    hb_class_dump(&d, 0x100, 0, 0, 0, NULL, NULL);
    hb_class_dump(&d, 0x101, 0x100, 0, 0, NULL, NULL);
    uint64_t *fnames = malloc(F * 8);
    uint8_t *types = malloc(F);
    for (unsigned i = 0; i < F; i++)
        fnames[i] = 0x14, types[i] = 2;
    hb_class_dump(&d, 0x102, 0x100, 8 * F, F, fnames, types);
    hb_class_dump(&d, 0x103, 0x100, 0, 0, NULL, NULL);
    for (unsigned i = 0; i < D; i++)
        hb_class_dump_in(&d, 0x100000 + i, 0x100, 0x9000, 0, 0, NULL, NULL);
    hb_u1(&d, 0x01), hb_id(&d, 0x9000), hb_id(&d, 0x99); /* JNI global on the loader */
    hb_u1(&d, 0x21), hb_id(&d, 0x9000), hb_u4(&d, 1), hb_id(&d, 0x102), hb_u4(&d, 8 * F);
    for (unsigned i = 0; i < F; i++)
        hb_id(&d, 0x9100);
    hb_u1(&d, 0x21), hb_id(&d, 0x9100), hb_u4(&d, 1), hb_id(&d, 0x103), hb_u4(&d, 0);
    hb_end(&d, r);
    hb_end(&d, hb_begin(&d, 0x2C));
    ht_hprof h;
    ht_snapshot s;
    ht_dominators dom;
    ht_behaviour b;
    int rc = ht_hprof_open_mem(&h, d.d, d.len);
    CHECK(rc == HT_HPROF_OK && ht_snapshot_build(&s, &h, NULL) == HT_HPROF_OK);
    CHECK(ht_dominators_build(&dom, &s, NULL) == HT_HPROF_OK);
    CHECK(ht_behaviour_build(&b, &s, &dom, NULL, NULL) == HT_HPROF_OK);
    printf("a loader of %u fields defining %u classes: %.3f s\n", F, D, b.build_s);
    CHECK_MSG(b.build_s < 2.0, "%.2f s: quadratic in fields x classes?", b.build_s);
    /* the loader's edges: F references to P, none to its classes */
    char nb[HT_BHV_NAME_MAX], nb2[HT_BHV_NAME_MAX];
    uint32_t to_p = 0, to_class = 0;
    for (uint32_t e = 0; e < b.nedges; e++) {
        const char *from = ht_bhv_name(&b, &s, b.edges[e].from, nb, sizeof nb);
        const char *to = ht_bhv_name(&b, &s, b.edges[e].to, nb2, sizeof nb2);
        if (strcmp(from, "demo.Loader") != 0) continue;
        to_p += strcmp(to, "demo.P") == 0 && b.edges[e].refs == F;
        to_class += strcmp(to, "java.lang.Class") == 0;
    }
    CHECK(to_p == 1 && to_class == 0);
    ht_behaviour_free(&b);
    ht_dominators_free(&dom);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(fnames), free(types), free(d.d);
}

/* ---- names ---- */

static void test_names(void)
{
    /* demo.B from the boot loader and from a demo.Loader, one instance each */
    hb d = {0};
    hb_start(&d, 8, 1700000000000ull);
    hb_utf8(&d, 0x10, "java/lang/Object");
    hb_utf8(&d, 0x11, "java/lang/Class");
    hb_utf8(&d, 0x12, "demo/Loader");
    hb_utf8(&d, 0x13, "demo/B");
    hb_load_class(&d, 1, 0x100, 0x10);
    hb_load_class(&d, 2, 0x101, 0x11);
    hb_load_class(&d, 3, 0x102, 0x12);
    hb_load_class(&d, 4, 0x103, 0x13);
    hb_load_class(&d, 5, 0x104, 0x13);
    size_t r = hb_begin(&d, 0x1C);
    hb_class_dump(&d, 0x100, 0, 0, 0, NULL, NULL);
    hb_class_dump(&d, 0x101, 0x100, 0, 0, NULL, NULL);
    hb_class_dump(&d, 0x102, 0x100, 0, 0, NULL, NULL);
    hb_class_dump(&d, 0x103, 0x100, 0, 0, NULL, NULL);
    hb_class_dump_in(&d, 0x104, 0x100, 0x9000, 0, 0, NULL, NULL);
    static const uint64_t objs[][2] = {{0x9000, 0x102}, {0x9001, 0x103}, {0x9002, 0x104}};
    for (int i = 0; i < 3; i++) {
        hb_u1(&d, 0x01), hb_id(&d, objs[i][0]), hb_id(&d, 0x99);
        hb_u1(&d, 0x21), hb_id(&d, objs[i][0]), hb_u4(&d, 1), hb_id(&d, objs[i][1]), hb_u4(&d, 0);
    }
    hb_end(&d, r);
    hb_end(&d, hb_begin(&d, 0x2C));
    ht_hprof h;
    ht_snapshot s;
    ht_behaviour b;
    CHECK(ht_hprof_open_mem(&h, d.d, d.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&s, &h, NULL) == HT_HPROF_OK);
    CHECK(ht_behaviour_build(&b, &s, NULL, NULL, NULL) == HT_HPROF_OK);
    char nb[HT_BHV_NAME_MAX];
    uint32_t boot = 0, other = 0, plain = 0;
    for (uint32_t i = 0; i < b.nnodes; i++) {
        const char *name = ht_bhv_name(&b, &s, i, nb, sizeof nb);
        boot += strcmp(name, "demo.B [boot]") == 0;
        other += strcmp(name, "demo.B [demo.Loader]") == 0;
        plain += strcmp(name, "demo.Loader") == 0; /* one of its name: as it is */
    }
    CHECK_MSG(boot == 1 && other == 1 && plain == 1, "boot %u, other %u, plain %u", boot, other,
              plain);
    ht_behaviour_free(&b);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(d.d);

    /* 11 two-object cycles alike but for their classes, all under R */
    static const char *const cn[] = {"A00", "A01", "A02", "A03", "A04", "A05", "A06", "A07",
                                     "A08", "A09", "A10", "A11", "A12", "A13", "A14", "A15",
                                     "A16", "A17", "A18", "A19", "A20", "A21", "R"};
    uint32_t cls[23], size[23], e[2 * 33], k = 0, r0 = 22;
    for (uint32_t i = 0; i < 23; i++)
        cls[i] = i, size[i] = 16;
    for (uint32_t i = 0; i < 11; i++) {
        e[2 * k] = 22, e[2 * k + 1] = 2 * i, k++;
        e[2 * k] = 2 * i, e[2 * k + 1] = 2 * i + 1, k++;
        e[2 * k] = 2 * i + 1, e[2 * k + 1] = 2 * i, k++;
    }
    tg g;
    tg_make(&g, 23, cls, size, e, k, &r0, 1, cn, 23);
    cur_g = &g;
    CHECK(build(&b, &g, 0, 0, NULL) == HT_HPROF_OK);
    int ok = b.nnodes == 13;
    for (uint32_t i = 1; ok && i <= 11; i++) {
        char want[16];
        snprintf(want, sizeof want, "Cycle_%u", i);
        uint32_t n = node(&b, want);
        ok = n != HT_NONE && b.nodes[n].rank == i + 1;
    }
    CHECK_MSG(ok, "Cycle_1 .. Cycle_11 rank 2 .. 12, by number");
    ht_behaviour_free(&b);
    tg_free(&g);
}

/* ---- the hourglass out of memory ---- */

static void test_hourglass_nomem(void)
{
#if !defined(__SANITIZE_ADDRESS__)
    /* a ranking of 2^31 nodes (never built: only its count is read before
     * the walk's arrays are asked for, 10 GiB, past the limit set here) */
    struct rlimit was, lim;
    getrlimit(RLIMIT_AS, &was);
    lim = was;
    lim.rlim_cur = (rlim_t)4 << 30;
    if (was.rlim_max != RLIM_INFINITY && was.rlim_max < lim.rlim_cur) lim.rlim_cur = was.rlim_max;
    CHECK(setrlimit(RLIMIT_AS, &lim) == 0);
    ht_behaviour b = {.nnodes = 1u << 31};
    uint32_t out[4];
    CHECK(ht_bhv_forward(&b, 0, 0.1, out, 4) == HT_NONE);
    CHECK(ht_bhv_backward(&b, 0, 0.1, out, 4) == HT_NONE);
    CHECK(setrlimit(RLIMIT_AS, &was) == 0);
#endif
}

int main(void)
{
    test_many_cycles(600); /* first: the peak RSS only grows */
    test_noclass();
    test_thresholds();
    test_overflow();
    test_loader(40000, 40000);
    test_names();
    test_hourglass_nomem();
    return check_summary();
}
