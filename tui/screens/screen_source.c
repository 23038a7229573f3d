/*
 * screen_source.c - the Source screen: a frame's file at its line.
 *
 * Owns: the file shown (read by a job, app_source.c, and handed over whole),
 * or what is being looked for, or why it was not found (the paths
 * searched); the cursor line (it starts on the frame's line, marked '>' in
 * the gutter) and the horizontal scroll; the margin (source_margin.h): the
 * allocation bytes through each line and the CPU ms (blank until the store
 * has CPU rows), made again from the store at each rebuild.
 *
 * Drawing: the title row says where the file was read (a directory, a
 * jar!entry, the JDK's src.zip!entry); each row is the margin, the line
 * number and the text coloured by the lexer (source_lex.h) from the state
 * at the line's start, so only the rows shown are lexed. Text from outside
 * is drawn a character at a time: tabs to spaces, a byte that is not UTF-8,
 * a control byte or a character the terminal cannot show becomes a dimmed
 * '?', and a line is cut at the right edge (Left/Right scroll it), never
 * wrapped. The last row: the cursor line's figures in words.
 *
 * Modal, as the help is: Esc, q or any key it does not bind returns to the
 * screen it was opened from. UI thread only.
 */
#include "screen_source.h"

#include "source_lex.h"
#include "source_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define TAB_WIDTH    4
#define HSCROLL_STEP 8

typedef struct source_screen {
    uint64_t seq; /* the request shown */
    int loading;  /* a job reads it */
    char frame[400];
    int32_t line; /* the frame's line */
    char err[4600];
    int found;
    ht_source_found f;
    ht_list_pos pos; /* the cursor: a line (0-based) */
    int shown;       /* rows the last draw showed */
    int hscroll;
    ht_margin margin;
    int has_margin;
    uint8_t *kinds; /* the lexer's kinds of the line being drawn */
    size_t cap_kinds;
} source_screen;

static void *create(void)
{
    return calloc(1, sizeof(source_screen));
}

static void drop_file(source_screen *v)
{
    if (v->found) ht_source_found_free(&v->f);
    if (v->has_margin) ht_margin_free(&v->margin);
    v->found = v->has_margin = 0;
}

static void destroy(void *self)
{
    source_screen *v = self;
    drop_file(v);
    free(v->kinds);
    free(v);
}

void ht_screen_source_asked(void *state, uint64_t seq, const char *frame, int32_t line)
{
    source_screen *v = state;
    drop_file(v);
    v->seq = seq;
    v->loading = 1;
    v->line = line;
    v->err[0] = '\0';
    v->hscroll = 0;
    v->pos = (ht_list_pos){0, 0};
    snprintf(v->frame, sizeof v->frame, "%s", frame);
}

void ht_screen_source_answer(void *state, uint64_t seq, ht_source_found *f, const char *err)
{
    source_screen *v = state;
    if (seq != v->seq) return; /* another file was asked for since */
    v->loading = 0;
    if (!f) {
        snprintf(v->err, sizeof v->err, "%s", err ? err : "not found");
        return;
    }
    v->f = *f;
    memset(f, 0, sizeof *f);
    v->found = 1;
    v->has_margin = ht_margin_init(&v->margin, v->f.text.nlines) == 0;
    uint32_t n = v->f.text.nlines;
    v->pos.cursor = v->line >= 1 && (uint32_t)v->line <= n ? (uint32_t)v->line - 1 : 0;
    v->pos.top = 0;
    v->shown = 0; /* the next draw centres the line */
    if (v->line > 0 && (uint32_t)v->line > n)
        snprintf(v->err, sizeof v->err,
                 "line %d is past the file's end (%u lines): another version?", (int)v->line, n);
}

static int build(void *self, const ht_build_ctx *b)
{
    source_screen *v = self;
    if (v->found && v->has_margin && ht_margin_from_store(&v->margin, b->store, v->f.rel) != 0)
        return -1;
    return 0;
}

/* --- drawing --- */

static int attr_of(const ht_ui *ui, ht_lex_kind k)
{
    switch (k) {
    case HT_LEX_KEYWORD:
        return ht_ui_attr(ui, HT_C_HEADER) | A_BOLD;
    case HT_LEX_STRING:
    case HT_LEX_CHAR:
        return ht_ui_attr(ui, HT_C_GOOD);
    case HT_LEX_COMMENT:
        return ht_ui_attr(ui, HT_C_DIM);
    case HT_LEX_NUMBER:
        return ht_ui_attr(ui, HT_C_VALUE);
    case HT_LEX_ANNOTATION:
        return ht_ui_attr(ui, HT_C_MARK);
    default:
        return ht_ui_attr(ui, HT_C_NORMAL);
    }
}

/* The length of a well-formed UTF-8 sequence at p (n bytes left) and its
 * code point, or 0 when the bytes there are not one. */
static int utf8_at(const unsigned char *p, size_t n, unsigned *cp)
{
    int len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (p[0] >= 0xF8 || !len || (size_t)len > n) return 0;
    unsigned c = p[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
        (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

/* Line k's text from column v->hscroll, in columns [x, x + width) of row y. */
static void draw_text(source_screen *v, const ht_ui *ui, int y, int x, int width, uint32_t k,
                      int sel)
{
    const ht_source_text *t = &v->f.text;
    const unsigned char *p = (const unsigned char *)t->bytes + t->start[k];
    size_t n = t->length[k];
    if (n > v->cap_kinds) {
        uint8_t *grown = realloc(v->kinds, n);
        if (!grown) return;
        v->kinds = grown;
        v->cap_kinds = n;
    }
    ht_lex_line((const char *)p, n, (ht_lex_state)t->state[k], v->kinds);
    int sel_attr = ht_ui_attr(ui, HT_C_SELECTED), dim = ht_ui_attr(ui, HT_C_DIM);
    int col = 0, end = v->hscroll + width; /* columns of the whole line */
    for (size_t i = 0; i < n && col < end;) {
        int attr = sel ? sel_attr : attr_of(ui, (ht_lex_kind)v->kinds[i]);
        unsigned cp = p[i];
        int len = 1, w = 1, bad = 0;
        if (p[i] == '\t') {
            w = TAB_WIDTH - col % TAB_WIDTH;
        } else if (p[i] < 0x20 || p[i] == 0x7F) {
            bad = 1;
        } else if (p[i] >= 0x80) {
            len = utf8_at(p + i, n - i, &cp);
            if (!len) {
                len = 1, bad = 1;
            } else {
                w = ui->utf8 ? wcwidth((wchar_t)cp) : -1;
                if (w < 0) bad = 1, w = 1;
            }
        }
        if (col + w > end) break; /* a wide character that does not fit: the line is cut */
        if (w > 0 && col >= v->hscroll) {
            attrset(bad ? (sel ? sel_attr : dim) : attr);
            if (bad)
                mvaddch(y, x + col - v->hscroll, '?');
            else if (p[i] == '\t')
                mvprintw(y, x + col - v->hscroll, "%*s", w, "");
            else
                mvaddnstr(y, x + col - v->hscroll, (const char *)p + i, len);
        } else if (w > 0 && col + w > v->hscroll) { /* half of a wide one at the left edge */
            attrset(sel ? sel_attr : dim);
            for (int c = v->hscroll; c < col + w; c++)
                mvaddch(y, x + c - v->hscroll, ' ');
        }
        col += w;
        i += (size_t)len;
    }
    attrset(A_NORMAL);
}

#define ALLOC_W 10
#define CPU_W   9

/* A figure of the margin, blank when zero (or when the column has no source). */
static void figure(const source_screen *v, const ht_draw_ctx *d, ht_margin_col c, uint32_t k,
                   char *out, size_t n)
{
    out[0] = '\0';
    if (!v->has_margin || !v->margin.has[c] || k >= v->margin.nlines) return;
    double x = v->margin.lines[k].incl[c];
    if (x <= 0) return;
    if (c == HT_MARGIN_ALLOC)
        ht_ui_bytes(x, d->unit, out, n);
    else
        snprintf(out, n, "%.0f", x);
}

/* The cursor line's figures in words, on the area's last row. */
static void figures_line(const source_screen *v, const ht_draw_ctx *d, int y)
{
    char line[600], incl[32], self[32];
    uint32_t k = v->pos.cursor;
    const ht_margin_line *m = v->has_margin && k < v->margin.nlines ? &v->margin.lines[k] : NULL;
    int len = snprintf(line, sizeof line, " line %u: ", k + 1);
    if (m && m->incl[HT_MARGIN_ALLOC] > 0) {
        ht_ui_bytes(m->incl[HT_MARGIN_ALLOC], d->unit, incl, sizeof incl);
        ht_ui_bytes(m->self[HT_MARGIN_ALLOC], d->unit, self, sizeof self);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s allocated through it, %s in it;",
                        incl, self);
    } else {
        len += snprintf(line + len, sizeof line - (size_t)len, "no allocation samples;");
    }
    if (m && v->margin.has[HT_MARGIN_CPU] && m->incl[HT_MARGIN_CPU] > 0)
        snprintf(line + len, sizeof line - (size_t)len, " CPU %.0f ms through it, %.0f ms in it",
                 m->incl[HT_MARGIN_CPU], m->self[HT_MARGIN_CPU]);
    else
        snprintf(line + len, sizeof line - (size_t)len, " CPU: %s",
                 v->has_margin && v->margin.has[HT_MARGIN_CPU] ? "no samples" : "not sampled");
    ht_ui_put(stdscr, y, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), line, 1);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    source_screen *v = self;
    const ht_ui *ui = d->ui;
    char title[sizeof v->f.where + 200];
    if (!v->found) {
        snprintf(title, sizeof title, " Source of %s", v->frame);
        ht_ui_put(stdscr, d->top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), title, 1);
        const char *text = v->loading ? "  looking for its file ..." : v->err;
        /* the message may be long (the paths searched): wrapped, never cut */
        int width = ui->cols - 4 > 20 ? ui->cols - 4 : 20, y = d->top + 2;
        for (const char *p = text; *p && y < d->top + d->height - 1; y++) {
            char part[512];
            int take = (int)strlen(p) < width ? (int)strlen(p) : width;
            for (int at = take; p[take] && at > width / 2; at--) /* break after a space */
                if (p[at - 1] == ' ') {
                    take = at;
                    break;
                }
            snprintf(part, sizeof part, "  %.*s", take, p);
            ht_ui_put(stdscr, y, 0, ui->cols, ht_ui_attr(ui, v->loading ? HT_C_DIM : HT_C_WARN),
                      part, 1);
            p += take;
        }
        ht_ui_put(stdscr, d->top + d->height - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  "  Esc or q: back", 1);
        return;
    }
    const ht_source_text *t = &v->f.text;
    snprintf(title, sizeof title, "%*s%*s %5s  %s%s", ALLOC_W, "ALLOC", CPU_W, "CPU ms", "LINE",
             v->f.jdk ? "JDK " : "", v->f.where);
    ht_ui_put(stdscr, d->top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), title, 1);
    int rows = d->height - 2 - (v->err[0] ? 1 : 0);
    if (rows < 1) rows = 1;
    uint32_t n = t->nlines;
    if (!v->shown && n) { /* just opened: the frame's line a third of the way down */
        v->pos.top = v->pos.cursor > (uint32_t)rows / 3 ? v->pos.cursor - (uint32_t)rows / 3 : 0;
    }
    ht_list_clamp(&v->pos, n, rows);
    v->shown = rows;
    int gutter = ALLOC_W + CPU_W + 8, width = ui->cols - gutter;
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < n; r++) {
        uint32_t k = v->pos.top + (uint32_t)r;
        int y = d->top + 1 + r, sel = k == v->pos.cursor;
        char a[32], c[32], left[96];
        figure(v, d, HT_MARGIN_ALLOC, k, a, sizeof a);
        figure(v, d, HT_MARGIN_CPU, k, c, sizeof c);
        int mark = v->line > 0 && k + 1 == (uint32_t)v->line;
        snprintf(left, sizeof left, "%*s%*s %5u%c ", ALLOC_W, a, CPU_W, c, k + 1, mark ? '>' : ' ');
        ht_ui_put(stdscr, y, 0, gutter, ht_ui_attr(ui, sel ? HT_C_SELECTED : HT_C_DIM), left, 1);
        if (sel) { /* the cursor line: highlighted across */
            attrset(ht_ui_attr(ui, HT_C_SELECTED));
            mvprintw(y, gutter, "%*s", width > 0 ? width : 0, "");
            attrset(A_NORMAL);
        }
        if (width > 0) draw_text(v, ui, y, gutter, width, k, sel);
    }
    int y = d->top + 1 + rows;
    if (v->err[0]) ht_ui_put(stdscr, y++, 0, ui->cols, ht_ui_attr(ui, HT_C_WARN), v->err, 1);
    figures_line(v, d, y);
}

/* --- keys --- */

static ht_list_pos *list(void *self, uint32_t *n)
{
    source_screen *v = self;
    *n = v->found ? v->f.text.nlines : 0;
    return &v->pos;
}

static void move_cursor(void *self, ht_host *h, int ch)
{
    (void)h;
    source_screen *v = self;
    uint32_t n = v->found ? v->f.text.nlines : 0;
    if (!n) return;
    long page = v->shown > 0 ? v->shown : 1, c = v->pos.cursor;
    c += ch == KEY_UP      ? -1
         : ch == KEY_DOWN  ? 1
         : ch == KEY_PPAGE ? -page
         : ch == KEY_NPAGE ? page
                           : 0;
    if (ch == KEY_HOME) c = 0;
    if (ch == KEY_END) c = (long)n - 1;
    v->pos.cursor = c < 0 ? 0 : c >= (long)n ? n - 1 : (uint32_t)c;
    ht_list_clamp(&v->pos, n, v->shown > 0 ? v->shown : 1);
}

static void scroll_sideways(void *self, ht_host *h, int ch)
{
    (void)h;
    source_screen *v = self;
    if (ch == KEY_LEFT || ch == '[')
        v->hscroll = v->hscroll > HSCROLL_STEP ? v->hscroll - HSCROLL_STEP : 0;
    else if (v->hscroll < 1 << 24)
        v->hscroll += HSCROLL_STEP;
}

static void back_to_line(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    source_screen *v = self;
    uint32_t n = v->found ? v->f.text.nlines : 0;
    if (v->line >= 1 && (uint32_t)v->line <= n) v->pos.cursor = (uint32_t)v->line - 1;
    v->shown = 0;
    v->hscroll = 0;
}

static const ht_binding KEYS[] = {
    {HT_KEYS(KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END), .help = "move",
     .act = move_cursor, .flags = HT_KEY_LIST},
    {HT_KEYS(KEY_LEFT, KEY_RIGHT, '[', ']'), .help = "scroll long lines sideways (never wrapped)",
     .act = scroll_sideways},
    {HT_KEYS('='), .help = "back to the frame's line (marked >)", .act = back_to_line},
    {.flags = HT_KEY_NOTE,
     .label = "Esc q",
     .help = "back to the screen it was opened from (any other key too)"},
    {.flags = HT_KEY_NOTE,
     .label = "ALLOC CPU ms",
     .help = "the estimated bytes allocated by stacks through the line (each stack\n"
             "counted once a line), and the CPU ms of the CPU samples' stacks (blank\n"
             "until CPU sampling runs); the last row: the cursor line's, and in it"},
    HT_KEYS_END,
};

const ht_screen ht_screen_source = {
    .name = "source",
    .title = "source",
    .help_title = "Source (o on a frame with a line opens it)",
    .modal = 1,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
};
