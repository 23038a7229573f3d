/*
 * view_tree.c - the allocation tree screen (top-down call tree or hot spots).
 *
 * Draws the flattened visible rows of the site tree: estimated bytes, share of
 * the total, instances, live bytes, mark diffs, and the frame or class name
 * indented by depth with a fold marker. Numbers first and the name last, as
 * htop puts the command last, so names get whatever width is left.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

void ht_view_tree(ht_app *a, int top, int height)
{
    const ht_ui *ui = &a->ui;
    const ht_store *s = ht_app_store(a);
    ht_site_tree *t = &a->tree;
    int wide = ui->cols >= 100;
    char title[256];
    snprintf(title, sizeof title, "%9s %6s %8s %9s%s %9s%s  %s%s", "EST BYTES", "%", "INST", "LIVE",
             wide ? "     YOUNG" : "", "DIFF B", wide ? "    DIFF I" : "",
             a->tree_opts.shape == HT_TREE_TOP_DOWN ? "CALL TREE (top-down)"
                                                    : "HOT SPOTS (callers below)",
             a->tree_opts.group == HT_GROUP_LEAVES ? ", classes at leaves"
             : a->tree_opts.group == HT_GROUP_TOP  ? ", classes at top"
                                                   : "");
    ht_ui_put(stdscr, top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), title, 1);
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
        char b[32], inst[32], live[32], young[32], db[32] = "", di[32] = "", name[1024], line[1400];
        ht_ui_bytes(nd->bytes, a->unit, b, sizeof b);
        ht_ui_count(nd->instances, inst, sizeof inst);
        ht_ui_bytes(nd->live_bytes, a->unit, live, sizeof live);
        ht_ui_bytes(nd->young_bytes, a->unit, young, sizeof young);
        if (ht_store_has_mark(s)) { /* no mark: the diff columns are blank */
            ht_ui_bytes(nd->diff_bytes, a->unit, db, sizeof db);
            ht_ui_count(nd->diff_instances, di, sizeof di);
        }
        ht_tree_node_name(t, s, n, name, sizeof name);
        double pct = t->total_bytes > 0 ? 100.0 * nd->bytes / t->total_bytes : 0;
        int depth = nd->depth > 1 ? nd->depth - 1 : 0;
        if (depth > 40) depth = 40;
        char marker = nd->first_child ? (ht_tree_is_expanded(t, n) ? '-' : '+') : ' ';
        char dcol[48] = "", ycol[48] = "";
        if (wide) snprintf(dcol, sizeof dcol, " %9s", di);
        if (wide) snprintf(ycol, sizeof ycol, " %9s", young);
        snprintf(line, sizeof line, "%9s %5.1f%% %8s %9s%s %9s%s  %*s%c %s%s", b, pct, inst, live,
                 ycol, db, dcol, depth * 2, "", marker, nd->kind == HT_NODE_CLASS ? "[class] " : "",
                 name);
        int sel = i == a->tree_pos.cursor;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols,
                  sel ? ht_ui_attr(ui, HT_C_SELECTED)
                      : ht_ui_attr(ui, nd->kind == HT_NODE_CLASS ? HT_C_HEADER : HT_C_NORMAL),
                  line, 1);
    }
}
