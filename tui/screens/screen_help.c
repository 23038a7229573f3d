/*
 * screen_help.c - the help screen: every key, generated from the same tables
 * that dispatch them (keymap.c), grouped as htop groups them: the global
 * keys, with each screen's own under its heading. Modal: Down/PgDn and
 * Up/PgUp scroll, any other key returns to the screen it was opened from.
 * UI thread only.
 */
#include "keymap.h"
#include "screen.h"

#include <stdlib.h>

typedef struct help_screen {
    int top; /* first line shown */
} help_screen;

static void *create(void)
{
    return calloc(1, sizeof(help_screen));
}

static void destroy(void *self)
{
    free(self);
}

static void enter(void *self, int drilled)
{
    (void)drilled;
    ((help_screen *)self)->top = 0;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    help_screen *v = self;
    const ht_ui *ui = d->ui;
    ht_help_line lines[HT_HELP_MAX];
    int n = ht_keymap_help(lines, HT_HELP_MAX), height = d->height;
    int more = n - v->top > height;
    if (v->top > n - 1) v->top = n - 1;
    for (int i = 0; i + v->top < n && i < height; i++) {
        const ht_help_line *l = &lines[i + v->top];
        if (more && i == height - 1) {
            ht_ui_put(stdscr, d->top + i, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                      "  -- more: Down/PgDn scrolls, any other key returns --", 1);
            break;
        }
        ht_ui_put(stdscr, d->top + i, 0, ui->cols,
                  ht_ui_attr(ui, l->heading ? HT_C_HEADER : HT_C_NORMAL) |
                      (l->heading ? A_BOLD : 0),
                  l->text, 1);
    }
}

static void help_scroll(void *self, ht_host *h, int ch)
{
    help_screen *v = self;
    int page = ht_host_page(h);
    int step = ch == KEY_DOWN || ch == KEY_UP ? 1 : page;
    v->top += ch == KEY_DOWN || ch == KEY_NPAGE ? step : -step;
    int last = ht_keymap_help(NULL, 0) - page;
    if (v->top > last) v->top = last;
    if (v->top < 0) v->top = 0;
}

/* Shown on the screen itself ("-- more: ..."), not in a section of the help. */
static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_DOWN, KEY_NPAGE, KEY_UP, KEY_PPAGE), .help = "scroll", .act = help_scroll},
    HT_KEYS_END,
};

const ht_screen ht_screen_help = {
    .name = "help",
    .title = "help",
    .modal = 1,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .enter = enter,
    .draw = draw,
};
