/* budget.c - see budget.h. */
#include "budget.h"

#include "clock.h"

#include <string.h>

/* The figure that does not move when the interval does: the share sampling
 * would cost at an interval of one byte (share x interval), smoothed over a
 * few ticks so one noisy second does not move the interval. */
static const double SMOOTH = 0.4; /* weight of the newest tick */
/* Land at AIM of the budget. Raise when the share at the current interval is
 * over the budget for RAISE_AFTER ticks in a row (one costly second, a burst
 * of new stacks, is not yet a trend), at once when FAR_OVER it. Lower when it
 * is under LOWER_BELOW of the budget for LOWER_AFTER ticks: the lowered
 * interval lands at AIM at most, so it does not bounce back up. */
static const double AIM = 0.75, FAR_OVER = 3.0, LOWER_BELOW = 0.5;
enum { RAISE_AFTER = 2, LOWER_AFTER = 2 };
/* Steps per tick: a burst is answered within a few seconds; coming back is
 * gentler (and waits for two quiet ticks). */
static const double MAX_RAISE = 4.0, MAX_LOWER = 4.0;
/* A tick with less process CPU says nothing. */
static const double MIN_PROCESS_NS = 5e6;
/* The least CPU the budget takes a process to use, in cores (budget.h). */
static const double MIN_CORES = 0.25;

void ht_budget_init(ht_budget *b, uint32_t budget_x100, uint64_t base)
{
    memset(b, 0, sizeof *b);
    b->budget_x100 = budget_x100;
    b->base = base;
    b->interval = base;
}

uint64_t ht_budget_tick(ht_budget *b, double agent_ns, double process_ns, double wall_ns)
{
    if (process_ns < MIN_PROCESS_NS || agent_ns < 0) return b->interval;
    /* a process that uses less than a quarter of a core is priced as if it
     * used that much (budget.h) */
    if (process_ns < MIN_CORES * wall_ns) process_ns = MIN_CORES * wall_ns;
    b->share = agent_ns / process_ns;
    if (!b->budget_x100) return b->interval = b->base;
    double budget = b->budget_x100 / 10000.0;
    double cur = b->interval < 1024 ? 1024.0 : (double)b->interval;
    double load = b->share * cur;
    b->load = b->load > 0 ? SMOOTH * load + (1 - SMOOTH) * b->load : load;
    /* the share at interval x is load / x: the interval that lands at the aim */
    double expected = b->load / cur, want = b->load / (budget * AIM);
    /* what sampling cost a second, and smoothed as the share is: the cost at
     * interval x is b->cost / x. Under the floor in most of the last ticks it
     * is too little to be worth fewer samples (budget.h). */
    double cost = agent_ns * 1e9 / (wall_ns > 0 ? wall_ns : 1e9);
    b->cost = b->cost > 0 ? SMOOTH * cost * cur + (1 - SMOOTH) * b->cost : cost * cur;
    b->costly =
        (b->costly << 1 | (cost >= HT_BUDGET_MIN_COST_NS)) & ((1u << HT_BUDGET_COST_TICKS) - 1);
    int matters = __builtin_popcount(b->costly) > HT_BUDGET_COST_TICKS / 2;
    double cost_now = b->cost / cur, floor_want = b->cost / (HT_BUDGET_MIN_COST_NS * AIM);
    if (expected > budget && matters) {
        b->low_ticks = 0;
        if (++b->high_ticks < RAISE_AFTER && expected < budget * FAR_OVER) return b->interval;
        if (want > cur * MAX_RAISE) want = cur * MAX_RAISE;
    } else if (b->interval > b->base && (expected < budget * LOWER_BELOW ||
                                         cost_now < HT_BUDGET_MIN_COST_NS * LOWER_BELOW)) {
        b->high_ticks = 0;
        if (++b->low_ticks < LOWER_AFTER) return b->interval;
        /* the lowest interval where either figure lands at its aim */
        if (cost_now < HT_BUDGET_MIN_COST_NS * LOWER_BELOW && floor_want < want) want = floor_want;
        if (want < cur / MAX_LOWER) want = cur / MAX_LOWER;
    } else if (expected > budget) {
        b->low_ticks = 0;
        b->high_ticks++;
        return b->interval; /* over the share, but too little to matter: hold */
    } else {
        b->low_ticks = b->high_ticks = 0;
        return b->interval; /* inside the band: hold */
    }
    /* near the configured interval is the configured interval: a few KiB
     * above it changes nothing a user would want, and reads as "raised" */
    if (want < (double)b->base * 17.0 / 16.0) want = (double)b->base;
    /* The ceiling: past it a sample stands for so much that one run's figures
     * say little (each sample's weight grows with the interval). */
    double ceiling = (double)b->base * HT_BUDGET_MAX_FACTOR;
    if (ceiling < HT_BUDGET_MIN_CEILING) ceiling = HT_BUDGET_MIN_CEILING;
    if (want > ceiling) want = ceiling;
    if (want > (double)HT_MAX_INTERVAL) want = (double)HT_MAX_INTERVAL;
    /* whole KiB: nicer to read, and small wobbles do not reach the JVM */
    uint64_t next = (uint64_t)want;
    if (next > b->base) next = (next + 512) / 1024 * 1024;
    if (next > HT_MAX_INTERVAL) next = HT_MAX_INTERVAL;
    if (next < b->base) next = b->base;
    b->low_ticks = b->high_ticks = 0;
    b->interval = next;
    return next;
}

/* What a timed sample's figure holds beyond the sample: one read of the
 * thread's CPU clock, a system call of ~1.3 us on this kvm guest (more than a
 * sample at a small interval). The least of a few back-to-back pairs. */
static double clock_read_ns(void)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = ht_clock_ns(CLOCK_THREAD_CPUTIME_ID), b = ht_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        if (b >= a && b - a < least) least = b - a;
    }
    return least == UINT64_MAX ? 0 : (double)least;
}

void ht_budget_meter_init(ht_budget_meter *m)
{
    *m = (ht_budget_meter){.clock_ns = clock_read_ns()};
}

void ht_budget_meter_step(ht_budget_meter *m, uint64_t took_ns, int folded)
{
    if (folded) {
        m->step_ns += took_ns;
        m->busy_steps++;
    } else { /* what a step costs with nothing to fold: no interval lowers it */
        m->empty_step_ns =
            m->empty_step_ns > 0 ? 0.9 * m->empty_step_ns + 0.1 * (double)took_ns : (double)took_ns;
    }
}

/* Which samples a thread times (its count & mask == 0): about TIMED_PER_TICK
 * a second at any rate. Timing each costs two clock reads (clock_read_ns), so
 * timing many would itself be a cost the budget must pay. */
enum { TIMED_PER_TICK = 256, MAX_TIME_SHIFT = 12 };
static unsigned time_mask_for(uint64_t nsamples)
{
    unsigned k = 0;
    while (k < MAX_TIME_SHIFT && (nsamples >> (k + 1)) >= TIMED_PER_TICK)
        k++;
    return (1u << k) - 1;
}

int ht_budget_meter_tick(ht_budget_meter *m, const ht_budget_reading *r)
{
    const ht_budget_reading *last = &m->last;
    uint64_t nsamples = r->samples - last->samples, ntimed = r->timed_n - last->timed_n;
    if (ntimed >= 4) { /* smoothed over ticks: a few slow samples are not a trend */
        double now = (double)(r->timed_ns - last->timed_ns) / (double)ntimed - m->clock_ns;
        if (now < 0) now = 0;
        m->sample_ns = m->sample_ns > 0 ? 0.5 * now + 0.5 * m->sample_ns : now;
    }
    double callbacks = (double)nsamples * (m->sample_ns + HT_BUDGET_EVENT_NS);
    /* the collector's share that follows the samples (budget.h) */
    double folding = (double)(m->step_ns - m->last_step_ns) -
                     (double)(m->busy_steps - m->last_busy_steps) * m->empty_step_ns;
    double cpu_sampler = (double)(r->cpu_sampler_ns - last->cpu_sampler_ns);
    double cpu_floor = (double)(r->cpu_floor_ns - last->cpu_floor_ns);
    double whole = callbacks + (double)(r->self_ns - last->self_ns) + cpu_sampler;
    int first = last->process_ns == 0;
    m->sampling_ns =
        callbacks + (folding > 0 ? folding : 0) + (double)(r->cpu_stacks_ns - last->cpu_stacks_ns);
    m->process_ns = (double)(r->process_ns - last->process_ns);
    m->wall_ns = (double)(r->wall_ns - last->wall_ns);
    m->rate = m->wall_ns > 0 ? (uint64_t)((double)nsamples * 1e9 / m->wall_ns) : 0;
    m->last = *r;
    m->last_step_ns = m->step_ns;
    m->last_busy_steps = m->busy_steps;
    if (first) return 0; /* a tick at start-up: no samples yet to set the mask by */
    m->time_mask = time_mask_for(nsamples);
    m->agent_cpu_pct = m->process_ns > 0 ? 100.0 * whole / m->process_ns : 0;
    /* and in ms a second: a share of an idle process's little CPU looks big
     * (26% of an idle Tomcat) where the time itself is next to nothing */
    m->agent_cpu_ms = m->wall_ns > 0 ? 1e3 * whole / m->wall_ns : 0;
    m->cpu_sampler_ms = m->wall_ns > 0 ? 1e3 * cpu_sampler / m->wall_ns : 0;
    m->cpu_floor_ms = m->wall_ns > 0 ? 1e3 * cpu_floor / m->wall_ns : 0;
    return 1;
}

void ht_budget_fill_telemetry(const ht_budget *b, const ht_budget_meter *m, ht_telemetry_rec *r)
{
    r->base_interval = b->base;
    r->budget_x100 = b->budget_x100;
    r->agent_cpu_pct = m->agent_cpu_pct;
    r->agent_cpu_ms_per_s = m->agent_cpu_ms;
    r->cpu_sampler_ms_per_s = m->cpu_sampler_ms;
    r->cpu_floor_ms_per_s = m->cpu_floor_ms;
}
