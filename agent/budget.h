/*
 * budget.h - the sampling interval that keeps the agent's cost under a share
 * of the process's CPU (the `budget=P%` option).
 *
 * Why: the cost of sampling is samples per second times the cost of a sample,
 * and the sample rate follows the application's allocation rate, so a fixed
 * interval cannot promise a cost. Once a second the collector measures what
 * the agent cost (sampled callback times, the JVM's event, its own thread)
 * against the process's CPU and this module answers with the interval to use:
 * raised when the cost passes the budget, lowered back toward the configured
 * interval (never below it) when it falls well under. The answer moves in
 * bounded steps with a band between raising and lowering, so a steady load
 * settles instead of oscillating. Estimates stay unbiased across the changes
 * (estimate.h: each sample is weighed with the interval its gap was drawn
 * with); fewer samples only widen the error bars.
 *
 * A quiet process (a service waiting for requests) uses a few milliseconds of
 * CPU a second, and the agent's fixed costs (waking up, telemetry, the sweeps
 * after GCs) are then a large share of it whatever the interval: counted as
 * the process's share, they raised a quiet JVM's interval to the ceiling and
 * sampling all but stopped. So the budget takes a process to use at least a
 * quarter of a core: 1% of that is 2.5 ms a second, which a quiet JVM's
 * sampling stays well under, while a busy one is measured as it is.
 *
 * And a cost too small to matter is not worth fewer samples: unless sampling
 * cost HT_BUDGET_MIN_COST_NS of CPU a second (1 ms: 0.1% of one core) in
 * most of the last HT_BUDGET_COST_TICKS ticks, the interval does not rise,
 * whatever share of the process that is (an idle Tomcat showed its agent at
 * 26% of a process that used almost no CPU). Most, not the last one: an idle
 * JVM's sampling measured 0.2 ms a second on a loaded machine, with runs of
 * one or two seconds of 3-10 ms (new stacks to name, a sweep after a GC),
 * and three at start-up. And a raised interval comes back down once the
 * cost is too small to matter at it (under half the floor), to where it
 * lands at three quarters of the floor, as it does once the share is well
 * under the budget.
 *
 * Owns: the controller's state. Pure C, collector thread only, unit-tested.
 */
#ifndef HEAPTOP_BUDGET_H
#define HEAPTOP_BUDGET_H

#include <stdint.h>

/* The highest the budget raises the interval: 64x the configured one (32 MiB
 * from 512 KiB), at least 4 MiB. Past it a sample stands for so much that one
 * run's figures say little; the cost may then pass the budget, and the
 * telemetry shows it. */
#define HT_BUDGET_MAX_FACTOR  64.0
#define HT_BUDGET_MIN_CEILING (4.0 * 1024 * 1024)
#define HT_BUDGET_EVENT_NS                                                                         \
    500.0 /* the JVM's own price of one sampling event, outside our                                \
             callback (measured 456 ns, tests/bench/overhead.py) */

/* Sampling that costs less CPU than this a second (ns) never raises the
 * interval: 1 ms a second. */
#define HT_BUDGET_MIN_COST_NS 1e6
#define HT_BUDGET_COST_TICKS  5 /* "most": 3 of them */

typedef struct ht_budget {
    uint32_t budget_x100; /* hundredths of a percent of the process's CPU; 0 = off */
    uint64_t base;        /* the configured interval: the floor */
    uint64_t interval;    /* the interval the agent should use now */
    double share;         /* the agent's share of the process's CPU in the last tick, 0..1 */
    double load;          /* smoothed share x interval: the share at a 1-byte interval */
    double cost;          /* smoothed sampling CPU (ns a second) x interval, as `load` */
    uint32_t costly;      /* bit i: sampling cost HT_BUDGET_MIN_COST_NS a second i ticks ago */
    int low_ticks;        /* ticks in a row well under the budget */
    int high_ticks;       /* ticks in a row over the budget */
} ht_budget;

void ht_budget_init(ht_budget *b, uint32_t budget_x100, uint64_t base);
/* One tick: the agent's CPU time and the process's over the same span, and
 * that span's length (ns). Returns the interval to use (the same when nothing
 * should change). */
uint64_t ht_budget_tick(ht_budget *b, double agent_ns, double process_ns, double wall_ns);

#endif
