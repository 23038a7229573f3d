/*
 * estimate.h - unbiased estimates from JEP 331 samples.
 *
 * HotSpot picks the gap to the next sample from an exponential distribution
 * with mean I bytes, so an allocation of s bytes is sampled with probability
 * p = 1 - exp(-s/I). Weighting each sample by 1/p (Horvitz-Thompson) gives
 * unbiased totals: a sample stands for 1/p objects and s/p bytes. I = 0 means
 * every allocation is sampled: weight 1. Pure functions, no state.
 */
#ifndef HEAPTOP_ESTIMATE_H
#define HEAPTOP_ESTIMATE_H

#include <stdint.h>

/* Objects one sample of `size` bytes stands for at mean interval `interval`. */
double ht_sample_weight(uint64_t size, uint64_t interval);

#endif
