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

    /* The +- the screens show (ht_rel_se): the spread of an estimate over
     * many runs against the one the expected sample count gives. Objects
     * small beside the interval: 1/sqrt(n), within 10% (about 10 and about
     * 100 samples); objects as big as the interval: smaller than that (p is
     * near 1, each sample says more). */
    CHECK(isinf(ht_rel_se(0)) && ht_rel_se(1) == 1.0 && fabs(ht_rel_se(100) - 0.1) < 1e-12);
    CHECK(ht_rel_se(HT_FEW_SAMPLES - 1) > 0.3 && ht_rel_se(HT_FEW_SAMPLES) > 0.3 &&
          ht_rel_se(HT_FEW_SAMPLES + 2) < 0.3);
    static const struct {
        uint64_t size, count, interval;
        int exact; /* 1: the error is 1/sqrt(n); 0: at most that */
    } cases[] = {{64, 10000, 65536, 1}, {64, 100000, 65536, 1}, {65536, 200, 32768, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint64_t size = cases[c].size, interval = cases[c].interval;
        double truth = (double)(size * cases[c].count), s1 = 0, s2 = 0, samples = 0;
        const int n = 3000;
        for (int run = 0; run < n; run++) {
            double until = exp_gap(interval), est = 0;
            for (uint64_t k = 0; k < cases[c].count; k++) {
                if ((double)size < until) {
                    until -= (double)size;
                    continue;
                }
                until = exp_gap(interval);
                est += (double)size * ht_sample_weight(size, interval);
                samples++;
            }
            s1 += est / truth;
            s2 += (est / truth) * (est / truth);
        }
        double rse = sqrt(s2 / n - (s1 / n) * (s1 / n)), mean_n = samples / n;
        double said = ht_rel_se((uint64_t)(mean_n + 0.5));
        printf("%llu objects of %llu B at %llu: %.1f samples, spread %.3f, ht_rel_se %.3f\n",
               (unsigned long long)cases[c].count, (unsigned long long)size,
               (unsigned long long)interval, mean_n, rse, said);
        if (cases[c].exact)
            CHECK(fabs(rse / said - 1.0) < 0.1);
        else
            CHECK(rse < said);
    }
    return check_summary();
}
