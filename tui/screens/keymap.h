/*
 * keymap.h - key bindings (screen.h's ht_binding tables): which binding a key
 * means, the names of keys, and the key bar and the help, generated from the
 * tables that dispatch, so that neither can list a key that does nothing or
 * miss one that does something.
 *
 * The help is the global table (app_keys.c) read top to bottom, with every
 * screen's own keys, under its heading, where the global table says
 * HT_KEY_SCREENS, wrapped to the terminal's width: an entry's text wraps
 * under itself (never a word cut), and a part meant to sit on the right of
 * the line before (HT_KEY_RIGHT) gets a line of its own where it would not
 * fit whole. The key bar is the function keys in order, each with the
 * label of its binding on the screen in front, else the global one, else the
 * first screen that binds it (so a key keeps its place on the bar as screens
 * change, as htop's does). UI thread; pure formatting, no drawing.
 */
#ifndef HEAPTOP_KEYMAP_H
#define HEAPTOP_KEYMAP_H

#include <stddef.h>

#include "screen.h"

/* The keys every screen has (app_keys.c). */
extern const ht_binding ht_global_keys[];

/* The binding of ch in table (NULL: none): among the bindings for the
 * screen itself (child 0), or for the screen it opened (child 1). */
const ht_binding *ht_keymap_find(const ht_binding *table, int ch, int child);
/* How the help names a key: "F5", "Enter", "Ctrl-L", "PgDn", "t". */
void ht_key_name(int ch, char *out, size_t n);

/* Lines the help may have: 80 at 120 columns, 120 at 80, with room for
 * more keys; at 40 columns the lines past it are left out. */
#define HT_HELP_MAX 320
typedef struct ht_help_line {
    char text[192];
    int heading;
} ht_help_line;
/* The help's lines, none longer than width columns (191 at most), into
 * lines[0..max); the number of lines it has (also with lines NULL). */
int ht_keymap_help(ht_help_line *lines, int max, int width);

typedef struct ht_keybar_slot {
    int key;           /* KEY_F(n) */
    char fkey[8];      /* "F5" */
    const char *label; /* "Tree" */
} ht_keybar_slot;
/* The key bar with `front` in front, into slots[0..max); how many. */
int ht_keymap_bar(const ht_screen *front, ht_keybar_slot *slots, int max);

#endif
