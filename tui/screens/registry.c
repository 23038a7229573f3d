/*
 * registry.c - the screens, in Tab order: one line each. A screen's file
 * (screen_NAME.c) defines `const ht_screen ht_screen_NAME`; its key, its
 * place on the key bar and its section of the help follow from the line
 * here. Modal screens (the help) are not in the Tab order.
 */
#include "screen.h"

#define HT_SCREEN_LIST(X)                                                                          \
    X(tree)                                                                                        \
    X(classes)                                                                                     \
    X(telemetry)                                                                                   \
    X(heap)                                                                                        \
    X(dominators)                                                                                  \
    X(refs)                                                                                        \
    X(console)                                                                                     \
    X(compare)                                                                                     \
    X(duplicates)                                                                                  \
    X(chooser)                                                                                     \
    X(help)

#define DECLARE(name) extern const ht_screen ht_screen_##name;
#define ENTRY(name)   &ht_screen_##name,
HT_SCREEN_LIST(DECLARE)
const ht_screen *const ht_screens[] = {HT_SCREEN_LIST(ENTRY)};
const int ht_nscreens = (int)(sizeof ht_screens / sizeof ht_screens[0]);

int ht_screen_index(const ht_screen *s)
{
    for (int i = 0; i < ht_nscreens; i++)
        if (ht_screens[i] == s) return i;
    return -1;
}
