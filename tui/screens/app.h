/*
 * app.h - the interactive viewer's state, shared by the loop and the screens.
 *
 * Owns: the connection (replaced on reconnect; the last store is kept when
 * the JVM goes away, so its data can still be browsed and exported) and how
 * fresh its data is, the models built from the store (site tree, class
 * table), filters, sort orders, the screen in front and where it was opened
 * from, cursors, the column layouts last drawn (for clicks), and the
 * line-input state (filter, search, interval, and what Esc restores). Only
 * the UI thread touches it.
 */
#ifndef HEAPTOP_APP_H
#define HEAPTOP_APP_H

#include <stdint.h>

#include "class_table.h"
#include "client.h"
#include "columns.h"
#include "filter.h"
#include "site_tree.h"
#include "target.h"
#include "ui.h"

typedef enum ht_screen {
    HT_SCREEN_TREE = 0,
    HT_SCREEN_CLASSES,
    HT_SCREEN_TELEMETRY,
    HT_SCREEN_HELP,
    HT_SCREEN_COUNT
} ht_screen;

typedef enum ht_input {
    HT_INPUT_NONE = 0,
    HT_INPUT_FILTER,
    HT_INPUT_SEARCH,
    HT_INPUT_INTERVAL
} ht_input;

typedef struct ht_list_pos {
    uint32_t cursor, top;
} ht_list_pos;

typedef struct ht_app {
    ht_ui ui;
    ht_target target; /* what the command line named */
    ht_client *cli;   /* NULL until the first connection */
    ht_store empty;   /* shown before any connection */
    uint64_t next_connect_ms;
    char conn_error[640];
    uint64_t last_data_ms; /* when the stream last brought a message (or we synced) */
    int jvm_gone;          /* lost without a goodbye, and its process no longer runs */
    int quit;

    ht_screen screen, prev_screen;
    ht_site_tree tree, tree_next; /* shown, and being built */
    ht_tree_opts tree_opts;
    ht_list_pos tree_pos;
    ht_class_table classes;
    ht_list_pos class_pos;
    ht_filter class_filter, frame_filter;
    uint32_t only_class;                 /* tree limited to one class (from the class table) */
    ht_screen only_class_from;           /* the screen Enter opened it from: Esc returns there */
    ht_col_layout tree_cols, class_cols; /* as last drawn */

    int frozen, unit; /* unit: 0 auto, 1 B, 2 KiB, 3 MiB */
    int title_row;    /* screen row of the column titles (for mouse clicks) */
    uint64_t built_generation, last_build_ms, last_draw_ms, build_cost_ms;
    int need_build, need_draw;
    int interruptible, key_build; /* may the pending build be abandoned for a key? */
    int hot_path_shown;           /* the hot path was unfolded once */
    int help_top;                 /* first help line shown */

    ht_input input;
    char line[256];
    size_t line_len;
    char line_before[256]; /* the filter when its prompt opened: Esc puts it back */
    char search[256];
    char status[256];
    uint64_t status_ms;
    const char *out_dir;
} ht_app;

uint64_t ht_app_now_ms(void);
const ht_store *ht_app_store(const ht_app *a);
void ht_app_status(ht_app *a, const char *fmt, ...);
/* Rebuild the models from the store (tree and class table). */
void ht_app_build(ht_app *a);
/* Handle one key (app_keys.c). */
void ht_app_key(ht_app *a, int ch);
/* Seconds since the stream last brought data, when that is more than the
 * ~3 s a live JVM never stays silent for (telemetry comes every second); else 0. */
uint64_t ht_app_stale_s(const ht_app *a);

/* The numeric columns of each list screen in display order, and the columns
 * F6/< > cycle through (view_list.c). */
#define HT_TREE_NCOLS   8
#define HT_TREE_NSORTS  7
#define HT_CLASS_NCOLS  8
#define HT_CLASS_NSORTS 9
extern const ht_col HT_TREE_COLS[HT_TREE_NCOLS], HT_TREE_SORTS[HT_TREE_NSORTS];
extern const ht_col HT_CLASS_COLS[HT_CLASS_NCOLS], HT_CLASS_SORTS[HT_CLASS_NSORTS];

/* view_list.c: the numeric columns of the list screens, laid out by
 * columns.h. `cols` in display order; max_abs/has_neg per column; the sorted
 * column is always kept; a name gets at least name_min. */
void ht_list_layout(const ht_app *a, ht_col_layout *l, const ht_col *cols, int n,
                    const double *max_abs, const int *has_neg, ht_col sort, int name_min);
/* The title row: each title right-aligned over its column, the sorted one
 * with v (descending) or ^ (ascending), then name_title. */
void ht_list_title(const ht_app *a, int y, const ht_col_layout *l, ht_col sort, int ascending,
                   const char *name_title);
/* One row's numeric cells (v indexed by ht_col) into line; returns its length. */
size_t ht_list_cells(const ht_app *a, const ht_col_layout *l, const double *v, char *line,
                     size_t n);
/* The next (dir 1) or previous (-1) sort column among a screen's columns. */
ht_col ht_list_next_sort(const ht_col *cols, int n, ht_col cur, int dir);

/* screens (view_*.c): draw into stdscr between the header and the key bar */
void ht_view_tree(ht_app *a, int top, int height);
void ht_view_classes(ht_app *a, int top, int height);
void ht_view_telemetry(ht_app *a, int top, int height);
void ht_view_help(ht_app *a, int top, int height);
int ht_help_lines(void);
/* header.c: the header on every screen, the status/input line and the key bar */
int ht_draw_header(ht_app *a);
void ht_draw_footer(ht_app *a);
/* key bar hit test: the key a click at column x on the bottom line stands for */
int ht_keybar_key_at(const ht_app *a, int x);
/* Keep a cursor inside [0, n) and visible in a window of `height` rows. */
void ht_list_clamp(ht_list_pos *p, uint32_t n, int height);

int ht_tui_main(int argc, char **argv);

#endif
