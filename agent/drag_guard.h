/*
 * drag_guard.h - drag mode's cost guard: which instrumented classes are too
 * hot to watch.
 *
 * An injected call into a class with tracked objects looks through the
 * class's slots (heaptop/Drag.seen: up to HT_DRAG_SLOTS weak references
 * compared with the receiver), about 10 ns. A class whose methods run
 * hundreds of millions of times a second (Jython's PyObject: 2e8 a second,
 * every Python object inherits its methods) made the program 3.8x slower
 * on that alone. The helper counts those looks per class; each second the
 * collector hands the counts here, and while all classes together pass the
 * budget the hottest is marked hot. drag.c then lets go of the objects
 * tracked in a hot class and tracks no object whose chain has one (a use in
 * its methods would go unseen): its injected calls cost a read and a branch.
 * A class stays hot until drag mode is turned on again.
 *
 * Owns: per class id, the last count read and the hot mark. Pure C: drag.c
 * reads the counts through JNI. Collector thread only; unit-tested.
 */
#ifndef HEAPTOP_DRAG_GUARD_H
#define HEAPTOP_DRAG_GUARD_H

#include "drag_track.h"

#include <stdint.h>

/* Classes marked hot at one check at most. */
#define HT_DRAG_HOT_PER_CHECK 16

typedef struct ht_drag_guard {
    uint32_t prev[HT_DRAG_MAX_CID + 1]; /* the helper's count at the last check */
    uint8_t hot[HT_DRAG_MAX_CID + 1];
    uint64_t last_ns; /* the last check, 0: none since init */
    uint64_t budget;  /* looks a second */
    uint32_t nhot;
} ht_drag_guard;

/* Every class cold, no baseline: the next check only takes one. budget:
 * looks a second, all classes together (the agent's drag_budget=, 1e7 by
 * default: about 0.1 of a core at 10 ns each); 0: none is ever marked. */
void ht_drag_guard_init(ht_drag_guard *g, uint64_t budget_per_s);

/* One check at now (CLOCK_MONOTONIC ns) with the helper's counts for class
 * ids [0, n) (Java ints read as uint32_t: they wrap, the differences do
 * not). Marks hot the hottest classes while the rest's looks a second pass
 * the budget; writes them to hot[] and their looks a second to rate[] (at
 * most max), hottest first, and returns how many. */
int ht_drag_guard_check(ht_drag_guard *g, const uint32_t *counts, uint32_t n, uint64_t now,
                        uint16_t *hot, uint64_t *rate, int max);

static inline int ht_drag_guard_is_hot(const ht_drag_guard *g, uint16_t cid)
{
    return cid <= HT_DRAG_MAX_CID && g->hot[cid];
}

#endif
