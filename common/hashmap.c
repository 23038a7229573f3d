/* hashmap.c - see hashmap.h. */
#include "hashmap.h"

#include "hash.h"

#include <stdlib.h>
#include <string.h>

void ht_map_init(ht_map *m)
{
    memset(m, 0, sizeof *m);
}

void ht_map_free(ht_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static uint32_t home(const ht_map *m, uint64_t key)
{
    return (uint32_t)ht_mix64(key) & m->mask;
}

/* Slot of key, or of the empty slot where it would go. */
static uint32_t find(const ht_map *m, uint64_t key, int *found)
{
    uint32_t i = home(m, key);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            *found = 1;
            return i;
        }
        i = (i + 1) & m->mask;
    }
    *found = 0;
    return i;
}

static int resize(ht_map *m, uint32_t cap)
{
    ht_map n;
    n.keys = malloc((size_t)cap * sizeof *n.keys);
    n.vals = malloc((size_t)cap * sizeof *n.vals);
    n.used = calloc(cap, 1);
    if (!n.keys || !n.vals || !n.used) {
        free(n.keys);
        free(n.vals);
        free(n.used);
        return -1;
    }
    n.mask = cap - 1;
    n.count = m->count;
    for (uint32_t i = 0; m->used && i <= m->mask; i++) {
        if (!m->used[i]) continue;
        int found;
        uint32_t j = find(&n, m->keys[i], &found);
        n.used[j] = 1;
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = n;
    return 0;
}

int ht_map_reserve(ht_map *m, uint32_t n)
{
    if (n > (1u << 30)) return -1;
    uint32_t cap = m->used ? m->mask + 1 : 0;
    if ((uint64_t)n * 2 <= cap) return 0;
    uint32_t want = 16;
    while ((uint64_t)want < (uint64_t)n * 2)
        want <<= 1;
    return resize(m, want);
}

int ht_map_get(const ht_map *m, uint64_t key, uint64_t *val)
{
    if (!m->used) return 0;
    int found;
    uint32_t i = find(m, key, &found);
    if (found && val) *val = m->vals[i];
    return found;
}

int ht_map_put(ht_map *m, uint64_t key, uint64_t val)
{
    if (ht_map_reserve(m, m->count + 1) != 0) return -1;
    int found;
    uint32_t i = find(m, key, &found);
    if (!found) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    return 0;
}

int ht_map_del(ht_map *m, uint64_t key)
{
    if (!m->used) return 0;
    int found;
    uint32_t i = find(m, key, &found);
    if (!found) return 0;
    /* Backward shift: move later entries of the cluster into the hole when
     * their home is not between the hole and where they sit. */
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (!m->used[j]) break;
        uint32_t h = home(m, m->keys[j]);
        int movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->used[i] = 0;
    m->count--;
    return 1;
}

void ht_map_clear(ht_map *m)
{
    if (m->used) memset(m->used, 0, (size_t)m->mask + 1);
    m->count = 0;
}

uint32_t ht_map_count(const ht_map *m)
{
    return m->count;
}

uint64_t ht_map_salt(uint64_t key, uint32_t salt)
{
    return salt ? ht_mix64(key ^ (0x9e3779b97f4a7c15ull * salt)) : key;
}

uint64_t ht_hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return ht_mix64(h ^ n);
}
