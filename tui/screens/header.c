/*
 * header.c - the header on every screen, the status/input line and the key bar.
 *
 * Header line 1: pid, main class, uptime, connection state (live, "no data
 * for N s" when a connected JVM has gone quiet, reconnecting, "JVM gone" when
 * it died without a goodbye, "JVM exited"). Line 2: heap used/max bar,
 * allocation rate and GC share (greyed while no data comes, cleared once the
 * JVM is gone), drops (always shown, red when non-zero), sampling interval
 * ("raised by budget" when the CPU budget raised it)
 * (the first to go on a narrow terminal). Line 3 (only when set): the mark,
 * LIVE's lag, FROZEN, the lens (filters, the one class). Above the key bar
 * the status line: an open prompt, else a job running long enough to be
 * seen (Esc cancels it), else the last status for 8 s, else why there is no
 * connection. The bottom line is an htop-style function-key bar, generated
 * from the key tables (keymap.h), less the keys that do nothing now (while
 * choosing a JVM); clicks on it are mapped back to keys. With no JVM chosen
 * yet the header is one line saying what the chooser below does. UI thread
 * only.
 */
#include "app.h"
#include "analysis.h"
#include "keymap.h"
#include "launch.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define LABEL_W 6 /* every key-bar label is this wide */

static void rate_of(const ht_store *s, double *alloc_rate, double *gc_pct)
{
    *alloc_rate = 0;
    *gc_pct = 0;
    if (s->ntelemetry == 0) return;
    const ht_telemetry_rec *t = &s->telemetry[s->ntelemetry - 1];
    *gc_pct = t->gc_pct;
    if (s->ntelemetry < 2) return;
    const ht_telemetry_rec *p = &s->telemetry[s->ntelemetry - 2];
    if (t->t_ms > p->t_ms && t->alloc_bytes != UINT64_MAX && p->alloc_bytes != UINT64_MAX &&
        t->alloc_bytes >= p->alloc_bytes)
        *alloc_rate =
            (double)(t->alloc_bytes - p->alloc_bytes) * 1000.0 / (double)(t->t_ms - p->t_ms);
}

/* How the connection stands, as the header's state label says it. */
typedef enum conn_view {
    CV_CONNECTING, /* never connected yet */
    CV_LIVE,
    CV_STALE,        /* connected, but nothing arrived for a while (a stopped JVM) */
    CV_RECONNECTING, /* lost, the process still there (an agent restarting) */
    CV_GONE,         /* lost without a goodbye and the process is gone (killed) */
    CV_EXITED,       /* the agent said goodbye */
} conn_view;

static conn_view conn_state(const ht_app *a, uint64_t *stale_s)
{
    *stale_s = 0;
    if (!a->cli) return CV_CONNECTING;
    switch (a->cli->state) {
    case HT_CONN_LIVE:
        *stale_s = ht_app_stale_s(a);
        return *stale_s ? CV_STALE : CV_LIVE;
    case HT_CONN_EXITED:
        return CV_EXITED;
    case HT_CONN_LOST:
        return a->jvm_gone ? CV_GONE : CV_RECONNECTING;
    default:
        return CV_CONNECTING;
    }
}

/* One piece of header line 1, drawn only when it fits whole. */
typedef struct segment {
    char text[96];
    ht_color role;
    int dim;  /* greyed: a figure that is no longer current */
    int keep; /* drawn even if a lower piece has to go for it */
} segment;

/* "snapshot of 2026-11-23 03:21:04: 100620 objects, 3.7 MiB" */
static void snapshot_text(const ht_heap *x, char *buf, size_t n)
{
    char when[32] = "?", size[32];
    time_t t = (time_t)(x->h.timestamp_ms / 1000);
    struct tm tm;
    if (x->h.timestamp_ms && localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    ht_ui_bytes((double)x->s.total_bytes, 0, size, sizeof size);
    snprintf(buf, n, "snapshot of %s: %u objects, %s, %s layout", when, x->s.nobjects, size,
             x->s.layout->name);
}

/* heaptop open FILE: no JVM, the snapshot is all there is. */
static int draw_file_header(ht_app *a)
{
    const ht_ui *ui = &a->ui;
    char buf[1200];
    const char *file = a->heap ? a->heap->path : "";
    const char *base = strrchr(file, '/');
    const ht_store_info *in = &a->empty.info; /* the run a dump by heaptop's agent carries */
    if (in->pid)
        snprintf(buf, sizeof buf, "heaptop  %s  pid %u  %s  JDK %s  (the run as of the dump)",
                 base ? base + 1 : file, in->pid, in->main_class ? in->main_class : "?",
                 in->jdk_version ? in->jdk_version : "?");
    else
        snprintf(buf, sizeof buf, "heaptop  %s", base ? base + 1 : file);
    ht_ui_put(stdscr, 0, 0, ui->cols - 14, ht_ui_attr(ui, HT_C_HEADER), buf, 1);
    ht_ui_put(stdscr, 0, ui->cols - 14, 14, ht_ui_attr(ui, HT_C_GOOD), "  [dump file]", 1);
    if (a->heap)
        snapshot_text(a->heap, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "reading the dump (Esc cancels)");
    ht_ui_put(stdscr, 1, 0, ui->cols, ht_ui_attr(ui, HT_C_VALUE), buf, 1);
    return 2;
}

/* heaptop with no argument: no JVM yet, the chooser below lists them. */
static int draw_chooser_header(ht_app *a)
{
    const ht_ui *ui = &a->ui;
    ht_ui_put(stdscr, 0, 0, ui->cols, ht_ui_attr(ui, HT_C_HEADER),
              "heaptop  choose a JVM: Enter connects (attaching heaptop's agent when it has none)",
              1);
    return 1;
}

int ht_draw_header(ht_app *a)
{
    if (a->no_jvm) return draw_file_header(a);
    if (a->choosing) return draw_chooser_header(a);
    const ht_store *s = ht_app_store(a);
    const ht_ui *ui = &a->ui;
    int cols = ui->cols;
    char buf[512], v1[32], v2[32];
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);

    /* line 0: identity and connection state */
    uint64_t stale_s;
    conn_view cv = conn_state(a, &stale_s);
    char state[64];
    ht_color sc = HT_C_WARN;
    switch (cv) {
    case CV_LIVE:
        snprintf(state, sizeof state, "live");
        sc = HT_C_GOOD;
        break;
    case CV_STALE:
        snprintf(state, sizeof state, "no data for %llu s", (unsigned long long)stale_s);
        break;
    case CV_RECONNECTING:
        snprintf(state, sizeof state, "reconnecting");
        break;
    case CV_GONE:
        snprintf(state, sizeof state, "JVM gone");
        break;
    case CV_EXITED:
        snprintf(state, sizeof state, "JVM exited");
        break;
    default:
        snprintf(state, sizeof state, "connecting");
        break;
    }
    if (a->launch && a->launch->exited) { /* heaptop run: how the program ended */
        char how[48];
        ht_launch_exit_text(a->launch, how, sizeof how);
        snprintf(state, sizeof state, "program %s", how);
        int ok = WIFEXITED(a->launch->status) && WEXITSTATUS(a->launch->status) == 0;
        sc = ok ? HT_C_GOOD : HT_C_WARN;
    }
    uint64_t up = t ? t->t_ms / 1000 : 0;
    snprintf(buf, sizeof buf, "heaptop  pid %u  %s  up %02llu:%02llu:%02llu  JDK %s", s->info.pid,
             s->info.main_class ? s->info.main_class : "-", (unsigned long long)(up / 3600),
             (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60),
             s->info.jdk_version ? s->info.jdk_version : "-");
    int slen = (int)strlen(state) + 2;
    ht_ui_put(stdscr, 0, 0, cols - slen - 1, ht_ui_attr(ui, HT_C_HEADER), buf, 1);
    ht_ui_put(stdscr, 0, cols - slen - 1, 1, A_NORMAL, "", 1);
    snprintf(buf, sizeof buf, "[%s]", state);
    ht_ui_put(stdscr, 0, cols - slen, slen, ht_ui_attr(ui, sc), buf, 1);

    /* line 1: heap bar, rates, drops, interval. Rates are greyed while no data
     * comes and cleared once the JVM is gone: they would be stale. */
    int stale = cv == CV_STALE, over = cv == CV_GONE || cv == CV_EXITED;
    double used = t ? (double)t->heap_used : 0, max = t ? (double)t->heap_max : 0;
    int barw = cols >= 100 ? 20 : 10;
    ht_ui_put(stdscr, 1, 0, 5, ht_ui_attr(ui, HT_C_HEADER), "Heap[", 0);
    int fill = max > 0 ? (int)(used / max * barw + 0.5) : 0;
    if (fill > barw) fill = barw;
    for (int i = 0; i < barw; i++)
        mvaddch(1, 5 + i, i < fill ? ('|' | ht_ui_attr(ui, HT_C_BAR)) : ' ');
    ht_ui_bytes(used, 0, v1, sizeof v1);
    ht_ui_bytes(max, 0, v2, sizeof v2);
    double rate, gc;
    rate_of(s, &rate, &gc);
    char rate_s[32], iv[32];
    ht_ui_bytes(rate, 0, rate_s, sizeof rate_s);
    ht_ui_bytes((double)(t ? t->interval : s->info.interval), 0, iv, sizeof iv);
    uint64_t dropped = t ? t->dropped : 0;
    segment seg[5] = {{"", HT_C_VALUE, stale || over, 1},
                      {"", HT_C_VALUE, stale, 0},
                      {"", HT_C_VALUE, stale, 0},
                      {"", dropped ? HT_C_WARN : HT_C_VALUE, 0, 1},
                      {"", HT_C_VALUE, over, 0}};
    snprintf(seg[0].text, sizeof seg[0].text, "] %s/%s", v1, v2);
    if (over) {
        snprintf(seg[1].text, sizeof seg[1].text, "  alloc -/s");
        snprintf(seg[2].text, sizeof seg[2].text, "  GC -%%");
    } else {
        snprintf(seg[1].text, sizeof seg[1].text, "  alloc %s/s", rate_s);
        snprintf(seg[2].text, sizeof seg[2].text, "  GC %.1f%%", gc);
    }
    /* drops are the one number that must not be missed: before the interval,
     * and kept when the line is short */
    snprintf(seg[3].text, sizeof seg[3].text, "  drops %llu", (unsigned long long)dropped);
    /* the budget raised it (agent/budget.h): say so, or a user reads a coarse
     * interval as the one configured */
    int raised = t && t->budget_x100 && t->interval > t->base_interval;
    snprintf(seg[4].text, sizeof seg[4].text, "  interval %s%s", iv,
             t && t->paused ? " (paused)"
             : raised       ? " (raised by budget)"
                            : "");
    int room = cols - 5 - barw, need = 0;
    for (int i = 0; i < 5; i++)
        need += seg[i].keep ? (int)strlen(seg[i].text) : 0;
    int x = 5 + barw;
    for (int i = 0; i < 5; i++) {
        int w = (int)strlen(seg[i].text);
        if (!seg[i].keep && need + w > room) continue;
        if (!seg[i].keep) need += w;
        int attr = seg[i].dim ? ht_ui_attr(ui, HT_C_STALE) : ht_ui_attr(ui, seg[i].role);
        ht_ui_put(stdscr, 1, x, cols - x, attr, seg[i].text, 0);
        x += w;
    }
    if (x < cols) ht_ui_put(stdscr, 1, x, cols - x, A_NORMAL, "", 1);
    int line = 2;
    /* line 2: mark, filters, frozen */
    buf[0] = '\0';
    size_t n = 0;
    if (ht_store_has_mark(s)) {
        /* the mark's clock ticks with the agent's telemetry, once a second */
        uint64_t ms = s->mark.length_ms;
        if (s->mark.state == HT_MARK_RUNNING && t && t->t_ms > s->mark.t_ms)
            ms += t->t_ms - s->mark.t_ms;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %llus  ",
                              s->mark.state == HT_MARK_RUNNING ? "MARK running" : "MARK ended",
                              (unsigned long long)(ms / 1000));
    }
    /* LIVE reflects a finished GC within a second; say when it lags more */
    if (t && s->info.live && t->live_lag_ms > 1000)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "LIVE %llus behind the last GC  ",
                              (unsigned long long)(t->live_lag_ms / 1000));
    if (a->frozen) n += (size_t)snprintf(buf + n, sizeof buf - n, "FROZEN  ");
    const ht_lens *lens = &a->lens;
    if (ht_filter_active(&lens->class_filter) && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "class filter: %s  ",
                              lens->class_filter.text);
    if (ht_filter_active(&lens->ref_filter) && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "reference filter: %s  ",
                              lens->ref_filter.text);
    if (ht_filter_active(&lens->frame_filter) && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "frame filter: %s  ",
                              lens->frame_filter.text);
    if (ht_filter_active(&lens->console_filter) && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "console filter: %s  ",
                              lens->console_filter.text);
    if (lens->only_class && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "class: %s  ",
                              ht_store_class(s, lens->only_class));
    /* which snapshot the heap screens show; the others stay live beside it */
    if (a->heap && n < sizeof buf) {
        char snap[400];
        snapshot_text(a->heap, snap, sizeof snap);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s (4-6; 1-3 stay live)  ", snap);
    }
    if (n) {
        ht_ui_put(stdscr, line, 0, cols,
                  ht_ui_attr(ui, s->mark.state == HT_MARK_RUNNING ? HT_C_MARK : HT_C_DIM), buf, 1);
        line++;
    }
    return line;
}

/* The key bar: the function keys that act now. */
static int keybar(const ht_app *a, ht_keybar_slot bar[16])
{
    int n = ht_keymap_bar(ht_app_front(a), bar, 16), k = 0;
    for (int i = 0; i < n; i++)
        if (ht_app_key_allowed(a, bar[i].key) && ht_app_key_acts(a, bar[i].key)) bar[k++] = bar[i];
    return k;
}

void ht_draw_footer(ht_app *a)
{
    const ht_ui *ui = &a->ui;
    int y = ui->rows - 1;
    /* status or input line just above the key bar */
    char buf[512];
    if (!ht_jobs_status(&a->jobs, HT_JOB_SHOWN_MS, a->job_status, sizeof a->job_status))
        a->job_status[0] = '\0';
    if (a->quit_asked) {
        snprintf(buf, sizeof buf,
                 "pid %d still runs: s stops it (SIGTERM, then SIGKILL), l leaves it running, "
                 "Esc stays",
                 (int)a->launch->pid);
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_WARN), buf, 1);
    } else if (a->input != HT_INPUT_NONE) {
        ht_filter_kind fk = ht_app_front(a)->filter;
        const char *prompt = a->input == HT_INPUT_FILTER
                                 ? (fk == HT_FILTER_CLASSES   ? "Class filter: "
                                    : fk == HT_FILTER_REFS    ? "Reference filter (classes): "
                                    : fk == HT_FILTER_JVMS    ? "JVM filter (main classes): "
                                    : fk == HT_FILTER_CONSOLE ? "Console filter (lines): "
                                                              : "Frame filter: ")
                             : a->input == HT_INPUT_SEARCH ? "Search: "
                                                           : "Sampling interval (e.g. 512k): ";
        snprintf(buf, sizeof buf, "%s%s_", prompt, a->line);
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_VALUE), buf, 1);
    } else if (a->job_status[0]) {
        snprintf(buf, sizeof buf, "%s  (Esc cancels)", a->job_status);
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_VALUE), buf, 1);
    } else if (a->status[0] && ht_app_now_ms() - a->status_ms < 8000) {
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_VALUE), a->status, 1);
    } else if (a->conn_error[0] && (!a->cli || a->cli->state != HT_CONN_LIVE)) {
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_WARN), a->conn_error, 1);
    }
    ht_keybar_slot bar[16];
    int nbar = keybar(a, bar), x = 0;
    for (int i = 0; i < nbar && x < ui->cols; i++) {
        int fk = (int)strlen(bar[i].fkey);
        ht_ui_put(stdscr, y, x, fk, ht_ui_attr(ui, HT_C_KEY), bar[i].fkey, 0);
        ht_ui_put(stdscr, y, x + fk, LABEL_W, ht_ui_attr(ui, HT_C_KEYLABEL), bar[i].label, 1);
        x += fk + LABEL_W;
    }
    if (x < ui->cols) ht_ui_put(stdscr, y, x, ui->cols - x, ht_ui_attr(ui, HT_C_KEYLABEL), "", 1);
}

int ht_keybar_key_at(const ht_app *a, int x)
{
    ht_keybar_slot bar[16];
    int nbar = keybar(a, bar), at = 0;
    for (int i = 0; i < nbar; i++) {
        int w = (int)strlen(bar[i].fkey) + LABEL_W;
        if (x >= at && x < at + w) return bar[i].key;
        at += w;
    }
    return -1;
}
