/*
 * app.h - the interactive viewer's state, shared by the loop and the screens.
 *
 * Owns: the connection (replaced on reconnect; the last store is kept when
 * the JVM goes away, so its data can still be browsed and exported), the
 * models built from the store (site tree, class table), filters, the
 * screen in front, cursors, and the line-input state (filter, search,
 * interval). Only the UI thread touches it.
 */
#ifndef HEAPTOP_APP_H
#define HEAPTOP_APP_H

#include <stdint.h>

#include "class_table.h"
#include "client.h"
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
    int quit;

    ht_screen screen, prev_screen;
    ht_site_tree tree, tree_next; /* shown, and being built */
    ht_tree_opts tree_opts;
    ht_list_pos tree_pos;
    ht_class_table classes;
    ht_list_pos class_pos;
    ht_filter class_filter, frame_filter;
    uint32_t only_class; /* tree limited to one class (from the class table) */

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
