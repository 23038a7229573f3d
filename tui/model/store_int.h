/*
 * store_int.h - store.c's calls into store_cpu.c; not for other callers.
 *
 * Owns nothing: the CPU and drag parts of ht_store kept in files of their own
 * (the store is one module in three files). Same thread rules as store.h.
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

/* Copy stack `id` of src into dst's traces (sized as src's), once. 0, or -1
 * out of memory. */
int ht_store_copy_trace(ht_store *dst, const ht_store *src, uint32_t id);

/* The body of a validated HT_MSG_DRAG_STATE or HT_MSG_DRAG_ROWS. HT_OK or
 * HT_EINTERNAL (out of memory); rows past the cap count in drag_refused. */
int ht_store_drag_apply(ht_store *s, int type, ht_reader *r);
/* Forget the drag state and rows, keeping the allocations. */
void ht_store_drag_clear(ht_store *s);
/* Free what the drag part holds (after ht_store_drag_clear). */
void ht_store_drag_free(ht_store *s);
/* dst's drag part (empty) a copy of src's, index rebuilt, and the stacks the
 * rows use copied into dst's traces. 0, or -1 out of memory. */
int ht_store_drag_copy(ht_store *dst, const ht_store *src);

#endif
