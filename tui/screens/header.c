/*
 * header.c - the header on every screen, the status/input line and the key bar.
 *
 * Header line 1: pid, main class, uptime, JDK, and on the right the
 * connection state: live, "no data for N s" when a connected JVM has gone
 * quiet, reconnecting, or how it ended, one label for each cause (end_label:
 * the program `heaptop run` started exited with code N or was killed by a
 * signal; the agent's goodbye, "JVM exited" or "agent detached"; "JVM gone
 * without a goodbye" when the stream dropped and the process is gone). Where
 * the line is short the left part takes a shorter form (the JDK's release
 * only, no "heaptop", the main class without its package, no JDK, no
 * uptime), and only then is cut, with a sign. Line 2: heap used/max bar,
 * allocation rate and GC share (greyed while no data comes, cleared once the
 * JVM is gone), drops (always shown, red when non-zero), when LIVE rests on
 * few samples how many and how sure it is (kept too), sampling interval
 * ("raised by budget" when the CPU budget raised it; the first to go on a
 * narrow terminal). Lines 3-4 (only when there is something to say): the
 * mark, LIVE's lag, FROZEN, the lens (filters, the one class), the snapshot on screens 4-6;
 * each piece whole, in a shorter wording where it does not fit, and a sign
 * where something had to be cut. Above the key bar the status line: an
 * open prompt (the end of a long input shown), else a job running long
 * enough to be seen (Esc cancels it), else the last status for 8 s, else how
 * the session ended, else why there is no connection; one line, cut with a
 * sign, except a question in two parts, whose keys take the key bar's line
 * while it is asked. The bottom line is an htop-style function-key bar,
 * generated from the key tables (keymap.h), less the keys that do nothing now
 * (while choosing a JVM); clicks on it are mapped back to keys. With no JVM
 * chosen yet the header is one line saying what the chooser below does; for
 * heaptop open, the file and the run the dump carries. UI thread only.
 */
#include "clock.h"
#include "app.h"
#include "analysis.h"
#include "estimate.h"
#include "keymap.h"
#include "launch.h"
#include "site_tree.h" /* ht_text_width */

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
    CV_ENDED,        /* over: see end_label */
} conn_view;

/* How it ended, one label for each cause, the same in the header and on the
 * status line: the program heaptop run started exited with a code or was
 * killed by a signal (its wait status says which, so it wins); the agent said
 * goodbye (the JVM exited, or the agent detached: its words); it went away
 * without one and the process is gone (a kill, a crash). "" while not over. */
static void end_label(const ht_app *a, char *out, size_t n)
{
    out[0] = '\0';
    if (a->launch.prog && a->launch.prog->exited) {
        char how[96];
        ht_launch_exit_text(a->launch.prog, how, sizeof how);
        snprintf(out, n, "program %s", how);
    } else if (ht_client_goodbye(a->conn.cli)) {
        snprintf(out, n, "%s", ht_client_goodbye(a->conn.cli));
    } else if (a->conn.cli && a->conn.cli->state == HT_CONN_LOST && a->conn.jvm_gone) {
        snprintf(out, n, "JVM gone without a goodbye");
    }
}

static conn_view conn_state(const ht_app *a, uint64_t *stale_s)
{
    *stale_s = 0;
    char end[128];
    end_label(a, end, sizeof end);
    if (end[0]) return CV_ENDED;
    if (!a->conn.cli) return CV_CONNECTING;
    switch (a->conn.cli->state) {
    case HT_CONN_LIVE:
        *stale_s = ht_app_stale_s(a);
        return *stale_s ? CV_STALE : CV_LIVE;
    case HT_CONN_LOST:
        return CV_RECONNECTING;
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

/* "snapshot of 2026-11-23 03:21:04: 100620 objects, 3.7 MiB, compressed
 * layout"; brief: "snapshot 03:21:04, 100620 objects, 3.7 MiB". */
static void snapshot_text(const ht_heap *x, int brief, char *buf, size_t n)
{
    char when[32] = "?", size[32];
    time_t t = (time_t)(x->h.timestamp_ms / 1000);
    struct tm tm;
    if (x->h.timestamp_ms && localtime_r(&t, &tm))
        strftime(when, sizeof when, brief ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
    ht_ui_bytes((double)x->s.total_bytes, HT_UNIT_AUTO, size, sizeof size);
    if (brief)
        snprintf(buf, n, "snapshot %s, %u objects, %s", when, x->s.nobjects, size);
    else
        snprintf(buf, n, "snapshot of %s: %u objects, %s, %s layout", when, x->s.nobjects, size,
                 x->s.layout->name);
}

/* Line 0: the first of forms[] that fits beside the state label, else the
 * last one cut with a sign; the label whole on the right. */
static void title_line(const ht_app *a, const char *const *forms, int nforms, const char *state,
                       ht_color role)
{
    const ht_ui *ui = &a->ui;
    char label[160], buf[1200];
    snprintf(label, sizeof label, "[%s]", state);
    int lw = ht_text_width(label);
    if (lw > ui->cols) lw = ui->cols;
    int room = ui->cols - lw - 1, k = 0;
    while (k < nforms - 1 && ht_text_width(forms[k]) > room)
        k++;
    ht_ui_fit(ui, forms[k], room, buf, sizeof buf);
    ht_ui_put(stdscr, 0, 0, room + 1, ht_ui_attr(ui, HT_C_HEADER), buf, 1);
    ht_ui_put(stdscr, 0, ui->cols - lw, lw, ht_ui_attr(ui, role), label, 1);
}

/* "17.0.15+6-Debian-1deb12u1" -> "17.0.15" */
static void jdk_brief(const char *v, char *out, size_t n)
{
    snprintf(out, n, "%.*s", (int)strcspn(v, "+-_ "), v);
}

/* "org.apache.catalina.startup.Bootstrap" -> "Bootstrap", "/opt/app.jar" -> "app.jar" */
static const char *simple_name(const char *main)
{
    const char *slash = strrchr(main, '/');
    if (slash) return slash + 1;
    size_t len = strlen(main);
    if (len > 4 && strcmp(main + len - 4, ".jar") == 0) return main;
    const char *dot = strrchr(main, '.');
    return dot && dot[1] ? dot + 1 : main;
}

/* A piece of the info lines (the mark, filters, the snapshot...): its words,
 * a shorter wording for a short line (or ""), and its colour. */
typedef struct info_seg {
    char full[600], brief[600];
    ht_color role;
} info_seg;

#define INFO_MAX 12

static info_seg *info_add(info_seg *seg, int *n, ht_color role)
{
    if (*n >= INFO_MAX) return NULL;
    info_seg *g = &seg[(*n)++];
    g->full[0] = g->brief[0] = '\0';
    g->role = role;
    return g;
}

/* The pieces laid out on at most `lines` lines from row y, each piece whole
 * (its brief wording where the full one does not fit), a piece that fits no
 * line cut with a sign, and a sign at the end of the last line when pieces
 * were left over. Returns the lines drawn. */
static int info_lines(const ht_app *a, int y, const info_seg *seg, int n, int lines)
{
    const ht_ui *ui = &a->ui;
    int cols = ui->cols, row = 0, x = 0, drawn = 0;
    for (int i = 0; i < n; i++) {
        const char *t = seg[i].full;
        int gap = x ? 2 : 0;
        int wf = ht_text_width(seg[i].full);
        int wb = seg[i].brief[0] ? ht_text_width(seg[i].brief) : wf;
        if (x + gap + wf > cols && x + gap + wb <= cols) t = seg[i].brief;
        if (x && x + gap + ht_text_width(t) > cols && row + 1 < lines) {
            ht_ui_put(stdscr, y + row, x, cols - x, A_NORMAL, "", 1);
            row++, x = 0, gap = 0;
            t = wf <= cols ? seg[i].full : seg[i].brief[0] ? seg[i].brief : seg[i].full;
        }
        char buf[700];
        int room = cols - x - gap;
        int left = i + 1 < n && row + 1 >= lines; /* more after it, and no line for them */
        if (left) { /* the next one must fit too, or this line ends with the sign */
            const char *u = seg[i + 1].brief[0] ? seg[i + 1].brief : seg[i + 1].full;
            if (ht_text_width(t) + 2 + ht_text_width(u) > room) {
                char all[1400];
                size_t k = (size_t)snprintf(all, sizeof all, "%s", t);
                for (int j = i + 1; j < n && k < sizeof all; j++)
                    k += (size_t)snprintf(all + k, sizeof all - k, "  %s",
                                          seg[j].brief[0] ? seg[j].brief : seg[j].full);
                ht_ui_fit(ui, all, room, buf, sizeof buf);
                ht_ui_put(stdscr, y + row, x, gap, A_NORMAL, "", 1);
                ht_ui_put(stdscr, y + row, x + gap, room, ht_ui_attr(ui, seg[i].role), buf, 1);
                return row + 1;
            }
        }
        if (room <= 0) break;
        ht_ui_fit(ui, t, room, buf, sizeof buf);
        ht_ui_put(stdscr, y + row, x, gap, A_NORMAL, "", 1);
        ht_ui_put(stdscr, y + row, x + gap, room, ht_ui_attr(ui, seg[i].role), buf, 0);
        x += gap + ht_text_width(buf);
        drawn = row + 1;
    }
    if (drawn && x < cols) ht_ui_put(stdscr, y + drawn - 1, x, cols - x, A_NORMAL, "", 1);
    return drawn;
}

/* heaptop open FILE: no JVM, the snapshot is all there is. */
static int draw_file_header(ht_app *a)
{
    char f[6][1200], jdk[64];
    const char *file = a->heap ? a->heap->path : "";
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const ht_store_info *in = &a->conn.empty.info; /* the run a dump by heaptop's agent carries */
    int nf = 0;
    if (in->pid) {
        const char *main = in->main_class ? in->main_class : "?";
        const char *v = in->jdk_version ? in->jdk_version : "?";
        jdk_brief(v, jdk, sizeof jdk);
        snprintf(f[nf++], sizeof f[0], "heaptop  %s  pid %u  %s  JDK %s  (the run as of the dump)",
                 base, in->pid, main, v);
        snprintf(f[nf++], sizeof f[0], "heaptop  %s  pid %u  %s  JDK %s  (as of the dump)", base,
                 in->pid, main, jdk);
        snprintf(f[nf++], sizeof f[0], "%s  pid %u  %s  JDK %s  (as of the dump)", base, in->pid,
                 simple_name(main), jdk);
        snprintf(f[nf++], sizeof f[0], "%s  pid %u  %s", base, in->pid, simple_name(main));
    }
    snprintf(f[nf++], sizeof f[0], "heaptop  %s", base);
    snprintf(f[nf++], sizeof f[0], "%s", base);
    const char *forms[6];
    for (int i = 0; i < nf; i++)
        forms[i] = f[i];
    title_line(a, forms, nf, "dump file", HT_C_GOOD);
    info_seg seg[1];
    int n = 0;
    info_seg *g = info_add(seg, &n, HT_C_VALUE);
    if (a->heap) {
        snapshot_text(a->heap, 0, g->full, sizeof g->full);
        snapshot_text(a->heap, 1, g->brief, sizeof g->brief);
    } else {
        snprintf(g->full, sizeof g->full, "reading the dump (Esc cancels)");
    }
    return 1 + info_lines(a, 1, seg, n, 2);
}

/* heaptop with no argument: no JVM yet, the chooser below lists them. */
static int draw_chooser_header(ht_app *a)
{
    info_seg seg[1];
    int n = 0;
    info_seg *g = info_add(seg, &n, HT_C_HEADER);
    snprintf(g->full, sizeof g->full,
             "heaptop  choose a JVM: Enter connects (attaching heaptop's agent when it has none)");
    snprintf(g->brief, sizeof g->brief,
             "heaptop  choose a JVM: Enter connects (attaching the agent if needed)");
    return info_lines(a, 0, seg, n, 1);
}

/* Fewer live samples than this and one standard error of the LIVE total is
 * over 10% (ht_rel_se: 1/sqrt(n) for objects small beside the interval):
 * the 95% band is then wider than +-20%, as wide as the live set's own
 * growth over a long mark, so the header says what LIVE rests on. The user
 * report's 207 MB live set from 18 samples (one SE 24%) came out 31% low. */
#define LIVE_FEW_SAMPLES 100

/* The live samples every LIVE figure rests on (all rows). */
static uint64_t live_samples(const ht_store *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nrows; i++)
        n += s->rows[i].live_samples;
    return n;
}

int ht_draw_header(ht_app *a)
{
    if (a->conn.no_jvm) return draw_file_header(a);
    if (a->choosing) return draw_chooser_header(a);
    const ht_store *s = ht_app_store(a);
    const ht_ui *ui = &a->ui;
    int cols = ui->cols;
    char v1[32], v2[32];
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);

    /* line 0: identity and connection state */
    uint64_t stale_s;
    conn_view cv = conn_state(a, &stale_s);
    char state[128];
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
    case CV_ENDED:
        end_label(a, state, sizeof state);
        /* a clean end is not a warning: code 0, the JVM's own exit, a detach */
        if (a->launch.prog && a->launch.prog->exited)
            sc = WIFEXITED(a->launch.prog->status) && WEXITSTATUS(a->launch.prog->status) == 0
                     ? HT_C_GOOD
                     : HT_C_WARN;
        else if (ht_client_goodbye(a->conn.cli))
            sc = HT_C_GOOD;
        break;
    default:
        snprintf(state, sizeof state, "connecting");
        break;
    }
    uint64_t up = t ? t->t_ms / 1000 : 0;
    char upt[32], jdk[64], f[6][1200];
    snprintf(upt, sizeof upt, "up %02llu:%02llu:%02llu", (unsigned long long)(up / 3600),
             (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60));
    const char *main = s->info.main_class ? s->info.main_class : "-";
    const char *v = s->info.jdk_version ? s->info.jdk_version : "-";
    jdk_brief(v, jdk, sizeof jdk);
    unsigned pid = s->info.pid;
    snprintf(f[0], sizeof f[0], "heaptop  pid %u  %s  %s  JDK %s", pid, main, upt, v);
    snprintf(f[1], sizeof f[1], "heaptop  pid %u  %s  %s  JDK %s", pid, main, upt, jdk);
    snprintf(f[2], sizeof f[2], "pid %u  %s  %s  JDK %s", pid, main, upt, jdk);
    snprintf(f[3], sizeof f[3], "pid %u  %s  %s", pid, main, upt);
    snprintf(f[4], sizeof f[4], "pid %u  %s  %s", pid, simple_name(main), upt);
    snprintf(f[5], sizeof f[5], "pid %u  %s", pid, simple_name(main));
    const char *forms[6] = {f[0], f[1], f[2], f[3], f[4], f[5]};
    title_line(a, forms, 6, state, sc);

    /* line 1: heap bar, rates, drops, interval. Rates are greyed while no data
     * comes and cleared once the JVM is gone: they would be stale. */
    int stale = cv == CV_STALE, over = cv == CV_ENDED;
    double used = t ? (double)t->heap_used : 0, max = t ? (double)t->heap_max : 0;
    int barw = cols >= 100 ? 20 : 10;
    ht_ui_put(stdscr, 1, 0, 5, ht_ui_attr(ui, HT_C_HEADER), "Heap[", 0);
    int fill = max > 0 ? (int)(used / max * barw + 0.5) : 0;
    if (fill > barw) fill = barw;
    for (int i = 0; i < barw; i++)
        mvaddch(1, 5 + i, i < fill ? ('|' | ht_ui_attr(ui, HT_C_BAR)) : ' ');
    ht_ui_bytes(used, HT_UNIT_AUTO, v1, sizeof v1);
    ht_ui_bytes(max, HT_UNIT_AUTO, v2, sizeof v2);
    double rate, gc;
    rate_of(s, &rate, &gc);
    char rate_s[32], iv[32];
    ht_ui_bytes(rate, HT_UNIT_AUTO, rate_s, sizeof rate_s);
    ht_ui_bytes((double)(t ? t->interval : s->info.interval), HT_UNIT_AUTO, iv, sizeof iv);
    uint64_t dropped = t ? t->dropped : 0;
    segment seg[6] = {{"", HT_C_VALUE, stale || over, 1},
                      {"", HT_C_VALUE, stale, 0},
                      {"", HT_C_VALUE, stale, 0},
                      {"", dropped ? HT_C_WARN : HT_C_VALUE, 0, 1},
                      {"", HT_C_WARN, 0, 1},
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
    snprintf(seg[5].text, sizeof seg[5].text, "  interval %s%s", iv,
             t && t->paused ? " (paused)"
             : raised       ? " (raised by budget)"
                            : "");
    /* LIVE on few samples: every LIVE figure is that unsure (a coarse
     * interval, raised by the budget or set so, on a big live set). Kept on
     * this line, which is always there, so no line comes and goes with it. */
    uint64_t nlive = s->info.live && t && t->interval ? live_samples(s) : 0;
    if (nlive && nlive < LIVE_FEW_SAMPLES)
        snprintf(seg[4].text, sizeof seg[4].text, "  LIVE: %llu sample%s, %s%.0f%%",
                 (unsigned long long)nlive, nlive == 1 ? "" : "s", ui->utf8 ? "\u00b1" : "+-",
                 ht_rel_se(nlive) * 100);
    int room = cols - 5 - barw, need = 0;
    for (int i = 0; i < 6; i++)
        need += seg[i].keep ? ht_text_width(seg[i].text) : 0;
    int x = 5 + barw;
    for (int i = 0; i < 6; i++) {
        int w = ht_text_width(seg[i].text);
        if (!seg[i].keep && need + w > room) continue;
        if (!seg[i].keep) need += w;
        int attr = seg[i].dim ? ht_ui_attr(ui, HT_C_STALE) : ht_ui_attr(ui, seg[i].role);
        ht_ui_put(stdscr, 1, x, cols - x, attr, seg[i].text, 0);
        x += w;
    }
    if (x < cols) ht_ui_put(stdscr, 1, x, cols - x, A_NORMAL, "", 1);

    /* lines 2-3 (only when there is something to say): mark, LIVE's lag,
     * frozen, the lens, the snapshot */
    info_seg info[INFO_MAX];
    int n = 0;
    ht_color dim = s->mark.state == HT_MARK_RUNNING ? HT_C_MARK : HT_C_DIM;
    info_seg *g;
    if (ht_store_has_mark(s) && (g = info_add(info, &n, dim))) {
        /* the mark's clock ticks with the agent's telemetry, once a second */
        uint64_t ms = s->mark.length_ms;
        if (s->mark.state == HT_MARK_RUNNING && t && t->t_ms > s->mark.t_ms)
            ms += t->t_ms - s->mark.t_ms;
        snprintf(g->full, sizeof g->full, "%s %llus",
                 s->mark.state == HT_MARK_RUNNING ? "MARK running" : "MARK ended",
                 (unsigned long long)(ms / 1000));
    }
    /* LIVE reflects a finished GC within a second; say when it lags more */
    if (t && s->info.live && t->live_lag_ms > 1000 && (g = info_add(info, &n, dim))) {
        snprintf(g->full, sizeof g->full, "LIVE %llus behind the last GC",
                 (unsigned long long)(t->live_lag_ms / 1000));
        snprintf(g->brief, sizeof g->brief, "LIVE %llus behind",
                 (unsigned long long)(t->live_lag_ms / 1000));
    }
    if (a->frozen && (g = info_add(info, &n, dim))) snprintf(g->full, sizeof g->full, "FROZEN");
    const ht_lens *lens = &a->lens;
    struct {
        const ht_filter *f;
        const char *what;
    } filters[] = {{&lens->class_filter, "class filter"},
                   {&lens->ref_filter, "reference filter"},
                   {&lens->frame_filter, "frame filter"},
                   {&lens->thread_filter, "thread filter"},
                   {&lens->console_filter, "console filter"}};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
        if (ht_filter_active(filters[i].f) && (g = info_add(info, &n, dim)))
            snprintf(g->full, sizeof g->full, "%s: %s", filters[i].what, filters[i].f->text);
    if (lens->only_class && (g = info_add(info, &n, dim)))
        snprintf(g->full, sizeof g->full, "class: %s", ht_store_class(s, lens->only_class));
    /* which snapshot the heap screens show; the others stay live beside it */
    if (a->heap && (g = info_add(info, &n, dim))) {
        char snap[400];
        snapshot_text(a->heap, 0, snap, sizeof snap);
        snprintf(g->full, sizeof g->full, "%s (screens 4-6; 1-3 stay live)", snap);
        snapshot_text(a->heap, 1, snap, sizeof snap);
        snprintf(g->brief, sizeof g->brief, "%s (screens 4-6)", snap);
    }
    return 2 + info_lines(a, 2, info, n, 2);
}

/* The key bar: the function keys that act now. */
static int keybar(const ht_app *a, ht_keybar_slot bar[16])
{
    int n = ht_keymap_bar(ht_app_front(a), bar, 16), k = 0;
    for (int i = 0; i < n; i++)
        if (ht_app_key_allowed(a, bar[i].key) && ht_app_key_acts(a, bar[i].key)) bar[k++] = bar[i];
    return k;
}

/* The key bar's line holds the second part of a question (status_text):
 * a click there is no key then. UI thread only, as everything here. */
static int g_bar_taken;

/* A status on the line above the key bar (y: the bar's row), cut with a sign
 * when it is longer than the line. A question in two parts, "cost\nkeys"
 * (the H prompt, the quit question), takes the bar's line for its keys
 * while it is asked, as htop's prompts take its function bar: each part
 * whole on its line (worded to fit 80 columns). Returns 1 when it took the
 * bar's line. The screen above is never covered. */
static int status_text(const ht_app *a, int y, ht_color role, const char *text)
{
    const ht_ui *ui = &a->ui;
    char line[1024], part[1024];
    const char *nl = strchr(text, '\n');
    snprintf(part, sizeof part, "%.*s", nl ? (int)(nl - text) : (int)strlen(text), text);
    ht_ui_fit(ui, part, ui->cols, line, sizeof line);
    ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, role), line, 1);
    if (!nl) return 0;
    ht_ui_fit(ui, nl + 1, ui->cols, line, sizeof line);
    ht_ui_put(stdscr, y, 0, ui->cols, ht_ui_attr(ui, role) | A_BOLD, line, 1);
    return 1;
}

void ht_draw_footer(ht_app *a)
{
    const ht_ui *ui = &a->ui;
    int y = ui->rows - 1;
    /* status or input line just above the key bar */
    char buf[1024], end[128];
    ht_app_job_shown(a, a->job_status, sizeof a->job_status);
    end_label(a, end, sizeof end);
    int taken = 0;
    if (a->input.quit_asked) {
        snprintf(buf, sizeof buf,
                 "pid %d still runs: s stops it (SIGTERM, then SIGKILL),\n"
                 "l leaves it running (its output goes on into the log), Esc stays",
                 (int)a->launch.prog->pid);
        taken = status_text(a, y, HT_C_WARN, buf);
    } else if (a->input.kind != HT_INPUT_NONE) {
        ht_filter_kind fk = ht_app_front(a)->filter;
        const char *prompt = a->input.kind == HT_INPUT_FILTER
                                 ? (fk == HT_FILTER_CLASSES   ? "Class filter: "
                                    : fk == HT_FILTER_REFS    ? "Reference filter (classes): "
                                    : fk == HT_FILTER_JVMS    ? "JVM filter (main classes): "
                                    : fk == HT_FILTER_CONSOLE ? "Console filter (lines): "
                                    : fk == HT_FILTER_THREADS ? "Thread filter (names): "
                                                              : "Frame filter: ")
                             : a->input.kind == HT_INPUT_SEARCH ? "Search: "
                             : a->input.kind == HT_INPUT_DRAG
                                 ? "Drag filter (class-name prefixes, ':' between; empty = off): "
                                 : "Sampling interval (e.g. 512k): ";
        /* one line: a text longer than it shows its end, where the typing is */
        int room = ui->cols - (int)strlen(prompt) - 1, len = (int)strlen(a->input.line);
        if (len > room && room > 4)
            snprintf(buf, sizeof buf, "%s%s%s_", prompt, ui->utf8 ? "\u2026" : "...",
                     a->input.line + len - (room - (ui->utf8 ? 1 : 3)));
        else
            snprintf(buf, sizeof buf, "%s%s_", prompt, a->input.line);
        ht_ui_put(stdscr, y - 1, 0, ui->cols, ht_ui_attr(ui, HT_C_VALUE), buf, 1);
    } else if (a->job_status[0]) {
        snprintf(buf, sizeof buf, "%s  (Esc cancels)", a->job_status);
        taken = status_text(a, y, HT_C_VALUE, buf);
    } else if (a->status[0] && ht_mono_ms() - a->status_ms < 8000) {
        taken = status_text(a, y, HT_C_VALUE, a->status);
    } else if (end[0]) { /* the header's label, and what it means */
        snprintf(buf, sizeof buf, "[%s] what it sent stays here to browse and export", end);
        taken = status_text(a, y, HT_C_VALUE, buf);
    } else if (a->conn.error[0] && (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE)) {
        taken = status_text(a, y, HT_C_WARN, a->conn.error);
    }
    g_bar_taken = taken;
    if (taken) return;
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
    if (g_bar_taken) return -1;
    ht_keybar_slot bar[16];
    int nbar = keybar(a, bar), at = 0;
    for (int i = 0; i < nbar; i++) {
        int w = (int)strlen(bar[i].fkey) + LABEL_W;
        if (x >= at && x < at + w) return bar[i].key;
        at += w;
    }
    return -1;
}
