/*
 * screen_behaviour_rows.h - the Behaviour screen's state, shared by its
 * three files only: screen_behaviour.c (the ranking: rows, sort, filter,
 * search, export, the keys), screen_behaviour_paths.c (one node's
 * hourglass: its forward paths up to ROOT, its backward paths down, as
 * foldable rows, and the edges the cycle rule dropped) and
 * screen_behaviour_cols.c (the columns a width keeps, figures as text).
 * UI thread only.
 */
#ifndef HEAPTOP_SCREEN_BEHAVIOUR_ROWS_H
#define HEAPTOP_SCREEN_BEHAVIOUR_ROWS_H

#include <stdint.h>

#include "analysis.h"
#include "behaviour.h"
#include "heap_list.h"
#include "screen.h"

#define BHV_T_STEPS      20    /* thresholds in twentieths: 1 (0.05) .. 20 (1) */
#define BHV_T_DEFAULT    2     /* 0.1, the paper's */
#define BHV_MAX_CHILDREN 200   /* rows of one unfolding */
#define BHV_MAX_ROWS     20000 /* rows of one hourglass, whatever is unfolded */
#define BHV_MAX_DEPTH    60

/* A row of the hourglass: a heading, an edge met going up (its `from` is
 * the row's node) or down (its `to`), the children of one unfolding not
 * shown, or an edge of the node the cycle rule dropped (kept 0: its other
 * end is the row's node). */
enum { BHV_HEADING, BHV_UP, BHV_DOWN, BHV_MORE, BHV_DROP };

/* The ranking's columns, left to right (the sort keys' order too). */
enum {
    BHV_COL_RANK,
    BHV_COL_UNITS,
    BHV_COL_OBJECTS,
    BHV_COL_MC,
    BHV_COL_MD,
    BHV_COL_MCC,
    BHV_COL_HEAP,
    BHV_COL_BR,
    BHV_COL_COVER,
    BHV_COL_RET,
    BHV_COL_EST,
    BHV_COL_FLAG,
    BHV_NCOLS
};

typedef struct bhv_row {
    uint8_t kind, open;
    uint16_t depth;
    uint32_t edge; /* BHV_UP, BHV_DOWN, BHV_DROP: an index into the edges */
    uint32_t more; /* BHV_MORE: how many were left out; BHV_HEADING: 0 up, 1 down, 2 dropped */
} bhv_row;

typedef struct bhv_screen {
    ht_heaplist_src src; /* the snapshot the rows are of */
    char filter[HT_FILTER_MAX_TEXT];
    ht_heaplist list; /* node indexes (ROOT never listed) */
    /* per node: its name, and a Cycle_N's classes ("Cycle_1 {demo.A, demo.B}"),
     * what the filter and the search match; its branches and coverage at t1 */
    char **label;
    uint32_t *branches;
    double *coverage;
    uint32_t nnodes;
    int t1, t2; /* in twentieths */
    /* the hourglass of one node (HT_NONE: the ranking is shown) */
    uint32_t node;
    uint8_t *up, *down; /* per edge: on the node's forward, backward paths */
    uint32_t nup, ndown, ndropped;
    /* per node: unfolded on a row going up, down (its subtree is shown
     * there; another row of it says "shown above" and does not unfold) */
    uint8_t *open_up, *open_down;
    bhv_row *rows;
    uint32_t nrows, cap;
    int truncated; /* an unfolding stopped at BHV_MAX_ROWS */
    ht_list_pos hpos;
    int hshown;
} bhv_screen;

static inline double bhv_t(int steps)
{
    return steps / (double)BHV_T_STEPS;
}

static inline const ht_behaviour *bhv_of(const bhv_screen *v)
{
    return &v->src.x->bhv;
}

/* screen_behaviour_paths.c: the hourglass of node n at the screen's t1 and
 * t2 (made anew: after a new node or threshold), unfolded as far as a page
 * of rows goes. 0, or -1 out of memory (then none is shown). */
int ht_bhv_glass_open(bhv_screen *v, uint32_t n);
/* Back to the ranking: the hourglass's rows freed. */
void ht_bhv_glass_close(bhv_screen *v);
void ht_bhv_glass_draw(bhv_screen *v, const ht_draw_ctx *d);
/* The node of the row under the cursor (the hourglass's own node on a
 * heading), HT_NONE when there is none. */
uint32_t ht_bhv_glass_node_at(const bhv_screen *v);
/* Right, Left, '*' on the hourglass: unfold the row under the cursor, fold
 * it (or go to its parent), unfold all below it as far as the caps go. */
void ht_bhv_glass_unfold(bhv_screen *v, ht_host *h, int all);
void ht_bhv_glass_fold(bhv_screen *v);
int ht_bhv_glass_search(bhv_screen *v, const char *text, int forward, int from_cursor);

/* screen_behaviour_cols.c: which columns a width keeps (NODE keeps room:
 * OBJECTS, %HEAP, COVER, UNITS, MCC give way, in that order); the title
 * row (sorted: the sort key's name); node n's row; EST/RET's text ("1.00x",
 * "9.2kx", "-" when retained is 0); a DR or CR ("0.250", "<0.001", "-" for
 * NaN); the line at the foot of the area naming node n whole. */
void ht_bhv_cols_fit(int width, uint8_t shown[BHV_NCOLS]);
void ht_bhv_title_row(const bhv_screen *v, const ht_draw_ctx *d, const char *sorted, char *line,
                      size_t cap);
void ht_bhv_node_row(const bhv_screen *v, const ht_draw_ctx *d, uint32_t n, char *line, size_t cap);
void ht_bhv_est_text(uint64_t retained, double est, char *buf, size_t cap);
void ht_bhv_ratio_text(double v, char *buf, size_t cap);
void ht_bhv_selected_line(const bhv_screen *v, const ht_draw_ctx *d, uint32_t n);

#endif
