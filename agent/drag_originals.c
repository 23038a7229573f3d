/* drag_originals.c - see drag_originals.h. */
#include "drag_originals.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct ht_orig {
    ht_orig *next;          /* the next loader's entry for the same key */
    ht_orig *older, *newer; /* every entry, newest first (s->all) */
    uint32_t key;
    void *loader;  /* the caller's handle; NULL: the boot loader */
    uint32_t len;  /* the class file's length */
    uint32_t zlen; /* the compressed length */
    uint8_t z[];
};

static ht_orig *head_of(const ht_orig_store *s, uint32_t key)
{
    uint64_t v = 0;
    return ht_map_get(&s->heads, key, &v) ? (ht_orig *)(uintptr_t)v : NULL;
}

static int same_loader(const void *stored, const void *probe, ht_orig_same_fn same, void *ctx)
{
    if (!stored || !probe) return stored == probe; /* the boot loader is NULL on both sides */
    return same(ctx, stored, probe);
}

static ht_orig *find(const ht_orig_store *s, uint32_t key, const void *loader, ht_orig_same_fn same,
                     void *ctx)
{
    for (ht_orig *e = head_of(s, key); e; e = e->next)
        if (same_loader(e->loader, loader, same, ctx)) return e;
    return NULL;
}

static size_t cost(const ht_orig *e)
{
    return sizeof *e + e->zlen;
}

void ht_orig_init(ht_orig_store *s, size_t max_bytes)
{
    *s = (ht_orig_store){.max_bytes = max_bytes};
    ht_map_init(&s->heads);
}

int ht_orig_has(const ht_orig_store *s, uint32_t key, const void *loader, ht_orig_same_fn same,
                void *ctx)
{
    return find(s, key, loader, same, ctx) != NULL;
}

int ht_orig_put(ht_orig_store *s, uint32_t key, void *loader, const uint8_t *data, size_t len,
                ht_orig_same_fn same, void *ctx)
{
    if (find(s, key, loader, same, ctx)) return 0;
    if (!data || len == 0 || len > HT_ORIG_MAX_CLASS || s->bytes >= s->max_bytes) return -1;
    uLongf zlen = compressBound((uLong)len);
    ht_orig *e = malloc(sizeof *e + zlen);
    if (!e) return -1;
    if (compress2(e->z, &zlen, data, (uLong)len, Z_BEST_SPEED) != Z_OK) {
        free(e);
        return -1;
    }
    e->len = (uint32_t)len;
    e->zlen = (uint32_t)zlen;
    if (s->bytes + cost(e) > s->max_bytes) {
        free(e);
        return -1;
    }
    ht_orig *shrunk = realloc(e, sizeof *e + e->zlen);
    if (shrunk) e = shrunk;
    e->loader = loader;
    e->key = key;
    e->next = head_of(s, key);
    if (ht_map_put(&s->heads, key, (uint64_t)(uintptr_t)e) != 0) {
        free(e);
        return -1;
    }
    e->older = s->all;
    e->newer = NULL;
    if (s->all) s->all->newer = e;
    s->all = e;
    s->bytes += cost(e);
    s->count++;
    return 1;
}

int ht_orig_replace(ht_orig_store *s, uint32_t key, const void *loader, const uint8_t *data,
                    size_t len, ht_orig_same_fn same, void *ctx)
{
    ht_orig *e = find(s, key, loader, same, ctx);
    if (!e) return 0;
    if (!data || len == 0 || len > HT_ORIG_MAX_CLASS) return -1;
    uLongf zlen = compressBound((uLong)len);
    uint8_t *z = malloc(zlen);
    if (!z) return -1;
    if (compress2(z, &zlen, data, (uLong)len, Z_BEST_SPEED) != Z_OK ||
        s->bytes - cost(e) + sizeof *e + zlen > s->max_bytes) {
        free(z);
        return -1;
    }
    /* in place when it fits, else a new entry in e's places */
    if (zlen > e->zlen) {
        ht_orig *bigger = malloc(sizeof *e + zlen);
        if (!bigger) {
            free(z);
            return -1;
        }
        *bigger = *e;
        ht_orig *h = head_of(s, key);
        if (h == e) {
            ht_map_del(&s->heads, key); /* deleted first: the put cannot fail */
            ht_map_put(&s->heads, key, (uint64_t)(uintptr_t)bigger);
        } else {
            for (; h; h = h->next)
                if (h->next == e) {
                    h->next = bigger;
                    break;
                }
        }
        if (e->newer)
            e->newer->older = bigger;
        else
            s->all = bigger;
        if (e->older) e->older->newer = bigger;
        free(e);
        e = bigger;
    }
    s->bytes -= cost(e);
    memcpy(e->z, z, zlen);
    e->zlen = (uint32_t)zlen;
    e->len = (uint32_t)len;
    s->bytes += cost(e);
    free(z);
    return 1;
}

int ht_orig_get(const ht_orig_store *s, uint32_t key, const void *loader, ht_orig_same_fn same,
                void *ctx, uint8_t *(*alloc)(void *actx, size_t n), void *actx, uint8_t **out,
                size_t *out_len)
{
    const ht_orig *e = find(s, key, loader, same, ctx);
    if (!e) return 0;
    uint8_t *tmp = malloc(e->len);
    uLongf n = e->len;
    if (!tmp) return -1;
    if (uncompress(tmp, &n, e->z, e->zlen) != Z_OK || n != e->len) {
        free(tmp);
        return -1;
    }
    uint8_t *mem = alloc(actx, e->len);
    if (mem) memcpy(mem, tmp, e->len);
    free(tmp);
    if (!mem) return -1;
    *out = mem;
    *out_len = e->len;
    return 1;
}

/* Take e out of its key's chain and the list of all, and free it. */
static void unlink_free(ht_orig_store *s, ht_orig *e, ht_orig_drop_fn drop, void *ctx)
{
    ht_orig *h = head_of(s, e->key);
    if (h == e) {
        /* deleted first, the put cannot need to grow the map: it cannot fail */
        ht_map_del(&s->heads, e->key);
        if (e->next) ht_map_put(&s->heads, e->key, (uint64_t)(uintptr_t)e->next);
    } else {
        for (; h; h = h->next)
            if (h->next == e) {
                h->next = e->next;
                break;
            }
    }
    if (e->newer)
        e->newer->older = e->older;
    else
        s->all = e->older;
    if (e->older) e->older->newer = e->newer;
    if (drop && e->loader) drop(ctx, e->loader);
    s->bytes -= cost(e);
    s->count--;
    free(e);
}

uint32_t ht_orig_prune(ht_orig_store *s, ht_orig_gone_fn gone, ht_orig_drop_fn drop, void *ctx)
{
    uint32_t freed = 0;
    for (ht_orig *e = s->all, *older; e; e = older) {
        older = e->older;
        if (e->loader && gone(ctx, e->loader)) {
            unlink_free(s, e, drop, ctx);
            freed++;
        }
    }
    return freed;
}

void ht_orig_free(ht_orig_store *s, ht_orig_drop_fn drop, void *ctx)
{
    for (ht_orig *e = s->all, *older; e; e = older) {
        older = e->older;
        if (drop && e->loader) drop(ctx, e->loader);
        free(e);
    }
    ht_map_free(&s->heads);
    ht_orig_init(s, s->max_bytes);
}
