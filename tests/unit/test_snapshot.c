/*
 * test_snapshot: the heap analyser's graph, dominator tree, retained sizes
 * and paths (tui/heap/graph/snapshot.c, analysis/dominators.c, paths.c) on HPROF files
 * written here, against truths computed here the slow and obvious way:
 *  - dominators by definition: d dominates v when v cannot be reached from
 *    the roots once d is taken out (one search per candidate);
 *  - retained(v) = the shallow sizes of everything v dominates;
 *  - a shortest path from a root by a plain breadth-first search.
 * Random graphs of every shape (cycles, shared children, several roots,
 * unreachable parts), and a chain of a million objects, which a recursive
 * search would not survive.
 */
#include "check.h"
#include "dominators.h"
#include "hprof_builder.h"
#include "paths.h"
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C_NODE   0x700
#define OBJ(i)   (0x100000ull + 16ull * (i))
#define NAME_V   0x30
#define NAME_N   0x31
#define NAME_O   0x32
#define NAME_ARR 0x33

/* Objects 0..n-1 of class demo/Node { Node next; Node other; int v; }; the
 * edges next[i], other[i] (-1 for null); roots are JNI globals. */
static void write_graph(hb *b, unsigned id_size, int n, const int *next, const int *other,
                        const int *roots, int nroots)
{
    hb_start(b, id_size, 1700000000000ull);
    hb_utf8(b, 0x10, "java/lang/Object");
    hb_utf8(b, 0x11, "demo/Node");
    hb_utf8(b, NAME_V, "v");
    hb_utf8(b, NAME_N, "next");
    hb_utf8(b, NAME_O, "other");
    hb_load_class(b, 1, C_OBJECT, 0x10);
    hb_load_class(b, 2, C_NODE, 0x11);
    size_t r = hb_begin(b, 0x1C);
    hb_class_dump(b, C_OBJECT, 0, 0, 0, NULL, NULL);
    uint64_t names[3] = {NAME_N, NAME_O, NAME_V};
    uint8_t types[3] = {2, 2, 10};
    hb_class_dump(b, C_NODE, C_OBJECT, 0, 3, names, types);
    hb_u1(b, 0x05); /* the classes are system classes */
    hb_id(b, C_OBJECT);
    hb_u1(b, 0x05);
    hb_id(b, C_NODE);
    for (int i = 0; i < nroots; i++) {
        hb_u1(b, 0x01); /* JNI global */
        hb_id(b, OBJ(roots[i]));
        hb_id(b, 0x99);
    }
    for (int i = 0; i < n; i++) {
        hb_u1(b, 0x21);
        hb_id(b, OBJ(i));
        hb_u4(b, 1);
        hb_id(b, C_NODE);
        hb_u4(b, 2 * id_size + 4);
        hb_id(b, next[i] < 0 ? 0 : OBJ(next[i]));
        hb_id(b, other[i] < 0 ? 0 : OBJ(other[i]));
        hb_u4(b, (uint32_t)i);
    }
    hb_end(b, r);
    r = hb_begin(b, 0x2C);
    hb_end(b, r);
}

/* Reachable from the roots with object `cut` taken out (cut = -1: none). */
static void reach(int n, const int *next, const int *other, const int *roots, int nroots, int cut,
                  char *seen, int *queue)
{
    memset(seen, 0, (size_t)n);
    int head = 0, tail = 0;
    for (int i = 0; i < nroots; i++)
        if (roots[i] != cut && !seen[roots[i]]) seen[roots[i]] = 1, queue[tail++] = roots[i];
    while (head < tail) {
        int v = queue[head++];
        int w[2] = {next[v], other[v]};
        for (int k = 0; k < 2; k++)
            if (w[k] >= 0 && w[k] != cut && !seen[w[k]]) seen[w[k]] = 1, queue[tail++] = w[k];
    }
}

static uint32_t num(const ht_snapshot *s, int i)
{
    return ht_snapshot_find(s, OBJ(i));
}

static void random_graph(unsigned seed, unsigned id_size)
{
    srand(seed);
    int n = 2 + rand() % 40;
    int *next = malloc(n * sizeof *next), *other = malloc(n * sizeof *other);
    int roots[4], nroots = 1 + rand() % 3;
    for (int i = 0; i < n; i++) {
        next[i] = rand() % 4 ? rand() % n : -1;
        other[i] = rand() % 3 ? -1 : rand() % n;
    }
    for (int i = 0; i < nroots; i++)
        roots[i] = rand() % n;
    hb b;
    write_graph(&b, id_size, n, next, other, roots, nroots);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    ht_paths p;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_OK, "seed %u: %s", seed, h.err);
    if (rc) return;
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    CHECK(ht_paths_build(&p, &s, 0) == HT_HPROF_OK);

    /* the truth */
    char *all = malloc(n), *without = malloc(n);
    int *queue = malloc(n * sizeof *queue);
    char *dom = calloc((size_t)n * n, 1); /* dom[v*n+d]: d dominates v */
    reach(n, next, other, roots, nroots, -1, all, queue);
    for (int c = 0; c < n; c++) {
        reach(n, next, other, roots, nroots, c, without, queue);
        for (int v = 0; v < n; v++)
            if (all[v] && (v == c || !without[v])) dom[v * n + c] = 1;
    }
    uint64_t shallow = ht_snapshot_shallow(&s, num(&s, 0));
    int ok_idom = 1, ok_ret = 1, ok_path = 1, reachable = 0;
    for (int v = 0; v < n; v++) {
        uint32_t sv = num(&s, v);
        if (!all[v]) {
            ok_idom &= d.idom[sv] == HT_NONE;
            continue;
        }
        reachable++;
        int ndom = 0;
        for (int c = 0; c < n; c++)
            ndom += dom[v * n + c];
        /* idom: the strict dominator that every other strict dominator dominates */
        int idom = -1;
        for (int c = 0; c < n; c++) {
            if (c == v || !dom[v * n + c]) continue;
            int nd = 0;
            for (int e = 0; e < n; e++)
                nd += dom[c * n + e];
            if (nd == ndom - 1) idom = c;
        }
        uint32_t want = idom < 0 ? HT_ROOT : num(&s, idom);
        if (d.idom[sv] != want) {
            ok_idom = 0;
            fprintf(stderr, "seed %u: idom of %d is %u, not %u\n", seed, v, d.idom[sv], want);
        }
        uint64_t ret = 0;
        for (int w = 0; w < n; w++)
            if (all[w] && dom[w * n + v]) ret += shallow;
        ok_ret &= d.retained[sv] == ret;
        /* path length: breadth-first levels from the roots */
        int *level = malloc(n * sizeof *level);
        for (int i = 0; i < n; i++)
            level[i] = -1;
        int head = 0, tail = 0;
        for (int i = 0; i < nroots; i++)
            if (level[roots[i]] < 0) level[roots[i]] = 0, queue[tail++] = roots[i];
        while (head < tail) {
            int x = queue[head++];
            int w[2] = {next[x], other[x]};
            for (int k = 0; k < 2; k++)
                if (w[k] >= 0 && level[w[k]] < 0) level[w[k]] = level[x] + 1, queue[tail++] = w[k];
        }
        uint32_t path[64];
        uint32_t len = ht_paths_get(&p, sv, path, 64);
        ok_path &= (int)len == level[v] + 1 && path[len - 1] == sv;
        /* each step of the path is a reference */
        for (uint32_t i = 1; i < len && i < 64; i++)
            ok_path &= ht_ref_index(&s, path[i - 1], path[i]) != HT_NONE;
        free(level);
    }
    CHECK_MSG(ok_idom, "seed %u: immediate dominators of %d objects as by definition", seed, n);
    CHECK_MSG(ok_ret, "seed %u: retained sizes as the sum of what each dominates", seed);
    CHECK_MSG(ok_path, "seed %u: paths from a root as short as a breadth-first search's", seed);
    CHECK_MSG(d.reachable == (uint32_t)reachable + 2,
              "seed %u: %u reachable (%d nodes + 2 classes)", seed, d.reachable, reachable);
    free(all), free(without), free(queue), free(dom);
    ht_paths_free(&p);
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d), free(next), free(other);
}

/* A linked list of a million: every node dominated by the one before, the
 * head retaining all. Recursion this deep would overflow the stack. */
static void long_chain(void)
{
    int n = 1000000;
    int *next = malloc(n * sizeof *next), *other = malloc(n * sizeof *other);
    for (int i = 0; i < n; i++)
        next[i] = i + 1 < n ? i + 1 : -1, other[i] = i + 1 < n ? -1 : 0; /* the tail loops back */
    int root = 0;
    hb b;
    write_graph(&b, 8, n, next, other, &root, 1);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&s, &h, NULL) == HT_HPROF_OK);
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    int ok = 1;
    for (int i = 1; i < n; i++)
        ok &= d.idom[num(&s, i)] == num(&s, i - 1);
    uint64_t each = ht_snapshot_shallow(&s, num(&s, 0));
    CHECK_MSG(ok,
              "a chain of %d objects with a cycle back to its head: each dominated by the one "
              "before",
              n);
    CHECK_MSG(d.retained[num(&s, 0)] == each * (uint64_t)n,
              "the head retains the whole chain: %llu bytes", (unsigned long long)each * n);
    ht_paths p;
    CHECK(ht_paths_build(&p, &s, 0) == HT_HPROF_OK);
    uint32_t tail[4];
    CHECK_MSG(ht_paths_get(&p, num(&s, n - 1), tail, 4) == (uint32_t)n,
              "the path to the last node has %d steps", n);
    ht_paths_free(&p);
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d), free(next), free(other);
}

/* Names of references and objects, and a class that is its own superclass. */
static void names_and_corruption(void)
{
    int next[3] = {1, 2, -1}, other[3] = {-1, -1, 1}, root = 0;
    hb b;
    write_graph(&b, 4, 3, next, other, &root, 1);
    ht_hprof h;
    ht_snapshot s;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&s, &h, NULL) == HT_HPROF_OK);
    char name[64];
    uint32_t o2 = num(&s, 2);
    ht_snapshot_ref_name(&s, o2, 0, name, sizeof name);
    CHECK_MSG(strcmp(name, "<class>") == 0, "an instance's first reference is its class (%s)",
              name);
    ht_snapshot_ref_name(&s, o2, 1, name, sizeof name);
    CHECK_MSG(strcmp(name, "other") == 0, "node 2's null next is skipped: 'other' (%s)", name);
    CHECK_MSG(strcmp(ht_snapshot_class_name(&s, o2), "demo.Node") == 0, "class name demo.Node");
    ht_paths p;
    CHECK(ht_paths_build(&p, &s, 0) == HT_HPROF_OK);
    char line[256];
    ht_paths_format(&p, &s, num(&s, 2), line, sizeof line);
    CHECK_MSG(strcmp(line, "root(JNI global) demo.Node -next-> demo.Node -next-> demo.Node") == 0,
              "the path in words: %s", line);
    ht_paths_free(&p);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);

    /* demo/Node made its own superclass: refused with a message */
    size_t at = 0;
    for (size_t i = 0; i + 5 < b.len; i++)
        if (b.d[i] == 0x20 && b.d[i + 1] == 0 && b.d[i + 2] == 0 && b.d[i + 3] == 0x07 &&
            b.d[i + 4] == 0x00) {
            at = i;
            break;
        }
    CHECK(at != 0);
    hb_patch_u4(&b, at + 1 + 4 + 4, C_NODE); /* super = itself (4-byte ids) */
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_ERR_FORMAT && strstr(h.err, "its own superclass"),
              "a class that is its own superclass is refused: %s", h.err);
    ht_hprof_close(&h);
    free(b.d);
}

/* A boot array class the dump lists no root for (HotSpot writes none for
 * array classes) is still a root: its one instance does not retain it. */
static void boot_array_class(void)
{
    hb b;
    hb_start(&b, 8, 0);
    hb_utf8(&b, 0x10, "java/lang/Object");
    hb_utf8(&b, 0x11, "[Ljava/lang/Long;");
    hb_load_class(&b, 1, C_OBJECT, 0x10);
    hb_load_class(&b, 2, 0x800, 0x11);
    size_t r = hb_begin(&b, 0x1C);
    hb_class_dump(&b, C_OBJECT, 0, 0, 0, NULL, NULL);
    hb_class_dump(&b, 0x800, C_OBJECT, 0, 0, NULL, NULL);
    hb_u1(&b, 0x05); /* only java.lang.Object is a sticky class */
    hb_id(&b, C_OBJECT);
    hb_u1(&b, 0x01); /* the array, held by a JNI global */
    hb_id(&b, OBJ(0));
    hb_id(&b, 0x99);
    hb_u1(&b, 0x22); /* Long[2] {null, null} */
    hb_id(&b, OBJ(0));
    hb_u4(&b, 1);
    hb_u4(&b, 2);
    hb_id(&b, 0x800);
    hb_id(&b, 0);
    hb_id(&b, 0);
    hb_end(&b, r);
    r = hb_begin(&b, 0x2C);
    hb_end(&b, r);
    ht_hprof h;
    ht_snapshot s;
    ht_dominators d;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&s, &h, NULL) == HT_HPROF_OK);
    CHECK(ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK);
    uint32_t arr = num(&s, 0), cls = ht_snapshot_find(&s, 0x800);
    CHECK_MSG(cls != HT_NONE && d.idom[cls] == HT_ROOT,
              "the boot loader's array class is a root, not dominated by its one instance");
    CHECK_MSG(d.retained[arr] == ht_snapshot_shallow(&s, arr),
              "the array retains only itself (%llu bytes)", (unsigned long long)d.retained[arr]);
    ht_dominators_free(&d);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d);
}

/* A superclass chain deeper than HT_MAX_CLASS_DEPTH is refused with a
 * message (each class's chain is walked: a crafted one must not cost depth
 * squared, nor overflow what the walks count). */
static void deep_chain(void)
{
    hb b;
    memset(&b, 0, sizeof b);
    b.id = 4;
    hb_bytes(&b, "JAVA PROFILE 1.0.2", 19);
    hb_u4(&b, 4);
    hb_u8(&b, 0);
    unsigned n = HT_MAX_CLASS_DEPTH + 10;
    size_t r = hb_begin(&b, 0x1C);
    for (unsigned i = 0; i < n; i++) /* class 0x1000+i extends 0x1000+i-1 */
        hb_class_dump(&b, 0x1000 + i, i ? 0x1000 + i - 1 : 0, 0, 0, NULL, NULL);
    hb_end(&b, r);
    r = hb_begin(&b, 0x2C);
    hb_end(&b, r);
    ht_hprof h;
    ht_snapshot s;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    int rc = ht_snapshot_build(&s, &h, NULL);
    CHECK_MSG(rc == HT_HPROF_ERR_FORMAT && strstr(h.err, "superclasses"),
              "a chain of %u classes is refused: %s", n, h.err);
    ht_hprof_close(&h);
    free(b.d);
}

/* Sizes from the heap's addresses (classes.c, heap_evidence): dead space
 * after every instance of an application class (two instances, each followed
 * by 40 dead bytes, as a full GC that left a region uncompacted shows it)
 * does not make the class bigger than its fields; a JDK class padded for
 * @Contended (the boot loader's Striped64$Cell) and a class of the platform
 * loader still take the distance their instances agree on. */
static void padding_or_dead_space(void)
{
    enum { L_APP = 0x100000, L_PLAT = 0x100010 };
    static const struct {
        uint64_t id;
        const char *name;
        uint64_t loader;
        uint8_t field; /* HPROF type of its one field, 0 for none */
    } cls[] = {
        {C_OBJECT, "java/lang/Object", 0, 0},
        {0x900, "jdk/internal/loader/ClassLoaders$AppClassLoader", 0, 0},
        {0xC00, "jdk/internal/loader/ClassLoaders$PlatformClassLoader", 0, 0},
        {0xA00, "demo/Proxy", L_APP, 10},                             /* 16 bytes */
        {0xB00, "java/util/concurrent/atomic/Striped64$Cell", 0, 11}, /* 24, padded 280 */
        {0xD00, "demo/PlatformPadded", L_PLAT, 11},                   /* 24, padded 152 */
    };
    /* object, class, bytes of fields: in address order, the distances
     * making the story above */
    static const struct {
        uint64_t id, cls;
        unsigned len;
    } obj[] = {
        {L_APP, 0x900, 0},       {L_PLAT, 0xC00, 0},   {0x100020, 0xA00, 4},
        {0x100058, C_OBJECT, 0}, {0x100068, 0xA00, 4}, {0x1000a0, C_OBJECT, 0},
        {0x1000b0, 0xB00, 8},    {0x1001c8, 0xB00, 8}, {0x1002e0, C_OBJECT, 0},
        {0x1002f0, 0xD00, 8},    {0x100388, 0xD00, 8}, {0x100420, C_OBJECT, 0},
    };
    hb b;
    hb_start(&b, 8, 0);
    hb_utf8(&b, 0x50, "f");
    for (unsigned i = 0; i < sizeof cls / sizeof *cls; i++) {
        hb_utf8(&b, 0x60 + i, cls[i].name);
        hb_load_class(&b, i + 1, cls[i].id, 0x60 + i);
    }
    size_t r = hb_begin(&b, 0x1C);
    uint64_t fname = 0x50;
    for (unsigned i = 0; i < sizeof cls / sizeof *cls; i++)
        hb_class_dump_in(&b, cls[i].id, i ? C_OBJECT : 0, cls[i].loader, 0, cls[i].field ? 1 : 0,
                         &fname, &cls[i].field);
    for (unsigned i = 0; i < sizeof obj / sizeof *obj; i++) {
        hb_u1(&b, 0x21);
        hb_id(&b, obj[i].id);
        hb_u4(&b, 1);
        hb_id(&b, obj[i].cls);
        hb_u4(&b, obj[i].len);
        for (unsigned k = 0; k < obj[i].len; k++)
            hb_u1(&b, 0);
    }
    hb_end(&b, r);
    r = hb_begin(&b, 0x2C);
    hb_end(&b, r);
    ht_hprof h;
    ht_snapshot s;
    ht_snapshot_opts o = {.layout = &HT_LAYOUT_COMPRESSED};
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&s, &h, &o) == HT_HPROF_OK);
    uint64_t proxy = 0, cell = 0, plat = 0;
    for (uint32_t n = 0; n < s.nobjects; n++) {
        const char *name = ht_snapshot_class_name(&s, n);
        uint64_t *at = strcmp(name, "demo.Proxy") == 0            ? &proxy
                       : strstr(name, "Striped64$Cell")           ? &cell
                       : strcmp(name, "demo.PlatformPadded") == 0 ? &plat
                                                                  : NULL;
        if (at) *at = ht_snapshot_shallow(&s, n);
    }
    CHECK_MSG(proxy == 16,
              "an application class followed twice by dead space keeps its fields' size: 16 "
              "bytes (%llu)",
              (unsigned long long)proxy);
    CHECK_MSG(cell == 280,
              "the boot loader's padded class takes its instances' distance: 280 "
              "bytes (%llu)",
              (unsigned long long)cell);
    CHECK_MSG(plat == 152, "so does a class of the platform loader: 152 bytes (%llu)",
              (unsigned long long)plat);
    CHECK_MSG(s.sizes_from_heap == 2, "two classes sized from the heap (%u)", s.sizes_from_heap);
    ht_snapshot_free(&s);
    ht_hprof_close(&h);
    free(b.d);
}

int main(void)
{
    for (unsigned seed = 1; seed <= 300; seed++)
        random_graph(seed, seed % 2 ? 8 : 4);
    long_chain();
    names_and_corruption();
    boot_array_class();
    deep_chain();
    padding_or_dead_space();
    return check_summary();
}
