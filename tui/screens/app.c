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
 * given. Keys that ask the agent something or write files start jobs
 * (tasks.h): the loop polls the jobs' descriptor too and hands their results
 * to the status line; it never waits for them. With no target it opens on
 * the chooser (screen_chooser.c): a discovery job lists the JVMs the user may
 * attach to every 2 s, nothing connects until one is chosen, and an attach
 * is a job too; root choosing another user's JVM makes heaptop start again
 * as `heaptop PID` (restart_as: it must become that user before any thread
 * runs). Root viewing another user's JVM keeps its export directory open
 * first (outdir.h), so exports stay root's after the switch.
 * Under heaptop run the loop also polls the program's output feed (the
 * Console) and reaps the program without waiting (app_launch.c).
 */
#include "app.h"
#include "outdir.h"

#include "analysis.h"
#include "clock.h"
#include "compare.h"
#include "console.h"
#include "keymap.h"
#include "launch.h"
#include "proc.h"
#include "reach.h"
#include "screen_chooser.h"
#include "screen_refs.h"
#include "tasks.h"

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
    return ht_mono_ms();
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

const ht_screen *ht_app_front(const ht_app *a)
{
    return ht_screens[a->front];
}

void *ht_app_state(const ht_app *a, const ht_screen *s)
{
    int i = ht_screen_index(s);
    return i >= 0 ? a->state[i] : NULL;
}

static void vstatus(ht_app *a, const char *fmt, va_list ap)
{
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    a->status_ms = ht_app_now_ms();
    a->need_draw = 1;
}

void ht_app_status(ht_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(a, fmt, ap);
    va_end(ap);
}

int ht_app_init(ht_app *a)
{
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    a->drill_from = a->drill_to = -1;
    ht_store_init(&a->empty);
    if (ht_jobs_init(&a->jobs) != 0 || ht_nscreens > HT_SCREENS_MAX) return -1;
    for (int i = 0; i < ht_nscreens; i++)
        if (ht_screens[i]->create && !(a->state[i] = ht_screens[i]->create())) return -1;
    return 0;
}

void ht_app_free(ht_app *a)
{
    ht_jobs_stop(&a->jobs); /* first: a job may use the client's socket */
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
    if (a->cli) {
        ht_client_close(a->cli);
        free(a->cli);
        a->cli = NULL;
    }
    for (int i = 0; i < ht_nscreens && i < HT_SCREENS_MAX; i++)
        if (ht_screens[i]->destroy && a->state[i]) ht_screens[i]->destroy(a->state[i]);
    ht_store_free(&a->empty);
}

void ht_app_show(ht_app *a, int i, int drilled)
{
    if (i < 0 || i >= ht_nscreens || (i == a->front && !drilled)) return;
    const ht_screen *s = ht_screens[i];
    if (s->modal) a->back = a->front;
    a->front = i;
    if (s->enter) s->enter(a->state[i], drilled);
    if (!s->modal) a->need_build = 1; /* only the screen in front is kept up to date */
    a->need_draw = 1;
}

/* --- what a screen may ask (screen.h) --- */

const ht_store *ht_host_store(const ht_host *h)
{
    return ht_app_store(h);
}

const ht_lens *ht_host_lens(const ht_host *h)
{
    return &h->lens;
}

void ht_host_status(ht_host *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(h, fmt, ap);
    va_end(ap);
}

void ht_host_rebuild(ht_host *h)
{
    h->need_build = 1;
}

void ht_host_open_class(ht_host *h, const ht_screen *to, uint32_t class_id)
{
    int i = ht_screen_index(to);
    if (i < 0) return;
    h->lens.only_class = class_id;
    h->drill_from = h->front;
    h->drill_to = i;
    ht_app_show(h, i, 1);
}

void ht_host_back(ht_host *h)
{
    int from = h->drill_from;
    h->lens.only_class = 0;
    h->drill_from = h->drill_to = -1;
    h->need_build = 1;
    ht_app_show(h, from, 0);
}

struct ht_heap *ht_host_heap(ht_host *h)
{
    return h->heap;
}

void ht_host_browse(ht_host *h, uint32_t n)
{
    int i = ht_screen_index(&ht_screen_refs);
    if (i < 0 || !h->heap) return;
    ht_screen_refs_open(h->state[i], h->heap, &h->heap_gen, n);
    ht_app_show(h, i, 1);
}

void ht_host_show(ht_host *h, const ht_screen *to)
{
    ht_app_show(h, ht_screen_index(to), 0);
}

int ht_host_toggle_mark_snapshots(ht_host *h)
{
    if (h->no_jvm) {
        ht_app_status(h, "no JVM here: this is a dump file (heaptop PID takes snapshots)");
        return -1;
    }
    h->mark_snapshots = !h->mark_snapshots;
    ht_app_status(h, "%s",
                  h->mark_snapshots
                      ? "marks take heap snapshots: b and E each take one (a full GC, the JVM "
                        "stops while it writes), then E's is compared with b's"
                      : "marks take no heap snapshots");
    return h->mark_snapshots;
}

void ht_app_connect(ht_app *a, pid_t pid, const char *how)
{
    char num[16], err[512];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&a->target, num, err, sizeof err) != 0) {
        ht_app_status(a, "%s", err);
        return;
    }
    a->choosing = 0;
    a->next_connect_ms = 0; /* now */
    ht_app_status(a, "%s %d: connecting", how, (int)pid);
    ht_app_show(a, 0, 0); /* the first screen, the allocation tree */
}

/* What heaptop was started with, for restart_as (ht_tui_main's). */
static const char *g_out; /* --out DIR when given */
static int g_ascii;

/* Root chose another user's JVM: heaptop becomes that user before any other
 * thread runs (reach.h), and this one has job threads, so it starts again
 * as `heaptop PID` with the same options. Returns only when it could not. */
static void restart_as(ht_app *a, pid_t pid, const char *owner)
{
    char num[16];
    snprintf(num, sizeof num, "%d", (int)pid);
    char *args[12];
    int n = 0;
    args[n++] = "heaptop";
    args[n++] = num;
    if (g_out) args[n++] = "--out", args[n++] = (char *)g_out;
    if (g_ascii) args[n++] = "--ascii";
    const ht_reach_opts *o = a->reach;
    if (o && o->agent) args[n++] = "--agent", args[n++] = (char *)o->agent;
    if (o && o->interval) args[n++] = "--interval", args[n++] = (char *)o->interval;
    if (o && o->agent_opts) args[n++] = "--agent-opts", args[n++] = (char *)o->agent_opts;
    args[n] = NULL;
    ht_ui_stop();
    fprintf(stderr, "heaptop: pid %d runs as user %s: heaptop starts again as heaptop %d\n",
            (int)pid, owner, (int)pid);
    execv("/proc/self/exe", args);
    int e = errno;
    ht_ui_start(&a->ui, g_ascii);
    ht_app_status(a, "cannot start heaptop %d: %s", (int)pid, strerror(e));
}

void ht_host_choose(ht_host *h, pid_t pid, int attach)
{
    ht_target t;
    char num[16], err[256];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&t, num, err, sizeof err) == 0 && t.owner != geteuid()) {
        char owner[64];
        ht_proc_user_name(t.owner, owner, sizeof owner);
        restart_as(h, pid, owner);
    } else if (attach) {
        ht_task_attach(h, pid);
    } else {
        ht_app_connect(h, pid, "pid");
    }
}

int ht_host_page(const ht_host *h)
{
    return h->ui.rows - 3 - 2 - 1; /* header, title, status + key bar */
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
    uint64_t start = ht_app_now_ms();
    /* only the screen in front is rebuilt; a screen switch rebuilds the other */
    int rc = 0;
    if (front->build) {
        ht_build_ctx b = {s, &a->lens, a->heap, &a->heap_gen, NULL, a, a->console, a->heap_before};
        if (a->interruptible) b.should_stop = key_waiting;
        rc = front->build(a->state[a->front], &b);
    }
    if (rc == 1) {
        /* a key is waiting: serve it on the model we have, build again later */
        a->need_build = 1;
        return;
    }
    if (rc != 0) ht_app_status(a, "out of memory");
    a->built_generation = s->generation;
    uint64_t done = ht_app_now_ms();
    a->build_cost_ms = done - start;
    a->last_build_ms = done;
    a->need_build = 0;
    a->need_draw = 1;
}

void ht_app_draw_screen(ht_app *a, int top, int height)
{
    ht_draw_ctx d = {&a->ui, ht_app_store(a), a->heap, a->heap_gen,
                     top,    height,          a->unit, a->no_jvm};
    a->area_top = top;
    ht_app_front(a)->draw(a->state[a->front], &d);
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
    ht_target_status st = ht_target_resolve(&a->target, err, sizeof err);
    if (st == HT_TARGET_FATAL && a->target.pid && kill(a->target.pid, 0) != 0 && errno == ESRCH) {
        /* the process is gone for good: say so once, stop asking */
        snprintf(a->conn_error, sizeof a->conn_error,
                 "pid %d no longer runs: the JVM is gone (what it sent stays here to browse "
                 "and export)",
                 (int)a->target.pid);
        a->gone = 1;
        free(c);
        a->need_draw = 1;
        return;
    }
    if (st != HT_TARGET_READY ||
        ht_client_open(c, &a->target, 1500, HT_CLIENT_STREAM, err, sizeof err) != 0) {
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
    a->last_draw_ms = ht_app_now_ms();
}

void ht_tui_usage(FILE *f)
{
    fprintf(f, "the interactive view:\n"
               "       heaptop [--ipc PATH [--key FILE] | PID] [--wait] [--ascii] [--out DIR]\n"
               "               [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
               "       heaptop open [A.hprof] FILE.hprof[.gz] [--ascii] [--out DIR]\n"
               "              (with A, an older dump: the Compare screen (8), A against FILE)\n"
               "  --ipc PATH  the agent's socket base path (its ipc= option), or\n"
               "              tcp://HOST:PORT for an agent started with listen=\n"
               "  --key FILE  the agent's key, for tcp:// (BASE.key beside its sockets)\n"
               "  PID         a JVM: its agent's default socket path; a JVM without the\n"
               "              agent gets it loaded (attached) first\n"
               "  --agent PATH, --interval BYTES, --agent-opts K=V,...  the agent to attach\n"
               "              (default: next to heaptop) and its options\n"
               "  (neither)   choose one of your JVMs from a list\n"
               "  --wait      wait for an agent to appear instead of exiting\n"
               "  --ascii     ASCII sparklines even on a UTF-8 terminal\n"
               "  --out DIR   where 'e' writes CSV exports (default .)\n");
}

/* A heap dump the agent writes for us: say how it goes; once written, read
 * it (a job), and remove it after unless the user said keep. */
static void follow_dump(ht_app *a)
{
    if (!a->dump_id) return;
    /* Cut off while the JVM writes (a listener the agent restarted, its
     * socket files deleted): the agent goes on, and its reports come again
     * with the sync once reconnected (try_connect). */
    if (a->cli && a->cli->state == HT_CONN_LOST && !a->jvm_gone && !a->gone) {
        const char *why = "heap snapshot: cut off while the JVM writes the dump; reconnecting to "
                          "follow it";
        if (strcmp(a->status, why) != 0) ht_app_status(a, "%s", why);
        a->dump_cut = 1;
        return;
    }
    const char *lost = !a->cli || a->cli->state != HT_CONN_LIVE
                           ? "the JVM went away while writing the dump"
                       : a->cli->store.info.pid != a->dump_pid
                           ? "another JVM answers at the socket now; the dump was not read"
                           : NULL;
    if (lost) {
        ht_app_status(a, "heap snapshot: %s", lost);
        a->dump_id = 0;
        a->dump_cut = 0;
        a->snapshot_wanted = a->dump_compare = 0;
        return;
    }
    const ht_dump_info *d = ht_client_dump(a->cli, a->dump_id);
    if (!d) return;
    if (d->state == HT_DUMP_RUNNING) {
        char b[32];
        ht_ui_bytes((double)d->bytes, 0, b, sizeof b);
        char line[200];
        snprintf(line, sizeof line, "heap snapshot: the JVM is writing the dump (%llu s, %s%s)",
                 (unsigned long long)(d->elapsed_ms / 1000), b,
                 a->dump_cut ? "; followed again after the connection was cut" : "");
        if (strcmp(line, a->status) != 0) ht_app_status(a, "%s", line);
        return;
    }
    if (d->state == HT_DUMP_FAILED) {
        ht_app_status(a, "heap snapshot: %s", d->error);
    } else {
        /* read only a file proven to be the dump asked for (dump_file.h) */
        ht_dump_file f;
        char err[1400];
        if (ht_client_dump_file(a->cli, d, &f, err, sizeof err) != 0) {
            ht_app_status(a, "heap snapshot: %s", err);
        } else {
            ht_app_status(a, "heap snapshot: written in %.1f s; reading it",
                          d->elapsed_ms / 1000.0);
            ht_task_heap_dump(a, &f, !(a->dump_flags & HT_DUMP_KEEP), a->dump_compare);
        }
    }
    a->dump_id = 0;
    a->dump_cut = 0;
    a->dump_compare = 0;
    /* a mark's snapshot that waited for this one (app_keys.c, key_mark) */
    int wanted = a->snapshot_wanted;
    a->snapshot_wanted = 0;
    if (wanted && ht_app_take_snapshot(a, 0) == 0) a->dump_compare = wanted == 2;
}

/* The running job's line changed (it became visible, or has progress). */
static void watch_jobs(ht_app *a)
{
    char now[sizeof a->job_status] = "";
    if (!ht_jobs_status(&a->jobs, HT_JOB_SHOWN_MS, now, sizeof now)) now[0] = '\0';
    if (strcmp(now, a->job_status) != 0) a->need_draw = 1;
}

static int tui_run(const ht_target *target, const char *open_file, int choosing,
                   const char *out_dir, int ascii, ht_launch *launch, const ht_reach_opts *reach);
/* heaptop open A B: the older dump, compared against the one opened */
static const char *open_before;

int ht_tui_main(int argc, char **argv)
{
    ht_target target;
    const char *out_dir = ".", *open_file = NULL, *key_file = NULL;
    int ascii = 0, wait = 0, have_target = 0, out_given = 0;
    char err[512];
    int first = 1;
    ht_reach_opts reach = {.timeout_ms = 10000};
    if (argc >= 2 && strcmp(argv[1], "open") == 0) {
        if (argc < 3 || (argv[2][0] == '-' && strcmp(argv[2], "--out") != 0 &&
                         strcmp(argv[2], "--ascii") != 0)) {
            if (argc < 3)
                fprintf(stderr, "heaptop open: which dump? give one FILE.hprof\n");
            else
                fprintf(stderr, "heaptop open: unknown option '%s' (heaptop --help)\n", argv[2]);
            return 2;
        }
        if (argv[2][0] == '-') {
            fprintf(stderr, "heaptop open: which dump? give FILE.hprof before %s\n", argv[2]);
            return 2;
        }
        open_file = argv[2];
        first = 3;
        if (argc > 3 && argv[3][0] != '-') { /* open A B: A is the older */
            open_before = open_file;
            open_file = argv[3];
            first = 4;
        }
    }
    for (int i = first; i < argc; i++) {
        int rc = 0;
        if (strcmp(argv[i], "--ipc") == 0 && i + 1 < argc && !have_target && !open_file) {
            rc = ht_target_from_ipc(&target, argv[++i], err, sizeof err);
            have_target = 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
            out_given = 1;
        } else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc && !open_file) {
            key_file = argv[++i];
        } else if (strcmp(argv[i], "--ascii") == 0) {
            ascii = 1;
        } else if (strcmp(argv[i], "--wait") == 0) {
            wait = 1;
        } else if (i + 1 < argc && !open_file && ht_reach_set(&reach, argv[i], argv[i + 1]) == 0) {
            i++;
        } else if (argv[i][0] != '-' && !have_target && !open_file) {
            rc = ht_target_from_pid(&target, argv[i], err, sizeof err);
            have_target = 1;
        } else {
            fprintf(stderr, "%s: %s '%s' (heaptop --help lists the commands and options)\n",
                    open_file ? "heaptop open" : "heaptop",
                    argv[i][0] == '-'
                        ? (i + 1 < argc ? "unknown option" : "unknown option, or it needs a value")
                        : "one target only; not",
                    argv[i]);
            return 2;
        }
        if (rc != 0) {
            fprintf(stderr, "heaptop: %s\n", err);
            return 2;
        }
    }
    /* no JVM named: the chooser lists the user's JVMs */
    int choosing = !have_target && !open_file;
    if (have_target && ht_target_set_key(&target, key_file, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    if (!have_target && key_file) {
        fprintf(stderr, "heaptop: --key is for an agent's TCP endpoint (--ipc tcp://HOST:PORT)\n");
        return 2;
    }
    if (!open_file && ht_reach_check(&reach, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    /* --out, when given, checked as record checks it (outdir.h), before the
     * screen and any attach */
    g_out = out_given ? out_dir : NULL;
    g_ascii = ascii;
    if (out_given && ht_outdir_prepare(out_dir, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: --out: %s\n", err);
        return 2;
    }
    if (ht_ui_check_terminal(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    if (open_file) {
        /* the file is there and is HPROF: said now, before the screen */
        ht_hprof probe;
        if (open_before && ht_hprof_probe(&probe, open_before) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", open_before, probe.err);
            return 1;
        }
        if (ht_hprof_probe(&probe, open_file) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", open_file, probe.err);
            return 1;
        }
    } else if (!choosing) {
        /* Root goes on as another user's JVM's user: exports stay root's,
         * through the directory kept open now (outdir.h). The default '.'
         * may not be root's own: then exports say who could not write. */
        if (target.owner != geteuid() && ht_outdir_keep(out_dir, err, sizeof err) != 0 &&
            out_given) {
            fprintf(stderr, "heaptop: --out: %s\n", err);
            return 2;
        }
        /* Fail early and plainly when nothing is there; attach to a JVM
         * without the agent; wait only when asked to and only for what can
         * still come. */
        ht_target_status st = ht_reach(&target, &reach, "heaptop", err, sizeof err);
        if (st == HT_TARGET_FATAL || (st == HT_TARGET_ABSENT && !wait)) {
            fprintf(stderr, "heaptop: %s%s\n", err,
                    st == HT_TARGET_ABSENT ? " (--wait waits for one)" : "");
            return 1;
        }
        if (st == HT_TARGET_ABSENT) fprintf(stderr, "heaptop: %s; waiting (q quits)\n", err);
    }
    /* keys come from a terminal, or the view would wait on a file's end forever;
     * asked last, so that what is wrong with the target is said first */
    if (ht_ui_check_tty(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    return tui_run(&target, open_file, choosing, out_dir, ascii, NULL, &reach);
}

int ht_tui_launched(ht_launch *l, const char *out_dir, int ascii)
{
    ht_target target;
    char err[512];
    if (ht_target_from_ipc(&target, l->base, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop run: %s\n", err);
        return 1;
    }
    return tui_run(&target, NULL, 0, out_dir, ascii, l, NULL);
}

/* The viewer on target (or a dump file, or the chooser), until q. */
static int tui_run(const ht_target *target, const char *open_file, int choosing,
                   const char *out_dir, int ascii, ht_launch *launch, const ht_reach_opts *reach)
{
    static ht_app app;
    static ht_console console;
    ht_app *a = &app;
    if (ht_app_init(a) != 0 || (launch && ht_console_init(&console, HT_CONSOLE_LINES) != 0)) {
        fprintf(stderr, "heaptop: out of memory\n");
        ht_app_free(a);
        return 1;
    }
    if (!open_file && !choosing) a->target = *target;
    a->reach = reach; /* what the chooser attaches with */
    if (launch) {
        a->launch = launch;
        a->console = &console;
    }
    a->choosing = choosing;
    a->no_jvm = open_file != NULL;
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
        if (!a->no_jvm && !a->choosing && !a->gone && (!a->cli || a->cli->state != HT_CONN_LIVE))
            try_connect(a);
        /* the chooser's list: found again every 2 s, off the UI thread */
        if (a->choosing && ht_app_now_ms() >= a->next_discover_ms) {
            a->next_discover_ms = ht_app_now_ms() + 2000;
            ht_task_discover(a);
        }
        int busy = ht_jobs_busy(&a->jobs);
        struct pollfd pfd[4] = {{STDIN_FILENO, POLLIN, 0},
                                {-1, POLLIN, 0},
                                {ht_jobs_fd(&a->jobs), POLLIN, 0},
                                {a->launch ? a->launch->feed_fd : -1, POLLIN, 0}};
        if (a->cli && a->cli->state == HT_CONN_LIVE) pfd[1].fd = ht_client_stream_fd(a->cli);
        poll(pfd, 4, a->need_draw ? 20 : busy ? 100 : 250);
        if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) { /* the terminal went away */
            a->quit = 1;
            break;
        }
        if (a->launch) ht_app_launch_tick(a); /* the program's output and exit */
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
        /* finished jobs say so on the status line; running ones show there */
        if (pfd[2].revents & POLLIN) ht_jobs_reap(&a->jobs, a);
        if (busy || a->job_status[0]) watch_jobs(a);
        follow_dump(a);
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
    if (a->launch) ht_app_launch_end(a);
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
