/*
 * registry.c - the screens, in Tab order: one line each. A screen's file
 * (screen_NAME.c) defines `const ht_screen ht_screen_NAME`; its key, its
 * place on the key bar and its section of the help follow from the line
 * here. Modal screens (the help, the screen list) and tabless ones (the
 * chooser) are not in the Tab order; every other screen is, with a number key
 * or without one (the first nine have 1-9; the rest are reached by Tab and
 * the screen list, F2).
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
    X(behaviour)                                                                                   \
    X(cpu_tree)                                                                                    \
    X(cpu_hot)                                                                                     \
    X(threads)                                                                                     \
    X(drag)                                                                                        \
    X(source)                                                                                      \
    X(chooser)                                                                                     \
    X(help)                                                                                        \
    X(screens)

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

int ht_screen_in_tabs(const ht_screen *s)
{
    return !s->modal && !s->tabless;
}

int ht_screen_next_in(const ht_screen *const *list, int n, int from, int dir)
{
    for (int k = 1, i = from; k < n; k++) {
        i = ((i + dir) % n + n) % n;
        if (ht_screen_in_tabs(list[i])) return i;
    }
    return from;
}

int ht_screen_next(int from, int dir)
{
    return ht_screen_next_in(ht_screens, ht_nscreens, from, dir);
}
