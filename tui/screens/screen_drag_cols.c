/*
 * screen_drag_cols.c - the Drag screen's text: which columns a terminal's
 * width keeps, the figures as text (byte-seconds in the unit the u key
 * chose, "1.2-1.5 MiB·s" for an interval; drag times in ms or s), the title
 * line with drag mode's state, a site's name, and the histogram of one
 * site's drag times (HT_DRAG_HIST buckets, a bar each). UI thread only;
 * pure formatting but for the histogram, which draws into its area.
 */
#include "screen_drag.h"

#include "site_tree.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The name keeps this many columns before another column gives way. */
#define NAME_MIN 24

static const struct {
    const char *title;
    int width;
    int drop; /* the order columns give way in on a narrow terminal, 0: never */
    int mark; /* shown only while there is a mark */
} DCOL[DCOL_COUNT] = {
    [DCOL_SAMPLES] = {"SAMPLES", 7, 4, 0},
    [DCOL_TRACKED] = {"TRACK%", 6, 3, 0},
    [DCOL_DEAD] = {"DEAD", 7, 6, 0},
    [DCOL_VOID] = {"VOID", 7, 5, 0},
    [DCOL_LAG] = {"LAG", 11, 2, 0},
    [DCOL_USE] = {"USE", 11, 1, 0},
    [DCOL_DRAG] = {"DRAG lo-hi", 17, 0, 0},
    [DCOL_PER_OBJ] = {"DRAG/OBJ", 8, 7, 0},
    [DCOL_DIFF_DEAD] = {"DIFF DEAD", 9, 8, 1},
    [DCOL_DIFF_DRAG] = {"DIFF DRAG", 11, 9, 1},
};

/* The column a sort key marks in the title row. */
static const int SORT_COL[DRAG_NSORT] = {
    [DRAG_SORT_DRAG] = DCOL_DRAG,       [DRAG_SORT_PER_OBJ] = DCOL_PER_OBJ,
    [DRAG_SORT_LAG] = DCOL_LAG,         [DRAG_SORT_USE] = DCOL_USE,
    [DRAG_SORT_VOID] = DCOL_VOID,       [DRAG_SORT_DEAD] = DCOL_DEAD,
    [DRAG_SORT_SAMPLES] = DCOL_SAMPLES, [DRAG_SORT_TRACKED] = DCOL_TRACKED,
    [DRAG_SORT_DIFF] = DCOL_DIFF_DRAG,  [DRAG_SORT_NAME] = -1,
};

static const char *const SORT_NAMES[DRAG_NSORT] = {
    "DRAG hi", "DRAG/OBJ", "LAG", "USE", "VOID", "DEAD", "SAMPLES", "TRACK%", "DIFF DRAG", "SITE",
};

const char *ht_drag_sort_name(int sort)
{
    return sort >= 0 && sort < DRAG_NSORT ? SORT_NAMES[sort] : "?";
}

void ht_drag_cols_fit(ht_drag_cols *c, const ht_draw_ctx *d)
{
    int marked = ht_store_has_mark(d->store), used = 0;
    *c = (ht_drag_cols){.utf8 = d->ui->utf8, .unit = d->unit};
    for (int k = 0; k < DCOL_COUNT; k++) {
        c->shown[k] = !DCOL[k].mark || marked;
        if (c->shown[k]) used += DCOL[k].width + 1;
    }
    for (int step = 1; used + NAME_MIN > d->ui->cols; step++) {
        int any = 0;
        for (int k = 0; k < DCOL_COUNT; k++)
            if (DCOL[k].drop == step) {
                any = 1;
                if (!c->shown[k]) continue;
                c->shown[k] = 0;
                used -= DCOL[k].width + 1;
            }
        if (!any) break; /* none left to drop: the name takes what remains */
    }
}

/* text right-aligned in `width` display columns at line[*at] (UTF-8 counted
 * as one column a character), then a space. */
static void cell(char *line, size_t cap, size_t *at, int width, const char *text)
{
    int pad = width - ht_text_width(text);
    if (*at >= cap) return;
    *at += (size_t)snprintf(line + *at, cap - *at, "%*s%s ", pad > 0 ? pad : 0, "", text);
    if (*at > cap) *at = cap;
}

void ht_drag_title_row(const ht_drag_cols *c, int sort, int ascending, uint32_t n, const char *what,
                       char *line, size_t cap)
{
    size_t at = 0;
    line[0] = '\0';
    for (int k = 0; k < DCOL_COUNT; k++) {
        if (!c->shown[k]) continue;
        char t[32];
        snprintf(t, sizeof t, "%s%s", DCOL[k].title,
                 SORT_COL[sort] == k ? (ascending ? "^" : "v") : "");
        cell(line, cap, &at, DCOL[k].width, t);
    }
    if (at < cap)
        snprintf(line + at, cap - at, "%s (%" PRIu32 ")%s", what, n,
                 sort == DRAG_SORT_NAME ? (ascending ? "^" : "v") : "");
}

/* The unit index (0 B .. 4 TiB) figures up to v are shown in. */
static int unit_of(double v, int unit)
{
    int u = 0;
    if (unit == HT_UNIT_AUTO)
        for (double a = fabs(v); a >= 1024.0 * 10 && u < 4; a /= 1024.0)
            u++;
    else
        u = unit - HT_UNIT_B;
    return u < 0 ? 0 : u > 4 ? 4 : u;
}

static void number_in(double v, int u, char *out, size_t n)
{
    double a = v / pow(1024.0, u);
    if (u == 0 || a >= 99.95)
        snprintf(out, n, "%.0f", a);
    else
        snprintf(out, n, "%.1f", a);
}

/* Byte-seconds "lo-hi UNIT·s" ("v UNIT·s" when lo is hi, or lo < 0: one). */
static void byte_s(const ht_drag_cols *c, double lo, double hi, char *out, size_t n)
{
    static const char *const NAMES[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = unit_of(hi, c->unit);
    char a[24], b[24];
    number_in(hi, u, b, sizeof b);
    const char *dot = c->utf8 ? "\u00b7" : "*";
    if (lo >= 0) number_in(lo, u, a, sizeof a);
    if (lo < 0 || strcmp(a, b) == 0)
        snprintf(out, n, "%s %s%ss", b, NAMES[u], dot);
    else
        snprintf(out, n, "%s-%s %s%ss", a, b, NAMES[u], dot);
}

/* A time in seconds: "850 ms", "12.3 s", "420 s". */
static void seconds(double s, char *out, size_t n)
{
    if (s < 0.9995) /* 0.9996 s is "1.0 s", not "1000 ms" */
        snprintf(out, n, "%.0f ms", s * 1000);
    else if (s < 99.95)
        snprintf(out, n, "%.1f s", s);
    else
        snprintf(out, n, "%.0f s", s);
}

/* Mean drag time of a dead object: the interval's midpoint over its bytes. */
static double per_obj(const ht_drag_row_rec *r)
{
    return r->bytes > 0 ? (r->drag_lo + r->drag_hi) / 2 / r->bytes : 0;
}

double ht_drag_sort_value(const ht_drag_row_rec *r, int sort)
{
    switch (sort) {
    case DRAG_SORT_DRAG:
        return r->drag_hi;
    case DRAG_SORT_PER_OBJ:
        return per_obj(r);
    case DRAG_SORT_LAG:
        return r->lag;
    case DRAG_SORT_USE:
        return r->use;
    case DRAG_SORT_VOID:
        return (double)r->void_;
    case DRAG_SORT_DEAD:
        return (double)r->dead;
    case DRAG_SORT_SAMPLES:
        return (double)r->samples;
    case DRAG_SORT_TRACKED:
        return r->samples ? (double)r->tracked / (double)r->samples : 0;
    case DRAG_SORT_DIFF:
        return r->diff_drag_hi;
    default:
        return 0;
    }
}

void ht_drag_site_name(const ht_store *s, const ht_drag_row_rec *r, char *out, size_t n)
{
    char frame[1024];
    ht_store_site_name(s, r->trace_id, frame, sizeof frame);
    snprintf(out, n, "%s  %s%s", ht_store_class(s, r->class_id), frame,
             ht_store_trace_cut(s, r->trace_id) ? " (cut)" : "");
}

void ht_drag_row_text(const ht_drag_cols *c, const ht_draw_ctx *d, const ht_drag_row_rec *r,
                      const char *name, int is_class, char *line, size_t cap)
{
    char shown[1200];
    size_t at = 0;
    line[0] = '\0';
    for (int k = 0; k < DCOL_COUNT; k++) {
        if (!c->shown[k]) continue;
        char t[96];
        switch (k) {
        case DCOL_SAMPLES:
            ht_ui_count((double)r->samples, t, sizeof t);
            break;
        case DCOL_TRACKED:
            snprintf(t, sizeof t, "%.1f%%",
                     r->samples ? 100.0 * (double)r->tracked / (double)r->samples : 0.0);
            break;
        case DCOL_DEAD:
            ht_ui_count((double)r->dead, t, sizeof t);
            break;
        case DCOL_VOID:
            ht_ui_count((double)r->void_, t, sizeof t);
            break;
        case DCOL_LAG:
            byte_s(c, -1, r->lag, t, sizeof t);
            break;
        case DCOL_USE:
            byte_s(c, -1, r->use, t, sizeof t);
            break;
        case DCOL_DRAG:
            byte_s(c, r->drag_lo, r->drag_hi, t, sizeof t);
            break;
        case DCOL_PER_OBJ:
            if (r->dead)
                seconds(per_obj(r), t, sizeof t);
            else
                snprintf(t, sizeof t, "-");
            break;
        case DCOL_DIFF_DEAD:
            ht_ui_count((double)r->diff_dead, t, sizeof t);
            break;
        default:
            byte_s(c, -1, r->diff_drag_hi, t, sizeof t);
            break;
        }
        cell(line, cap, &at, DCOL[k].width, t);
    }
    int room = d->ui->cols - (int)at;
    snprintf(shown, sizeof shown, "%s", name);
    if (ht_text_width(name) > room && room > 0) { /* the packages shortened, as the trees do */
        char cls[300], frame[600], site[1024];
        ht_name_shorten(ht_store_class(d->store, r->class_id), room / 3, cls, sizeof cls);
        int left = room - ht_text_width(cls) - 2;
        if (is_class) {
            /* a class's row: "app.Rec  (3 sites)" */
            const char *rest = strstr(name, "  (");
            snprintf(shown, sizeof shown, "%s%s", cls, rest ? rest : "");
        } else {
            ht_store_site_name(d->store, r->trace_id, site, sizeof site);
            ht_name_shorten(site, left, frame, sizeof frame);
            snprintf(shown, sizeof shown, "%s  %s%s", cls, frame,
                     ht_store_trace_cut(d->store, r->trace_id) ? " (cut)" : "");
        }
    }
    if (at < cap) snprintf(line + at, cap - at, "%s", shown);
}

void ht_drag_state_line(const ht_draw_ctx *d, char *line, size_t cap)
{
    const ht_store *s = d->store;
    const ht_drag_state_rec *st = &s->drag.rec;
    if (!s->drag.known) {
        snprintf(line, cap, " DRAG  %s",
                 d->no_jvm ? "no drag mode in this dump's run"
                           : "drag mode's state not known yet (D turns it on or off)");
        return;
    }
    char share[64] = "";
    if (st->samples)
        snprintf(share, sizeof share, "tracked %.1f%% of %" PRIu64 " samples",
                 100.0 * (double)st->tracked / (double)st->samples, st->samples);
    else
        snprintf(share, sizeof share, "no sample of the filter's classes yet");
    if (!st->on) {
        snprintf(line, cap, " DRAG  off%s%s  (last filter: %s; D turns it on)  %s",
                 s->drag.why[0] ? ": " : "", s->drag.why,
                 s->drag.filter[0] ? s->drag.filter : "none", st->samples ? share : "");
        return;
    }
    char alone[200] = "";
    if (st->skipped_long || st->skipped_attr || st->failed)
        snprintf(alone, sizeof alone,
                 "; left alone: %" PRIu32 " methods over 64 KB, %" PRIu32
                 " with attributes it cannot fix, %" PRIu32 " classes failed",
                 st->skipped_long, st->skipped_attr, st->failed);
    if (st->hot) {
        size_t at = strlen(alone);
        snprintf(alone + at, sizeof alone - at, "; %" PRIu32 " class%s too hot to watch", st->hot,
                 st->hot == 1 ? "" : "es");
    }
    snprintf(line, cap,
             " DRAG  on: %s  %" PRIu32 " classes, %" PRIu32 " methods instrumented%s  %s, %" PRIu64
             " tracked now%s%s",
             s->drag.filter, st->classes, st->methods, alone, share, st->tracking,
             s->drag.why[0] ? "  " : "", s->drag.why);
}

/* A bucket's range: "< 10 ms", "10-20 ms", "1.28-2.56 s", ">= 163.84 s". */
static void bucket_label(int k, char *out, size_t n)
{
    uint64_t lo = ht_drag_hist_lo_ms(k);
    if (k == 0) {
        snprintf(out, n, "< %" PRIu64 " ms", ht_drag_hist_lo_ms(1));
        return;
    }
    if (k == HT_DRAG_HIST - 1) {
        snprintf(out, n, ">= %.2f s", (double)lo / 1000);
        return;
    }
    uint64_t hi = ht_drag_hist_lo_ms(k + 1);
    if (hi <= 1000)
        snprintf(out, n, "%" PRIu64 "-%" PRIu64 " ms", lo, hi);
    else
        snprintf(out, n, "%.2f-%.2f s", (double)lo / 1000, (double)hi / 1000);
}

void ht_drag_hist_draw(const ht_draw_ctx *d, const ht_drag_row_rec *r, const ht_drag_row_rec *est,
                       const char *name, uint32_t sites)
{
    const ht_ui *ui = d->ui;
    char line[2000];
    snprintf(line, sizeof line, " DRAG TIMES  %s  (Esc: back)", name);
    ht_ui_put(stdscr, d->top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    ht_drag_cols c = {.utf8 = ui->utf8, .unit = d->unit};
    char drag[96], how[200];
    byte_s(&c, est->drag_lo, est->drag_hi, drag, sizeof drag); /* the bars count tracked objects */
    if (sites)
        snprintf(how, sizeof how, "the class's drag %s (its %" PRIu32 " sites' estimates summed)",
                 drag, sites);
    else
        snprintf(how, sizeof how, "the site's drag %s (x %.2f: samples / tracked)", drag,
                 ht_drag_row_scale(r));
    uint64_t total = 0, most = 0;
    for (int k = 0; k < HT_DRAG_HIST; k++) {
        total += r->hist[k];
        if (r->hist[k] > most) most = r->hist[k];
    }
    snprintf(line, sizeof line,
             " %" PRIu64 " dead tracked objects by drag time (to the collection that found them "
             "dead), %" PRIu64 " never used; %s",
             total, r->void_, how);
    if (d->height > 1)
        ht_ui_put(stdscr, d->top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_HEADER), line, 1);
    int bar_w = ui->cols - 28;
    for (int k = 0; k < HT_DRAG_HIST && k + 2 < d->height; k++) {
        char label[32], bar[1200] = "";
        bucket_label(k, label, sizeof label);
        int fill = most && bar_w > 0 ? (int)((double)r->hist[k] * bar_w / (double)most + 0.5) : 0;
        if (r->hist[k] && fill == 0) fill = 1;
        size_t at = 0;
        for (int i = 0; i < fill && at + 4 < sizeof bar; i++)
            at += (size_t)snprintf(bar + at, sizeof bar - at, "%s", ui->utf8 ? "\u2588" : "#");
        snprintf(line, sizeof line, " %14s %10" PRIu32 " %s", label, r->hist[k], bar);
        ht_ui_put(stdscr, d->top + 2 + k, 0, ui->cols,
                  ht_ui_attr(ui, r->hist[k] ? HT_C_NORMAL : HT_C_DIM), line, 1);
    }
}
