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

/*
 * Which interval a sample's weight needs. HotSpot (ThreadHeapSampler) draws a
 * thread's next gap right after each sample, with the interval in force then,
 * and keeps that gap when the interval changes. So the sample that ends a gap
 * was drawn with the interval in force at the thread's previous sample, not
 * with the one in force now: after a change from 1g to 256k the first sample
 * of each thread still stands for about 1g of allocation. One memo per thread.
 */
typedef struct ht_gap_memo {
    uint64_t interval; /* in force at this thread's last sample */
    int known;         /* a sample was seen on this thread */
} ht_gap_memo;

/* HotSpot's own interval until an agent sets one (ThreadHeapSampler's static
 * default): a thread draws its first gap with it when it is constructed. */
#define HT_HOTSPOT_INTERVAL (512u * 1024u)

/* A thread starts: HotSpot draws its first gap with the interval now. */
void ht_gap_thread_start(ht_gap_memo *m, uint64_t now);
/* The interval the gap ending at this sample was drawn with, given the one in
 * force now; remembers now's for the thread's next sample. A thread whose
 * start was not seen was constructed before the agent set any interval (it
 * ran before an attach, or it is the main thread, made before Agent_OnLoad):
 * its gap was drawn with HT_HOTSPOT_INTERVAL, and the exponential gap is
 * memoryless, so however much of it went by unsampled, what is left of it
 * still has that mean. (A detach sets HotSpot's interval back to it.) */
uint64_t ht_gap_interval(ht_gap_memo *m, uint64_t now);

/*
 * How sure an estimate resting on n samples is: its relative standard error.
 * A total estimated from n samples of objects small beside the interval (the
 * common case: p = s/I) has a variance of about estimate^2 / n, so one
 * standard error is 1/sqrt(n) of the figure (1 sample: +-100%, 10: +-32%,
 * 100: +-10%); objects as big as the interval are sampled with p near 1 and
 * their error is smaller, so this is the most it is. 0 samples: infinity
 * (the figure is 0 and says nothing). The same rule for every screen and file.
 */
double ht_rel_se(uint64_t samples);
/* Fewer samples than this and one standard error is over 30% of the figure:
 * screens dim such a row. */
#define HT_FEW_SAMPLES 10u

#endif
