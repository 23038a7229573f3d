/*
 * screen_tree.h - the allocation tree screen's state, for the keypress
 * benchmark (tests/bench/tui_keypress.c), which times its model directly.
 * Screens need no header of their own: the descriptor is their interface.
 */
#ifndef HEAPTOP_SCREEN_TREE_H
#define HEAPTOP_SCREEN_TREE_H

#include "screen.h"
#include "site_tree.h"

typedef struct ht_tree_screen {
    ht_site_tree tree, next; /* shown, and being built */
    ht_tree_opts opts;       /* shape, grouping, sort; filters come from the lens */
    ht_list_pos pos;
    ht_col_layout cols;   /* as last drawn, for clicks on the titles */
    int user_folded;      /* the user folded or unfolded: the hot path no longer follows the data */
    int heap;             /* a snapshot with sampled objects is on screen: its columns */
    ht_col_bounds bounds; /* what no figure can exceed: heap used, the snapshot's bytes */
    int shown;            /* rows of the list when last drawn (ht_list_fit) */
    int full_names;       /* frame names in full, never shortened to fit */
    int hscroll;          /* names scrolled left by this many columns ([ and ]) */
} ht_tree_screen;

extern const ht_screen ht_screen_tree;

#endif
