/*
 * heap_list.h - what the heap screens' lists share (heap classes,
 * dominators, references, Compare, duplicates), as htop's Panel is what its
 * screens share; each screen keeps only what differs: its model, its order,
 * its row text, its keys.
 *
 * Owns: the guard on the snapshot a screen's rows are of (a new snapshot
 * frees the old, so rows of another generation name nothing); a list of
 * indexes into a screen's model, those the class filter leaves, sorted, with
 * the cursor kept on its row through a new sort or filter; the search key's
 * walk by a row's name; drawing a list's rows under its title row; the
 * export request of the rows shown (their CSV layouts: export_heap.h).
 * UI thread only; draws only inside the area given.
 */
#ifndef HEAPTOP_HEAP_LIST_H
#define HEAPTOP_HEAP_LIST_H

#include "analysis.h"
#include "screen.h"

#include <stddef.h>

/* The snapshot a screen's rows are of: x, as the loop's generation counter
 * *gen_now stood when they were made. */
typedef struct ht_heaplist_src {
    struct ht_heap *x;       /* NULL: none */
    const uint64_t *gen_now; /* the loop's generation (ht_build_ctx) */
    uint64_t gen;            /* x's */
} ht_heaplist_src;

/* 1 while the rows are of the snapshot the loop holds: touch them only then. */
int ht_heaplist_current(const ht_heaplist_src *s);
/* 1 when s is snapshot x at the generation *gen_now says now (a build with
 * nothing new). */
int ht_heaplist_is(const ht_heaplist_src *s, const struct ht_heap *x, const uint64_t *gen_now);
/* s := snapshot x at the generation *gen_now says now. */
void ht_heaplist_take(ht_heaplist_src *s, struct ht_heap *x, const uint64_t *gen_now);
/* 1 when d draws the snapshot s is of; 0: the screen says there is none. */
int ht_heaplist_drawn(const ht_heaplist_src *s, const ht_draw_ctx *d);

/* A list of indexes into a screen's model (its classes, groups, rows). */
typedef struct ht_heaplist {
    uint32_t *rows, n;   /* those the filter leaves, sorted (NULL: not made) */
    int sort, ascending; /* the screen's sort key, and its order */
    ht_list_pos pos;
    int shown; /* rows of the list when last drawn (ht_list_fit) */
} ht_heaplist;

/* What the class filter and the search match of index i (NULL: never
 * listed). */
typedef const char *(*ht_heaplist_name_fn)(const void *ctx, uint32_t i);
/* qsort_r's order of two indexes. */
typedef int (*ht_heaplist_cmp_fn)(const void *a, const void *b, void *ctx);
/* Row i's text into buf (drawing). */
typedef void (*ht_heaplist_line_fn)(void *ctx, const ht_draw_ctx *d, uint32_t i, char *buf,
                                    size_t cap);

/* The index under the cursor, HT_NONE when there is none. */
uint32_t ht_heaplist_at(const ht_heaplist *l);
/* The rows anew: of the indexes 0 .. total-1 those whose name f matches,
 * sorted by cmp; the cursor goes to index keep when that is among them
 * (else, or HT_NONE, it stays where it is). 0, or -1 out of memory. */
int ht_heaplist_fill(ht_heaplist *l, uint32_t total, const ht_filter *f, ht_heaplist_name_fn name,
                     ht_heaplist_cmp_fn cmp, void *ctx, uint32_t keep);
/* Sorted again (l->sort or l->ascending changed): the cursor stays on its
 * row. */
void ht_heaplist_resort(ht_heaplist *l, ht_heaplist_cmp_fn cmp, void *ctx);
/* The sort keys (0 .. nsort-1) stepped by < > (next, previous: the key's
 * default order, ascending only for name_key; -1: none is) or reversed. */
void ht_heaplist_step(ht_heaplist *l, ht_sort_op op, int nsort, int name_key);
/* The search key: the next row whose name holds text (ht_list_search). */
int ht_heaplist_search(ht_heaplist *l, const char *text, int forward, int from_cursor,
                       ht_heaplist_name_fn name, const void *ctx);
/* The rows freed: none made. */
void ht_heaplist_free(ht_heaplist *l);

/* A list of n rows at area rows y0.. under its title row (y0 - 1), the
 * window fitted (ht_list_fit) to the area's height below the title: each
 * row's text from line(ctx, d, i, ...), the cursor's selected, then how many
 * are hidden said on the title row; with no rows, `empty` (NULL: nothing) in
 * the first row's place, dim. */
void ht_heaplist_draw(const ht_draw_ctx *d, ht_list_pos *pos, int *shown, uint32_t n, int y0,
                      const char *empty, ht_heaplist_line_fn line, void *ctx);

/* The export request of the rows shown: view (file name and summary), sort
 * "KEY asc|desc" (key NULL: unsorted), the lens's class filter as the rows
 * were made with it, and the copy of the rows with their writer and free
 * (export_heap.h's). */
void ht_heaplist_export(ht_export_req *req, ht_host *h, const char *view, const char *key,
                        int ascending, void *rows,
                        int (*write)(const void *rows, const ht_store *s, const char *path,
                                     const ht_progress *p),
                        void (*free_rows)(void *rows));

#endif
