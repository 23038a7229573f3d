/*
 * app.c - the interactive viewer: one loop, one thread, one doupdate a frame.
 *
 * poll() waits on the keyboard and the agent's stream descriptor together.
 * Data is applied as it arrives; the models are rebuilt at most twice a
 * second (never while frozen) and the screen is drawn only when something
 * changed, at most ~5 times a second for data and at once for a key. Drawing
 * erases and redraws stdscr, and ncurses sends only the difference: no clear()
 * on a normal frame, so no flicker over SSH. When the agent goes away the last
 * data stays on screen; the loop retries the connection every second. A
 * connected JVM that sends nothing for more than STALE_MS (telemetry comes
 * every second; a SIGSTOPped JVM sends none) is shown as stale, and a lost
 * one whose process is gone as gone. Before anything else the terminal must
 * be able to address the cursor, and the target is resolved (target.h): an
 * error exits with one line, and a missing agent does too unless --wait was
 * given.
 */
#include "app.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t ht_app_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#define STALE_MS 3000

uint64_t ht_app_stale_s(const ht_app *a)
{
    uint64_t now = ht_app_now_ms();
    if (!a->cli || a->cli->state != HT_CONN_LIVE || now <= a->last_data_ms + STALE_MS) return 0;
    return (now - a->last_data_ms) / 1000;
}

/* Has the process gone (no such pid, or a zombie nobody has reaped yet)? */
static int process_gone(uint32_t pid)
{
    if (pid == 0) return 0;
    if (kill((pid_t)pid, 0) != 0) return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name in parentheses may hold anything */
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

const ht_store *ht_app_store(const ht_app *a)
{
    return a->cli ? &a->cli->store : &a->empty;
}

void ht_app_status(ht_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
    a->status_ms = ht_app_now_ms();
    a->need_draw = 1;
}

/* A key waiting on the terminal: the reason to abandon a long rebuild. */
static int key_waiting(void *ctx)
{
    (void)ctx;
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    return poll(&p, 1, 0) == 1;
}

void ht_app_build(ht_app *a)
{
    const ht_store *s = ht_app_store(a);
    uint64_t start = ht_app_now_ms();
    a->tree_opts.class_filter = &a->class_filter;
    a->tree_opts.frame_filter = &a->frame_filter;
    a->tree_opts.only_class = a->only_class;
    a->tree_opts.should_stop = a->interruptible ? key_waiting : NULL;
    a->tree_opts.stop_ctx = a;
    /* only the screen in front is rebuilt; a screen switch rebuilds the other */
    int rc = a->screen == HT_SCREEN_TREE
                 ? ht_tree_rebuild(&a->tree, &a->tree_next, s, &a->tree_opts)
                 : 0;
    if (rc == 1) {
        /* a key is waiting: serve it on the tree we have, build again later */
        a->need_build = 1;
        return;
    }
    if (rc != 0) ht_app_status(a, "out of memory");
    if (rc == 0 && a->screen == HT_SCREEN_TREE && !a->hot_path_shown && a->tree.nnodes > 1) {
        /* open on the hot path: unfold the heaviest child, level by level */
        uint32_t n = a->tree.nodes[0].first_child;
        for (int depth = 0; n && depth < 12; depth++) {
            ht_tree_set_expanded(&a->tree, n, 1);
            n = a->tree.nodes[n].first_child; /* children are sorted: first is heaviest */
        }
        ht_tree_flatten(&a->tree);
        a->hot_path_shown = 1;
    }
    if (a->screen == HT_SCREEN_CLASSES) {
        /* the cursor stays on its class while the rows move, as htop's on a process */
        char keep[512] = "";
        if (a->class_pos.cursor < a->classes.nrows)
            snprintf(keep, sizeof keep, "%s", a->classes.rows[a->class_pos.cursor].name);
        if (ht_class_table_build(&a->classes, s, &a->class_filter) != 0)
            ht_app_status(a, "out of memory");
        uint32_t at = ht_class_table_find(&a->classes, keep);
        if (at != UINT32_MAX) a->class_pos.cursor = at;
    }
    a->built_generation = s->generation;
    uint64_t done = ht_app_now_ms();
    a->build_cost_ms = done - start;
    a->last_build_ms = done;
    a->need_build = 0;
    a->need_draw = 1;
}

/* --- connection --- */

static void try_connect(ht_app *a)
{
    uint64_t now = ht_app_now_ms();
    if (now < a->next_connect_ms) return;
    a->next_connect_ms = now + 1000;
    ht_client *c = calloc(1, sizeof *c);
    if (!c) return;
    char err[512];
    if (ht_target_resolve(&a->target, err, sizeof err) != HT_TARGET_READY ||
        ht_client_open(c, a->target.base, 1500, HT_CLIENT_STREAM, err, sizeof err) != 0) {
        snprintf(a->conn_error, sizeof a->conn_error, "%s; retrying every second", err);
        ht_client_close(c);
        free(c);
        a->need_draw = 1;
        return;
    }
    /* a new JVM (or the same one back): its data replaces the old */
    if (a->cli) {
        ht_client_close(a->cli);
        free(a->cli);
    }
    a->cli = c;
    a->conn_error[0] = '\0';
    a->last_data_ms = now;
    a->jvm_gone = 0;
    ht_app_status(a, "connected to pid %u (%s)", c->store.info.pid,
                  c->store.info.main_class ? c->store.info.main_class : "?");
    a->need_build = 1;
}

/* --- drawing --- */

static void draw(ht_app *a)
{
    getmaxyx(stdscr, a->ui.rows, a->ui.cols);
    erase();
    if (a->ui.rows < 8 || a->ui.cols < 40) {
        mvaddstr(0, 0, "heaptop: terminal too small");
    } else {
        int top = ht_draw_header(a);
        a->title_row = top;
        int height = a->ui.rows - 2 - top;
        switch (a->screen) {
        case HT_SCREEN_TREE:
            ht_view_tree(a, top, height);
            break;
        case HT_SCREEN_CLASSES:
            ht_view_classes(a, top, height);
            break;
        case HT_SCREEN_TELEMETRY:
            ht_view_telemetry(a, top, height);
            break;
        default:
            ht_view_help(a, top, height);
            break;
        }
        ht_draw_footer(a);
    }
    wnoutrefresh(stdscr);
    doupdate();
    a->need_draw = 0;
    a->last_draw_ms = ht_app_now_ms();
}

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop (--ipc PATH | PID) [--wait] [--ascii] [--out DIR]\n"
               "  --ipc PATH  the agent's socket base path (its ipc= option)\n"
               "  PID         a JVM whose agent uses the default socket path\n"
               "  --wait      wait for an agent to appear instead of exiting\n"
               "  --ascii     ASCII sparklines even on a UTF-8 terminal\n"
               "  --out DIR   where 'e' writes CSV exports (default .)\n");
}

int ht_tui_main(int argc, char **argv)
{
    static ht_app app;
    ht_app *a = &app;
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    int ascii = 0, wait = 0, have_target = 0;
    char err[512];
    for (int i = 1; i < argc; i++) {
        int rc = 0;
        if (strcmp(argv[i], "--ipc") == 0 && i + 1 < argc && !have_target) {
            rc = ht_target_from_ipc(&a->target, argv[++i], err, sizeof err);
            have_target = 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            a->out_dir = argv[++i];
        } else if (strcmp(argv[i], "--ascii") == 0) {
            ascii = 1;
        } else if (strcmp(argv[i], "--wait") == 0) {
            wait = 1;
        } else if (argv[i][0] != '-' && !have_target) {
            rc = ht_target_from_pid(&a->target, argv[i], err, sizeof err);
            have_target = 1;
        } else {
            usage(stderr);
            return 2;
        }
        if (rc != 0) {
            fprintf(stderr, "heaptop: %s\n", err);
            return 2;
        }
    }
    if (!have_target) {
        usage(stderr);
        return 2;
    }
    if (ht_ui_check_terminal(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    /* Fail early and plainly when nothing is there; wait only when asked to
     * and only for what can still come. */
    ht_target_status st = ht_target_resolve(&a->target, err, sizeof err);
    if (st == HT_TARGET_FATAL || (st == HT_TARGET_ABSENT && !wait)) {
        fprintf(stderr, "heaptop: %s%s\n", err,
                st == HT_TARGET_ABSENT ? " (--wait waits for one)" : "");
        return 1;
    }
    if (st == HT_TARGET_ABSENT) fprintf(stderr, "heaptop: %s; waiting (q quits)\n", err);
    ht_store_init(&a->empty);
    ht_class_table_init(&a->classes);
    ht_tree_init(&a->tree);
    ht_tree_init(&a->tree_next);
    if (ht_ui_start(&a->ui, ascii) != 0) {
        fprintf(stderr, "heaptop: cannot start the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        return 1;
    }
    a->need_draw = a->need_build = 1;
    while (!a->quit) {
        if (!a->cli || a->cli->state != HT_CONN_LIVE) try_connect(a);
        struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {-1, POLLIN, 0}};
        if (a->cli && a->cli->state == HT_CONN_LIVE) pfd[1].fd = ht_client_stream_fd(a->cli);
        poll(pfd, 2, a->need_draw ? 20 : 250);
        if (a->cli && a->cli->state == HT_CONN_LIVE) {
            int before = a->cli->state;
            if (ht_client_poll(a->cli, 0) > 0) a->last_data_ms = ht_app_now_ms();
            if ((int)a->cli->state != before) a->need_draw = 1;
        }
        if (a->cli && a->cli->state == HT_CONN_LOST && !a->jvm_gone &&
            process_gone(a->cli->store.info.pid)) {
            a->jvm_gone = 1;
            a->need_draw = 1;
        }
        int ch;
        while ((ch = getch()) != ERR) {
            int before = a->need_build;
            ht_app_key(a, ch);
            if (a->need_build && !before) a->key_build = 1;
        }
        uint64_t now = ht_app_now_ms();
        const ht_store *s = ht_app_store(a);
        /* rebuild at most twice a second, and never more than a fifth of the time */
        uint64_t every = a->build_cost_ms * 4 > 500 ? a->build_cost_ms * 4 : 500;
        if (!a->frozen && s->generation != a->built_generation && now - a->last_build_ms >= every)
            a->need_build = 1;
        if (a->need_build) {
            /* only a rebuild for new data may be abandoned for a waiting key */
            a->interruptible = !a->key_build;
            ht_app_build(a);
            if (!a->need_build) a->key_build = 0;
        }
        /* the header's uptime and mark clock tick once a second */
        if (a->need_draw || now - a->last_draw_ms >= 1000) draw(a);
    }
    ht_ui_stop();
    if (a->cli) {
        ht_client_close(a->cli);
        free(a->cli);
    }
    ht_tree_free(&a->tree);
    ht_tree_free(&a->tree_next);
    ht_class_table_free(&a->classes);
    ht_store_free(&a->empty);
    return 0;
}
