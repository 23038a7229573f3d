/*
 * screen_refs.h - the reference browser, as the loop opens it on an object
 * (ht_host_browse). UI thread.
 */
#ifndef HEAPTOP_SCREEN_REFS_H
#define HEAPTOP_SCREEN_REFS_H

#include "screen.h"

extern const ht_screen ht_screen_refs, ht_screen_heap, ht_screen_dominators;

/* Show object n next (the one shown now goes on the way back). */
void ht_screen_refs_open(void *state, uint32_t n);

#endif
