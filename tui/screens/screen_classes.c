/*
 * view_classes.c - the class table screen.
 *
 * One row per class: the numeric columns that fit (view_list.c decides, the
 * sorted one always among them; the sorted column is marked in the title row,
 * which is also a click target for sorting), then the class name, which keeps
 * up to half the line so that names are not cut before numbers are dropped.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

void ht_view_classes(ht_app *a, int top, int height)
{
    const ht_ui *ui = &a->ui;
    ht_class_table *t = &a->classes;
    int name_min = t->name_max + 1 < ui->cols / 2 ? t->name_max + 1 : ui->cols / 2;
    ht_list_layout(a, &a->class_cols, HT_CLASS_COLS, HT_CLASS_NCOLS, t->max_abs, t->has_neg,
                   t->sort_col, name_min);
    ht_list_title(a, top, &a->class_cols, t->sort_col, t->ascending, " CLASS");
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
        size_t len = ht_list_cells(a, &a->class_cols, row->v, line, sizeof line);
        snprintf(line + len, sizeof line - len, " %s", row->name);
        int sel = i == a->class_pos.cursor;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols,
                  ht_ui_attr(ui, sel ? HT_C_SELECTED : HT_C_NORMAL), line, 1);
    }
}
