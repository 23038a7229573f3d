/*
 * screen_drag.h - the Drag screen's state and what its two files share
 * (screen_drag.c: the model and keys; screen_drag_cols.c: the columns, the
 * figures as text, the title line and the histogram). Not for other
 * screens: the descriptor, ht_screen_drag, is the screen's interface. UI
 * thread only.
 */
#ifndef HEAPTOP_SCREEN_DRAG_H
#define HEAPTOP_SCREEN_DRAG_H

#include <stddef.h>
#include <stdint.h>

#include "screen.h"

/* What the sites can be sorted by, in the order > steps through them. */
enum {
    DRAG_SORT_DRAG = 0, /* DRAG's upper bound */
    DRAG_SORT_PER_OBJ,  /* DRAG/OBJ */
    DRAG_SORT_LAG,
    DRAG_SORT_USE,
    DRAG_SORT_VOID,
    DRAG_SORT_DEAD,
    DRAG_SORT_SAMPLES,
    DRAG_SORT_TRACKED, /* TRACK% */
    DRAG_SORT_DIFF,    /* DIFF DRAG (hi), the mark's */
    DRAG_SORT_NAME,
    DRAG_NSORT
};

typedef struct drag_screen {
    uint64_t *sites; /* ht_row_key(trace, class) of the rows shown, in order */
    uint32_t n, cap;
    ht_list_pos pos, hpos; /* the list's; the histogram's (no rows) */
    int shown;             /* rows of the list when last drawn (ht_list_fit) */
    int sort, ascending;
    int hist;           /* the histogram of hist_site is shown */
    uint64_t hist_site; /* the row's key (row_key in screen_drag.c) */
    int by_class;       /* g: one row per class, its sites summed; sites[] index classes */
    ht_drag_class_sum *classes;
    uint32_t nclasses;
} drag_screen;

/* The columns kept on this terminal (on a narrow one some give way to the
 * site's name: USE, LAG, TRACK%, SAMPLES, VOID, DEAD in that order), the
 * mark's only while there is a mark. */
enum {
    DCOL_SAMPLES,
    DCOL_TRACKED,
    DCOL_DEAD,
    DCOL_VOID,
    DCOL_LAG,
    DCOL_USE,
    DCOL_DRAG,
    DCOL_PER_OBJ,
    DCOL_DIFF_DEAD,
    DCOL_DIFF_DRAG,
    DCOL_COUNT
};
typedef struct ht_drag_cols {
    uint8_t shown[DCOL_COUNT];
    int utf8;
    int unit; /* ht_unit of the draw */
} ht_drag_cols;
void ht_drag_cols_fit(ht_drag_cols *c, const ht_draw_ctx *d);
/* The column titles, the sorted one marked (v or ^), then "WHAT (n)". */
void ht_drag_title_row(const ht_drag_cols *c, int sort, int ascending, uint32_t n, const char *what,
                       char *line, size_t cap);
/* A row: its figures (r: estimates), then its name (a class's row's:
 * "app.Rec  (3 sites)" when is_class). */
void ht_drag_row_text(const ht_drag_cols *c, const ht_draw_ctx *d, const ht_drag_row_rec *r,
                      const char *name, int is_class, char *line, size_t cap);
/* "app.Rec  app.Main.alloc:42" (" (cut)" when its stack may have been cut). */
void ht_drag_site_name(const ht_store *s, const ht_drag_row_rec *r, char *out, size_t n);
/* The figure a sort compares (DRAG_SORT_NAME: none, 0). */
double ht_drag_sort_value(const ht_drag_row_rec *r, int sort);
const char *ht_drag_sort_name(int sort);
/* The title line: drag mode's state as of the last DRAG_STATE. */
void ht_drag_state_line(const ht_draw_ctx *d, char *line, size_t cap);
/* The histogram of a row's drag times, in the whole area: r as counted, est
 * its estimates, name its name; sites: a class's sites summed (0: a site). */
void ht_drag_hist_draw(const ht_draw_ctx *d, const ht_drag_row_rec *r, const ht_drag_row_rec *est,
                       const char *name, uint32_t sites);

#endif
