/*
 * heap_rows.h - what the heap screens (heap classes, dominators, references)
 * draw alike: a title row, a row's sizes in the unit chosen, and an object
 * in words ("java.util.ArrayList @0x7f01234 \"text\""). UI thread; draws
 * only inside the area given.
 */
#ifndef HEAPTOP_HEAP_ROWS_H
#define HEAPTOP_HEAP_ROWS_H

#include "analysis.h"
#include "screen.h"

#include <stddef.h>

/* "java.util.ArrayList @0x7f01234" and its preview, cut to cap. */
void ht_heaprow_object_text(const ht_heap *x, uint32_t n, char *buf, size_t cap);
/* The loader of class c in words: "boot", its name ("app", "platform") when
 * it has one, else its class ("demo.PluginLoader"). */
void ht_heaprow_loader_text(const ht_heap *x, uint32_t c, char *buf, size_t cap);
/* Bytes as the unit key says (d->unit), right-aligned in width. */
void ht_heaprow_bytes(const ht_draw_ctx *d, uint64_t v, int width, char *buf, size_t cap);
/* The line shown when no snapshot is loaded. */
void ht_heaprow_none(const ht_draw_ctx *d);
/* One row at area row r (0: the title row), selected or not. */
void ht_heaprow_row(const ht_draw_ctx *d, int r, int selected, const char *text);
/* 1 when st holds the agent run that marked snapshot x (sampled.h: its pid
 * and start), so st's trace and class ids name x's sampled objects; 0 for
 * another run (the agent restarted after a detach: ids start again), or a
 * snapshot without the marker. */
int ht_heaprow_same_run(const ht_store *st, const ht_heap *x);

#endif
