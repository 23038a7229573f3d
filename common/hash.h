/*
 * hash.h - the integer mixing every hash table in heaptop uses.
 *
 * One finalizer (MurmurHash3's fmix64) so that ids that differ in a few low
 * bits spread over the whole table. Pure, header-only.
 */
#ifndef HEAPTOP_HASH_H
#define HEAPTOP_HASH_H

#include <stdint.h>

static inline uint64_t ht_mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Key of an aggregate row: (trace id, class id). */
static inline uint64_t ht_row_key(uint32_t trace, uint32_t cls)
{
    return ((uint64_t)trace << 32) | cls;
}

#endif
