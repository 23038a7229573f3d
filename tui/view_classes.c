/*
 * view_classes.c - the class table screen.
 *
 * One row per class: estimated bytes and instances allocated, live, and the
 * mark diffs; the sorted column is marked in the title row, which is also a
 * click target for sorting. The class name comes last and takes the rest.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

/* Column layout shared with the click handler in app.c. */
static const ht_class_col ORDER[] = {HT_COL_BYTES,          HT_COL_INSTANCES,    HT_COL_LIVE_BYTES,
                                     HT_COL_LIVE_INSTANCES, HT_COL_YOUNG_BYTES,  HT_COL_DIFF_BYTES,
                                     HT_COL_DIFF_INSTANCES, HT_COL_GROWTH_BYTES, HT_COL_NAME};
#define NUMERIC_COLS ((int)(sizeof ORDER / sizeof ORDER[0]) - 1)
#define NUM_W        10

int ht_classes_col_at(int x)
{
    int col = x / (NUM_W + 1);
    return col < NUMERIC_COLS ? (int)ORDER[col] : HT_COL_NAME;
}

void ht_view_classes(ht_app *a, int top, int height)
{
    const ht_ui *ui = &a->ui;
    ht_class_table *t = &a->classes;
    /* title row: the sorted column carries an arrow */
    int x = 0;
    for (size_t c = 0; c < sizeof ORDER / sizeof ORDER[0]; c++) {
        char h[64];
        const char *arrow = ORDER[c] == t->sort_col ? (t->ascending ? "^" : "v") : "";
        int w = ORDER[c] == HT_COL_NAME ? ui->cols - x : NUM_W;
        if (w <= 0) break;
        if (ORDER[c] == HT_COL_NAME)
            snprintf(h, sizeof h, "%s%s", ht_class_col_name(ORDER[c]), arrow);
        else
            snprintf(h, sizeof h, "%*s%s", NUM_W - (int)strlen(arrow), ht_class_col_name(ORDER[c]),
                     arrow);
        int attr = ht_ui_attr(ui, HT_C_TITLE) | (ORDER[c] == t->sort_col ? A_BOLD : 0);
        ht_ui_put(stdscr, top, x, w + (ORDER[c] == HT_COL_NAME ? 0 : 1), attr, h, 1);
        x += NUM_W + 1;
    }
    int rows = height - 1;
    ht_list_clamp(&a->class_pos, t->nrows, rows);
    if (t->nrows == 0) {
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  ht_app_store(a)->nrows ? "  no class matches the filter" : "  no samples yet", 1);
        return;
    }
    for (int r = 0; r < rows; r++) {
        uint32_t i = a->class_pos.top + (uint32_t)r;
        if (i >= t->nrows) break;
        const ht_class_row *row = &t->rows[i];
        char line[1200];
        size_t len = 0;
        int marked = ht_store_has_mark(ht_app_store(a));
        for (int c = 0; c < NUMERIC_COLS; c++) {
            ht_class_col col = ORDER[c];
            char v[32] = "";
            int is_mark = col == HT_COL_DIFF_BYTES || col == HT_COL_DIFF_INSTANCES ||
                          col == HT_COL_GROWTH_BYTES;
            if (is_mark && !marked)
                ; /* no mark: the diff columns are blank */
            else if (col == HT_COL_INSTANCES || col == HT_COL_LIVE_INSTANCES ||
                     col == HT_COL_DIFF_INSTANCES)
                ht_ui_count(row->v[col], v, sizeof v);
            else
                ht_ui_bytes(row->v[col], a->unit, v, sizeof v);
            len += (size_t)snprintf(line + len, sizeof line - len, "%*s ", NUM_W, v);
        }
        snprintf(line + len, sizeof line - len, "%s", row->name);
        int sel = i == a->class_pos.cursor;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols,
                  ht_ui_attr(ui, sel ? HT_C_SELECTED : HT_C_NORMAL), line, 1);
    }
}
