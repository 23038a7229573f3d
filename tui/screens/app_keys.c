/*
 * app_keys.c - the keys every screen has, and which binding a key means.
 *
 * Owns: the global key table (ht_global_keys: switching screens, moving,
 * sorting, search, filters, marks, the agent, the display, export, quit;
 * also the skeleton of the help, see keymap.h), their actions, the line
 * input of the filter, search and interval prompts, the mouse, and dispatch:
 * an open prompt takes the key; Esc cancels a job the status line shows;
 * then the screen in front's own keys (a modal one closes on any other key);
 * then the keys of the screen that opened it (HT_KEY_CHILD: Esc back); then
 * a screen's own key ('1'); then the global table. Global keys that depend
 * on the screen ask its hooks (sort, search, filter, export) and do nothing
 * where it has none. UI thread only; nothing here waits: requests to the
 * agent and exports are jobs (tasks.h).
 */
#include "clock.h"
#include "app.h"

#include "bytesize.h"
#include "keymap.h"
#include "launch.h"
#include "tasks.h"

#include <stdio.h>
#include <string.h>

extern const ht_screen ht_screen_help, ht_screen_screens;

static void *front_state(const ht_app *a)
{
    return a->state[a->front];
}

/* --- screens --- */

static void key_next_screen(void *self, ht_host *h, int ch)
{
    (void)h;
    ht_app *a = self;
    ht_app_show(a, ht_screen_next(a->front, ch == KEY_BTAB ? -1 : 1), 0);
}

static void key_screen_list(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_app_show(self, ht_screen_index(&ht_screen_screens), 0);
}

static void key_help(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_app_show(self, ht_screen_index(&ht_screen_help), 0);
}

/* --- moving --- */

static void move_cursor(ht_list_pos *p, uint32_t n, int delta, int height)
{
    if (n == 0) return;
    long c = (long)p->cursor + delta;
    if (c < 0) c = 0;
    if (c >= (long)n) c = (long)n - 1;
    p->cursor = (uint32_t)c;
    ht_list_clamp(p, n, height);
}

static ht_list_pos *front_list(ht_app *a, uint32_t *n)
{
    const ht_screen *s = ht_app_front(a);
    *n = 0;
    return s->list ? s->list(front_state(a), n) : NULL;
}

static void key_move(void *self, ht_host *h, int ch)
{
    ht_app *a = self;
    uint32_t n;
    ht_list_pos *p = front_list(a, &n);
    int page = ht_host_page(h);
    if (!p) return;
    int delta = ch == KEY_UP      ? -1
                : ch == KEY_DOWN  ? 1
                : ch == KEY_PPAGE ? -page
                : ch == KEY_NPAGE ? page
                : ch == KEY_HOME  ? -(int)n
                                  : (int)n;
    move_cursor(p, n, delta, page);
}

/* --- sorting --- */

static int sort_front(ht_app *a, ht_sort_op op, ht_col col)
{
    const ht_screen *s = ht_app_front(a);
    if (!s->sort) return 0;
    s->sort(front_state(a), a, op, col);
    return 1;
}

static void key_sort_step(void *self, ht_host *h, int ch)
{
    (void)h;
    sort_front(self, ch == '<' || ch == ',' ? HT_SORT_PREV : HT_SORT_NEXT, HT_COL_COUNT);
}

static void key_sort_reverse(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    sort_front(self, HT_SORT_REVERSE, HT_COL_COUNT);
}

/* The leak hunt in one key: largest live growth since Begin first. */
static void key_sort_leak(void *self, ht_host *h, int ch)
{
    (void)ch;
    if (!sort_front(self, HT_SORT_LEAK, HT_COL_GROWTH_BYTES)) return;
    ht_host_status(h, "%s",
                   ht_store_has_mark(ht_host_store(h))
                       ? "sorted by GROWTH B: live bytes now minus at Begin"
                       : "sorted by GROWTH B, which stays blank until a mark begins (b)");
}

/* --- search, filters and the line input --- */

static ht_filter *front_filter(ht_app *a)
{
    switch (ht_app_front(a)->filter) {
    case HT_FILTER_CLASSES:
        return &a->lens.class_filter;
    case HT_FILTER_FRAMES:
        return &a->lens.frame_filter;
    case HT_FILTER_REFS:
        return &a->lens.ref_filter;
    case HT_FILTER_JVMS:
        return &a->lens.jvm_filter;
    case HT_FILTER_CONSOLE:
        return &a->lens.console_filter;
    case HT_FILTER_THREADS:
        return &a->lens.thread_filter;
    default:
        return NULL;
    }
}

static int search_step(ht_app *a, int forward, int from_cursor)
{
    const ht_screen *s = ht_app_front(a);
    if (!a->input.search[0] || !s->search) return 0;
    return s->search(front_state(a), ht_app_store(a), a->input.search, forward, from_cursor);
}

static void start_input(ht_app *a, ht_input in)
{
    a->input.kind = in;
    const char *init = "";
    if (in == HT_INPUT_FILTER) init = front_filter(a)->text;
    if (in == HT_INPUT_DRAG && ht_host_store(a)->drag.filter) /* the filter in force */
        init = ht_host_store(a)->drag.filter;
    snprintf(a->input.line, sizeof a->input.line, "%s", init);
    snprintf(a->input.line_before, sizeof a->input.line_before, "%s", init);
    a->input.line_len = strlen(a->input.line);
}

static void finish_input(ht_app *a, int accept)
{
    ht_input in = a->input.kind;
    a->input.kind = HT_INPUT_NONE;
    char err[128];
    if (!accept) {
        /* Esc cancels, as in htop: the search ends, the filter is put back */
        if (in == HT_INPUT_SEARCH) a->input.search[0] = '\0';
        if (in == HT_INPUT_FILTER) {
            ht_filter_parse(front_filter(a), a->input.line_before, err, sizeof err);
            a->need_build = 1;
        }
        return;
    }
    if (in == HT_INPUT_FILTER) {
        if (ht_filter_parse(front_filter(a), a->input.line, err, sizeof err) != 0)
            ht_app_status(a, "%s", err);
        a->need_build = 1;
    } else if (in == HT_INPUT_INTERVAL) {
        uint64_t v;
        char why[400];
        if (ht_parse_bytes(a->input.line, HT_MAX_INTERVAL, &v, why, sizeof why) != 0)
            ht_app_status(a, "interval unchanged: %s", why);
        else
            ht_task_command(a, HT_MSG_SET_INTERVAL_REQ, v);
    } else if (in == HT_INPUT_DRAG) {
        char why[400];
        if (ht_drag_filter_check(a->input.line, why, sizeof why) != 0)
            ht_app_status(a, "drag mode unchanged: %s", why);
        else
            ht_task_drag(a, a->input.line);
    }
}

static void input_key(ht_app *a, int ch)
{
    if (ch == 27) {
        finish_input(a, 0);
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        finish_input(a, 1);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (a->input.line_len) a->input.line[--a->input.line_len] = '\0';
    } else if (ch == 21) { /* Ctrl-U: clear the line */
        a->input.line_len = 0;
        a->input.line[0] = '\0';
    } else if (ch >= 32 && ch < 127 && a->input.line_len + 1 < sizeof a->input.line) {
        a->input.line[a->input.line_len++] = (char)ch;
        a->input.line[a->input.line_len] = '\0';
    }
    if (a->input.kind == HT_INPUT_SEARCH) {
        snprintf(a->input.search, sizeof a->input.search, "%s", a->input.line);
        if (a->input.search[0] && !search_step(a, 1, 1))
            ht_app_status(a, "no match for '%s'", a->input.search);
    }
    if (a->input.kind == HT_INPUT_FILTER) {
        /* filters apply as you type */
        char err[128];
        if (ht_filter_parse(front_filter(a), a->input.line, err, sizeof err) == 0)
            a->need_build = 1;
    }
}

static void key_filter(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    if (front_filter(self)) start_input(self, HT_INPUT_FILTER);
}

static void key_search(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    if (ht_app_front(self)->search) start_input(self, HT_INPUT_SEARCH);
}

static void key_search_again(void *self, ht_host *h, int ch)
{
    ht_app *a = self;
    if (!search_step(a, ch == 'n', 0) && a->input.search[0])
        ht_host_status(h, "no match for '%s'", a->input.search);
}

/* --- the agent --- */

static void key_mark(void *self, ht_host *h, int ch)
{
    (void)h;
    ht_app *a = self;
    ht_task_command(a, HT_MSG_MARK_REQ,
                    ch == 'E'   ? HT_MARK_END
                    : ch == 'c' ? HT_MARK_CONTINUE
                                : HT_MARK_BEGIN);
    /* m on the Compare screen: Begin and End take a snapshot each (asked
     * after the mark: one queue keeps the order), End's compared with
     * Begin's. While another dump is asked for or written, this one is
     * taken once that one is written (app.c, follow_dump). */
    if (a->dump.mark_snapshots && ch != 'c' && a->conn.cli && a->conn.cli->state == HT_CONN_LIVE) {
        if (a->dump.id || a->dump.asking) {
            a->dump.snapshot_wanted = ch == 'E' ? 2 : 1;
            ht_app_status(a, "the snapshot of this mark waits for the one being written");
        } else if (ht_app_take_snapshot(a, 0) == 0) {
            a->dump.compare = ch == 'E';
        }
    }
}

static void key_interval(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    start_input(self, HT_INPUT_INTERVAL);
}

/* D: drag mode's filter, the one in force to edit; empty turns it off. */
static void key_drag(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    start_input(self, HT_INPUT_DRAG);
}

static void key_pause_resume(void *self, ht_host *h, int ch)
{
    (void)ch;
    const ht_telemetry_rec *t = ht_store_last_telemetry(ht_host_store(h));
    ht_task_command(self, t && t->paused ? HT_MSG_RESUME_REQ : HT_MSG_PAUSE_REQ, 0);
}

/* H: the first press says what a snapshot costs and asks; H (or K, to
 * keep the file) again within 10 s takes it. */
static void key_heap_dump(void *self, ht_host *h, int ch)
{
    ht_app *a = self;
    uint64_t now = ht_mono_ms();
    if (a->conn.no_jvm) {
        ht_app_status(a, "no JVM here: this is a dump file (heaptop PID takes snapshots)");
        return;
    }
    if (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE) {
        ht_app_status(a, "no JVM connected: nothing to take a snapshot of");
        return;
    }
    if (a->dump.id || a->dump.asking) {
        ht_app_status(a, "a heap snapshot is already being taken");
        return;
    }
    if (ch == 'H' && (!a->dump.asked_ms || now - a->dump.asked_ms > 10000)) {
        const ht_telemetry_rec *t = ht_store_last_telemetry(ht_host_store(h));
        char used[32];
        ht_ui_bytes(t ? (double)t->heap_used : 0, HT_UNIT_AUTO, used, sizeof used);
        a->dump.asked_ms = now;
        /* a question in two parts, each whole at 80 columns (header.c
         * gives the keys the key bar's line while it is asked) */
        ht_app_status(a,
                      "snapshot: a full GC, then the JVM stops to write ~%s (~1 s/150 MB live)\n"
                      "H: take it, K: take it and keep the file, any other key: not now",
                      used);
        return;
    }
    if (!a->dump.asked_ms || now - a->dump.asked_ms > 10000) return; /* K alone */
    a->dump.asked_ms = 0;
    ht_app_take_snapshot(a, ch == 'K' ? HT_DUMP_KEEP : 0);
}

int ht_app_take_snapshot(ht_app *a, unsigned flags)
{
    if (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE) {
        ht_app_status(a, "no JVM connected: nothing to take a snapshot of");
        return -1;
    }
    if (a->dump.id || a->dump.asking) {
        ht_app_status(a, "a heap snapshot is already being taken");
        return -1;
    }
    a->dump.flags = flags;
    if (ht_task_command(a, HT_MSG_HEAP_DUMP_REQ, a->dump.flags) != 0) return -1;
    a->dump.asking = 1; /* until the agent answers (tasks.c): one dump at a time */
    return 0;
}

/* --- the display --- */

static void key_freeze(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_app *a = self;
    a->frozen = !a->frozen;
    if (!a->frozen) a->need_build = 1;
}

static void key_units(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_app *a = self;
    a->unit = (ht_unit)((a->unit + 1) % HT_UNIT_COUNT);
}

static void key_redraw(void *self, ht_host *h, int ch)
{
    (void)self, (void)h, (void)ch;
    clearok(curscr, TRUE);
}

static void key_export(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_task_export(self);
}

static void key_quit(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    ht_app *a = self;
    if (a->launch.prog && !a->launch.prog->exited)
        a->input.quit_asked = 1; /* the program heaptop run started: stop it or leave it? */
    else
        a->quit = 1;
}

/* Read top to bottom, this is also the help (keymap.h). */
const ht_binding ht_global_keys[] = {
    {.flags = HT_KEY_HEADING, .help = "Screens"},
    {HT_KEYS('\t'), HT_ALSO(KEY_BTAB), .act = key_next_screen, .flags = HT_KEY_SWITCH},
    {HT_KEYS(KEY_F(2)), .help = "every screen, to pick one (Tab: the next, S-Tab: the one before)",
     .bar = "Screen", .act = key_screen_list},
    {HT_KEYS(KEY_F(1), '?', 'h'), .help = "this help (q, Esc or any other key returns)",
     .bar = "Help", .act = key_help},
    {.flags = HT_KEY_HEADING, .help = "Moving"},
    {HT_KEYS(KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END),
     .help = "mouse click and wheel", .act = key_move, .flags = HT_KEY_LIST},
    {.flags = HT_KEY_HEADING | HT_KEY_SORTERS, .help = "Sorting (%s)"},
    {HT_KEYS('<', '>', KEY_F(6)), HT_ALSO(',', '.'),
     .help = "sort by the previous/next column, or click a column title", .bar = "SortBy",
     .act = key_sort_step},
    {HT_KEYS('I'), .help = "reverse the sort order (a second click on a title too)",
     .act = key_sort_reverse},
    {HT_KEYS('G'), .help = "leaks: sort by GROWTH B, live bytes now minus at Begin (b)",
     .act = key_sort_leak},
    {.flags = HT_KEY_SCREENS},
    {.flags = HT_KEY_HEADING, .help = "Filters and search"},
    {HT_KEYS('\\', KEY_F(4)),
     .help = "filter: 'java., !.io., demo.' (comma list, ! excludes, =a.B just that\n"
             "name); frames on the tree, class names on the classes and heap screens,\n"
             "the classes of the objects listed in the reference browser",
     .bar = "Filter", .act = key_filter},
    {HT_KEYS('/', KEY_F(3)), .help = "search, jumping as you type;", .bar = "Search",
     .act = key_search},
    {HT_KEYS('n', 'N'), .help = "next/previous match", .act = key_search_again,
     .flags = HT_KEY_RIGHT, .col = 47, .help_col = 51},
    {.flags = HT_KEY_NOTE,
     .label = "in a prompt",
     .help = "Enter accepts, Esc cancels (the filter goes back), Ctrl-U clears"},
    {.flags = HT_KEY_HEADING, .help = "Marks (diff and growth columns, blank without a mark)"},
    {HT_KEYS('b', KEY_F(7)), .help = "Begin mark: diff columns restart from zero, growth from now",
     .bar = "Mark", .act = key_mark},
    {HT_KEYS('E'), .help = "End mark: diff and growth stop counting", .act = key_mark},
    {HT_KEYS('c'), .help = "Continue mark: keep adding to the same diff", .act = key_mark},
    {.flags = HT_KEY_HEADING, .help = "Agent and display"},
    {HT_KEYS('i', KEY_F(8)), .help = "set the sampling interval", .bar = "Intrvl",
     .act = key_interval},
    {HT_KEYS('p'), .help = "pause/resume sampling", .act = key_pause_resume, .flags = HT_KEY_RIGHT,
     .col = 49, .help_col = 54},
    {HT_KEYS('D'), .help = "drag mode on (a filter of class-name prefixes) or off: the Drag screen",
     .act = key_drag},
    {HT_KEYS('H'), .help = "heap snapshot: the JVM writes a dump (asks first), read into 4-6",
     .act = key_heap_dump},
    {HT_KEYS('K'), .act = key_heap_dump, .flags = HT_KEY_ABOVE},
    {HT_KEYS('f', KEY_F(9)), .help = "freeze the display (data keeps arriving)", .bar = "Freeze",
     .act = key_freeze},
    {HT_KEYS('u'), .help = "units: auto, B, KiB, MiB", .act = key_units},
    {HT_KEYS(12), .help = "redraw", .act = key_redraw, .flags = HT_KEY_RIGHT, .col = 49,
     .help_col = 57},
    {HT_KEYS('e'), .help = "export this screen's rows to CSV, with a .summary.csv beside it",
     .act = key_export},
    {HT_KEYS('q', KEY_F(10)), .help = "quit", .bar = "Quit", .act = key_quit,
     .flags = HT_KEY_MODAL},
    HT_KEYS_END,
};

int ht_app_key_acts(const ht_app *a, int ch)
{
    const ht_screen *s = ht_app_front(a);
    if (ht_keymap_find(s->keys, ch, 0)) return 1;
    if (a->drill_from >= 0 && a->front == a->drill_to &&
        ht_keymap_find(ht_screens[a->drill_from]->keys, ch, 1))
        return 1;
    const ht_binding *b = ht_keymap_find(ht_global_keys, ch, 0);
    if (!b) return 0; /* another screen's key: it does nothing here */
    if (b->act == key_sort_step || b->act == key_sort_reverse || b->act == key_sort_leak)
        return s->sort != NULL;
    if (b->act == key_search || b->act == key_search_again) return s->search != NULL;
    if (b->act == key_filter) return s->filter != HT_FILTER_NONE;
    if (b->act == key_mark || b->act == key_interval || b->act == key_pause_resume ||
        b->act == key_heap_dump || b->act == key_drag)
        return !a->conn.no_jvm; /* a dump opened from a file has no JVM to ask */
    return 1;
}

int ht_app_key_allowed(const ht_app *a, int ch)
{
    if (!a->choosing || ht_keymap_find(ht_app_front(a)->keys, ch, 0)) return 1;
    /* nothing is connected yet: the keys that act on a JVM or its data wait */
    static const ht_action choosing[] = {key_move, key_filter, key_search, key_search_again,
                                         key_help, key_quit,   key_redraw, key_units};
    const ht_binding *b = ht_keymap_find(ht_global_keys, ch, 0);
    for (size_t i = 0; b && i < sizeof choosing / sizeof choosing[0]; i++)
        if (b->act == choosing[i]) return 1;
    return 0;
}

/* --- the mouse --- */

static void mouse(ht_app *a)
{
    MEVENT ev;
    if (getmouse(&ev) != OK) return;
    if (ev.y == a->ui.rows - 1) {
        int key = ht_keybar_key_at(a, ev.x);
        if (key >= 0) ungetch(key);
        return;
    }
    const ht_screen *s = ht_app_front(a);
    uint32_t n;
    ht_list_pos *p = front_list(a, &n);
    if (!p) return;
    int page = ht_host_page(a);
    if (ev.bstate & BUTTON4_PRESSED) {
        move_cursor(p, n, -3, page);
    } else if (ev.bstate & BUTTON5_PRESSED) {
        move_cursor(p, n, 3, page);
    } else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
        int title = a->area_top;
        if (ev.y == title && s->column_at) {
            /* a click on a column title sorts by it; on the sorted one, reverses */
            ht_col c = s->column_at(front_state(a), ev.x);
            if (c != HT_COL_COUNT) sort_front(a, HT_SORT_BY, c);
        } else if (ev.y > title && ev.y < a->ui.rows - 2) {
            uint32_t row = p->top + (uint32_t)(ev.y - title - 1);
            if (row < n) p->cursor = row;
        }
    }
}

/* --- dispatch --- */

void ht_app_key(ht_app *a, int ch)
{
    a->need_draw = 1;
    if (ch == KEY_RESIZE) {
        getmaxyx(stdscr, a->ui.rows, a->ui.cols);
        return;
    }
    if (ch == KEY_MOUSE) {
        mouse(a);
        return;
    }
    if (a->input.kind != HT_INPUT_NONE) {
        input_key(a, ch);
        return;
    }
    if (ht_app_quit_answer(a, ch)) return;
    char shown[8];
    ht_jobs *running = ch == 27 ? ht_app_job_shown(a, shown, sizeof shown) : NULL;
    if (running) { /* Esc cancels the job the status line shows */
        ht_jobs_cancel(running);
        return;
    }
    if (ch != 'H' && ch != 'K' && a->dump.asked_ms) { /* any other key: not now */
        a->dump.asked_ms = 0;
        a->status[0] = '\0'; /* the question goes, and the key bar comes back */
    }
    const ht_screen *s = ht_app_front(a);
    if (!s->modal && !ht_app_key_allowed(a, ch)) return;
    const ht_binding *b = ht_keymap_find(s->keys, ch, 0);
    if (b) {
        b->act(front_state(a), a, ch);
        return;
    }
    if (s->modal) {
        /* any other key closes it, q and Esc too, as the help says; only the
         * key bar's Quit (F10, shown there while it is open) goes on to quit */
        ht_app_show(a, a->back, 0);
        b = ht_keymap_find(ht_global_keys, ch, 0);
        if (b && (b->flags & HT_KEY_MODAL) && ch >= KEY_F(1) && ch <= KEY_F(63)) b->act(a, a, ch);
        return;
    }
    if (a->drill_from >= 0 && a->front == a->drill_to) {
        b = ht_keymap_find(ht_screens[a->drill_from]->keys, ch, 1);
        if (b) {
            b->act(a->state[a->drill_from], a, ch);
            return;
        }
    }
    for (int i = 0; i < ht_nscreens; i++)
        if (ht_screens[i]->key == ch) {
            ht_app_show(a, i, 0);
            return;
        }
    b = ht_keymap_find(ht_global_keys, ch, 0);
    if (b) b->act(a, a, ch);
}
