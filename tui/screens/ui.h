/*
 * ui.h - the terminal: ncurses set-up and tear-down, colours, text helpers.
 *
 * Owns: the only calls that configure ncurses. Colour when the terminal has
 * it, monochrome (attributes only) when it does not or NO_COLOR is set; UTF-8
 * block characters when the locale's codeset is UTF-8 and --ascii was not
 * given. Only the UI thread (the only thread of the viewer) may call here.
 */
#ifndef HEAPTOP_UI_H
#define HEAPTOP_UI_H

#include <curses.h>

typedef enum ht_color {
    HT_C_NORMAL = 0,
    HT_C_HEADER,   /* header labels */
    HT_C_VALUE,    /* header values */
    HT_C_BAR,      /* heap bar fill */
    HT_C_KEY,      /* key-bar key */
    HT_C_KEYLABEL, /* key-bar label */
    HT_C_TITLE,    /* column titles */
    HT_C_SELECTED, /* the cursor row */
    HT_C_DIM,      /* secondary text */
    HT_C_WARN,     /* drops, reconnecting */
    HT_C_GOOD,     /* live */
    HT_C_MARK,     /* running mark */
    HT_C_STALE,    /* figures no longer current: grey */
    HT_C_COUNT
} ht_color;

typedef struct ht_ui {
    int utf8;
    int color;
    int rows, cols;
} ht_ui;

int ht_ui_start(ht_ui *ui, int force_ascii);
void ht_ui_stop(void);
/* Attribute for a role (colour pair or, in monochrome, bold/reverse/dim). */
int ht_ui_attr(const ht_ui *ui, ht_color c);
/* Print at (y, x), at most `width` columns, padding with spaces when pad is set. */
void ht_ui_put(WINDOW *w, int y, int x, int width, int attr, const char *text, int pad);
/* text as it fits in width columns: whole when it fits, else cut before the
 * first word that does not fit (mid-word only when the first word alone is
 * wider) and ended with the sign that something was cut, "\u2026" on a
 * UTF-8 terminal, "..." otherwise. Returns 1 when it cut. */
int ht_ui_fit(const ht_ui *ui, const char *text, int width, char *out, size_t n);
/* The unit byte figures are shown in: automatic (the largest that keeps the
 * number below 10240), or one chosen with the u key, which steps through
 * them in this order. From HT_UNIT_B on, each is 1024 times the one before. */
typedef enum ht_unit {
    HT_UNIT_AUTO = 0,
    HT_UNIT_B,
    HT_UNIT_KIB,
    HT_UNIT_MIB,
    HT_UNIT_COUNT /* how many there are, not a unit */
} ht_unit;
/* "12.3 MiB" and friends, "-4.0 KiB" below zero, in that unit. */
void ht_ui_bytes(double v, ht_unit unit, char *out, size_t n);
/* How wide ht_ui_bytes() can get for values up to max_abs in that unit
 * (neg: some are negative). */
int ht_ui_bytes_width(double max_abs, ht_unit unit, int neg);
/* ht_ui_bytes(), in automatic units when the text would be wider than width. */
void ht_ui_bytes_fit(double v, ht_unit unit, int width, char *out, size_t n);
/* "123", "45k", "6.7M", "8.9G": at most 7 characters below 10^12. */
void ht_ui_count(double v, char *out, size_t n);
/* Can this terminal (TERM) be drawn on? Before ht_ui_start: 0, or -1 with one
 * line in err (an unknown type, or one that cannot address the cursor, such as
 * TERM=dumb). */
/* Standard input and output are terminals (the view reads keys from one).
 * 0, or -1 with one line in err. */
int ht_ui_check_tty(char *err, size_t n);
int ht_ui_check_terminal(char *err, size_t n);

#endif
