/* Weights across a change of the sampling interval, against a simulation of
 * how HotSpot draws samples (ThreadHeapSampler::check_for_sampling and
 * pick_next_sample, JDK 17-25): each thread keeps a count of bytes until its
 * next sample, drawn from an exponential distribution with the mean interval
 * in force when it is drawn; an allocation that reaches it is sampled and a
 * new count is drawn (from the end of that allocation). Changing the interval
 * does not redraw a pending count. The agent weighs each sample with the
 * interval its gap was drawn with (ht_gap_interval), which keeps the estimate
 * of what was allocated after a change unbiased; weighing with the interval
 * in force when the sample is taken does not. */
#include "check.h"
#include "estimate.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double exp_gap(uint64_t mean)
{
    return mean ? -log(uniform()) * (double)mean : 0.0;
}

int main(void)
{
    /* The memo itself: the first sample of a thread gets the interval now;
     * later samples get the one in force at the sample before. */
    ht_gap_memo m = {0, 0};
    /* a thread never seen starting: HotSpot drew its gap at construction with
     * its own default, whatever the agent set since */
    CHECK(ht_gap_interval(&m, 1u << 20) == HT_HOTSPOT_INTERVAL);
    CHECK(ht_gap_interval(&m, 32768) == 1u << 20); /* drawn before the change */
    CHECK(ht_gap_interval(&m, 32768) == 32768);
    CHECK(ht_gap_interval(&m, 0) == 32768);
    CHECK(ht_gap_interval(&m, 0) == 0);
    ht_gap_thread_start(&m, 4096); /* a thread seen starting: its first gap's interval */
    CHECK(ht_gap_interval(&m, 8192) == 4096 && ht_gap_interval(&m, 8192) == 8192);

    /* One thread allocates 2 MiB at a 1 MiB interval, then 4 MiB after the
     * interval drops to 32 KiB. The estimate of the second phase, over many
     * runs: unbiased with the memo, well short without (the first gap of
     * the second phase was drawn with a 1 MiB mean). */
    const uint64_t big = 1u << 20, small = 32768;
    const int runs = 4000;
    double sum_memo = 0, sum_naive = 0, sq_memo = 0, truth = 0;
    for (int run = 0; run < runs; run++) {
        ht_gap_memo memo = {0, 0};
        uint64_t interval = big;
        double until = exp_gap(interval); /* drawn at thread start */
        ht_gap_thread_start(&memo, interval);
        double phase2 = 0, est_memo = 0, est_naive = 0, allocated = 0;
        while (allocated < 6.0 * 1024 * 1024) {
            int second = allocated >= 2.0 * 1024 * 1024;
            if (second) interval = small;
            uint64_t size = 16 + (uint64_t)(uniform() * 2000);
            if (uniform() < 0.001) size = 200000; /* now and then a large array */
            allocated += (double)size;
            if (second) phase2 += (double)size;
            if ((double)size < until) {
                until -= (double)size;
                continue;
            }
            /* sampled; HotSpot draws the next gap now, with today's interval */
            uint64_t drawn = ht_gap_interval(&memo, interval);
            until = exp_gap(interval);
            if (second) {
                est_memo += (double)size * ht_sample_weight(size, drawn);
                est_naive += (double)size * ht_sample_weight(size, interval);
            }
        }
        truth = phase2; /* the same every run up to one object: use the last */
        sum_memo += est_memo / phase2;
        sum_naive += est_naive / phase2;
        sq_memo += (est_memo / phase2) * (est_memo / phase2);
    }
    double mean_memo = sum_memo / runs, mean_naive = sum_naive / runs;
    double sd = sqrt(sq_memo / runs - mean_memo * mean_memo);
    double se = sd / sqrt((double)runs);
    printf("second phase (%.0f bytes): estimate/truth with the memo %.4f (SE %.4f), with the "
           "interval in force %.4f\n",
           truth, mean_memo, se, mean_naive);
    CHECK(fabs(mean_memo - 1.0) <= 4 * se);
    CHECK(mean_naive < 1.0 - 10 * se && mean_naive < 0.9);

    /* An attach: the thread ran before the agent came, so its gap was drawn
     * at construction with HotSpot's default (HT_HOTSPOT_INTERVAL) and the
     * agent never saw it start. The agent sets 32 KiB and the thread
     * allocates 1 MiB: unbiased only if the first sample is weighted with
     * HotSpot's default, not with the 32 KiB in force (a short phase, so the
     * first sample's share shows). */
    double sum_attach = 0, sq_attach = 0, sum_now = 0;
    for (int run = 0; run < runs; run++) {
        ht_gap_memo memo = {0, 0}; /* not seen starting */
        double until = exp_gap(HT_HOTSPOT_INTERVAL), allocated = 0, est = 0, est_now = 0;
        while (allocated < 1024.0 * 1024) {
            uint64_t size = 16 + (uint64_t)(uniform() * 2000);
            allocated += (double)size;
            if ((double)size < until) {
                until -= (double)size;
                continue;
            }
            uint64_t drawn = ht_gap_interval(&memo, small);
            until = exp_gap(small);
            est += (double)size * ht_sample_weight(size, drawn);
            est_now += (double)size * ht_sample_weight(size, small);
        }
        sum_attach += est / allocated;
        sq_attach += (est / allocated) * (est / allocated);
        sum_now += est_now / allocated;
    }
    double mean_attach = sum_attach / runs, mean_now = sum_now / runs;
    double se_attach = sqrt(sq_attach / runs - mean_attach * mean_attach) / sqrt((double)runs);
    printf("after an attach (1 MiB at 32 KiB): estimate/truth %.4f (SE %.4f); weighting the "
           "first sample with the interval in force: %.4f\n",
           mean_attach, se_attach, mean_now);
    CHECK(fabs(mean_attach - 1.0) <= 4 * se_attach);
    CHECK(mean_now < 1.0 - 10 * se_attach);
    return check_summary();
}
