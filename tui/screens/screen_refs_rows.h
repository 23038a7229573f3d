/*
 * screen_refs_rows.h - the reference browser's state and rows, shared by its
 * two files only: screen_refs.c (the rows, the way back, drawing, keys) and
 * screen_refs_export.c (its export). UI thread only.
 */
#ifndef HEAPTOP_SCREEN_REFS_ROWS_H
#define HEAPTOP_SCREEN_REFS_ROWS_H

#include <stdint.h>

#include "analysis.h"
#include "export_heap.h"
#include "heap_list.h"
#include "screen.h"

#define MAX_CHILDREN 200  /* rows of one unfolding */
#define MAX_ELEMENTS 1000 /* an array's elements shown */
#define HISTORY      256
#define MAX_DEPTH    60 /* unfoldings below a top row */

/* A row's kind: the part of the browser it is of, as its export says it. */
enum {
    R_HEADING = HT_REF_PART_HEADING,
    R_FIELD = HT_REF_PART_FIELD,
    R_IN = HT_REF_PART_IN,
    R_OUT = HT_REF_PART_OUT,
    R_PATH = HT_REF_PART_PATH,
    R_MORE = HT_REF_PART_MORE,
    R_FRAME = HT_REF_PART_FRAME, /* where a sampled object was allocated */
};

typedef struct ref_row {
    uint8_t kind, open;
    uint16_t depth;
    uint32_t obj; /* the object the row names (followed by Enter), or HT_NONE */
    char text[240];
} ref_row;

/* Where the cursor was on an object: its row, as the rows are made again.
 * Level 0 is the row at the top level (or the top row it was unfolded
 * under): the ord[0]-th top row of kind[0]; level k, the ord[k]-th child of
 * kind[k] of level k-1's row once that is unfolded. */
typedef struct ref_place {
    uint32_t obj;    /* the object shown */
    uint32_t offset; /* the row's distance from the first row shown */
    uint8_t n;       /* levels */
    uint8_t kind[MAX_DEPTH + 1];
    uint16_t ord[MAX_DEPTH + 1];
} ref_place;

typedef struct refs_screen {
    ht_heaplist_src src;     /* the snapshot shown: obj and back are object numbers of it */
    uint32_t obj;            /* shown, HT_NONE: none yet */
    ref_place back[HISTORY]; /* the way back: each object left, and the row left from */
    uint32_t nback;
    ref_place pending; /* the row to put the cursor on once the rows are made */
    int has_pending;
    int weak;
    ref_row *rows;
    uint32_t nrows, cap;
    ht_list_pos pos;
    int want_rows;  /* obj changed: make the rows at the next build */
    ht_filter f;    /* the class filter: which referring and referred objects are listed */
    ht_store names; /* the dump's own session (sampled.h), for allocation stacks */
    uint64_t names_gen;
} refs_screen;

/* The screen's export hook (screen.h): the rows shown, each with its part
 * and the object it names. */
int ht_refs_export(void *self, ht_host *h, const ht_store *names, ht_export_req *req);

#endif
