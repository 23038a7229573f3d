/*
 * clock.h - the one reader of the system's clocks, in the units heaptop
 * counts in: nanoseconds of any clock, milliseconds and seconds of the
 * monotonic one (deadlines, waits, how long a step took).
 *
 * Owns: nothing but clock_gettime. Any thread, and a child forked from a
 * threaded process (the attach's exchange): no allocation, no locks, no
 * stdio. Nothing here blocks but ht_nap_ms, which sleeps on purpose.
 */
#ifndef HEAPTOP_CLOCK_H
#define HEAPTOP_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock id's time in ns (0 if the clock cannot be read). */
uint64_t ht_clock_ns(clockid_t id);
/* CLOCK_MONOTONIC in ms and in s. */
uint64_t ht_mono_ms(void);
double ht_mono_s(void);
/* Sleep ms milliseconds (less when a signal comes). */
void ht_nap_ms(long ms);

#endif
