/* drag_guard.c - see drag_guard.h. */
#include "drag_guard.h"

#include <string.h>

void ht_drag_guard_init(ht_drag_guard *g, uint64_t budget_per_s)
{
    memset(g, 0, sizeof *g);
    g->budget = budget_per_s;
}

int ht_drag_guard_check(ht_drag_guard *g, const uint32_t *counts, uint32_t n, uint64_t now,
                        uint16_t *hot, uint64_t *rate, int max)
{
    if (n > HT_DRAG_MAX_CID + 1) n = HT_DRAG_MAX_CID + 1;
    uint64_t dt = g->last_ns && now > g->last_ns ? now - g->last_ns : 0;
    int first = g->last_ns == 0;
    g->last_ns = now;
    if (first || dt == 0 || g->budget == 0) {
        memcpy(g->prev, counts, n * sizeof *counts);
        return 0;
    }
    /* the looks since the last check, cold classes only */
    uint64_t total = 0;
    for (uint32_t c = 1; c < n; c++)
        if (!g->hot[c]) total += (uint32_t)(counts[c] - g->prev[c]);
    /* the budget for dt, in looks: budget * dt / 1 s, without overflow */
    long double allowed = (long double)g->budget * (long double)dt / 1e9L;
    int k = 0;
    while ((long double)total > allowed && k < max && k < HT_DRAG_HOT_PER_CHECK) {
        uint32_t best = 0, most = 0;
        for (uint32_t c = 1; c < n; c++) {
            uint32_t d = counts[c] - g->prev[c];
            if (!g->hot[c] && d > most) {
                most = d;
                best = c;
            }
        }
        if (!best) break;
        g->hot[best] = 1;
        g->nhot++;
        total -= most;
        hot[k] = (uint16_t)best;
        rate[k] = (uint64_t)((long double)most * 1e9L / (long double)dt);
        k++;
    }
    memcpy(g->prev, counts, n * sizeof *counts);
    return k;
}
