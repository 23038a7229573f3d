/*
 * view_help.c - the help screen: every key, grouped as htop groups them.
 */
#include "app.h"

static const char *const HELP[] = {
    "Screens",
    "  Tab, 1 2 3      allocation tree, classes, telemetry       F2  next screen",
    "  F1 ? h          this help (any key returns)",
    "Moving",
    "  Up Down PgUp PgDn Home End, mouse click and wheel",
    "Sorting (tree and classes)",
    "  < > F6          sort by the previous/next column, or click a column title",
    "  I               reverse the sort order (a second click on a title too)",
    "  G               leaks: sort by GROWTH B, live bytes now minus at Begin (b)",
    "Allocation tree",
    "  Right +         unfold              Left -     fold (or go to the parent)",
    "  Enter           fold/unfold         *          unfold everything below",
    "  t F5            top-down tree <-> hot spots (allocating frames, callers below)",
    "  g               group by class: none, at the leaves, at the top",
    "  [stack cut at depth N]: stacks that deep may miss outer frames (agent's depth=)",
    "  Class.method [native]: a native method, which has no line",
    "Classes",
    "  Enter           open the allocation tree of the selected class (Esc: back)",
    "Filters and search",
    "  \\ F4            filter: 'java., !.io., demo.' (comma list, ! excludes); frames on",
    "                  the tree screen, class names on the classes screen",
    "  / F3            search, jumping as you type; n N next/previous match",
    "  in a prompt     Enter accepts, Esc cancels (the filter goes back), Ctrl-U clears",
    "Marks (diff and growth columns, blank without a mark)",
    "  b F7            Begin mark: diff columns restart from zero, growth from now",
    "  E               End mark: diff and growth stop counting",
    "  c               Continue mark: keep adding to the same diff",
    "Agent and display",
    "  i F8            set the sampling interval      p    pause/resume sampling",
    "  f F9            freeze the display (data keeps arriving)",
    "  u               units: auto, B, KiB, MiB       Ctrl-L  redraw",
    "  e               export this screen's rows to CSV, with a .summary.csv beside it",
    "  q F10           quit",
};

int ht_help_lines(void)
{
    return (int)(sizeof HELP / sizeof HELP[0]);
}

void ht_view_help(ht_app *a, int top, int height)
{
    const ht_ui *ui = &a->ui;
    int n = ht_help_lines();
    int more = n - a->help_top > height;
    if (a->help_top > n - 1) a->help_top = n - 1;
    for (int i = 0; i + a->help_top < n && i < height; i++) {
        const char *text = HELP[i + a->help_top];
        int heading = text[0] != ' ';
        if (more && i == height - 1) {
            ht_ui_put(stdscr, top + i, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                      "  -- more: Down/PgDn scrolls, any other key returns --", 1);
            break;
        }
        ht_ui_put(stdscr, top + i, 0, ui->cols,
                  ht_ui_attr(ui, heading ? HT_C_HEADER : HT_C_NORMAL) | (heading ? A_BOLD : 0),
                  text, 1);
    }
}
