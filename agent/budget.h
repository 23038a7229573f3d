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
 * The meter (ht_budget_meter) is what the controller is fed with: once a
 * second the collector hands it running totals (samples taken, the sampler's
 * timed callbacks, the process's and the collector's CPU, the clock) and it
 * works out what sampling cost over that second. What the interval controls:
 * every sample taken times the measured price of our callback (GetStackTrace
 * included) plus the JVM's own price of the event (HT_BUDGET_EVENT_NS), and
 * the collector's steps that folded samples (draining, naming, aggregating,
 * sweeping) less what an empty step costs anyway. The collector's fixed work
 * (waking up, publishing, telemetry) does not shrink with a larger interval,
 * so it is not counted against the budget; counted, it made a quiet JVM,
 * whose whole CPU is little more than that, raise its interval to the
 * ceiling. The share reported to users (agent_cpu_pct, and agent_cpu_ms
 * beside it) counts the whole thread. The meter also says which samples the
 * sampler times (time_mask): about 256 a second at any rate, since each timed
 * sample costs two reads of the thread's CPU clock.
 *
 * The CPU sampler (cpu_sampler.h) pays from the same budget: the CPU it
 * spends taking and counting stacks (what grows with the samples, the JVMTI
 * floor included) counts as sampling cost here, so the interval leaves room
 * for it, and the sampler itself lengthens its tick when that alone would
 * take more than half the budget. Its fixed cost (waking each tick, reading
 * the threads' CPU clocks) is counted in the agent's share, not against the
 * budget, as the collector's fixed work is not.
 *
 * Owns: the controller's state and the meter's. Collector thread only; pure C
 * but for ht_budget_meter_init, which times the thread CPU clock. Unit-tested.
 */
#ifndef HEAPTOP_BUDGET_H
#define HEAPTOP_BUDGET_H

#include <stdint.h>

#include "protocol.h"

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

/* What the meter reads at a tick: running totals since the agent started, and
 * the monotonic clock. */
typedef struct ht_budget_reading {
    uint64_t samples;        /* samples taken: drained + dropped */
    uint64_t timed_ns;       /* callback CPU time of the samples the sampler timed */
    uint64_t timed_n;        /* how many it timed */
    uint64_t process_ns;     /* the process's CPU */
    uint64_t self_ns;        /* the collector thread's CPU */
    uint64_t wall_ns;        /* CLOCK_MONOTONIC */
    uint64_t cpu_sampler_ns; /* the CPU sampler's thread's CPU (cpu_sampler.h) */
    uint64_t cpu_floor_ns;   /* of which inside GetStackTrace (the JVMTI floor) */
    uint64_t cpu_stacks_ns;  /* of which taking and counting stacks: what grows with them */
} ht_budget_reading;

typedef struct ht_budget_meter {
    /* --- measured once, at init */
    double clock_ns; /* what one read of the thread CPU clock adds to a timed sample */

    /* --- the collector's steps, running totals (ht_budget_meter_step) */
    uint64_t step_ns;     /* CPU of the steps that folded samples */
    uint64_t busy_steps;  /* how many such steps */
    double empty_step_ns; /* what a step with no sample costs (smoothed) */

    /* --- as of the last tick: what the next one measures from */
    ht_budget_reading last;
    uint64_t last_step_ns, last_busy_steps;

    /* --- what the last tick measured */
    double sample_ns;      /* the price of a sample in our callback (smoothed over ticks) */
    uint64_t rate;         /* samples a second */
    unsigned time_mask;    /* a thread times a sample when its count & mask is 0 */
    double sampling_ns;    /* the CPU the interval controls, over the tick */
    double process_ns;     /* the process's CPU over the tick */
    double wall_ns;        /* the tick's length */
    double agent_cpu_pct;  /* the agent's whole share of the process's CPU */
    double agent_cpu_ms;   /* the same CPU, absolute: ms per second of wall time */
    double cpu_sampler_ms; /* of which the CPU sampler's thread: ms per second */
    double cpu_floor_ms;   /* of which inside GetStackTrace: ms per second */
} ht_budget_meter;

/* A new meter; times the thread CPU clock (clock_ns) on the calling thread. */
void ht_budget_meter_init(ht_budget_meter *m);
/* One collector step took took_ns of this thread's CPU; folded: it had
 * samples to fold. */
void ht_budget_meter_step(ht_budget_meter *m, uint64_t took_ns, int folded);
/* Once a second. 1 when it measured: the figures under "what the last tick
 * measured" are new, and sampling_ns, process_ns and wall_ns are what
 * ht_budget_tick takes; 0 at the first tick (nothing to measure from yet). */
int ht_budget_meter_tick(ht_budget_meter *m, const ht_budget_reading *r);
/* The budget's telemetry fields: base_interval, budget_x100, agent_cpu_pct
 * and agent_cpu_ms_per_s. */
void ht_budget_fill_telemetry(const ht_budget *b, const ht_budget_meter *m, ht_telemetry_rec *r);

#endif
