/*
 * screen_refs.h - the reference browser, as the loop opens it on an object
 * (ht_host_browse), and the heap screens the loop brings up (heap classes
 * after a snapshot, Compare after heaptop open A B). UI thread.
 */
#ifndef HEAPTOP_SCREEN_REFS_H
#define HEAPTOP_SCREEN_REFS_H

#include "screen.h"

extern const ht_screen ht_screen_refs, ht_screen_heap, ht_screen_dominators, ht_screen_compare;

struct ht_heap;
/* Show object n of snapshot x (generation *gen) next: the one shown now goes
 * on the way back, unless it was of another snapshot. */
void ht_screen_refs_open(void *state, struct ht_heap *x, const uint64_t *gen, uint32_t n);

#endif
