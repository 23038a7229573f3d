/*
 * screen_behaviour_cols.c - the Behaviour screen's columns and figures as
 * text: which of the ranking's columns a terminal's width keeps (they give
 * way to NODE, OBJECTS first, then %HEAP, COVER, UNITS, MCC), the title row
 * and a node's row, EST/RET ((MD + MC) / RETAINED: where the paper's
 * estimate holds), DR and CR as the hourglass shows them, and the line
 * under a list that names the selected node whole (a Cycle_N with its
 * classes). UI thread only; pure formatting but for that one line.
 */
#include "screen_behaviour_rows.h"

#include "heap_rows.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* NODE keeps this many columns before another column is dropped. */
#define NODE_MIN 28

static const struct {
    const char *title;
    int width;
    int drop; /* the order columns are dropped in on a narrow terminal, 0: never */
} BCOL[BHV_NCOLS] = {
    [BHV_COL_RANK] = {"RANK", 5, 0},       [BHV_COL_UNITS] = {"UNITS", 9, 4},
    [BHV_COL_OBJECTS] = {"OBJECTS", 9, 1}, [BHV_COL_MC] = {"MC", 9, 0},
    [BHV_COL_MD] = {"MD", 9, 0},           [BHV_COL_MCC] = {"MCC", 9, 5},
    [BHV_COL_HEAP] = {"%HEAP", 6, 2},      [BHV_COL_BR] = {"BR", 4, 0},
    [BHV_COL_COVER] = {"COVER", 6, 3},     [BHV_COL_RET] = {"RETAINED", 9, 0},
    [BHV_COL_EST] = {"EST/RET", 7, 0},     [BHV_COL_FLAG] = {"!", 1, 0},
};

void ht_bhv_cols_fit(int width, uint8_t shown[BHV_NCOLS])
{
    int used = 0;
    for (int c = 0; c < BHV_NCOLS; c++) {
        shown[c] = 1;
        used += BCOL[c].width + 1;
    }
    for (int step = 1; used + NODE_MIN > width; step++) {
        int any = 0;
        for (int c = 0; c < BHV_NCOLS; c++)
            if (BCOL[c].drop == step) {
                shown[c] = 0;
                used -= BCOL[c].width + 1;
                any = 1;
            }
        if (!any) break; /* none left to drop: NODE takes what remains */
    }
}

void ht_bhv_est_text(uint64_t retained, double est, char *buf, size_t cap)
{
    if (retained == 0 || isnan(est)) {
        snprintf(buf, cap, "-");
        return;
    }
    double r = est / (double)retained;
    static const char *const SUFFIX[] = {"", "k", "M", "G", "T"};
    int s = 0;
    while (r >= 999.5 && s < 4)
        r /= 1000, s++;
    if (isinf(r))
        snprintf(buf, cap, "inf");
    else if (s && r < 9.95)
        snprintf(buf, cap, "%.1f%sx", r, SUFFIX[s]);
    else if (s || r >= 99.5)
        snprintf(buf, cap, "%.0f%sx", r, SUFFIX[s]);
    else if (r >= 9.995)
        snprintf(buf, cap, "%.1fx", r);
    else
        snprintf(buf, cap, "%.2fx", r);
}

void ht_bhv_ratio_text(double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (v > 0 && v < 0.001)
        snprintf(buf, cap, "<0.001");
    else
        snprintf(buf, cap, "%.3f", v);
}

void ht_bhv_title_row(const bhv_screen *v, const ht_draw_ctx *d, const char *sorted, char *line,
                      size_t cap)
{
    uint8_t shown[BHV_NCOLS];
    ht_bhv_cols_fit(d->ui->cols, shown);
    size_t at = 0;
    for (int c = 0; c < BHV_NCOLS && at < cap; c++)
        if (shown[c])
            at += (size_t)snprintf(line + at, cap - at, "%*s ", BCOL[c].width,
                                   c == BHV_COL_FLAG ? "" : BCOL[c].title);
    if (at < cap)
        snprintf(line + at, cap - at, "NODE  (%u, by %s %s)", v->list.n, sorted,
                 v->list.ascending ? "^" : "v");
}

void ht_bhv_node_row(const bhv_screen *v, const ht_draw_ctx *d, uint32_t n, char *line, size_t cap)
{
    const ht_behaviour *b = bhv_of(v);
    const ht_bhv_node *k = &b->nodes[n];
    uint8_t shown[BHV_NCOLS];
    ht_bhv_cols_fit(d->ui->cols, shown);
    double heap = b->reachable_bytes ? (double)b->reachable_bytes : 1;
    double est = k->md + (double)k->mc;
    size_t at = 0;
    for (int c = 0; c < BHV_NCOLS && at < cap; c++) {
        if (!shown[c]) continue;
        char t[48];
        int w = BCOL[c].width;
        switch (c) {
        case BHV_COL_RANK:
            snprintf(t, sizeof t, "%u", k->rank);
            break;
        case BHV_COL_UNITS:
            snprintf(t, sizeof t, "%" PRIu64, k->units);
            break;
        case BHV_COL_OBJECTS:
            snprintf(t, sizeof t, "%" PRIu64, k->objects);
            break;
        case BHV_COL_MC:
            ht_heaprow_bytes(d, k->mc, w, t, sizeof t);
            break;
        case BHV_COL_MD:
            ht_heaprow_bytes(d, isfinite(k->md) ? (uint64_t)llround(k->md) : UINT64_MAX, w, t,
                             sizeof t);
            break;
        case BHV_COL_MCC:
            snprintf(t, sizeof t, "%.3g", k->mcc);
            break;
        case BHV_COL_HEAP:
            snprintf(t, sizeof t, "%.1f%%", 100.0 * est / heap);
            break;
        case BHV_COL_BR:
            snprintf(t, sizeof t, "%u", v->branches[n]);
            break;
        case BHV_COL_COVER:
            snprintf(t, sizeof t, "%.1f%%", 100.0 * v->coverage[n]);
            break;
        case BHV_COL_RET:
            ht_heaprow_bytes(d, k->retained, w, t, sizeof t);
            break;
        case BHV_COL_EST:
            ht_bhv_est_text(k->retained, est, t, sizeof t);
            break;
        default:
            snprintf(t, sizeof t, "%c", v->branches[n] ? ' ' : '!');
            break;
        }
        at += (size_t)snprintf(line + at, cap - at, "%*s ", w, t);
    }
    if (at < cap) snprintf(line + at, cap - at, "%s", v->label[n]);
}

void ht_bhv_selected_line(const bhv_screen *v, const ht_draw_ctx *d, uint32_t n)
{
    if (d->height < 4) return;
    char line[1600];
    if (n == HT_NONE || n >= v->nnodes)
        line[0] = '\0';
    else
        snprintf(line, sizeof line, "node: %s", n == HT_BHV_ROOT ? "ROOT" : v->label[n]);
    ht_ui_put(stdscr, d->top + d->height - 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), line, 1);
}
