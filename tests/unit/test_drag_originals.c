/* test_drag_originals.c - drag mode's store of original class bytes
 * (agent/drag_originals.h): bytes back exactly as kept; the first copy kept
 * (a later, grown one never replaces it); two loaders' classes of one key
 * apart, the boot loader (NULL) included; the bound on memory; loaders gone
 * pruned and their handles released; freed all, handles released; a
 * replaced original (someone else's HotSwap) is what later lookups return,
 * wherever its entry sits, larger or smaller, the store's handle kept and
 * the old bytes freed (the asan twin sees a leak or a stale link). Loaders
 * here are small structs standing in for JNI weak refs: "same" compares
 * their ids, "gone" reads their flag. */
#include "check.h"
#include "drag_originals.h"

#include <stdlib.h>
#include <string.h>

typedef struct loader {
    int id, gone, dropped;
} loader;

static int same(void *ctx, const void *a, const void *b)
{
    (*(int *)ctx)++; /* calls, to see ctx passed through */
    return ((const loader *)a)->id == ((const loader *)b)->id;
}

static int gone(void *ctx, const void *a)
{
    (void)ctx;
    return ((const loader *)a)->gone;
}

static void drop(void *ctx, void *a)
{
    (void)ctx;
    ((loader *)a)->dropped++;
}

static uint8_t *alloc(void *ctx, size_t n)
{
    (*(int *)ctx)++;
    return malloc(n);
}

/* A class file stand-in: n bytes, partly compressible, seeded. */
static uint8_t *bytes(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i % 7 == 0 ? (seed * 2654435761u + i * 40503u) >> 13 : i % 13);
    return p;
}

static int back(ht_orig_store *s, uint32_t key, const loader *l, const uint8_t *want, size_t n)
{
    int calls = 0, allocs = 0;
    uint8_t *out = NULL;
    size_t len = 0;
    int r = ht_orig_get(s, key, l, same, &calls, alloc, &allocs, &out, &len);
    int ok = r == 1 && len == n && memcmp(out, want, n) == 0 && allocs == 1;
    free(out);
    return ok;
}

static void test_keep_first_and_loaders(void)
{
    ht_orig_store s;
    ht_orig_init(&s, 1u << 20);
    loader a = {.id = 1}, a2 = {.id = 1}, b = {.id = 2};
    int calls = 0;
    uint8_t *orig = bytes(5000, 1), *grown = bytes(5336, 2), *other = bytes(3000, 3);
    CHECK(ht_orig_put(&s, 7, &a, orig, 5000, same, &calls) == 1);
    CHECK(ht_orig_has(&s, 7, &a2, same, &calls)); /* the same loader through another handle */
    CHECK(calls > 0);
    CHECK(!ht_orig_has(&s, 7, &b, same, &calls));
    CHECK(!ht_orig_has(&s, 7, NULL, same, &calls)); /* the boot loader is not a */
    CHECK(!ht_orig_has(&s, 8, &a, same, &calls));
    /* a later turn on must not keep a grown copy */
    CHECK(ht_orig_put(&s, 7, &a2, grown, 5336, same, &calls) == 0);
    CHECK(back(&s, 7, &a, orig, 5000));
    /* another loader's class of the same name, and the boot loader's */
    CHECK(ht_orig_put(&s, 7, &b, other, 3000, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 7, NULL, grown, 5336, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 7, NULL, orig, 5000, same, &calls) == 0);
    CHECK(back(&s, 7, &a, orig, 5000));
    CHECK(back(&s, 7, &b, other, 3000));
    CHECK(back(&s, 7, NULL, grown, 5336));
    CHECK(s.count == 3);
    CHECK(s.bytes < 5000 + 3000 + 5336); /* compressed */
    /* b's loader is gone: its entry goes, its handle is released; a's stays */
    b.gone = 1;
    CHECK(ht_orig_prune(&s, gone, drop, NULL) == 1);
    CHECK(b.dropped == 1 && a.dropped == 0);
    CHECK(!ht_orig_has(&s, 7, &b, same, &calls));
    CHECK(back(&s, 7, &a, orig, 5000));
    CHECK(back(&s, 7, NULL, grown, 5336));
    CHECK(s.count == 2);
    /* the last of a key's chain pruned: the boot loader's entry stays */
    a.gone = 1;
    CHECK(ht_orig_prune(&s, gone, drop, NULL) == 1);
    CHECK(back(&s, 7, NULL, grown, 5336));
    CHECK(!ht_orig_has(&s, 7, &a, same, &calls));
    ht_orig_free(&s, drop, NULL);
    CHECK(s.count == 0 && s.bytes == 0 && !ht_orig_has(&s, 7, NULL, same, &calls));
    CHECK(ht_orig_put(&s, 7, NULL, orig, 5000, same, &calls) == 1); /* usable again */
    ht_orig_free(&s, NULL, NULL);
    free(orig);
    free(grown);
    free(other);
}

static void test_bound_and_bad_input(void)
{
    ht_orig_store s;
    ht_orig_init(&s, 64u << 10);
    int calls = 0;
    loader ls[64];
    uint32_t kept = 0, refused = 0;
    for (int i = 0; i < 64; i++) {
        ls[i] = (loader){.id = i};
        uint8_t *p = bytes(8192, (unsigned)i + 10);
        int r = ht_orig_put(&s, (uint32_t)i, &ls[i], p, 8192, same, &calls);
        kept += r == 1;
        refused += r == -1;
        free(p);
        CHECK(s.bytes <= s.max_bytes);
    }
    CHECK(kept > 0 && refused > 0 && kept + refused == 64);
    CHECK(s.count == kept);
    uint8_t one = 1;
    CHECK(ht_orig_put(&s, 900, NULL, NULL, 10, same, &calls) == -1);
    CHECK(ht_orig_put(&s, 900, NULL, &one, 0, same, &calls) == -1);
    /* a key never kept: nothing handed back, nothing allocated */
    uint8_t *out = NULL;
    size_t len = 0;
    CHECK(ht_orig_get(&s, 901, NULL, same, &calls, alloc, &calls, &out, &len) == 0);
    ht_orig_free(&s, drop, NULL);
    for (uint32_t i = 0; i < 64; i++)
        CHECK(ls[i].dropped == (i < kept ? 1 : 0));
}

static void test_replace(void)
{
    ht_orig_store s;
    ht_orig_init(&s, 256u << 10);
    loader a = {.id = 1}, a2 = {.id = 1}, b = {.id = 2}, c = {.id = 3};
    int calls = 0;
    uint8_t *oa = bytes(5000, 1), *ob = bytes(3000, 2), *oboot = bytes(4000, 3);
    uint8_t *big = bytes(40000, 4), *small = bytes(700, 5), *huge = bytes(1u << 20, 6);
    CHECK(ht_orig_put(&s, 5, &a, oa, 5000, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 5, &b, ob, 3000, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 5, NULL, oboot, 4000, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 6, &c, ob, 3000, same, &calls) == 1);
    size_t bytes0 = s.bytes;
    /* none kept for (key, loader): nothing replaced, nothing kept */
    CHECK(ht_orig_replace(&s, 5, &c, big, 40000, same, &calls) == 0);
    CHECK(ht_orig_replace(&s, 9, &a, big, 40000, same, &calls) == 0);
    CHECK(s.count == 4 && s.bytes == bytes0 && !ht_orig_has(&s, 5, &c, same, &calls));
    /* larger than the kept bytes: a new entry in the old one's places, for
     * each loader of the key's chain (head, middle and last), through
     * another handle of the same loader */
    CHECK(ht_orig_replace(&s, 5, &a2, big, 40000, same, &calls) == 1);
    CHECK(back(&s, 5, &a, big, 40000));
    CHECK(back(&s, 5, &b, ob, 3000));
    CHECK(back(&s, 5, NULL, oboot, 4000));
    CHECK(ht_orig_replace(&s, 5, &b, big, 40000, same, &calls) == 1);
    CHECK(ht_orig_replace(&s, 5, NULL, big, 40000, same, &calls) == 1);
    CHECK(back(&s, 5, &b, big, 40000));
    CHECK(back(&s, 5, NULL, big, 40000));
    CHECK(back(&s, 6, &c, ob, 3000));
    CHECK(s.count == 4 && s.bytes > bytes0);
    /* smaller: in place; a later put still never replaces it */
    CHECK(ht_orig_replace(&s, 5, &a, small, 700, same, &calls) == 1);
    CHECK(ht_orig_put(&s, 5, &a2, oa, 5000, same, &calls) == 0);
    CHECK(back(&s, 5, &a, small, 700));
    /* the original bytes again: the store holds what it held at first */
    CHECK(ht_orig_replace(&s, 5, &a, oa, 5000, same, &calls) == 1);
    CHECK(ht_orig_replace(&s, 5, &b, ob, 3000, same, &calls) == 1);
    CHECK(ht_orig_replace(&s, 5, NULL, oboot, 4000, same, &calls) == 1);
    CHECK(s.count == 4 && s.bytes == bytes0);
    CHECK(back(&s, 5, &a, oa, 5000) && back(&s, 5, &b, ob, 3000) && back(&s, 5, NULL, oboot, 4000));
    /* refused (past the bound, no bytes): the old one stays */
    CHECK(ht_orig_replace(&s, 5, &a, huge, 1u << 20, same, &calls) == -1);
    CHECK(ht_orig_replace(&s, 5, &a, NULL, 10, same, &calls) == -1);
    CHECK(ht_orig_replace(&s, 5, &a, small, 0, same, &calls) == -1);
    CHECK(back(&s, 5, &a, oa, 5000) && s.bytes == bytes0);
    /* the store kept its own handles: none released by a replace, each once
     * when its loader is gone or at the end */
    CHECK(a.dropped == 0 && a2.dropped == 0 && b.dropped == 0);
    b.gone = 1;
    CHECK(ht_orig_prune(&s, gone, drop, NULL) == 1);
    CHECK(b.dropped == 1 && back(&s, 5, &a, oa, 5000) && back(&s, 5, NULL, oboot, 4000));
    ht_orig_free(&s, drop, NULL);
    CHECK(a.dropped == 1 && a2.dropped == 0 && c.dropped == 1 && s.count == 0);
    free(oa);
    free(ob);
    free(oboot);
    free(big);
    free(small);
    free(huge);
}

int main(void)
{
    test_keep_first_and_loaders();
    test_bound_and_bad_input();
    test_replace();
    return check_summary();
}
