/*
 * store_int.h - store.c's calls into store_cpu.c; not for other callers.
 *
 * Owns nothing: the CPU part of ht_store kept in a file of its own (the store
 * is one module in two files). Same thread rules as store.h.
 */
#ifndef HEAPTOP_STORE_INT_H
#define HEAPTOP_STORE_INT_H

#include "store.h"

/* The body of a validated HT_MSG_CPU_THREADS or HT_MSG_CPU_ROWS. HT_OK or
 * HT_EINTERNAL (out of memory); records past the caps count in cpu_refused. */
int ht_store_cpu_apply(ht_store *s, int type, ht_reader *r);
/* Forget the CPU records, keeping the allocations. */
void ht_store_cpu_clear(ht_store *s);
/* Free what the CPU part holds (after ht_store_cpu_clear). */
void ht_store_cpu_free(ht_store *s);
/* dst's CPU part (empty) a copy of src's, indexes rebuilt, and the stacks
 * the rows use copied into dst's traces. 0, or -1 out of memory (dst keeps
 * what was copied, for ht_store_free). */
int ht_store_cpu_copy(ht_store *dst, const ht_store *src);

#endif
