/* hidden_names.c - see hidden_names.h. */
#include "hidden_names.h"

#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ht_hidden_names_init(ht_hidden_names *h)
{
    memset(h, 0, sizeof *h);
    ht_map_init(&h->by_raw);
    ht_map_init(&h->by_base);
}

void ht_hidden_names_free(ht_hidden_names *h)
{
    for (uint32_t i = 0; i < h->n; i++) {
        free(h->entries[i].raw);
        free(h->entries[i].display);
    }
    for (uint32_t i = 0; i < h->nbases; i++)
        free(h->bases[i].base);
    free(h->entries);
    free(h->bases);
    ht_map_free(&h->by_raw);
    ht_map_free(&h->by_base);
    memset(h, 0, sizeof *h);
}

/* Index of the string s in a map keyed by its content hash, comparing the
 * string on every hit so a hash collision never merges two names: on a
 * mismatch the next salted key is tried. Returns the index or UINT32_MAX,
 * and in *slot_key the key where s is or would go. */
static uint32_t lookup(const ht_map *m, const char *s, const char *(*str_at)(void *, uint32_t),
                       void *ctx, uint64_t *slot_key)
{
    uint64_t h = ht_hash_bytes(s, strlen(s));
    for (uint32_t salt = 0;; salt++) {
        uint64_t key = ht_map_salt(h, salt), v;
        if (!ht_map_get(m, key, &v)) {
            *slot_key = key;
            return UINT32_MAX;
        }
        if (strcmp(str_at(ctx, (uint32_t)v), s) == 0) {
            *slot_key = key;
            return (uint32_t)v;
        }
    }
}

static const char *raw_at(void *ctx, uint32_t i)
{
    return ((ht_hidden_names *)ctx)->entries[i].raw;
}

static const char *base_at(void *ctx, uint32_t i)
{
    return ((ht_hidden_names *)ctx)->bases[i].base;
}

/* Grow an array of elem-sized items so one more fits. */
static int fit_one(void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap) return 0;
    uint32_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

char *ht_hidden_display(ht_hidden_names *h, const char *java_name)
{
    char base[1024];
    if (!ht_hidden_class_base(java_name, base, sizeof base)) return strdup(java_name);
    uint64_t raw_key, base_key;
    uint32_t i = lookup(&h->by_raw, java_name, raw_at, h, &raw_key);
    if (i != UINT32_MAX) return strdup(h->entries[i].display);
    /* a hidden class not named before: the next ordinal of its base */
    uint32_t b = lookup(&h->by_base, base, base_at, h, &base_key);
    if (b == UINT32_MAX) {
        if (fit_one((void **)&h->bases, h->nbases, &h->cap_bases, sizeof *h->bases) != 0)
            return NULL;
        char *copy = strdup(base);
        if (!copy || ht_map_put(&h->by_base, base_key, h->nbases) != 0) {
            free(copy);
            return NULL;
        }
        b = h->nbases++;
        h->bases[b].base = copy;
        h->bases[b].seen = 0;
    }
    if (fit_one((void **)&h->entries, h->n, &h->cap, sizeof *h->entries) != 0) return NULL;
    char display[1040];
    uint32_t ordinal = h->bases[b].seen + 1;
    if (ordinal == 1)
        snprintf(display, sizeof display, "%s", base);
    else
        snprintf(display, sizeof display, "%s#%u", base, ordinal);
    ht_hidden_entry e = {strdup(java_name), strdup(display)};
    if (!e.raw || !e.display || ht_map_put(&h->by_raw, raw_key, h->n) != 0) {
        free(e.raw);
        free(e.display);
        return NULL;
    }
    h->bases[b].seen = ordinal;
    h->entries[h->n++] = e;
    return strdup(display);
}
