/*
 * live_map.h - sampled objects still alive: tag -> what to subtract when it dies.
 *
 * Owns: an open-addressed hash map (linear probing, backward-shift deletion)
 * from object tag to (aggregate index, estimated bytes, estimated instances).
 * Grows by doubling up to a cap; past the cap it refuses inserts and the
 * collector stops tagging. Collector thread only.
 */
#ifndef HEAPTOP_LIVE_MAP_H
#define HEAPTOP_LIVE_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ht_live_entry {
    uint64_t tag; /* 0 = empty */
    uint32_t agg;
    uint32_t pad;
    double bytes;
    double instances;
} ht_live_entry;

typedef struct ht_live_map {
    ht_live_entry *slots;
    size_t mask;
    size_t count;
    size_t max_count;
} ht_live_map;

int ht_live_init(ht_live_map *m, size_t max_count);
void ht_live_destroy(ht_live_map *m);
/* 0 inserted, -1 full (at the cap or out of memory). Tags are unique. */
int ht_live_put(ht_live_map *m, uint64_t tag, uint32_t agg, double bytes, double instances);
/* 1 and *out filled (entry removed) if present, else 0. */
int ht_live_take(ht_live_map *m, uint64_t tag, ht_live_entry *out);
int ht_live_full(const ht_live_map *m);

#endif
