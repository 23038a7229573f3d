/*
 * list.c - see list.h. How wide the values of a column are in the current
 * unit and which columns matter most; the decision of what fits is
 * columns.c's, this file only feeds it.
 */
#include "list.h"

#include <stdio.h>
#include <string.h>

#include "site_tree.h"

/* What is kept when the line is short: the sorted column, then by
 * columns.c's rank; columns that are blank (no mark) go first. */
static int priority(ht_col c, ht_col sort, int marked)
{
    if (c == sort) return 0;
    if (ht_col_is_mark(c) && !marked) return 100 + ht_col_rank(c);
    return ht_col_rank(c);
}

void ht_list_layout(const ht_draw_ctx *d, ht_col_layout *l, const ht_col *cols, int n,
                    const double *max_abs, const int *has_neg, ht_col sort, int name_min)
{
    int marked = ht_store_has_mark(d->store);
    ht_col_req req[HT_COL_COUNT];
    for (int i = 0; i < n && i < HT_COL_COUNT; i++) {
        ht_col c = cols[i];
        int title = (int)strlen(ht_col_title(c)) + 1; /* room for the sort marker */
        int want, min;
        if (ht_col_is_mark(c) && !marked) {
            want = min = 0; /* blank: only the title */
        } else if (ht_col_is_percent(c)) {
            want = min = 6; /* "100.0%" */
        } else if (ht_col_info_of(c)->flags & HT_COLF_TEXT) {
            want = min = 13; /* "TIMED_WAITING" */
        } else if (ht_col_is_count(c) || ht_col_is_ms(c)) {
            want = min = 7;
        } else {
            min = ht_ui_bytes_width(0, HT_UNIT_AUTO, has_neg[c]);
            want = ht_ui_bytes_width(max_abs[c], d->unit, has_neg[c]);
        }
        req[i].col = c;
        req[i].want = want > title ? want : title;
        req[i].min = min > title ? min : title;
        req[i].priority = priority(c, sort, marked);
    }
    ht_col_layout_make(l, req, n, d->ui->cols, name_min);
}

void ht_list_title(const ht_draw_ctx *d, const ht_col_layout *l, ht_col sort, int ascending,
                   const char *name_title)
{
    const ht_ui *ui = d->ui;
    int y = d->top;
    int attr = ht_ui_attr(ui, HT_C_TITLE);
    ht_ui_put(stdscr, y, 0, ui->cols, attr, "", 1);
    const char *arrow = ascending ? "^" : "v";
    for (int i = 0; i < l->n; i++) {
        const ht_col_slot *c = &l->slot[i];
        char h[64];
        int sorted = c->col == sort;
        snprintf(h, sizeof h, "%*s%s", c->w - (sorted ? 1 : 0), ht_col_title(c->col),
                 sorted ? arrow : "");
        ht_ui_put(stdscr, y, c->x, c->w, attr | (sorted ? A_BOLD : 0), h, 1);
    }
    char h[300];
    snprintf(h, sizeof h, "%s%s", name_title, sort == HT_COL_NAME ? arrow : "");
    ht_ui_put(stdscr, y, l->name_x, l->name_w, attr | (sort == HT_COL_NAME ? A_BOLD : 0), h, 1);
}

size_t ht_list_cells(const ht_draw_ctx *d, const ht_col_layout *l, const double *v, char *line,
                     size_t n)
{
    int marked = ht_store_has_mark(d->store);
    size_t len = 0;
    line[0] = '\0';
    for (int i = 0; i < l->n && len < n; i++) {
        const ht_col_slot *c = &l->slot[i];
        char t[64] = "";
        if (ht_col_is_mark(c->col) && !marked)
            ; /* no mark: the diff and growth columns are blank */
        else if (ht_col_is_percent(c->col))
            snprintf(t, sizeof t, "%.1f%%", v[c->col]);
        else if (ht_col_info_of(c->col)->flags & HT_COLF_TEXT)
            snprintf(t, sizeof t, "%s", ht_thread_state_name((int)v[c->col]));
        else if (ht_col_is_ms(c->col) && v[c->col] < 1e7)
            snprintf(t, sizeof t, "%.0f", v[c->col]); /* ms, exact to 2.7 hours */
        else if (ht_col_is_count(c->col) || ht_col_is_ms(c->col))
            ht_ui_count(v[c->col], t, sizeof t);
        else
            ht_ui_bytes_fit(v[c->col], d->unit, c->w, t, sizeof t);
        len += (size_t)snprintf(line + len, n - len, "%*s ", c->w, t);
    }
    return len < n ? len : n - 1;
}

ht_col ht_list_next_sort(const ht_col *cols, int n, ht_col cur, int dir)
{
    cur = ht_col_sort_key(cur);
    int at = 0;
    for (int i = 0; i < n; i++)
        if (cols[i] == cur) at = i;
    return cols[(at + n + (dir < 0 ? -1 : 1)) % n];
}

void ht_list_sort_op(ht_col *col, int *ascending, ht_sort_op op, ht_col by, const ht_col *cycle,
                     int n)
{
    switch (op) {
    case HT_SORT_NEXT:
    case HT_SORT_PREV:
        by = ht_list_next_sort(cycle, n, *col, op == HT_SORT_NEXT ? 1 : -1);
        if (by != *col) *ascending = 0;
        break;
    case HT_SORT_REVERSE:
        *ascending = !*ascending;
        by = *col;
        break;
    case HT_SORT_BY:
        /* a second click on the sorted column reverses it */
        *ascending = by == *col ? !*ascending : 0;
        break;
    case HT_SORT_LEAK:
        *ascending = 0;
        by = HT_COL_GROWTH_BYTES;
        break;
    }
    *col = by;
}

void ht_list_clamp(ht_list_pos *p, uint32_t n, int height)
{
    if (n == 0) {
        p->cursor = p->top = 0;
        return;
    }
    if (p->cursor >= n) p->cursor = n - 1;
    if (height < 1) height = 1;
    if (p->cursor < p->top) p->top = p->cursor;
    if (p->cursor >= p->top + (uint32_t)height) p->top = p->cursor - (uint32_t)height + 1;
    if (p->top + (uint32_t)height > n) p->top = n > (uint32_t)height ? n - (uint32_t)height : 0;
}

void ht_list_fit(ht_list_pos *p, int *shown, uint32_t n, int height)
{
    if (*shown > 0 && height > *shown) {
        uint32_t gained = (uint32_t)(height - *shown);
        p->top = p->top > gained ? p->top - gained : 0;
    }
    *shown = height;
    ht_list_clamp(p, n, height);
}

void ht_list_more(const ht_draw_ctx *d, const ht_list_pos *p, uint32_t n, int y, int height)
{
    const ht_ui *ui = d->ui;
    if (height < 1 || n == 0) return;
    uint32_t above = p->top < n ? p->top : n;
    uint32_t below = n > p->top + (uint32_t)height ? n - p->top - (uint32_t)height : 0;
    if (!above && !below) return;
    char text[64] = "";
    size_t len = 0;
    if (above)
        len +=
            (size_t)snprintf(text, sizeof text, " %s %u above", ui->utf8 ? "\u25b2" : "^", above);
    if (below)
        snprintf(text + len, sizeof text - len, " %s %u below", ui->utf8 ? "\u25bc" : "v", below);
    size_t end = strlen(text);
    snprintf(text + end, sizeof text - end, " ");
    int w = ht_text_width(text);
    if (w < ui->cols) ht_ui_put(stdscr, y, ui->cols - w, w, ht_ui_attr(ui, HT_C_TITLE), text, 0);
}

int ht_list_search(ht_list_pos *pos, uint32_t nrows, const char *text, int forward, int from_cursor,
                   int (*has)(void *ctx, uint32_t i, const char *text), void *ctx)
{
    uint32_t c = pos->cursor;
    for (uint32_t k = from_cursor ? 0 : 1; nrows && k <= nrows; k++) {
        uint32_t i = forward ? (c + k) % nrows : (c + nrows - k % nrows) % nrows;
        if (has(ctx, i, text)) {
            pos->cursor = i;
            return 1;
        }
    }
    return 0;
}
