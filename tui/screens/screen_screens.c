/*
 * screen_screens.c - every screen, to pick one (F2): the way to a screen
 * that still works when there are more screens than number keys. One row
 * a screen in the Tab order (registry.c), with its number key when it has
 * one and its title. Modal, as the help: Up/Down, PgUp/PgDn, Home/End move,
 * Enter brings the screen under the cursor to the front, any other key
 * (q and Esc too) returns to the screen it was opened from (app_keys.c).
 * UI thread only.
 */
#include "screen.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct screens_screen {
    ht_list_pos pos;
    int rows[64]; /* ht_screens index of each row */
    uint32_t n;
} screens_screen;

/* The rows: the Tab order, from the registry. */
static void fill(screens_screen *v)
{
    v->n = 0;
    for (int i = 0; i < ht_nscreens && v->n < sizeof v->rows / sizeof v->rows[0]; i++)
        if (ht_screen_in_tabs(ht_screens[i])) v->rows[v->n++] = i;
}

static void *create(void)
{
    screens_screen *v = calloc(1, sizeof *v);
    if (v) fill(v);
    return v;
}

static void destroy(void *self)
{
    free(self);
}

static void enter(void *self, int drilled)
{
    (void)drilled;
    screens_screen *v = self;
    fill(v);
    v->pos.cursor = v->pos.top = 0;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    screens_screen *v = self;
    const ht_ui *ui = d->ui;
    ht_ui_put(stdscr, d->top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE),
              " KEY  SCREEN   (Enter opens it; Tab and S-Tab go round them; Esc returns)", 1);
    int height = d->height - 1;
    ht_list_clamp(&v->pos, v->n, height);
    for (int y = 0; y < height && v->pos.top + (uint32_t)y < v->n; y++) {
        uint32_t r = v->pos.top + (uint32_t)y;
        const ht_screen *s = ht_screens[v->rows[r]];
        char key[8] = "", line[160];
        if (s->key) snprintf(key, sizeof key, "%c", s->key);
        snprintf(line, sizeof line, " %3s  %s", key, s->title);
        int attr = ht_ui_attr(ui, r == v->pos.cursor ? HT_C_SELECTED : HT_C_NORMAL);
        ht_ui_put(stdscr, d->top + 1 + y, 0, ui->cols, attr, line, 1);
    }
}

static void step(void *self, ht_host *h, int ch)
{
    screens_screen *v = self;
    int page = ht_host_page(h);
    long c = (long)v->pos.cursor;
    c += ch == KEY_DOWN    ? 1
         : ch == KEY_UP    ? -1
         : ch == KEY_NPAGE ? page
         : ch == KEY_PPAGE ? -page
         : ch == KEY_HOME  ? -(long)v->n
                           : (long)v->n;
    if (c >= (long)v->n) c = (long)v->n - 1;
    if (c < 0) c = 0;
    v->pos.cursor = (uint32_t)c;
}

static void open_it(void *self, ht_host *h, int ch)
{
    (void)ch;
    screens_screen *v = self;
    if (v->pos.cursor < v->n) ht_host_show(h, ht_screens[v->rows[v->pos.cursor]]);
}

static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_DOWN, KEY_UP, KEY_NPAGE, KEY_PPAGE, KEY_HOME, KEY_END), .help = "move",
     .act = step},
    {HT_KEYS('\n'), HT_ALSO(KEY_ENTER, '\r'), .help = "open the screen", .act = open_it},
    HT_KEYS_END,
};

const ht_screen ht_screen_screens = {
    .name = "screens",
    .title = "screens",
    .modal = 1,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .enter = enter,
    .draw = draw,
};
