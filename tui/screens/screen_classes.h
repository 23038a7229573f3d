/*
 * screen_classes.h - the class table screen's state, for the keypress
 * benchmark (tests/bench/tui_keypress.c), which times its model directly.
 */
#ifndef HEAPTOP_SCREEN_CLASSES_H
#define HEAPTOP_SCREEN_CLASSES_H

#include "class_table.h"
#include "screen.h"

typedef struct ht_classes_screen {
    ht_class_table table;
    ht_list_pos pos;
    ht_col_layout cols; /* as last drawn, for clicks on the titles */
    int shown;          /* rows of the list when last drawn (ht_list_fit) */
} ht_classes_screen;

extern const ht_screen ht_screen_classes;

#endif
