/*
 * test_keymap.c - the binding tables of the real screens (registry.c) and the
 * global keys (app_keys.c): no key means two things. The loop asks a screen's
 * own table first, then the screen keys, then the global table, and
 * ht_keymap_find takes the first match, so a key bound twice does silently
 * whatever comes first. Checked: a key twice in one table (for the screen
 * itself, or for the screen it opened), a screen's key that hides a global
 * key or another screen's key, two screens on one key, a screen key that is
 * also a global key; and every screen in the Tab order draws. Past nine
 * screens: Tab and S-Tab reach every screen of the Tab order (with a number
 * key or without) once round.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "keymap.h"
#include "screen.h"

/* The keys a binding answers to (named and `also`), into out; how many. */
static int keys_of(const ht_binding *b, int *out, int max)
{
    int n = 0;
    for (int i = 0; i < HT_BINDING_KEYS && b->keys[i] && n < max; i++)
        out[n++] = b->keys[i];
    for (size_t i = 0; i < sizeof b->also / sizeof b->also[0] && b->also[i] && n < max; i++)
        out[n++] = b->also[i];
    return n;
}

static int is_end(const ht_binding *b)
{
    return !b->act && !b->help && !b->flags && !b->keys[0];
}

/* Every key of table's acting bindings (child: those for the screen it
 * opened), into out; how many. */
static int table_keys(const ht_binding *table, int child, int *out, int max)
{
    int n = 0;
    for (const ht_binding *b = table; b && !is_end(b); b++) {
        if (!b->act || !(b->flags & HT_KEY_CHILD) != !child) continue;
        n += keys_of(b, out + n, max - n);
    }
    return n;
}

static const char *named(int ch)
{
    static char buf[4][16];
    static int next;
    char *s = buf[next++ & 3];
    ht_key_name(ch, s, 16);
    return s;
}

static int has(const int *v, int n, int ch)
{
    for (int i = 0; i < n; i++)
        if (v[i] == ch) return 1;
    return 0;
}

/* No key twice in one table. */
static void check_once(const char *what, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            CHECK_MSG(v[i] != v[j], "%s binds %s twice", what, named(v[i]));
}

int main(void)
{
    enum { MAX = 256 };
    int global[MAX], own[MAX], child[MAX];
    int ng = table_keys(ht_global_keys, 0, global, MAX);
    CHECK(ng > 10);
    check_once("the global table", global, ng);

    for (int i = 0; i < ht_nscreens; i++) {
        const ht_screen *s = ht_screens[i];
        char what[64];
        int no = table_keys(s->keys, 0, own, MAX), nc = table_keys(s->keys, 1, child, MAX);
        snprintf(what, sizeof what, "screen %s", s->name);
        check_once(what, own, no);
        snprintf(what, sizeof what, "screen %s (for the screen it opened)", s->name);
        check_once(what, child, nc);
        CHECK_MSG(s->draw != NULL, "screen %s has no draw", s->name);
        if (s->key) {
            CHECK_MSG(!has(global, ng, s->key), "screen %s's key %s is also a global key", s->name,
                      named(s->key));
            for (int j = i + 1; j < ht_nscreens; j++)
                CHECK_MSG(ht_screens[j]->key != s->key, "screens %s and %s both on key %s", s->name,
                          ht_screens[j]->name, named(s->key));
        }
        /* a modal screen (the help) sees no global key but its Quit */
        if (s->modal) continue;
        for (int k = 0; k < no; k++) {
            CHECK_MSG(!has(global, ng, own[k]), "screen %s binds %s, which hides a global key",
                      s->name, named(own[k]));
            for (int j = 0; j < ht_nscreens; j++)
                CHECK_MSG(ht_screens[j]->key != own[k],
                          "screen %s binds %s, which hides the key of screen %s", s->name,
                          named(own[k]), ht_screens[j]->name);
        }
        for (int k = 0; k < nc; k++)
            CHECK_MSG(!has(global, ng, child[k]),
                      "screen %s binds %s for the screen it opened, which hides a global key",
                      s->name, named(child[k]));
    }
    /* Tab goes round every screen of the Tab order once, S-Tab the other
     * way; the modal and tabless ones are never on the way */
    int first = -1, ntabs = 0;
    for (int i = 0; i < ht_nscreens; i++)
        if (ht_screen_in_tabs(ht_screens[i])) {
            ntabs++;
            if (first < 0) first = i;
            CHECK_MSG(ht_screens[i]->title && ht_screens[i]->title[0], "screen %d has a title", i);
        }
    CHECK(first >= 0 && ntabs >= 9);
    for (int dir = -1; dir <= 1; dir += 2) {
        int at = first, visits[64] = {0};
        for (int k = 0; k < ntabs; k++) {
            at = ht_screen_next(at, dir);
            CHECK_MSG(ht_screen_in_tabs(ht_screens[at]), "Tab reached %s", ht_screens[at]->name);
            visits[at]++;
        }
        CHECK_MSG(at == first, "Tab (%d) comes back after %d screens", dir, ntabs);
        for (int i = 0; i < ht_nscreens; i++)
            CHECK_MSG(visits[i] == ht_screen_in_tabs(ht_screens[i]),
                      "Tab (%d) visits %s once, or never when it is not in the order", dir,
                      ht_screens[i]->name);
    }
    /* thirty screens, nine with a number key, one modal, one tabless: Tab
     * reaches the 28 others, key or not */
    ht_screen many[30];
    const ht_screen *list[30];
    memset(many, 0, sizeof many);
    for (int i = 0; i < 30; i++) {
        many[i].name = "s";
        many[i].key = i < 9 ? '1' + i : 0;
        list[i] = &many[i];
    }
    many[12].modal = 1;
    many[20].tabless = 1;
    int at = 0, steps = 0;
    do {
        at = ht_screen_next_in(list, 30, at, 1);
        CHECK(at != 12 && at != 20);
        steps++;
    } while (at != 0 && steps < 100);
    CHECK_MSG(steps == 28, "Tab goes round 28 of 30 screens (%d)", steps);
    return check_summary();
}
