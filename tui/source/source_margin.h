/*
 * source_margin.h - the figures of each line of a source file, from stacks.
 *
 * Owns: per line of one file, the sum of the weights of the stacks that
 * pass through it (inclusive: a frame of the stack is on that line, counted
 * once per stack however many frames are) and of those whose leaf frame is
 * on it (self), in two columns: the allocation bytes and the CPU ms. Stacks
 * come through a small iteration (ht_stacks), one per column, so the
 * allocation rows (est_bytes per trace) and the CPU rows (cpu_ms per trace)
 * are each one adapter (source_rows.c); which frames are of the file is the
 * caller's question (in_file), asked once per method id and remembered.
 *
 * Threads: any, one owner; the stacks' source must not change while it is
 * read (the UI thread reads its store). Must never: trust a frame's line
 * (lines past the file's end or below 1 are not counted).
 */
#ifndef HEAPTOP_SOURCE_MARGIN_H
#define HEAPTOP_SOURCE_MARGIN_H

#include <stdint.h>

#include "hashmap.h"
#include "protocol.h"

typedef enum ht_margin_col {
    HT_MARGIN_ALLOC = 0, /* estimated bytes allocated */
    HT_MARGIN_CPU,       /* CPU ms */
    HT_MARGIN_COLS
} ht_margin_col;

typedef struct ht_margin_line {
    double incl[HT_MARGIN_COLS]; /* stacks through the line */
    double self[HT_MARGIN_COLS]; /* stacks whose leaf frame is on the line */
} ht_margin_line;

/* One weighted stack. */
typedef struct ht_stack {
    const ht_frame_rec *frames; /* leaf first */
    uint32_t depth;
    double weight;
} ht_stack;

/* Stacks one at a time: next() fills *out and returns 1, or 0 at the end. */
typedef struct ht_stacks {
    int (*next)(void *ctx, ht_stack *out);
    void *ctx;
} ht_stacks;

/* Is method id's code in the file? (asked once per id) */
typedef int (*ht_in_file)(void *ctx, uint32_t method_id);

typedef struct ht_margin {
    ht_margin_line *lines; /* lines[k]: line k + 1 */
    uint32_t nlines;
    double total[HT_MARGIN_COLS]; /* all stacks' weight, the file's or not */
    int has[HT_MARGIN_COLS];      /* a source of that column was added */
    /* private */
    uint32_t *seen; /* per line: the last stack counted there */
    uint32_t stack;
    ht_map methods; /* method id -> 1 in the file, 2 not */
} ht_margin;

/* A margin of nlines lines, all zero: 0, or -1 out of memory. */
int ht_margin_init(ht_margin *m, uint32_t nlines);
void ht_margin_free(ht_margin *m);
/* Zero every figure and forget which methods are the file's (method ids
 * are a store's: the next add may read another), keeping the lines. */
void ht_margin_clear(ht_margin *m);
/* Add every stack of it to column col. 0, or -1 out of memory. */
int ht_margin_add(ht_margin *m, ht_margin_col col, const ht_stacks *it, ht_in_file in_file,
                  void *fctx);

#endif
