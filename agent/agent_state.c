/* agent_state.c - see agent_state.h: the one agent instance and the clocks. */
#include "agent_state.h"

#include "clock.h"

ht_agent ht_g;

uint64_t ht_now_ns(void)
{
    return ht_clock_ns(CLOCK_MONOTONIC);
}

uint64_t ht_thread_cpu_ns(void)
{
    uint64_t v = ht_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    return v ? v : 1; /* never 0: the sampler reads 0 as "not timed" */
}

uint64_t ht_process_cpu_ns(void)
{
    return ht_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t ht_agent_ms(void)
{
    uint64_t now = ht_now_ns();
    return now > ht_g.start_ns ? (now - ht_g.start_ns) / 1000000u : 0;
}
