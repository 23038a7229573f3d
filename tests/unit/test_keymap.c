/*
 * test_keymap.c - the binding tables of the real screens (registry.c) and the
 * global keys (app_keys.c): no key means two things. The loop asks a screen's
 * own table first, then the screen keys, then the global table, and
 * ht_keymap_find takes the first match, so a key bound twice does silently
 * whatever comes first. Checked: a key twice in one table (for the screen
 * itself, or for the screen it opened), a screen's key that hides a global
 * key or another screen's key, two screens on one key, a screen key that is
 * also a global key; and every screen in the Tab order draws.
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
    return check_summary();
}
