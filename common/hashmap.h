/*
 * hashmap.h - the one hash map: 64-bit keys to 64-bit values.
 *
 * Owns: an open-addressing table with linear probing and backward-shift
 * deletion (no tombstones, so lookups never slow down after many deletes),
 * kept at most half full, keys spread with ht_mix64. Any 64-bit key is
 * allowed, 0 included: occupancy is kept apart from the keys. Callers whose
 * natural key is bigger (a string, a stack) hash it to 64 bits and keep the
 * value pointing at their own record, which they compare on a hit; a caller
 * that cannot tolerate a hash collision probes on with another salt (see
 * ht_map_salt). Not thread-safe: one owner. Never allocates on a lookup.
 */
#ifndef HEAPTOP_HASHMAP_H
#define HEAPTOP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ht_map {
    uint64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    uint32_t mask; /* capacity - 1; capacity is a power of two */
    uint32_t count;
} ht_map;

/* An empty map; no allocation until the first put. */
void ht_map_init(ht_map *m);
void ht_map_free(ht_map *m);
/* Make room for n entries without growing. 0, or -1 out of memory. */
int ht_map_reserve(ht_map *m, uint32_t n);
/* 1 and *val when key is present, else 0. val may be NULL. */
int ht_map_get(const ht_map *m, uint64_t key, uint64_t *val);
/* Insert or replace. 0, or -1 out of memory (the map is unchanged). */
int ht_map_put(ht_map *m, uint64_t key, uint64_t val);
/* 1 when key was present and is removed, else 0. */
int ht_map_del(ht_map *m, uint64_t key);
/* Forget every entry, keeping the allocation. */
void ht_map_clear(ht_map *m);
uint32_t ht_map_count(const ht_map *m);
/* A second key for the same content, for callers resolving collisions: salt
 * 0 is the key itself. */
uint64_t ht_map_salt(uint64_t key, uint32_t salt);
/* 64-bit hash of a byte string (FNV-1a, then ht_mix64). */
uint64_t ht_hash_bytes(const void *p, size_t n);

#endif
