/* estimate.c - see estimate.h. */
#include "estimate.h"

#include <math.h>

void ht_gap_thread_start(ht_gap_memo *m, uint64_t now)
{
    m->interval = now;
    m->known = 1;
}

uint64_t ht_gap_interval(ht_gap_memo *m, uint64_t now)
{
    uint64_t drawn = m->known ? m->interval : HT_HOTSPOT_INTERVAL;
    m->interval = now;
    m->known = 1;
    return drawn;
}

double ht_sample_weight(uint64_t size, uint64_t interval)
{
    if (interval == 0 || size == 0) return 1.0;
    double x = (double)size / (double)interval;
    /* -expm1(-x) = 1 - exp(-x) without cancellation for tiny objects. */
    double p = -expm1(-x);
    return p > 0.0 ? 1.0 / p : 1.0;
}

double ht_rel_se(uint64_t samples)
{
    return samples ? 1.0 / sqrt((double)samples) : INFINITY;
}
