/* clock.c - see clock.h. */
#include "clock.h"

uint64_t ht_clock_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ht_mono_ms(void)
{
    return ht_clock_ns(CLOCK_MONOTONIC) / 1000000u;
}

double ht_mono_s(void)
{
    return (double)ht_clock_ns(CLOCK_MONOTONIC) / 1e9;
}

void ht_nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
