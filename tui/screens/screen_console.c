/*
 * screen_console.c - the Console panel: what the program `heaptop run`
 * started prints on stdout and stderr, the last HT_CONSOLE_LINES lines (the
 * log file has all of them), oldest first, stderr lines marked `!` in the
 * warning colour, heaptop's own remarks dim.
 * Up/Down/PgUp/PgDn/Home/End scroll; at the last line the view follows new
 * output, elsewhere it stays put. The filter (a comma list, ! excludes, as
 * everywhere) keeps the lines that match; search jumps between them.
 * Without a program started by heaptop it says how to get one.
 *
 * UI thread only. It reads the ring (console.h) the loop fills, through the
 * pointer build() is given, and never the program's pipes or the log file;
 * it draws only into its area.
 */
#include "console.h"
#include "list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct console_view {
    const ht_console *con; /* the loop's ring (NULL: no program) */
    uint64_t *seq;         /* the lines that pass the filter, by sequence number */
    uint32_t nrows, cap;
    ht_list_pos pos;
    int shown; /* rows of the list when last drawn (ht_list_fit) */
} console_view;

static void *create(void)
{
    return calloc(1, sizeof(console_view));
}

static void destroy(void *self)
{
    console_view *v = self;
    free(v->seq);
    free(v);
}

/* The ring's line of sequence number seq, or NULL once it has gone. */
static const ht_console_line *line_of(const console_view *v, uint64_t seq)
{
    uint64_t first = v->con->total - v->con->n;
    return seq >= first ? ht_console_at(v->con, (uint32_t)(seq - first)) : NULL;
}

static int build(void *self, const ht_build_ctx *b)
{
    console_view *v = self;
    v->con = b->console;
    if (!v->con) return 0;
    /* on the last line (or none yet): follow what comes */
    int follow = !v->nrows || v->pos.cursor + 1 >= v->nrows;
    uint64_t at = v->pos.cursor < v->nrows ? v->seq[v->pos.cursor] : 0;
    if (v->cap < v->con->n) {
        uint64_t *s = realloc(v->seq, v->con->n * sizeof *s);
        if (!s) return -1;
        v->seq = s;
        v->cap = v->con->n;
    }
    uint64_t first = v->con->total - v->con->n;
    v->nrows = 0;
    uint32_t cursor = 0;
    for (uint32_t i = 0; i < v->con->n; i++) {
        const ht_console_line *l = ht_console_at(v->con, i);
        if (!ht_filter_match(&b->lens->console_filter, l->text)) continue;
        if (first + i <= at) cursor = v->nrows; /* the cursor stays on its line */
        v->seq[v->nrows++] = first + i;
    }
    v->pos.cursor = follow && v->nrows ? v->nrows - 1 : cursor;
    return 0;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    console_view *v = self;
    const ht_ui *ui = d->ui;
    int cols = ui->cols, y = d->top;
    char line[HT_CONSOLE_LINE_MAX + 16];
    if (!v->con) {
        ht_ui_put(stdscr, y, 0, cols, ht_ui_attr(ui, HT_C_TITLE), "  OUTPUT", 1);
        ht_ui_put(stdscr, y + 1, 0, cols, ht_ui_attr(ui, HT_C_DIM),
                  "no program started by heaptop here: heaptop run -- java ... starts one and "
                  "shows its stdout and stderr on this screen",
                  1);
        return;
    }
    snprintf(line, sizeof line,
             "  OUTPUT (! stderr)  %u of the last %u lines shown, %llu printed in all%s", v->nrows,
             v->con->n, (unsigned long long)v->con->total,
             v->con->eof ? "; the program closed its output" : "");
    ht_ui_put(stdscr, y++, 0, cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    int height = d->height - 1;
    if (!v->nrows) {
        ht_ui_put(stdscr, y, 0, cols, ht_ui_attr(ui, HT_C_DIM),
                  v->con->n ? "no line passes the filter" : "the program has printed nothing yet",
                  1);
        return;
    }
    ht_list_fit(&v->pos, &v->shown, v->nrows, height);
    for (int r = 0; r < height && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        const ht_console_line *l = line_of(v, v->seq[i]);
        if (!l) continue;
        snprintf(line, sizeof line, "%c %s", l->tag == HT_CONSOLE_ERR ? '!' : ' ', l->text);
        int attr = i == v->pos.cursor          ? ht_ui_attr(ui, HT_C_SELECTED)
                   : l->tag == HT_CONSOLE_ERR  ? ht_ui_attr(ui, HT_C_WARN)
                   : l->tag == HT_CONSOLE_NOTE ? ht_ui_attr(ui, HT_C_DIM)
                                               : ht_ui_attr(ui, HT_C_NORMAL);
        ht_ui_put(stdscr, y + r, 0, cols, attr, line, 1);
    }
    ht_list_more(d, &v->pos, v->nrows, y - 1, height); /* on the title row */
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    console_view *v = self;
    *n = v->nrows;
    return &v->pos;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const console_view *v = ctx;
    const ht_console_line *l = line_of(v, v->seq[i]);
    return l && strstr(l->text, text);
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    console_view *v = self;
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
}

static const ht_binding KEYS[] = {
    {.flags = HT_KEY_NOTE,
     .label = "End",
     .help = "on the last line, the view follows new output; ! marks stderr"},
    HT_KEYS_END,
};

const ht_screen ht_screen_console = {
    .name = "console",
    .title = "console (heaptop run)",
    .help_title = "Console: the output of the program heaptop run started",
    .key = '7',
    .filter = HT_FILTER_CONSOLE,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .search = search,
};
