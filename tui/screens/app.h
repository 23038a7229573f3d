/*
 * app.h - the interactive viewer's loop and the state it keeps between the
 * screens.
 *
 * Owns: the connection (replaced on reconnect; the last store is kept when
 * the JVM goes away, so its data can still be browsed and exported) and how
 * fresh its data is; every screen's state (made by its create(), handed to
 * its hooks); which screen is in front, where a modal one returns and which
 * screen opened which (Esc goes back); the lens (filters, the one class);
 * units and freeze; the line input (filter, search, interval, and what Esc
 * restores); the status line; the jobs in flight (jobs.h); the heap
 * snapshot on screen (loaded by a job; replaced whole by the next) and the
 * class figures kept of the one before it (compare.h: what the Compare
 * screen compares it with); whether the marks take snapshots, one dump at a
 * time (a mark's waits for the one being written). Screens see it only as
 * ht_host (screen.h).
 *
 * Threads: the UI thread alone touches it, and it alone calls ncurses. The
 * loop never blocks on the agent or on files: commands and exports are jobs
 * (tasks.h) whose results come back through the jobs' descriptor, which the
 * loop polls with the keyboard and the stream.
 */
#ifndef HEAPTOP_APP_H
#define HEAPTOP_APP_H

#ifdef HT_SCREEN_FILE
#error "a screen sees the loop only as ht_host (screen.h), never the whole app"
#endif

#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "jobs.h"
#include "screen.h"
#include "target.h"
#include "ui.h"

#define HT_SCREENS_MAX 32
/* How long a job runs before the status line shows it and Esc cancels it:
 * a quick request never flashes on the screen. */
#define HT_JOB_SHOWN_MS 150

typedef enum ht_input {
    HT_INPUT_NONE = 0,
    HT_INPUT_FILTER,
    HT_INPUT_SEARCH,
    HT_INPUT_INTERVAL,
    HT_INPUT_DRAG /* drag mode's filter (D) */
} ht_input;

struct ht_app {
    ht_ui ui;
    int quit;

    /* The JVM: the client, how fresh its data is, when to try again, and
     * what is known of how it went (its goodbye, when it said one, is the
     * client's: ht_client_goodbye). */
    struct {
        ht_target target;         /* what the command line named */
        ht_client *cli;           /* NULL until the first connection */
        ht_store empty;           /* shown before any connection (heaptop open: the dump's run) */
        uint64_t next_connect_ms; /* no connection: the next try (every second) */
        char error[640];          /* why the last try failed, or that the JVM is gone */
        uint64_t last_data_ms;    /* when the stream last brought a message (or we synced) */
        int jvm_gone;             /* lost without a goodbye, and its process no longer runs */
        int gone;                 /* the JVM's process no longer runs: no more connecting */
        int no_jvm;               /* heaptop open FILE: no JVM to connect to */
    } conn;

    /* --- the screens --- */
    void *state[HT_SCREENS_MAX]; /* each screen's, from its create() */
    int front;                   /* ht_screens[front] is in front */
    int back;                    /* where a modal screen (the help) returns */
    int drill_from, drill_to;    /* ht_host_open_class: who opened whom; -1: none */
    /* ht_host_filter_classes' drill: the class filter it set, and the one it
     * replaced, put back on the way back unless the user changed it since */
    char drill_filter[HT_FILTER_MAX_TEXT], drill_filter_was[HT_FILTER_MAX_TEXT];
    ht_lens lens;

    /* --- rebuilding and drawing --- */
    int frozen;   /* f: new data does not rebuild the models (it keeps arriving) */
    ht_unit unit; /* u: what byte figures are shown in (ui.h) */
    int area_top; /* the screen's first row, a list's title row (for clicks) */
    uint64_t built_generation, last_build_ms, last_draw_ms, build_cost_ms;
    int need_build, need_draw;
    int interruptible, key_build; /* may the pending build be abandoned for a key? */

    /* What the keyboard is in the middle of: a prompt being typed (the
     * filter, search or interval), or a question the next key answers (H's
     * is the dump's: dump.asked_ms). */
    struct {
        ht_input kind; /* the prompt open, HT_INPUT_NONE: none */
        char line[256];
        size_t line_len;
        char line_before[256]; /* the filter when its prompt opened: Esc puts it back */
        char search[256];
        /* heaptop run: q while the program runs asked whether to stop it
         * or leave it running (app_launch.c) */
        int quit_asked;
    } input;

    /* --- the status line --- */
    char status[256];
    uint64_t status_ms;
    char job_status[256]; /* the running job as last drawn */

    /* --- jobs --- */
    const char *out_dir;
    /* two job runners, so that a quick request never waits behind heavy
     * work: requests to the agent, finding JVMs and attaching on `quick`;
     * heap snapshots, compares and exports on `heavy` (tasks.c) */
    ht_jobs quick, heavy;

    /* --- the heap snapshot on screen --- */
    struct ht_heap *heap; /* the heap snapshot on screen, NULL: none (analysis.h) */
    /* what is kept of the snapshot before it, for the Compare screen
     * (compare.h), NULL: none; replaced with heap (heap_gen) */
    struct ht_heap_figures *heap_before;
    uint64_t heap_gen;    /* snapshots loaded so far: screens check it */
    char open_error[400]; /* heaptop open FILE: why FILE could not be read */

    /* The heap dumps the viewer asks the agent for, and follows while the
     * JVM writes them: one at a time. */
    struct {
        uint64_t asked_ms;   /* H pressed once: H or K again takes a snapshot */
        uint64_t id;         /* the agent writes this heap dump for us (0: none) */
        uint32_t pid;        /* in this JVM (a reconnect may find another) */
        int cut;             /* the connection was cut while following it */
        int asking;          /* a dump request is queued or in flight */
        unsigned flags;      /* HT_DUMP_KEEP: the file stays after reading */
        int compare;         /* the dump asked for or being written is E's: Compare once read */
        int mark_snapshots;  /* b and E each take a heap snapshot too (the Compare screen's m) */
        int snapshot_wanted; /* a mark's snapshot waits for the dump being written: 1 b, 2 E */
    } dump;

    /* --- the chooser --- */
    /* heaptop with no argument: the chooser is in front and nothing is
     * connected until a JVM is chosen; its list is refreshed by a job */
    int choosing, discovering;
    uint64_t next_discover_ms;
    pid_t attaching;                   /* an attach job runs for this pid (0: none) */
    const struct ht_reach_opts *reach; /* --agent, --interval, --agent-opts (checked) */
    /* --source (checked), or NULL: where the Source screen looks, before the
     * JDK's src.zip (app_source.c) */
    const struct ht_source_path *source;

    /* heaptop run: the program it started (launch.h) and its output for the
     * Console */
    struct {
        struct ht_launch *prog; /* NULL: heaptop did not start the program */
        struct ht_console *console;
        int leave_running; /* q answered l: the program runs on after heaptop */
        int exit_said;     /* its exit is on the status line */
    } launch;
};
typedef struct ht_app ht_app;

/* Every screen's state, an empty store, the jobs; the first screen in front.
 * 0, or -1 out of memory. */
int ht_app_init(ht_app *a);
/* Stop the jobs (cancelled) and free what ht_app_init made and the client. */
void ht_app_free(ht_app *a);
const ht_store *ht_app_store(const ht_app *a);
const ht_screen *ht_app_front(const ht_app *a);
void *ht_app_state(const ht_app *a, const ht_screen *s);
void ht_app_status(ht_app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bring ht_screens[i] to the front (drilled: opened on something by another
 * screen); it is rebuilt unless modal. */
void ht_app_show(ht_app *a, int i, int drilled);
/* Rebuild the model of the screen in front from the store. */
void ht_app_build(ht_app *a);
/* Draw the screen in front into rows [top, top + height). */
void ht_app_draw_screen(ht_app *a, int top, int height);
/* A heap snapshot, the user having agreed (H twice, or the marks taking
 * them): ask the agent for a dump; said on the status line when there is no
 * JVM or a dump is already being written (app_keys.c). 0 asked, -1 not. */
int ht_app_take_snapshot(ht_app *a, unsigned flags);
/* Handle one key (app_keys.c). */
void ht_app_key(ht_app *a, int ch);
/* The job the status line shows, its text into out ("" and NULL when none
 * has run long enough to show): the quick runner's first, then the heavy
 * one's. */
ht_jobs *ht_app_job_shown(ht_app *a, char *out, size_t n);
/* 1 when key ch does something on the front screen (the key bar shows only
 * those): its own keys, the keys of the screen it was opened from, and the
 * global keys it supports (sorting, search, filter; the agent's keys need a
 * JVM). */
int ht_app_key_acts(const ht_app *a, int ch);
/* Does key ch act now? While choosing only the chooser's keys, moving,
 * search, filter, help, redraw and quit do (app_keys.c). */
int ht_app_key_allowed(const ht_app *a, int ch);
/* Leave the chooser for JVM pid: connect to its agent at the default path
 * (the allocation tree in front); `how` starts the status line ("connecting
 * to pid", "attached to pid"). */
void ht_app_connect(ht_app *a, pid_t pid, const char *how);
/* Seconds since the stream last brought data, when that is more than the
 * ~3 s a live JVM never stays silent for (telemetry comes every second); else 0. */
uint64_t ht_app_stale_s(const ht_app *a);

/* header.c: the header on every screen, the status/input line and the key bar */
int ht_draw_header(ht_app *a);
void ht_draw_footer(ht_app *a);
/* key bar hit test: the key a click at column x on the bottom line stands for */
int ht_keybar_key_at(const ht_app *a, int x);

/* What a command (tui/cmd: view_cmd.c, run.c) asks of the viewer, checked. */
typedef struct ht_tui_opts {
    const ht_target *target;             /* the JVM; NULL: a dump, or the chooser */
    const char *open_file, *open_before; /* heaptop open [A] FILE; NULL: none */
    const char *out_dir;                 /* where 'e' writes CSV exports */
    int out_given;                       /* --out was given: the restart gives it again */
    int ascii;                           /* --ascii */
    struct ht_launch *launch;            /* heaptop run's program (its agent listens); NULL */
    const struct ht_reach_opts *reach;   /* what the chooser attaches with; NULL */
    const struct ht_source_path *source; /* --source, checked; NULL: none */
} ht_tui_opts;
/* app_start.c: the viewer on o until q (ht_app_run), remembering o for the
 * chooser's restart as heaptop PID. The exit code. */
int ht_tui_run(const ht_tui_opts *o);
/* The loop (app.c): the viewer on target, or on the dump open_file (with
 * open_before, compared against the older dump), or on the chooser, until
 * q; launch is heaptop run's program (NULL: none), reach what the chooser
 * attaches with, source where the Source screen looks (NULL: the JDK's
 * src.zip only). The exit code: 1 when open_file could not be read. */
int ht_app_run(const ht_target *target, const char *open_file, const char *open_before,
               int choosing, const char *out_dir, int ascii, struct ht_launch *launch,
               const struct ht_reach_opts *reach, const struct ht_source_path *source);

/* app_launch.c: the launched program, seen from the loop */
/* Take its output into the Console and notice its exit (each loop turn). */
void ht_app_launch_tick(ht_app *a);
/* q asked "stop it or leave it running?": this key answers (1 taken). */
int ht_app_quit_answer(ht_app *a, int ch);
/* After the terminal is restored: stop it or leave it, and say so. */
void ht_app_launch_end(ht_app *a);

#endif
