/*
 * app_keys.c - what each key does: moving, folding, sorting, search, the
 * filter/search/interval input line, marks, export, commands to the agent,
 * and mouse clicks. Works on the app state only; drawing happens in the loop.
 */
#include "app.h"

#include "bytesize.h"
#include "export_csv.h"
#include "export_views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- tree helpers --- */

static uint32_t tree_cursor_node(const ht_app *a)
{
    return a->tree.nvisible ? a->tree.visible[a->tree_pos.cursor] : 0;
}

static void tree_select_node(ht_app *a, uint32_t node)
{
    for (uint32_t i = 0; i < a->tree.nvisible; i++)
        if (a->tree.visible[i] == node) {
            a->tree_pos.cursor = i;
            return;
        }
}

/* Search walks the whole tree, folded or not, wrapping at either end. */
static uint32_t wrap_next(const ht_site_tree *t, uint32_t n)
{
    uint32_t m = ht_tree_preorder_next(t, n);
    return m ? m : ht_tree_preorder_next(t, 0);
}

static uint32_t wrap_prev(const ht_site_tree *t, uint32_t n)
{
    uint32_t m = ht_tree_preorder_prev(t, n);
    return m ? m : ht_tree_preorder_prev(t, 0);
}

static int search_step(ht_app *a, int forward, int include_current)
{
    if (!a->search[0]) return 0;
    const ht_store *s = ht_app_store(a);
    char name[1024];
    if (a->screen == HT_SCREEN_TREE) {
        ht_site_tree *t = &a->tree;
        if (t->nnodes < 2) return 0;
        uint32_t start = tree_cursor_node(a);
        if (!start) start = t->nodes[0].first_child;
        uint32_t n =
            include_current ? start : (forward ? wrap_next(t, start) : wrap_prev(t, start));
        for (uint32_t k = 0; k < t->nnodes; k++) {
            ht_tree_node_name(t, s, n, name, sizeof name);
            if (strstr(name, a->search)) {
                for (uint32_t p = t->nodes[n].parent; p; p = t->nodes[p].parent)
                    ht_tree_set_expanded(t, p, 1);
                ht_tree_flatten(t);
                tree_select_node(a, n);
                return 1;
            }
            n = forward ? wrap_next(t, n) : wrap_prev(t, n);
        }
    } else if (a->screen == HT_SCREEN_CLASSES && a->classes.nrows) {
        uint32_t nrows = a->classes.nrows, c = a->class_pos.cursor;
        for (uint32_t k = include_current ? 0 : 1; k <= nrows; k++) {
            uint32_t i = forward ? (c + k) % nrows : (c + nrows - k % nrows) % nrows;
            if (strstr(a->classes.rows[i].name, a->search)) {
                a->class_pos.cursor = i;
                return 1;
            }
        }
    }
    return 0;
}

/* --- export --- */

static void export_screen(ht_app *a)
{
    static const char *const names[] = {"tree", "classes", "telemetry", "help"};
    if (a->screen == HT_SCREEN_HELP) {
        ht_app_status(a, "nothing to export on the help screen");
        return;
    }
    const ht_store *s = ht_app_store(a);
    char stamp[32], path[1024], summary[1024];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    int tree = a->screen == HT_SCREEN_TREE, classes = a->screen == HT_SCREEN_CLASSES;
    const char *view =
        tree && a->tree_opts.shape == HT_TREE_HOT_SPOTS ? "hotspots" : names[a->screen];
    /* never overwrite: two exports in one second get -2, -3, ... */
    if (ht_export_reserve(a->out_dir, view, stamp, path, summary, sizeof path) != 0) {
        ht_app_status(a, "cannot write in %s: %s", a->out_dir, strerror(errno));
        return;
    }
    int rc;
    if (tree)
        rc = ht_export_tree(&a->tree, s, path);
    else if (classes)
        rc = ht_export_class_table(&a->classes, s, path);
    else
        rc = ht_export_telemetry(s, path);
    if (rc != 0) {
        int e = errno;
        unlink(path); /* ours, and incomplete */
        unlink(summary);
        ht_app_status(a, "cannot write %s: %s", path, strerror(e));
        return;
    }
    /* what the rows are: the JVM, the time they cover, the mark, and what the
     * screen applied (sort order, filters, the one class of a class's tree) */
    char sort[64] = "";
    ht_col col = tree ? a->tree_opts.sort_col : a->classes.sort_col;
    int asc = tree ? a->tree_opts.ascending : a->classes.ascending;
    if (tree || classes)
        snprintf(sort, sizeof sort, "%s %s", col == HT_COL_NAME ? "CLASS" : ht_col_title(col),
                 asc ? "asc" : "desc");
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);
    const char *file = strrchr(path, '/');
    ht_summary_span span = {
        .start_ms = 0, /* the totals count from the agent's start */
        .end_ms = t ? t->t_ms : 0,
        .missed = a->cli ? a->cli->missed : 0,
        .file = file ? file + 1 : path,
        .view = view,
        .sort = sort,
        .class_filter = tree || classes ? a->class_filter.text : "",
        .frame_filter = tree ? a->frame_filter.text : "",
        .only_class = tree && a->only_class ? ht_store_class(s, a->only_class) : "",
    };
    if (ht_export_summary(s, &span, summary) != 0)
        ht_app_status(a, "exported to %s, but cannot write %s: %s", path, summary, strerror(errno));
    else
        ht_app_status(a, "exported to %s (and .summary.csv)", path);
}

/* --- commands to the agent --- */

static void agent_command(ht_app *a, uint16_t type, uint64_t arg)
{
    if (!a->cli || a->cli->state != HT_CONN_LIVE) {
        ht_app_status(a, "not connected to a JVM");
        return;
    }
    char err[256];
    uint64_t value = 0;
    if (ht_client_command(a->cli, type, arg, &value, err, sizeof err) != 0)
        ht_app_status(a, "%s", err);
    else if (type == HT_MSG_SET_INTERVAL_REQ)
        ht_app_status(a, "sampling interval set to %llu bytes", (unsigned long long)value);
    else if (type == HT_MSG_MARK_REQ)
        ht_app_status(a, "%s",
                      arg == HT_MARK_BEGIN ? "mark begun: diff columns count from now"
                      : arg == HT_MARK_END ? "mark ended: diff columns hold the marked phase"
                                           : "mark continued: diff columns add to the same phase");
    else
        ht_app_status(a, "sampling %s", value ? "resumed" : "paused");
}

/* --- keys --- */

static int list_height(const ht_app *a)
{
    return a->ui.rows - 3 - 2 - 1; /* header, title, status + key bar */
}

static void move_cursor(ht_list_pos *p, uint32_t n, int delta, int height)
{
    if (n == 0) return;
    long c = (long)p->cursor + delta;
    if (c < 0) c = 0;
    if (c >= (long)n) c = (long)n - 1;
    p->cursor = (uint32_t)c;
    ht_list_clamp(p, n, height);
}

static ht_filter *screen_filter(ht_app *a)
{
    return a->screen == HT_SCREEN_CLASSES ? &a->class_filter : &a->frame_filter;
}

static void finish_input(ht_app *a, int accept)
{
    ht_input in = a->input;
    a->input = HT_INPUT_NONE;
    if (!accept) {
        /* Esc cancels, as in htop: the search ends, the filter is put back */
        if (in == HT_INPUT_SEARCH) a->search[0] = '\0';
        if (in == HT_INPUT_FILTER) {
            char err[128];
            ht_filter_parse(screen_filter(a), a->line_before, err, sizeof err);
            a->need_build = 1;
        }
        a->need_draw = 1;
        return;
    }
    char err[128];
    if (in == HT_INPUT_FILTER) {
        if (ht_filter_parse(screen_filter(a), a->line, err, sizeof err) != 0)
            ht_app_status(a, "%s", err);
        a->need_build = 1;
    } else if (in == HT_INPUT_INTERVAL) {
        uint64_t v;
        char why[400];
        if (ht_parse_bytes(a->line, HT_MAX_INTERVAL, &v, why, sizeof why) != 0)
            ht_app_status(a, "interval unchanged: %s", why);
        else
            agent_command(a, HT_MSG_SET_INTERVAL_REQ, v);
    }
    a->need_draw = 1;
}

static void input_key(ht_app *a, int ch)
{
    if (ch == 27) {
        finish_input(a, 0);
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        finish_input(a, 1);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (a->line_len) a->line[--a->line_len] = '\0';
    } else if (ch == 21) { /* Ctrl-U: clear the line */
        a->line_len = 0;
        a->line[0] = '\0';
    } else if (ch >= 32 && ch < 127 && a->line_len + 1 < sizeof a->line) {
        a->line[a->line_len++] = (char)ch;
        a->line[a->line_len] = '\0';
    }
    if (a->input == HT_INPUT_SEARCH) {
        snprintf(a->search, sizeof a->search, "%s", a->line);
        if (a->search[0] && !search_step(a, 1, 1)) ht_app_status(a, "no match for '%s'", a->search);
    }
    if (a->input == HT_INPUT_FILTER) {
        /* filters apply as you type */
        char err[128];
        if (ht_filter_parse(screen_filter(a), a->line, err, sizeof err) == 0) a->need_build = 1;
    }
    a->need_draw = 1;
}

static void start_input(ht_app *a, ht_input in)
{
    a->input = in;
    const char *init = "";
    if (in == HT_INPUT_FILTER) init = screen_filter(a)->text;
    snprintf(a->line, sizeof a->line, "%s", init);
    snprintf(a->line_before, sizeof a->line_before, "%s", init);
    a->line_len = strlen(a->line);
    a->need_draw = 1;
}

/* Sort the screen in front by col: a new column sorts largest first, the
 * same one again (a second click) reverses. The tree re-orders the children
 * of every node and keeps the cursor on its node. */
static void set_sort(ht_app *a, ht_col col, int reverse_if_same)
{
    if (a->screen == HT_SCREEN_TREE) {
        if (col == HT_COL_PCT) col = HT_COL_BYTES;
        if (col >= HT_COL_NAME) return; /* frames have no name order */
        if (col == a->tree_opts.sort_col && reverse_if_same)
            a->tree_opts.ascending = !a->tree_opts.ascending;
        else if (col != a->tree_opts.sort_col)
            a->tree_opts.ascending = 0;
        a->tree_opts.sort_col = col;
        uint32_t n = tree_cursor_node(a);
        ht_tree_sort(&a->tree, a->tree_opts.sort_col, a->tree_opts.ascending);
        tree_select_node(a, n);
    } else if (a->screen == HT_SCREEN_CLASSES) {
        ht_class_table *t = &a->classes;
        if (col == t->sort_col && reverse_if_same)
            t->ascending = !t->ascending;
        else if (col != t->sort_col)
            t->ascending = 0;
        t->sort_col = col;
        char keep[512] = "";
        if (a->class_pos.cursor < t->nrows)
            snprintf(keep, sizeof keep, "%s", t->rows[a->class_pos.cursor].name);
        ht_class_table_sort(t);
        uint32_t at = ht_class_table_find(t, keep);
        if (at != UINT32_MAX) a->class_pos.cursor = at;
    }
    a->need_draw = 1;
}

static void reverse_sort(ht_app *a)
{
    if (a->screen == HT_SCREEN_TREE) {
        a->tree_opts.ascending = !a->tree_opts.ascending;
        set_sort(a, a->tree_opts.sort_col, 0);
    } else if (a->screen == HT_SCREEN_CLASSES) {
        a->classes.ascending = !a->classes.ascending;
        set_sort(a, a->classes.sort_col, 0);
    }
}

static void cycle_sort(ht_app *a, int dir)
{
    if (a->screen == HT_SCREEN_TREE)
        set_sort(a, ht_list_next_sort(HT_TREE_SORTS, HT_TREE_NSORTS, a->tree_opts.sort_col, dir),
                 0);
    else if (a->screen == HT_SCREEN_CLASSES)
        set_sort(a, ht_list_next_sort(HT_CLASS_SORTS, HT_CLASS_NSORTS, a->classes.sort_col, dir),
                 0);
}

static void tree_key(ht_app *a, int ch)
{
    uint32_t n = tree_cursor_node(a);
    ht_site_tree *t = &a->tree;
    switch (ch) {
    case KEY_RIGHT:
    case '+':
        if (n) ht_tree_set_expanded(t, n, 1);
        break;
    case KEY_LEFT:
    case '-':
        if (n && ht_tree_is_expanded(t, n) && t->nodes[n].first_child)
            ht_tree_set_expanded(t, n, 0);
        else if (n && t->nodes[n].parent) {
            ht_tree_set_expanded(t, t->nodes[n].parent, 0);
            ht_tree_flatten(t);
            tree_select_node(a, t->nodes[n].parent);
            return;
        }
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (n) ht_tree_set_expanded(t, n, !ht_tree_is_expanded(t, n));
        break;
    case '*':
        if (n) ht_tree_expand_all(t, n);
        break;
    case 't':
    case KEY_F(5):
        a->tree_opts.shape =
            a->tree_opts.shape == HT_TREE_TOP_DOWN ? HT_TREE_HOT_SPOTS : HT_TREE_TOP_DOWN;
        a->tree_pos.cursor = a->tree_pos.top = 0;
        a->need_build = 1;
        return;
    case 'g':
        a->tree_opts.group = (ht_tree_group)((a->tree_opts.group + 1) % 3);
        a->tree_pos.cursor = a->tree_pos.top = 0;
        a->need_build = 1;
        return;
    case 27:
        /* Esc goes back where the class's tree was opened from */
        if (a->only_class) {
            a->only_class = 0;
            a->need_build = 1;
            if (a->only_class_from == HT_SCREEN_CLASSES) a->screen = HT_SCREEN_CLASSES;
        }
        return;
    default:
        return;
    }
    ht_tree_flatten(t);
    tree_select_node(a, n);
}

static void classes_key(ht_app *a, int ch)
{
    ht_class_table *t = &a->classes;
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (t->nrows) {
            a->only_class = t->rows[a->class_pos.cursor].class_id;
            a->only_class_from = HT_SCREEN_CLASSES;
            a->screen = HT_SCREEN_TREE;
            a->tree_pos.cursor = a->tree_pos.top = 0;
            a->need_build = 1;
        }
        return;
    default:
        return;
    }
}

static void mouse_key(ht_app *a)
{
    MEVENT ev;
    if (getmouse(&ev) != OK) return;
    if (ev.y == a->ui.rows - 1) {
        int key = ht_keybar_key_at(a, ev.x);
        if (key >= 0) ungetch(key);
        return;
    }
    ht_list_pos *p = a->screen == HT_SCREEN_TREE      ? &a->tree_pos
                     : a->screen == HT_SCREEN_CLASSES ? &a->class_pos
                                                      : NULL;
    uint32_t n = a->screen == HT_SCREEN_TREE ? a->tree.nvisible : a->classes.nrows;
    if (!p) return;
    if (ev.bstate & BUTTON4_PRESSED) {
        move_cursor(p, n, -3, list_height(a));
    } else if (ev.bstate & BUTTON5_PRESSED) {
        move_cursor(p, n, 3, list_height(a));
    } else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
        int title = a->title_row;
        if (ev.y == title) {
            /* a click on a column title sorts by it; on the sorted one, reverses */
            const ht_col_layout *l = a->screen == HT_SCREEN_TREE ? &a->tree_cols : &a->class_cols;
            ht_col c = ht_col_layout_at(l, ev.x);
            if (c != HT_COL_COUNT) set_sort(a, c, 1);
        } else if (ev.y > title && ev.y < a->ui.rows - 2) {
            uint32_t row = p->top + (uint32_t)(ev.y - title - 1);
            if (row < n) p->cursor = row;
        }
    }
    a->need_draw = 1;
}

static void dispatch_key(ht_app *a, int ch);

void ht_app_key(ht_app *a, int ch)
{
    ht_screen was = a->screen;
    dispatch_key(a, ch);
    if (a->screen != was && a->screen != HT_SCREEN_HELP) a->need_build = 1;
}

static void dispatch_key(ht_app *a, int ch)
{
    a->need_draw = 1;
    if (a->input != HT_INPUT_NONE) {
        input_key(a, ch);
        return;
    }
    if (a->screen == HT_SCREEN_HELP &&
        (ch == KEY_DOWN || ch == KEY_NPAGE || ch == KEY_UP || ch == KEY_PPAGE)) {
        int step = ch == KEY_DOWN || ch == KEY_UP ? 1 : list_height(a);
        a->help_top += ch == KEY_DOWN || ch == KEY_NPAGE ? step : -step;
        if (a->help_top > ht_help_lines() - list_height(a))
            a->help_top = ht_help_lines() - list_height(a);
        if (a->help_top < 0) a->help_top = 0;
        return;
    }
    if (a->screen == HT_SCREEN_HELP && ch != KEY_RESIZE && ch != KEY_MOUSE) {
        a->screen = a->prev_screen;
        if (ch != 'q' && ch != KEY_F(10)) return;
    }
    ht_list_pos *p = a->screen == HT_SCREEN_TREE      ? &a->tree_pos
                     : a->screen == HT_SCREEN_CLASSES ? &a->class_pos
                                                      : NULL;
    uint32_t n = a->screen == HT_SCREEN_TREE ? a->tree.nvisible : a->classes.nrows;
    int h = list_height(a);
    switch (ch) {
    case 'q':
    case KEY_F(10):
        a->quit = 1;
        return;
    case '\t':
    case KEY_F(2):
        a->screen = (ht_screen)((a->screen + 1) % HT_SCREEN_HELP);
        return;
    case KEY_BTAB:
        a->screen = (ht_screen)((a->screen + HT_SCREEN_HELP - 1) % HT_SCREEN_HELP);
        return;
    case '1':
        a->screen = HT_SCREEN_TREE;
        return;
    case '2':
        a->screen = HT_SCREEN_CLASSES;
        return;
    case '3':
        a->screen = HT_SCREEN_TELEMETRY;
        return;
    case '?':
    case 'h':
    case KEY_F(1):
        a->prev_screen = a->screen;
        a->screen = HT_SCREEN_HELP;
        a->help_top = 0;
        return;
    case KEY_UP:
        if (p) move_cursor(p, n, -1, h);
        return;
    case KEY_DOWN:
        if (p) move_cursor(p, n, 1, h);
        return;
    case KEY_PPAGE:
        if (p) move_cursor(p, n, -h, h);
        return;
    case KEY_NPAGE:
        if (p) move_cursor(p, n, h, h);
        return;
    case KEY_HOME:
        if (p) move_cursor(p, n, -(int)n, h);
        return;
    case KEY_END:
        if (p) move_cursor(p, n, (int)n, h);
        return;
    case '\\':
    case KEY_F(4):
        if (a->screen != HT_SCREEN_TELEMETRY) start_input(a, HT_INPUT_FILTER);
        return;
    case '/':
    case KEY_F(3):
        if (a->screen != HT_SCREEN_TELEMETRY) start_input(a, HT_INPUT_SEARCH);
        return;
    case 'n':
    case 'N':
        if (!search_step(a, ch == 'n', 0) && a->search[0])
            ht_app_status(a, "no match for '%s'", a->search);
        return;
    case 'b':
    case KEY_F(7):
        agent_command(a, HT_MSG_MARK_REQ, HT_MARK_BEGIN);
        return;
    case 'E':
        agent_command(a, HT_MSG_MARK_REQ, HT_MARK_END);
        return;
    case 'c':
        agent_command(a, HT_MSG_MARK_REQ, HT_MARK_CONTINUE);
        return;
    case 'f':
    case KEY_F(9):
        a->frozen = !a->frozen;
        if (!a->frozen) a->need_build = 1;
        return;
    case 'i':
    case KEY_F(8):
        start_input(a, HT_INPUT_INTERVAL);
        return;
    case 'p': {
        const ht_telemetry_rec *t = ht_store_last_telemetry(ht_app_store(a));
        agent_command(a, t && t->paused ? HT_MSG_RESUME_REQ : HT_MSG_PAUSE_REQ, 0);
        return;
    }
    case 'u':
        a->unit = (a->unit + 1) % 4;
        return;
    case '>':
    case '.':
    case KEY_F(6):
        cycle_sort(a, 1);
        return;
    case '<':
    case ',':
        cycle_sort(a, -1);
        return;
    case 'I':
        reverse_sort(a);
        return;
    case 'G':
        /* the leak hunt in one key: largest live growth since Begin first */
        if (a->screen != HT_SCREEN_TREE && a->screen != HT_SCREEN_CLASSES) return;
        if (a->screen == HT_SCREEN_TREE)
            a->tree_opts.ascending = 0;
        else
            a->classes.ascending = 0;
        set_sort(a, HT_COL_GROWTH_BYTES, 0);
        ht_app_status(a, ht_store_has_mark(ht_app_store(a))
                             ? "sorted by GROWTH B: live bytes now minus at Begin"
                             : "sorted by GROWTH B, which stays blank until a mark begins (b)");
        return;
    case 'e':
        export_screen(a);
        return;
    case 12: /* Ctrl-L */
        clearok(curscr, TRUE);
        return;
    case KEY_RESIZE:
        getmaxyx(stdscr, a->ui.rows, a->ui.cols);
        return;
    case KEY_MOUSE:
        mouse_key(a);
        return;
    default:
        break;
    }
    if (a->screen == HT_SCREEN_TREE) tree_key(a, ch);
    if (a->screen == HT_SCREEN_CLASSES) classes_key(a, ch);
}
