/*
 * app.c - the interactive viewer: one loop, one thread, one doupdate a frame.
 *
 * Owns: the loop (ht_app_run), the app's state being made and freed, the
 * connection to the agent (tried every second while there is none), how
 * fresh its data is, following a heap dump the agent writes for us, the
 * rebuild of the screen in front and the frame drawn (the draw context a
 * screen gets).
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
 * one whose process is gone as gone. Keys that ask the agent something or
 * write files start jobs (tasks.h): the loop polls the jobs' descriptor too
 * and hands their results to the status line; it never waits for them. With
 * no target it opens on the chooser (screen_chooser.c): a discovery job
 * lists the JVMs the user may attach to every 2 s, nothing connects until
 * one is chosen, and an attach is a job too. Under heaptop run the loop also
 * polls the program's output feed (the Console) and reaps the program
 * without waiting (app_launch.c).
 *
 * Elsewhere: the command lines and the checks before the screen (tui/cmd:
 * view_cmd.c, run.c); the start on their options and the restart as
 * `heaptop PID` (app_start.c); what a screen may ask, the status
 * line and which screen is in front (app_host.c); the keys (app_keys.c).
 * UI thread only; it alone calls ncurses.
 */
#include "app.h"

#include "analysis.h"
#include "clock.h"
#include "compare.h"
#include "console.h"
#include "launch.h"
#include "reach.h"
#include "screen_chooser.h"
#include "screen_refs.h"
#include "source_path.h"
#include "tasks.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STALE_MS 3000

uint64_t ht_app_stale_s(const ht_app *a)
{
    uint64_t now = ht_mono_ms();
    if (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE ||
        now <= a->conn.last_data_ms + STALE_MS)
        return 0;
    return (now - a->conn.last_data_ms) / 1000;
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

int ht_app_init(ht_app *a)
{
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    a->drill_from = a->drill_to = -1;
    ht_store_init(&a->conn.empty);
    if (ht_jobs_init(&a->quick) != 0) return -1;
    if (ht_jobs_init(&a->heavy) != 0 || ht_nscreens > HT_SCREENS_MAX) {
        ht_jobs_stop(&a->quick);
        return -1;
    }
    for (int i = 0; i < ht_nscreens; i++)
        if (ht_screens[i]->create && !(a->state[i] = ht_screens[i]->create())) return -1;
    return 0;
}

void ht_app_free(ht_app *a)
{
    /* first: a job may use the client's socket */
    ht_jobs_stop(&a->quick);
    ht_jobs_stop(&a->heavy);
    if (a->heap) {
        ht_heap_free(a->heap);
        free(a->heap);
        a->heap = NULL;
    }
    if (a->heap_before) {
        ht_heap_figures_free(a->heap_before);
        free(a->heap_before);
        a->heap_before = NULL;
    }
    if (a->conn.cli) {
        ht_client_close(a->conn.cli);
        free(a->conn.cli);
        a->conn.cli = NULL;
    }
    for (int i = 0; i < ht_nscreens && i < HT_SCREENS_MAX; i++)
        if (ht_screens[i]->destroy && a->state[i]) ht_screens[i]->destroy(a->state[i]);
    ht_store_free(&a->conn.empty);
}

void ht_app_connect(ht_app *a, pid_t pid, const char *how)
{
    char num[16], err[512];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&a->conn.target, num, err, sizeof err) != 0) {
        ht_app_status(a, "%s", err);
        return;
    }
    a->choosing = 0;
    a->conn.next_connect_ms = 0; /* now */
    ht_app_status(a, "%s %d: connecting", how, (int)pid);
    ht_app_show(a, 0, 0); /* the first screen, the allocation tree */
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
    const ht_screen *front = ht_app_front(a);
    uint64_t start = ht_mono_ms();
    /* only the screen in front is rebuilt; a screen switch rebuilds the other */
    int rc = 0;
    if (front->build) {
        ht_build_ctx b = {
            .store = s,
            .lens = &a->lens,
            .heap = a->heap,
            .heap_gen = &a->heap_gen,
            .should_stop = a->interruptible ? key_waiting : NULL,
            .stop_ctx = a,
            .console = a->launch.console,
            .heap_before = a->heap_before,
        };
        rc = front->build(a->state[a->front], &b);
    }
    if (rc == 1) {
        /* a key is waiting: serve it on the model we have, build again later */
        a->need_build = 1;
        return;
    }
    if (rc != 0) ht_app_status(a, "out of memory");
    a->built_generation = s->generation;
    uint64_t done = ht_mono_ms();
    a->build_cost_ms = done - start;
    a->last_build_ms = done;
    a->need_build = 0;
    a->need_draw = 1;
}

void ht_app_draw_screen(ht_app *a, int top, int height)
{
    ht_draw_ctx d = {
        .ui = &a->ui,
        .store = ht_app_store(a),
        .heap = a->heap,
        .heap_gen = a->heap_gen,
        .top = top,
        .height = height,
        .unit = a->unit,
        .no_jvm = a->conn.no_jvm,
    };
    a->area_top = top;
    ht_app_front(a)->draw(a->state[a->front], &d);
}

/* --- connection --- */

static void try_connect(ht_app *a)
{
    uint64_t now = ht_mono_ms();
    if (now < a->conn.next_connect_ms) return;
    a->conn.next_connect_ms = now + 1000;
    ht_client *c = calloc(1, sizeof *c);
    if (!c) return;
    char err[512];
    ht_target_status st = ht_target_resolve(&a->conn.target, err, sizeof err);
    if (st == HT_TARGET_FATAL && a->conn.target.pid && kill(a->conn.target.pid, 0) != 0 &&
        errno == ESRCH) {
        /* the process is gone for good: say so once, stop asking */
        snprintf(a->conn.error, sizeof a->conn.error,
                 "pid %d no longer runs: the JVM is gone (what it sent stays here to browse "
                 "and export)",
                 (int)a->conn.target.pid);
        a->conn.gone = 1;
        free(c);
        a->need_draw = 1;
        return;
    }
    if (st != HT_TARGET_READY ||
        ht_client_open(c, &a->conn.target, 1500, HT_CLIENT_STREAM, err, sizeof err) != 0) {
        snprintf(a->conn.error, sizeof a->conn.error, "%s; retrying every second", err);
        ht_client_close(c);
        free(c);
        a->need_draw = 1;
        return;
    }
    /* a new JVM (or the same one back): its data replaces the old */
    if (a->conn.cli) {
        ht_client_close(a->conn.cli);
        free(a->conn.cli);
    }
    a->conn.cli = c;
    a->conn.error[0] = '\0';
    a->conn.last_data_ms = now;
    a->conn.jvm_gone = 0;
    const char *as = ht_reach_became();
    ht_app_status(a, "connected to pid %u (%s)%s%s%s", c->store.info.pid,
                  c->store.info.main_class ? c->store.info.main_class : "?", as ? " as user " : "",
                  as ? as : "", as ? ", the JVM's" : "");
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
        ht_app_draw_screen(a, top, a->ui.rows - 2 - top);
        ht_draw_footer(a);
    }
    wnoutrefresh(stdscr);
    doupdate();
    a->need_draw = 0;
    a->last_draw_ms = ht_mono_ms();
}

/* A heap dump the agent writes for us: say how it goes; once written, read
 * it (a job), and remove it after unless the user said keep. */
static void follow_dump(ht_app *a)
{
    if (!a->dump.id) return;
    /* Cut off while the JVM writes (a listener the agent restarted, its
     * socket files deleted): the agent goes on, and its reports come again
     * with the sync once reconnected (try_connect). */
    if (a->conn.cli && a->conn.cli->state == HT_CONN_LOST && !a->conn.jvm_gone && !a->conn.gone) {
        const char *why = "heap snapshot: cut off while the JVM writes the dump; reconnecting to "
                          "follow it";
        if (strcmp(a->status, why) != 0) ht_app_status(a, "%s", why);
        a->dump.cut = 1;
        return;
    }
    const char *lost = !a->conn.cli || a->conn.cli->state != HT_CONN_LIVE
                           ? "the JVM went away while writing the dump"
                       : a->conn.cli->store.info.pid != a->dump.pid
                           ? "another JVM answers at the socket now; the dump was not read"
                           : NULL;
    if (lost) {
        ht_app_status(a, "heap snapshot: %s", lost);
        a->dump.id = 0;
        a->dump.cut = 0;
        a->dump.snapshot_wanted = a->dump.compare = 0;
        return;
    }
    const ht_dump_info *d = ht_client_dump(a->conn.cli, a->dump.id);
    if (!d) return;
    if (d->state == HT_DUMP_RUNNING) {
        char b[32];
        ht_ui_bytes((double)d->bytes, HT_UNIT_AUTO, b, sizeof b);
        char line[200];
        snprintf(line, sizeof line, "heap snapshot: the JVM is writing the dump (%llu s, %s%s)",
                 (unsigned long long)(d->elapsed_ms / 1000), b,
                 a->dump.cut ? "; followed again after the connection was cut" : "");
        if (strcmp(line, a->status) != 0) ht_app_status(a, "%s", line);
        return;
    }
    if (d->state == HT_DUMP_FAILED) {
        ht_app_status(a, "heap snapshot: %s", d->error);
    } else {
        /* read only a file proven to be the dump asked for (dump_file.h) */
        ht_dump_file f;
        char err[1400];
        if (ht_client_dump_file(a->conn.cli, d, &f, err, sizeof err) != 0) {
            ht_app_status(a, "heap snapshot: %s", err);
        } else {
            ht_app_status(a, "heap snapshot: written in %.1f s; reading it",
                          d->elapsed_ms / 1000.0);
            ht_task_heap_dump(a, &f, !(a->dump.flags & HT_DUMP_KEEP), a->dump.compare);
        }
    }
    a->dump.id = 0;
    a->dump.cut = 0;
    a->dump.compare = 0;
    /* a mark's snapshot that waited for this one (app_keys.c, key_mark) */
    int wanted = a->dump.snapshot_wanted;
    a->dump.snapshot_wanted = 0;
    if (wanted && ht_app_take_snapshot(a, 0) == 0) a->dump.compare = wanted == 2;
}

ht_jobs *ht_app_job_shown(ht_app *a, char *out, size_t n)
{
    if (ht_jobs_status(&a->quick, HT_JOB_SHOWN_MS, out, n)) return &a->quick;
    if (ht_jobs_status(&a->heavy, HT_JOB_SHOWN_MS, out, n)) return &a->heavy;
    if (n) out[0] = '\0';
    return NULL;
}

/* The running job's line changed (it became visible, or has progress). */
static void watch_jobs(ht_app *a)
{
    char now[sizeof a->job_status] = "";
    ht_app_job_shown(a, now, sizeof now);
    if (strcmp(now, a->job_status) != 0) a->need_draw = 1;
}

int ht_app_run(const ht_target *target, const char *open_file, const char *open_before,
               int choosing, const char *out_dir, int ascii, ht_launch *launch,
               const ht_reach_opts *reach, const ht_source_path *source)
{
    static ht_app app;
    static ht_console console;
    ht_app *a = &app;
    if (ht_app_init(a) != 0 || (launch && ht_console_init(&console, HT_CONSOLE_LINES) != 0)) {
        fprintf(stderr, "heaptop: out of memory\n");
        ht_app_free(a);
        return 1;
    }
    if (!open_file && !choosing) a->conn.target = *target;
    a->reach = reach; /* what the chooser attaches with */
    a->source = source;
    if (launch) {
        a->launch.prog = launch;
        a->launch.console = &console;
    }
    a->choosing = choosing;
    a->conn.no_jvm = open_file != NULL;
    a->out_dir = out_dir;
    if (ht_ui_start(&a->ui, ascii) != 0) {
        fprintf(stderr, "heaptop: cannot start the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        ht_app_free(a);
        return 1;
    }
    a->need_draw = a->need_build = 1;
    if (open_file) {
        ht_app_show(a, ht_screen_index(open_before ? &ht_screen_compare : &ht_screen_heap), 0);
        if (open_before)
            ht_task_heap_compare(a, open_before, open_file);
        else
            ht_task_heap_open(a, open_file, 0);
    }
    if (choosing) ht_app_show(a, ht_screen_index(&ht_screen_chooser), 0);
    while (!a->quit) {
        if (!a->conn.no_jvm && !a->choosing && !a->conn.gone &&
            (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE))
            try_connect(a);
        /* the chooser's list: found again every 2 s, off the UI thread */
        if (a->choosing && ht_mono_ms() >= a->next_discover_ms) {
            a->next_discover_ms = ht_mono_ms() + 2000;
            ht_task_discover(a);
        }
        int busy = ht_jobs_busy(&a->quick) || ht_jobs_busy(&a->heavy);
        struct pollfd pfd[5] = {{STDIN_FILENO, POLLIN, 0},
                                {-1, POLLIN, 0},
                                {ht_jobs_fd(&a->quick), POLLIN, 0},
                                {a->launch.prog ? a->launch.prog->feed_fd : -1, POLLIN, 0},
                                {ht_jobs_fd(&a->heavy), POLLIN, 0}};
        if (a->conn.cli && a->conn.cli->state == HT_CONN_LIVE)
            pfd[1].fd = ht_client_stream_fd(a->conn.cli);
        poll(pfd, 5, a->need_draw ? 20 : busy ? 100 : 250);
        if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) { /* the terminal went away */
            a->quit = 1;
            break;
        }
        if (a->launch.prog) ht_app_launch_tick(a); /* the program's output and exit */
        if (a->conn.cli && a->conn.cli->state == HT_CONN_LIVE) {
            int before = a->conn.cli->state;
            if (ht_client_poll(a->conn.cli, 0) > 0) a->conn.last_data_ms = ht_mono_ms();
            if ((int)a->conn.cli->state != before) a->need_draw = 1;
        }
        if (a->conn.cli && a->conn.cli->state == HT_CONN_LOST && !a->conn.jvm_gone &&
            process_gone(a->conn.cli->store.info.pid)) {
            a->conn.jvm_gone = 1;
            a->need_draw = 1;
        }
        /* finished jobs say so on the status line; running ones show there */
        if (pfd[2].revents & POLLIN) ht_jobs_reap(&a->quick, a);
        if (pfd[4].revents & POLLIN) ht_jobs_reap(&a->heavy, a);
        if (busy || a->job_status[0]) watch_jobs(a);
        follow_dump(a);
        int ch;
        while ((ch = getch()) != ERR) {
            int before = a->need_build;
            ht_app_key(a, ch);
            if (a->need_build && !before) a->key_build = 1;
        }
        uint64_t now = ht_mono_ms();
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
    if (a->launch.prog) ht_app_launch_end(a);
    /* heaptop open FILE whose FILE could not be read: said again, and the exit says it */
    int rc = 0;
    if (a->open_error[0]) {
        fprintf(stderr, "heaptop open: %s\n", a->open_error);
        rc = 1;
    }
    ht_app_free(a);
    if (launch) ht_console_free(&console);
    return rc;
}
