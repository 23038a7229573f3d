/*
 * screen_telemetry.c - the VM telemetry screen: one sparkline per measure over
 * the last minutes, with the current value, minimum and maximum beside it.
 * Every sparkline is scaled from zero (heap used to the committed size, GC
 * to 100%, the others to their own maximum), so a step is as tall as the
 * change, and the title says how many seconds the line holds.
 * Draws straight from the store's telemetry history: no model, no state, no
 * keys of its own. Exports that history. UI thread only.
 */
#include "screen.h"
#include "sparkline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_HEAP, M_COMMITTED, M_ALLOC, M_GC, M_THREADS, M_CLASSES, M_SAMPLES, M_DROPS, M_COUNT };
static const char *const LABELS[M_COUNT] = {"Heap used",   "Heap committed", "Alloc rate/s",
                                            "GC activity", "Threads",        "Loaded classes",
                                            "Samples/s",   "Drops/s"};

static double value(const ht_telemetry_rec *t, const ht_telemetry_rec *p, int m)
{
    double dt = p && t->t_ms > p->t_ms ? (double)(t->t_ms - p->t_ms) / 1000.0 : 0;
    switch (m) {
    case M_HEAP:
        return (double)t->heap_used;
    case M_COMMITTED:
        return (double)t->heap_committed;
    case M_ALLOC:
        return dt > 0 && t->alloc_bytes != UINT64_MAX && p->alloc_bytes != UINT64_MAX &&
                       t->alloc_bytes >= p->alloc_bytes
                   ? (double)(t->alloc_bytes - p->alloc_bytes) / dt
                   : 0;
    case M_GC:
        return t->gc_pct;
    case M_THREADS:
        return t->threads;
    case M_CLASSES:
        return t->classes;
    case M_SAMPLES:
        return dt > 0 && t->samples >= p->samples ? (double)(t->samples - p->samples) / dt : 0;
    case M_DROPS:
        return dt > 0 && t->dropped >= p->dropped ? (double)(t->dropped - p->dropped) / dt : 0;
    }
    return 0;
}

static void format(double v, int m, ht_unit unit, char *out, size_t n)
{
    if (m == M_HEAP || m == M_COMMITTED || m == M_ALLOC)
        ht_ui_bytes(v, unit, out, n);
    else if (m == M_GC)
        snprintf(out, n, "%.1f%%", v);
    else
        ht_ui_count(v, out, n);
}

static void draw(void *self, const ht_draw_ctx *d)
{
    (void)self;
    const ht_ui *ui = d->ui;
    const ht_store *s = d->store;
    int top = d->top, height = d->height;
    uint32_t n = s->ntelemetry;
    /* the number columns hold the largest byte figure in the chosen unit */
    double big = 0;
    for (uint32_t i = 0; i < n; i++)
        for (int m = M_HEAP; m <= M_ALLOC; m++) {
            double v = value(&s->telemetry[i], i ? &s->telemetry[i - 1] : NULL, m);
            if (v > big) big = v;
        }
    int nw = ht_ui_bytes_width(big, d->unit, 0);
    if (nw < 9) nw = 9;
    int spark_w = ui->cols - 16 - 3 * (nw + 1) - 3;
    if (spark_w < 10) spark_w = 10;
    /* the span the line holds, said whole in the words that fit */
    char span[32], what[96], title[256];
    if (spark_w >= 120)
        snprintf(span, sizeof span, "%d min %d s", spark_w / 60, spark_w % 60);
    else
        snprintf(span, sizeof span, "%d s", spark_w);
    snprintf(what, sizeof what, "LAST %s (one cell a second, scale from 0)", span);
    if ((int)strlen(what) > spark_w) snprintf(what, sizeof what, "LAST %s (a cell a second)", span);
    if ((int)strlen(what) > spark_w) snprintf(what, sizeof what, "LAST %s", span);
    snprintf(title, sizeof title, "%-15s %-*s %*s %*s %*s", "MEASURE", spark_w, what, nw, "NOW", nw,
             "MIN", nw, "MAX");
    ht_ui_put(stdscr, top, 0, ui->cols, ht_ui_attr(ui, HT_C_TITLE), title, 1);
    uint32_t first = n > (uint32_t)spark_w ? n - (uint32_t)spark_w : 0;
    double *series = calloc((size_t)spark_w + 1, sizeof *series);
    char *spark = malloc((size_t)spark_w * 3 + 1);
    if (!series || !spark) {
        free(series);
        free(spark);
        return;
    }
    int gap = height - 1 >= 2 * M_COUNT ? 2 : 1;
    for (int m = 0; m < M_COUNT && 1 + m * gap < height; m++) {
        size_t k = 0;
        double mn = 0, mx = 0;
        for (uint32_t i = first; i < n; i++) {
            double v = value(&s->telemetry[i], i ? &s->telemetry[i - 1] : NULL, m);
            series[k++] = v;
            if (k == 1 || v < mn) mn = v;
            if (k == 1 || v > mx) mx = v;
        }
        char now[32] = "-", lo[32] = "-", hi[32] = "-";
        if (k) {
            format(series[k - 1], m, d->unit, now, sizeof now);
            format(mn, m, d->unit, lo, sizeof lo);
            format(mx, m, d->unit, hi, sizeof hi);
        }
        /* heap used is drawn against the committed size, as in a heap chart */
        double scale = 0;
        if (m == M_HEAP)
            for (uint32_t i = first; i < n; i++)
                if ((double)s->telemetry[i].heap_committed > scale)
                    scale = (double)s->telemetry[i].heap_committed;
        if (m == M_GC) scale = 100;
        /* every line from zero (sparkline.h): a 0.1% change in loaded
         * classes is no step, and a constant is drawn alike on every line */
        ht_sparkline(series, k, (size_t)spark_w, scale, ui->utf8, spark, (size_t)spark_w * 3 + 1);

        int y = top + 1 + m * gap;
        ht_ui_put(stdscr, y, 0, 16, ht_ui_attr(ui, HT_C_HEADER), LABELS[m], 1);
        ht_ui_put(stdscr, y, 16, spark_w + 1,
                  ht_ui_attr(ui, m == M_DROPS && mx > 0 ? HT_C_WARN : HT_C_BAR), spark, 1);
        char nums[64];
        snprintf(nums, sizeof nums, "%*s %*s %*s", nw, now, nw, lo, nw, hi);
        ht_ui_put(stdscr, y, 16 + spark_w + 1, ui->cols - 17 - spark_w, ht_ui_attr(ui, HT_C_VALUE),
                  nums, 1);
    }
    free(series);
    free(spark);
}

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    (void)rows;
    return ht_export_telemetry(s, path, p);
}

/* The history it draws, one row a second; the job's copy of the store holds it. */
static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)self, (void)h, (void)names;
    req->view = "telemetry";
    req->write = write_rows;
    return 0;
}

const ht_screen ht_screen_telemetry = {
    .name = "telemetry",
    .title = "telemetry",
    .key = '3',
    .draw = draw,
    .export = export,
};
