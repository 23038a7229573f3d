/*
 * screen_help.c - the help screen: every key, generated from the same tables
 * that dispatch them (keymap.c), grouped as htop groups them: the global
 * keys, with each screen's own under its heading, wrapped to the terminal's
 * width. Modal: Down/PgDn, Up/PgUp, Home/End scroll (a page at a time is the
 * lines shown, so no line is skipped or shown twice), and any other key, q
 * and Esc included, returns to the screen it was opened from (app_keys.c;
 * only the key bar's F10 Quit goes on to quit). UI thread only.
 */
#include "keymap.h"
#include "screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct help_screen {
    int top;   /* first line shown */
    int shown; /* lines the last draw showed (a page) */
    int n;     /* lines the help had at the last draw's width */
    ht_help_line *lines;
} help_screen;

static void *create(void)
{
    help_screen *v = calloc(1, sizeof *v);
    if (v && !(v->lines = calloc(HT_HELP_MAX, sizeof *v->lines))) {
        free(v);
        return NULL;
    }
    return v;
}

static void destroy(void *self)
{
    help_screen *v = self;
    free(v->lines);
    free(v);
}

static void enter(void *self, int drilled)
{
    (void)drilled;
    ((help_screen *)self)->top = 0;
}

/* The line under the help when it does not fit: where it is, and the keys. */
static void more_line(const ht_draw_ctx *d, int y, int first, int last, int n)
{
    char buf[160];
    snprintf(buf, sizeof buf,
             "-- lines %d-%d of %d: Down/PgDn, Up/PgUp scroll; q, Esc or any other key "
             "returns --",
             first, last, n);
    if ((int)strlen(buf) > d->ui->cols)
        snprintf(buf, sizeof buf, "-- lines %d-%d of %d: PgDn/PgUp, q returns --", first, last, n);
    if ((int)strlen(buf) > d->ui->cols) snprintf(buf, sizeof buf, "-- %d-%d/%d --", first, last, n);
    ht_ui_put(stdscr, y, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), buf, 1);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    help_screen *v = self;
    const ht_ui *ui = d->ui;
    int n = ht_keymap_help(v->lines, HT_HELP_MAX, ui->cols), height = d->height;
    if (n > HT_HELP_MAX) n = HT_HELP_MAX;
    int more = n > height;
    int shown = more ? height - 1 : n;
    if (shown < 1) shown = 1;
    if (v->top > n - shown) v->top = n - shown;
    if (v->top < 0) v->top = 0;
    v->shown = shown;
    v->n = n;
    for (int i = 0; i < shown && i + v->top < n; i++) {
        const ht_help_line *l = &v->lines[i + v->top];
        ht_ui_put(stdscr, d->top + i, 0, ui->cols,
                  ht_ui_attr(ui, l->heading ? HT_C_HEADER : HT_C_NORMAL) |
                      (l->heading ? A_BOLD : 0),
                  l->text, 1);
    }
    if (more) {
        int last = v->top + shown < n ? v->top + shown : n;
        more_line(d, d->top + height - 1, v->top + 1, last, n);
    }
}

static void help_scroll(void *self, ht_host *h, int ch)
{
    (void)h;
    help_screen *v = self;
    int page = v->shown > 0 ? v->shown : 1;
    switch (ch) {
    case KEY_DOWN:
        v->top++;
        break;
    case KEY_UP:
        v->top--;
        break;
    case KEY_NPAGE:
    case ' ':
        v->top += page;
        break;
    case KEY_PPAGE:
        v->top -= page;
        break;
    case KEY_HOME:
        v->top = 0;
        break;
    case KEY_END:
        v->top = v->n;
        break;
    }
    if (v->top > v->n - page) v->top = v->n - page;
    if (v->top < 0) v->top = 0;
}

/* Shown on the screen itself ("-- lines ..."), not in a section of the help. */
static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_DOWN, KEY_NPAGE, KEY_UP, KEY_PPAGE, KEY_HOME, KEY_END, ' '), .help = "scroll",
     .act = help_scroll},
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
