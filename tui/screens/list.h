/*
 * list.h - what the list screens share. The allocation tree and the
 * classes: the numeric columns of a row, laid out by columns.h for the
 * terminal's width and the chosen unit, the title row with the sort marker,
 * the cells of a row, what a sort key means for a list's column and
 * direction. Every list (the heap screens', the console's too): its window,
 * where it starts as its rows and its height change (ht_list_fit), and the
 * marks on its title row that say rows are hidden above or below it.
 * UI thread; draws into stdscr only through the area it is given.
 */
#ifndef HEAPTOP_LIST_H
#define HEAPTOP_LIST_H

#include <stddef.h>

#include "columns.h"
#include "screen.h"

/* The numeric columns: `cols` in display order; max_abs/has_neg per column;
 * the sorted column is always kept; a name gets at least name_min. */
void ht_list_layout(const ht_draw_ctx *d, ht_col_layout *l, const ht_col *cols, int n,
                    const double *max_abs, const int *has_neg, ht_col sort, int name_min);
/* The title row (the area's first): each title right-aligned over its
 * column, the sorted one with v (descending) or ^ (ascending), then
 * name_title. */
void ht_list_title(const ht_draw_ctx *d, const ht_col_layout *l, ht_col sort, int ascending,
                   const char *name_title);
/* One row's numeric cells (v indexed by ht_col) into line; returns its length. */
size_t ht_list_cells(const ht_draw_ctx *d, const ht_col_layout *l, const double *v, char *line,
                     size_t n);
/* The next (dir 1) or previous (-1) sort column among a screen's columns. */
ht_col ht_list_next_sort(const ht_col *cols, int n, ht_col cur, int dir);
/* Apply a sort key to a list's column and direction: a new column sorts
 * largest first, the same one clicked again reverses. `cycle` holds the
 * columns < > step through. */
void ht_list_sort_op(ht_col *col, int *ascending, ht_sort_op op, ht_col by, const ht_col *cycle,
                     int n);

/* A list's window at draw time, in place of ht_list_clamp there: the
 * cursor kept inside [0, n) and on screen, and when the window is taller
 * than when last drawn (a line above it gone: a header line that comes and
 * goes, a filter cleared), the rows it gains shown above first, so that a
 * list such a line pushed down by a row comes back to where it was.
 * *shown: the list's height when last drawn (0 before the first draw). */
void ht_list_fit(ht_list_pos *p, int *shown, uint32_t n, int height);
/* After a list is drawn: when rows are hidden above or below its window
 * of `height` rows, say how many at the right end of line y, the list's
 * title row ("^ 12 above v 30 below"; arrows in UTF-8), where no row's
 * text is covered. */
void ht_list_more(const ht_draw_ctx *d, const ht_list_pos *p, uint32_t n, int y, int height);

/* The search key's walk over a list: from the cursor (itself included when
 * from_cursor) forward or backward, wrapping, to the first row i for which
 * has(ctx, i, text) holds; moves the cursor there and returns 1, else 0. */
int ht_list_search(ht_list_pos *pos, uint32_t nrows, const char *text, int forward, int from_cursor,
                   int (*has)(void *ctx, uint32_t i, const char *text), void *ctx);

#endif
