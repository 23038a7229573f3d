/*
 * duplicates_int.h - what the files of the duplicate finder share among
 * themselves (duplicates.c: the partition and its refinement; dup_content.c:
 * an object's own content). Not for other parts.
 */
#ifndef HEAPTOP_DUPLICATES_INT_H
#define HEAPTOP_DUPLICATES_INT_H

#include "duplicates.h"

/* Object x's content without its references' targets: class, primitive
 * bytes, and which references are null, in the dump or missing (a missing
 * one by its id), hashed; one constant under ht_dups_collide_for_tests. */
uint64_t ht_dup_content_hash(const ht_snapshot *s, uint32_t x);
/* That content of x and y is equal, byte by byte: the exact test behind
 * every hash match. */
int ht_dup_same_content(const ht_snapshot *s, uint32_t x, uint32_t y);

#endif
