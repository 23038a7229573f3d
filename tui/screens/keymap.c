/* keymap.c - see keymap.h. */
#include "keymap.h"

#include <stdio.h>
#include <string.h>

#define KEY_COL  18 /* where the help of a key starts on its line */
#define MAX_FKEY 12

static int binds(const ht_binding *b, int ch)
{
    for (int i = 0; i < HT_BINDING_KEYS && b->keys[i]; i++)
        if (b->keys[i] == ch) return 1;
    for (size_t i = 0; i < sizeof b->also / sizeof b->also[0] && b->also[i]; i++)
        if (b->also[i] == ch) return 1;
    return 0;
}

/* The end of a table: an entry with nothing in it. */
static int is_end(const ht_binding *b)
{
    return !b->act && !b->help && !b->flags && !b->keys[0];
}

const ht_binding *ht_keymap_find(const ht_binding *table, int ch, int child)
{
    for (const ht_binding *b = table; b && !is_end(b); b++) {
        if (!b->act || !(b->flags & HT_KEY_CHILD) != !child) continue;
        if (binds(b, ch)) return b;
    }
    return NULL;
}

void ht_key_name(int ch, char *out, size_t n)
{
    static const struct {
        int key;
        const char *name;
    } NAMES[] = {
        {'\t', "Tab"},        {'\n', "Enter"},     {27, "Esc"},          {12, "Ctrl-L"},
        {' ', "Space"},       {KEY_UP, "Up"},      {KEY_DOWN, "Down"},   {KEY_LEFT, "Left"},
        {KEY_RIGHT, "Right"}, {KEY_PPAGE, "PgUp"}, {KEY_NPAGE, "PgDn"},  {KEY_HOME, "Home"},
        {KEY_END, "End"},     {KEY_BTAB, "S-Tab"}, {KEY_ENTER, "Enter"}, {KEY_BACKSPACE, "Bksp"},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].key == ch) {
            snprintf(out, n, "%s", NAMES[i].name);
            return;
        }
    if (ch >= KEY_F(1) && ch <= KEY_F(63))
        snprintf(out, n, "F%d", ch - KEY_F(0));
    else if (ch > 32 && ch < 127)
        snprintf(out, n, "%c", ch);
    else
        snprintf(out, n, "#%d", ch);
}

/* The keys of a binding, named and joined by spaces. */
static void names_of(const ht_binding *b, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < HT_BINDING_KEYS && b->keys[i] && len < n; i++) {
        char name[16];
        ht_key_name(b->keys[i], name, sizeof name);
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? " " : "", name);
    }
}

/* --- the help --- */

typedef struct help_out {
    ht_help_line *lines;
    int max, n;
    int width; /* the terminal's columns: no line is longer */
    int entry; /* the line the last entry began on (-1: none), where a RIGHT one may go */
    ht_help_line *entry_line; /* that line (a scratch one when counting) */
} help_out;

static ht_help_line *add(help_out *o, int heading)
{
    static ht_help_line scratch; /* counting only (lines NULL), or past max */
    ht_help_line *l = o->lines && o->n < o->max ? &o->lines[o->n] : &scratch;
    o->n++;
    l->text[0] = '\0';
    l->heading = heading;
    return l;
}

/* Append to a line, padded with spaces to column `at` first. */
static void put_at(ht_help_line *l, int at, const char *text)
{
    size_t len = strlen(l->text);
    while ((int)len < at && len + 1 < sizeof l->text)
        l->text[len++] = ' ';
    l->text[len] = '\0';
    snprintf(l->text + len, sizeof l->text - len, "%s", text);
}

/* The words of text after column `at` of line l, and on new lines from
 * column `indent` as the width requires: never a line longer than the width,
 * never a word cut unless it is longer than a whole line. A "\n" in text is
 * a space: where the lines break is the width's business. */
static void wrap(help_out *o, ht_help_line *l, int at, int indent, const char *text)
{
    int width = o->width;
    if (width > (int)sizeof l->text - 1) width = (int)sizeof l->text - 1;
    if (indent > width / 2) indent = width / 2;
    if (at > width - 8) { /* no room beside the keys: the text goes under them */
        l = add(o, l->heading);
        at = indent;
    }
    put_at(l, at, "");
    int col = (int)strlen(l->text), start = col;
    for (const char *p = text ? text : ""; *p;) {
        while (*p == ' ' || *p == '\n')
            p++;
        size_t w = strcspn(p, " \n");
        if (!w) break;
        while (w) {
            int sep = col > start;
            if (col + sep + (int)w > width && col > start) { /* the next line */
                l = add(o, l->heading);
                put_at(l, indent, "");
                col = start = (int)strlen(l->text);
                continue;
            }
            int room = width - col - sep, take = (int)w < room ? (int)w : room;
            size_t len = strlen(l->text);
            snprintf(l->text + len, sizeof l->text - len, "%s%.*s", sep ? " " : "", take, p);
            col += sep + take;
            p += take;
            w -= (size_t)take;
        }
    }
}

/* A new entry's first line. */
static ht_help_line *entry(help_out *o, int heading)
{
    o->entry = o->n;
    return o->entry_line = add(o, heading);
}

/* "  keys            help", the help wrapped under itself. */
static void keyed(help_out *o, const char *keys, const char *help)
{
    ht_help_line *l = entry(o, 0);
    put_at(l, 2, keys);
    int at = (int)strlen(l->text) + 1 > KEY_COL ? (int)strlen(l->text) + 1 : KEY_COL;
    wrap(o, l, at, KEY_COL, help);
}

static void table(help_out *o, const ht_binding *t);

/* Every screen that has keys to list, under its heading. */
static void screens(help_out *o)
{
    for (int i = 0; i < ht_nscreens; i++) {
        const ht_screen *s = ht_screens[i];
        if (!s->help_title || !s->keys || is_end(s->keys)) continue;
        wrap(o, entry(o, 1), 0, 2, s->help_title);
        o->entry = -1;
        table(o, s->keys);
    }
}

/* The names of the screens that sort, "tree and classes". */
static void sorters(char *out, size_t n)
{
    int k = 0, total = 0;
    for (int i = 0; i < ht_nscreens; i++)
        total += ht_screens[i]->sort != NULL;
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < ht_nscreens && len < n; i++) {
        if (!ht_screens[i]->sort) continue;
        const char *sep = k == 0 ? "" : k == total - 1 ? " and " : ", ";
        len += (size_t)snprintf(out + len, n - len, "%s%s", sep, ht_screens[i]->name);
        k++;
    }
}

/* A HT_KEY_RIGHT binding: beside the last entry when that is one line with
 * room up to its column and the whole help fits the width; else an entry of
 * its own. */
static void right(help_out *o, const ht_binding *b, const char *keys)
{
    ht_help_line *l = o->entry_line;
    int whole = o->entry >= 0 && o->entry == o->n - 1; /* the entry is still one line */
    int fits =
        b->help_col + (int)strlen(b->help) <= o->width && b->col + (int)strlen(keys) < b->help_col;
    if (whole && fits && (int)strlen(l->text) + 1 <= b->col) {
        put_at(l, b->col, keys);
        put_at(l, b->help_col, b->help);
        o->entry = -1;
        return;
    }
    keyed(o, keys, b->help);
}

static void table(help_out *o, const ht_binding *t)
{
    for (const ht_binding *b = t; b && !is_end(b); b++) {
        char keys[128], text[192];
        names_of(b, keys, sizeof keys);
        if (b->flags & HT_KEY_HEADING) {
            char who[96] = "";
            if (b->flags & HT_KEY_SORTERS) sorters(who, sizeof who);
            snprintf(text, sizeof text, b->help, who);
            wrap(o, entry(o, 1), 0, 2, text);
            o->entry = -1;
        } else if (b->flags & HT_KEY_SCREENS) {
            screens(o);
        } else if (b->flags & HT_KEY_ABOVE) {
            continue; /* its line says so */
        } else if (b->flags & HT_KEY_RIGHT) {
            right(o, b, keys);
        } else if (b->flags & HT_KEY_NOTE) {
            if (b->label)
                keyed(o, b->label, b->help);
            else
                wrap(o, entry(o, 0), 2, 2, b->help);
        } else if (b->flags & HT_KEY_LIST) {
            snprintf(text, sizeof text, "%s, %s", keys, b->help);
            wrap(o, entry(o, 0), 2, 4, text);
        } else if (b->flags & HT_KEY_SWITCH) {
            /* "Tab, 1 2 3": its keys, then the key of every screen, and their titles */
            size_t kl = strlen(keys), tl = 0;
            text[0] = '\0';
            for (int i = 0; i < ht_nscreens; i++) {
                const ht_screen *s = ht_screens[i];
                if (!s->key) continue;
                char name[16];
                ht_key_name(s->key, name, sizeof name);
                kl += (size_t)snprintf(keys + kl, sizeof keys - kl, "%s%s", tl ? " " : ", ", name);
                tl +=
                    (size_t)snprintf(text + tl, sizeof text - tl, "%s%s", tl ? ", " : "", s->title);
            }
            keyed(o, keys, text);
        } else {
            keyed(o, keys, b->help);
        }
    }
}

int ht_keymap_help(ht_help_line *lines, int max, int width)
{
    help_out o = {lines, max, 0, width < 20 ? 20 : width, -1, NULL};
    table(&o, ht_global_keys);
    return o.n;
}

/* --- the key bar --- */

/* The bar label of a function key in a table (screen's own keys only). */
static const char *label_in(const ht_binding *t, int key)
{
    const ht_binding *b = ht_keymap_find(t, key, 0);
    return b ? b->bar : NULL;
}

int ht_keymap_bar(const ht_screen *front, ht_keybar_slot *slots, int max)
{
    int n = 0;
    for (int f = 1; f <= MAX_FKEY && n < max; f++) {
        int key = KEY_F(f);
        const char *label = front ? label_in(front->keys, key) : NULL;
        if (!label) label = label_in(ht_global_keys, key);
        for (int i = 0; !label && i < ht_nscreens; i++)
            label = label_in(ht_screens[i]->keys, key);
        if (!label) continue;
        slots[n].key = key;
        snprintf(slots[n].fkey, sizeof slots[n].fkey, "F%d", f);
        slots[n].label = label;
        n++;
    }
    return n;
}
