/*
 * view_tree.c - the allocation tree screen (top-down call tree or hot spots).
 *
 * Draws the flattened visible rows of the site tree: the numeric columns that
 * fit (view_list.c decides, the sorted one always among them), then the frame
 * or class name indented by depth with a fold marker. Numbers first and the
 * name last, as htop puts the command last; the name keeps half the line,
 * at least 40 columns.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

void ht_view_tree(ht_app *a, int top, int height)
{
    const ht_ui *ui = &a->ui;
    const ht_store *s = ht_app_store(a);
    ht_site_tree *t = &a->tree;
    /* indented frame names need room: half the line, at least 40 columns */
    int name_min = ui->cols / 2 > 40 ? ui->cols / 2 : 40;
    if (ui->cols < 80) name_min = ui->cols / 2;
    ht_list_layout(a, &a->tree_cols, HT_TREE_COLS, HT_TREE_NCOLS, t->max_abs, t->has_neg,
                   a->tree_opts.sort_col, name_min);
    char title[256];
    snprintf(title, sizeof title, " %s%s",
             a->tree_opts.shape == HT_TREE_TOP_DOWN ? "CALL TREE (top-down)"
                                                    : "HOT SPOTS (callers below)",
             a->tree_opts.group == HT_GROUP_LEAVES ? ", classes at leaves"
             : a->tree_opts.group == HT_GROUP_TOP  ? ", classes at top"
                                                   : "");
    ht_list_title(a, top, &a->tree_cols, a->tree_opts.sort_col, a->tree_opts.ascending, title);
    int rows = height - 1;
    ht_list_clamp(&a->tree_pos, t->nvisible, rows);
    if (t->nvisible == 0) {
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  s->nrows ? "  nothing matches the filters" : "  no samples yet", 1);
        return;
    }
    for (int r = 0; r < rows; r++) {
        uint32_t i = a->tree_pos.top + (uint32_t)r;
        if (i >= t->nvisible) break;
        uint32_t n = t->visible[i];
        const ht_node *nd = &t->nodes[n];
        double v[HT_COL_COUNT] = {0};
        for (int c = 0; c < HT_TREE_NCOLS; c++)
            v[HT_TREE_COLS[c]] = ht_node_value(t, nd, HT_TREE_COLS[c]);
        char name[1024], line[1600];
        size_t len = ht_list_cells(a, &a->tree_cols, v, line, sizeof line);
        ht_tree_node_name(t, s, n, name, sizeof name);
        int depth = nd->depth > 1 ? nd->depth - 1 : 0;
        if (depth > 40) depth = 40;
        char marker = nd->first_child ? (ht_tree_is_expanded(t, n) ? '-' : '+') : ' ';
        snprintf(line + len, sizeof line - len, " %*s%c %s%s", depth * 2, "", marker,
                 nd->kind == HT_NODE_CLASS ? "[class] " : "", name);
        int sel = i == a->tree_pos.cursor;
        ht_color role = nd->kind == HT_NODE_CLASS ? HT_C_HEADER
                        : nd->kind == HT_NODE_CUT ? HT_C_DIM
                                                  : HT_C_NORMAL;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols, ht_ui_attr(ui, sel ? HT_C_SELECTED : role),
                  line, 1);
    }
}
