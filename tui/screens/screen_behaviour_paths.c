/*
 * screen_behaviour_paths.c - one node's hourglass on the Behaviour screen:
 * who keeps it alive (its forward paths: kept parents with DR >= t1, their
 * such parents, ... up to ROOT) and what its MD is made of (its backward
 * paths: kept children with CR >= t2, theirs, ... down), after the paper's
 * section 2.4 with the corrections of docs/behaviour.md.
 *
 * Owns: the hourglass's rows, drawn as the other heap trees are (the
 * dominator tree, the reference browser: one row a reference, indented by
 * depth, '+' unfoldable, '-' unfolded): each an edge of the node graph with
 * its references (R), the distinct units it reaches, DR and CR. The edges
 * come from ht_bhv_forward / ht_bhv_backward (each once); the paths through
 * them, which can be exponentially many, are unfolded lazily, a level at a
 * time (BHV_MAX_CHILDREN rows an unfolding, BHV_MAX_ROWS in all); opening
 * unfolds depth first until a page is full, so a short path shows whole.
 * A node's subtree is shown once per direction: another row of the same
 * node says "(shown above)" (or below) and does not unfold. Below the two
 * halves, the node's edges the cycle rule dropped (kept 0: outside MD, DR,
 * CR and the paths), with their references and units; a line under the
 * node's figures says why it is flagged (no parent reaches t1) or has no
 * backward edge. UI thread only.
 */
#include "screen_behaviour_rows.h"

#include "heap_rows.h"
#include "list.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_ROWS  80   /* rows the hourglass is unfolded to when opened */
#define UNFOLD_ALL 2000 /* rows '*' may add at a time */
#define HEAD_LINES 3    /* the node's line, why, and the column titles */

static bhv_row *add_at(bhv_screen *v, uint32_t at)
{
    if (v->nrows == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 256;
        bhv_row *r = realloc(v->rows, cap * sizeof *r);
        if (!r) return NULL;
        v->rows = r, v->cap = cap;
    }
    memmove(v->rows + at + 1, v->rows + at, (v->nrows - at) * sizeof *v->rows);
    v->nrows++;
    v->rows[at] = (bhv_row){.edge = HT_NONE};
    return &v->rows[at];
}

/* The node a row names: up, the parent; down, the child; dropped, the
 * hourglass's node's other end. */
static uint32_t row_node(const bhv_screen *v, const bhv_row *r)
{
    const ht_bhv_edge *e = &bhv_of(v)->edges[r->edge];
    if (r->kind == BHV_DROP) return e->to == v->node ? e->from : e->to;
    return r->kind == BHV_UP ? e->from : e->to;
}

/* Whether node n's subtree is unfolded on another row going that way. */
static uint8_t *opened(const bhv_screen *v, const bhv_row *r)
{
    return &(r->kind == BHV_UP ? v->open_up : v->open_down)[row_node(v, r)];
}

/* Node n's edges on the way up (its parents') or down (its children's). */
static uint32_t edges_of(const bhv_screen *v, uint32_t n, int up, uint32_t *out, uint32_t cap)
{
    const ht_behaviour *b = bhv_of(v);
    uint32_t k = 0;
    if (up) {
        for (uint32_t i = b->in_start[n]; i < b->in_start[n + 1]; i++)
            if (v->up[b->in_edge[i]] && k < cap) out[k++] = b->in_edge[i];
    } else {
        for (uint32_t e = b->out_start[n]; e < b->out_start[n + 1]; e++)
            if (v->down[e] && k < cap) out[k++] = e;
    }
    return k;
}

static int has_children(const bhv_screen *v, const bhv_row *r)
{
    uint32_t one;
    return (r->kind == BHV_UP || r->kind == BHV_DOWN) &&
           edges_of(v, row_node(v, r), r->kind == BHV_UP, &one, 1) > 0;
}

/* A row whose node's subtree another row shows. */
static int repeated(const bhv_screen *v, const bhv_row *r)
{
    return !r->open && has_children(v, r) && *opened(v, r);
}

static int can_unfold(const bhv_screen *v, const bhv_row *r)
{
    return !r->open && r->depth < BHV_MAX_DEPTH && has_children(v, r) && !*opened(v, r);
}

typedef struct by_share {
    const ht_behaviour *b;
    int up;
} by_share;

/* Up: the biggest DR first; down: the biggest CR; then by node. */
static int by_share_desc(const void *a, const void *c, void *ctx)
{
    const by_share *s = ctx;
    const ht_bhv_edge *x = &s->b->edges[*(const uint32_t *)a];
    const ht_bhv_edge *y = &s->b->edges[*(const uint32_t *)c];
    double p = s->up ? x->dr : x->cr, q = s->up ? y->dr : y->cr;
    if (isnan(p)) p = -1;
    if (isnan(q)) q = -1;
    if (p != q) return p < q ? 1 : -1;
    uint32_t m = s->up ? x->from : x->to, n = s->up ? y->from : y->to;
    return (m > n) - (m < n);
}

/* Rows for node n's edges up or down after row `at`, at depth; how many. */
static uint32_t insert_edges(bhv_screen *v, uint32_t at, uint32_t n, int up, uint16_t depth)
{
    const ht_behaviour *b = bhv_of(v);
    uint32_t total =
        up ? b->in_start[n + 1] - b->in_start[n] : b->out_start[n + 1] - b->out_start[n];
    uint32_t *e = malloc((total ? total : 1) * sizeof *e);
    if (!e) return 0;
    uint32_t k = edges_of(v, n, up, e, total);
    by_share ctx = {.b = b, .up = up};
    qsort_r(e, k, sizeof *e, by_share_desc, &ctx);
    uint32_t room = v->nrows < BHV_MAX_ROWS ? BHV_MAX_ROWS - v->nrows : 0;
    uint32_t shown = k < BHV_MAX_CHILDREN ? k : BHV_MAX_CHILDREN;
    if (shown > room) shown = room, v->truncated = 1;
    uint32_t put = 0;
    for (; put < shown; put++) {
        bhv_row *r = add_at(v, at + put);
        if (!r) break;
        *r = (bhv_row){.kind = (uint8_t)(up ? BHV_UP : BHV_DOWN), .depth = depth, .edge = e[put]};
    }
    if (put < k) {
        bhv_row *r = add_at(v, at + put);
        if (r) *r = (bhv_row){.kind = BHV_MORE, .depth = depth, .edge = HT_NONE, .more = k - put};
        if (r) put++;
    }
    free(e);
    return put;
}

static uint32_t expand(bhv_screen *v, uint32_t i)
{
    bhv_row *r = &v->rows[i];
    if (!can_unfold(v, r)) return 0;
    r->open = 1;
    *opened(v, r) = 1;
    int up = r->kind == BHV_UP;
    return insert_edges(v, i + 1, row_node(v, r), up, (uint16_t)(r->depth + 1));
}

/* Unfold depth first from row `from` while rows lie below `from`'s
 * subtree's end and fewer than `budget` rows were added. */
static void expand_below(bhv_screen *v, uint32_t from, uint32_t budget)
{
    uint32_t added = 0, end = from + 1;
    uint16_t depth = v->rows[from].depth;
    int heading = v->rows[from].kind == BHV_HEADING;
    while (end < v->nrows &&
           (heading ? v->rows[end].kind != BHV_HEADING : v->rows[end].depth > depth))
        end++;
    for (uint32_t i = from; i < end && added < budget && v->nrows < BHV_MAX_ROWS; i++) {
        uint32_t n = expand(v, i);
        added += n, end += n;
    }
}

void ht_bhv_glass_close(bhv_screen *v)
{
    free(v->up), free(v->down), free(v->rows), free(v->open_up), free(v->open_down);
    v->up = v->down = v->open_up = v->open_down = NULL;
    v->rows = NULL;
    v->nrows = v->cap = 0;
    v->node = HT_NONE;
}

/* One heading row, and where the next rows go. */
static uint32_t heading(bhv_screen *v)
{
    bhv_row *r = add_at(v, v->nrows);
    return r ? v->nrows : HT_NONE;
}

/* The third part: a heading and a row per edge into or out of n the cycle
 * rule dropped (into n first), when there is any. 0, or -1 out of memory. */
static int add_dropped(bhv_screen *v, uint32_t n)
{
    const ht_behaviour *b = bhv_of(v);
    v->ndropped = 0;
    for (int into = 1; into >= 0; into--) {
        uint32_t from = into ? b->in_start[n] : b->out_start[n];
        uint32_t to = into ? b->in_start[n + 1] : b->out_start[n + 1];
        for (uint32_t i = from; i < to; i++) {
            uint32_t e = into ? b->in_edge[i] : i;
            if (b->edges[e].kept || b->edges[e].from == b->edges[e].to) continue;
            if (v->ndropped == 0) {
                bhv_row *h = add_at(v, v->nrows);
                if (!h) return -1;
                h->more = 2;
            }
            if (v->nrows >= BHV_MAX_ROWS) {
                v->truncated = 1;
                return 0;
            }
            bhv_row *r = add_at(v, v->nrows);
            if (!r) return -1;
            *r = (bhv_row){.kind = BHV_DROP, .edge = e};
            v->ndropped++;
        }
    }
    return 0;
}

int ht_bhv_glass_open(bhv_screen *v, uint32_t n)
{
    ht_bhv_glass_close(v);
    const ht_behaviour *b = bhv_of(v);
    if (n == HT_NONE || n >= b->nnodes) return 0;
    uint32_t ne = b->nedges ? b->nedges : 1;
    uint32_t *e = malloc(ne * sizeof *e);
    v->up = calloc(ne, 1);
    v->down = calloc(ne, 1);
    v->open_up = calloc(b->nnodes, 1);
    v->open_down = calloc(b->nnodes, 1);
    if (!e || !v->up || !v->down || !v->open_up || !v->open_down) {
        free(e);
        ht_bhv_glass_close(v);
        return -1;
    }
    v->node = n;
    v->truncated = 0;
    v->hpos = (ht_list_pos){0, 0};
    v->nup = ht_bhv_forward(b, n, bhv_t(v->t1), e, ne);
    for (uint32_t i = 0; v->nup != HT_NONE && i < v->nup && i < ne; i++)
        v->up[e[i]] = 1;
    v->ndown = v->nup == HT_NONE ? HT_NONE : ht_bhv_backward(b, n, bhv_t(v->t2), e, ne);
    if (v->ndown == HT_NONE) { /* out of memory: the caller says so */
        free(e);
        ht_bhv_glass_close(v);
        return -1;
    }
    for (uint32_t i = 0; i < v->ndown && i < ne; i++)
        v->down[e[i]] = 1;
    free(e);
    uint32_t up = heading(v);
    if (up != HT_NONE) insert_edges(v, up, n, 1, 0);
    uint32_t down = heading(v);
    if (down != HT_NONE) v->rows[down - 1].more = 1; /* the second heading */
    if (down != HT_NONE) insert_edges(v, down, n, 0, 0);
    if (up == HT_NONE || down == HT_NONE || add_dropped(v, n) != 0) {
        ht_bhv_glass_close(v);
        return -1;
    }
    expand_below(v, 0, OPEN_ROWS / 2); /* both halves, each its share of a page */
    for (uint32_t i = 1; i < v->nrows; i++)
        if (v->rows[i].kind == BHV_HEADING) {
            expand_below(v, i, OPEN_ROWS / 2);
            break;
        }
    return 0;
}

uint32_t ht_bhv_glass_node_at(const bhv_screen *v)
{
    if (v->hpos.cursor >= v->nrows) return v->node;
    const bhv_row *r = &v->rows[v->hpos.cursor];
    return r->kind == BHV_UP || r->kind == BHV_DOWN || r->kind == BHV_DROP ? row_node(v, r)
                                                                           : v->node;
}

/* "(shown above) " or "(shown below) ": where the row of the same node and
 * direction that is unfolded lies. */
static const char *shown_where(const bhv_screen *v, const bhv_row *r)
{
    uint32_t n = row_node(v, r), at = (uint32_t)(r - v->rows);
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->rows[i].open && v->rows[i].kind == r->kind && row_node(v, &v->rows[i]) == n)
            return i < at ? "(shown above) " : "(shown below) ";
    return "";
}

/* Narrow terminals: REFS left out, indentation one column a level. */
static int narrow(const ht_draw_ctx *d)
{
    return d->ui->cols < 110;
}

static void row_text(const bhv_screen *v, const ht_draw_ctx *d, const bhv_row *r, char *line,
                     size_t cap)
{
    const ht_behaviour *b = bhv_of(v);
    int slim = narrow(d), step = slim ? 1 : 2, most = slim ? d->ui->cols / 5 : 60;
    int indent = step * r->depth > most ? most : step * r->depth;
    if (r->kind == BHV_HEADING) {
        const char *name = v->label[v->node];
        if (r->more == 0)
            snprintf(line, cap,
                     "Forward: who keeps %s alive (parents with DR >= %.2f, up to ROOT; "
                     "%u edge%s)",
                     name, bhv_t(v->t1), v->nup, v->nup == 1 ? "" : "s");
        else if (r->more == 1)
            snprintf(line, cap, "Backward: what %s dominates (children with CR >= %.2f; %u edge%s)",
                     name, bhv_t(v->t2), v->ndown, v->ndown == 1 ? "" : "s");
        else
            snprintf(line, cap,
                     "Dropped by the cycle rule (kept 0: not in MD, DR, CR or the paths; "
                     "%u edge%s)",
                     v->ndropped, v->ndropped == 1 ? "" : "s");
        return;
    }
    char figs[64];
    if (r->kind == BHV_MORE) {
        snprintf(line, cap, "%*s  %*s  ... %u more, smaller", slim ? 22 : 31, "", indent, "",
                 r->more);
        return;
    }
    const ht_bhv_edge *e = &b->edges[r->edge];
    char dr[16], cr[16];
    ht_bhv_ratio_text(r->kind == BHV_DROP ? NAN : e->dr, dr, sizeof dr);
    ht_bhv_ratio_text(r->kind == BHV_DROP ? NAN : e->cr, cr, sizeof cr);
    if (slim)
        snprintf(figs, sizeof figs, "%8" PRIu64 " %6s %6s", e->units, dr, cr);
    else
        snprintf(figs, sizeof figs, "%8" PRIu64 " %8" PRIu64 " %6s %6s", e->refs, e->units, dr, cr);
    const char *arrow = r->kind == BHV_UP                         ? "<-"
                        : r->kind == BHV_DOWN                     ? "->"
                        : r->kind == BHV_DROP && e->to == v->node ? "<-"
                                                                  : "->";
    const char *why = r->kind == BHV_DROP ? "(dropped by the cycle rule) "
                      : repeated(v, r)    ? shown_where(v, r)
                                          : "";
    char mark = r->open ? '-' : can_unfold(v, r) ? '+' : ' ';
    snprintf(line, cap, "%s  %*s%c %s %s%s", figs, indent, "", mark, arrow, why,
             v->label[row_node(v, r)]);
}

/* One line on why the node is flagged or has no backward edge ("" when
 * neither): its parents' biggest DR, or that the cycle rule dropped its
 * edges, or that it refers to no other node. */
static void why_text(const bhv_screen *v, char *line, size_t cap)
{
    const ht_behaviour *b = bhv_of(v);
    uint32_t n = v->node, kin = 0, din = 0, kout = 0, dout = 0, top = HT_NONE;
    double best = -1;
    for (uint32_t i = b->in_start[n]; i < b->in_start[n + 1]; i++) {
        const ht_bhv_edge *e = &b->edges[b->in_edge[i]];
        if (e->from == n) continue;
        if (!e->kept) {
            din++;
        } else {
            kin++;
            if (e->dr > best) best = e->dr, top = e->from;
        }
    }
    for (uint32_t i = b->out_start[n]; i < b->out_start[n + 1]; i++)
        if (b->edges[i].to != n) {
            kout += b->edges[i].kept != 0;
            dout += b->edges[i].kept == 0;
        }
    size_t at = 0;
    line[0] = '\0';
    if (v->branches[n] == 0) {
        char dr[16];
        ht_bhv_ratio_text(best, dr, sizeof dr);
        if (kin)
            at += (size_t)snprintf(line, cap, "! no parent has DR >= %.2f (the most: %s from %s)",
                                   bhv_t(v->t1), dr, v->label[top]);
        else
            at += (size_t)snprintf(line, cap, "! no parent: %s",
                                   din ? "the cycle rule dropped its parents' edges"
                                       : "none refers to it");
        if (kin && din)
            at += (size_t)snprintf(line + at, cap - at, "; %u edge%s from parents dropped", din,
                                   din == 1 ? "" : "s");
    }
    if (v->ndown == 0 && at < cap) {
        const char *sep = at ? "; " : "";
        const ht_bhv_node *k = &b->nodes[n];
        if (k->md > 0)
            snprintf(line + at, cap - at, "%sno child reaches CR >= %.2f", sep, bhv_t(v->t2));
        else if (dout)
            snprintf(line + at, cap - at,
                     "%sMD 0: the cycle rule dropped its %u edge%s down (below)%s", sep, dout,
                     dout == 1 ? "" : "s", kout ? "" : ", and it has no other");
        else
            snprintf(line + at, cap - at, "%sMD 0: it refers to no other node%s", sep,
                     k->rself ? " (only to its own)" : "");
    }
}

/* Where no flag or missing edge needs saying: how far the estimate is
 * from the exact retained size, when it is (EST/RET off 1 by half). */
static void est_text(const bhv_screen *v, char *line, size_t cap)
{
    const ht_bhv_node *k = &bhv_of(v)->nodes[v->node];
    double est = k->md + (double)k->mc;
    if (!k->retained || (est <= 1.5 * (double)k->retained && est >= 0.5 * (double)k->retained))
        return;
    char r[32];
    ht_bhv_est_text(k->retained, est, r, sizeof r);
    snprintf(line, cap, "EST/RET %s: %s", r,
             est > (double)k->retained
                 ? "MD counts bytes shared with other parents again (the paper's averaging)"
                 : "the averaging or the cycle rule left out bytes it holds alone");
}

void ht_bhv_glass_draw(bhv_screen *v, const ht_draw_ctx *d)
{
    const ht_behaviour *b = bhv_of(v);
    const ht_bhv_node *n = &b->nodes[v->node];
    char line[1600], mc[32], md[32], ret[32], est[32];
    ht_ui_bytes((double)n->mc, d->unit, mc, sizeof mc);
    ht_ui_bytes(n->md, d->unit, md, sizeof md);
    ht_ui_bytes((double)n->retained, d->unit, ret, sizeof ret);
    ht_bhv_est_text(n->retained, n->md + (double)n->mc, est, sizeof est);
    snprintf(line, sizeof line,
             "rank %u  MC %s  MD %s  RETAINED %s  EST/RET %s  BR %u  COVER %.0f%%  MCC %.3g%s",
             n->rank, mc, md, ret, est, v->branches[v->node], 100.0 * v->coverage[v->node], n->mcc,
             v->truncated ? "  [rows capped]" : "");
    ht_heaprow_row(d, 0, 0, line);
    why_text(v, line, sizeof line);
    if (!line[0]) est_text(v, line, sizeof line);
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_WARN), line, 1);
    if (narrow(d))
        snprintf(line, sizeof line, "%8s %6s %6s  NODE  (t1 %.2f: [ ]  t2 %.2f: { })", "UNITS",
                 "DR", "CR", bhv_t(v->t1), bhv_t(v->t2));
    else
        snprintf(line, sizeof line, "%8s %8s %6s %6s  NODE  (t1 %.2f: [ ]  t2 %.2f: { })", "REFS",
                 "UNITS", "DR", "CR", bhv_t(v->t1), bhv_t(v->t2));
    ht_heaprow_row(d, 2, 0, line);
    int rows = d->height - HEAD_LINES - (d->height >= 6); /* the foot names the row's node */
    ht_list_fit(&v->hpos, &v->hshown, v->nrows, rows);
    for (int k = 0; k < rows && v->hpos.top + (uint32_t)k < v->nrows; k++) {
        uint32_t i = v->hpos.top + (uint32_t)k;
        const bhv_row *r = &v->rows[i];
        int attr = i == v->hpos.cursor      ? ht_ui_attr(d->ui, HT_C_SELECTED)
                   : r->kind == BHV_HEADING ? ht_ui_attr(d->ui, HT_C_TITLE)
                   : r->kind == BHV_MORE || r->kind == BHV_DROP || repeated(v, r)
                       ? ht_ui_attr(d->ui, HT_C_DIM)
                       : ht_ui_attr(d->ui, HT_C_NORMAL);
        row_text(v, d, r, line, sizeof line);
        ht_ui_put(stdscr, d->top + HEAD_LINES + k, 0, d->ui->cols, attr, line, 1);
    }
    ht_list_more(d, &v->hpos, v->nrows, d->top + 2, rows);
    if (d->height >= 6) ht_bhv_selected_line(v, d, ht_bhv_glass_node_at(v));
}

void ht_bhv_glass_unfold(bhv_screen *v, ht_host *h, int all)
{
    if (v->hpos.cursor >= v->nrows) return;
    bhv_row *r = &v->rows[v->hpos.cursor];
    if (all) {
        expand_below(v, v->hpos.cursor, UNFOLD_ALL);
    } else if (r->kind == BHV_DROP) {
        ht_host_status(h, "an edge the cycle rule dropped: Enter opens that node's hourglass");
        return;
    } else if (!r->open && (r->kind == BHV_UP || r->kind == BHV_DOWN) && !can_unfold(v, r)) {
        ht_host_status(h, "%s",
                       repeated(v, r)      ? "its subtree is shown on the other row of it"
                       : r->kind == BHV_UP ? "no parent of it passes t1 (or it is ROOT)"
                                           : "no child of it passes t2");
        return;
    } else {
        expand(v, v->hpos.cursor);
    }
    if (v->nrows >= BHV_MAX_ROWS)
        ht_host_status(h, "the hourglass holds %u rows at most: fold some to unfold more",
                       BHV_MAX_ROWS);
}

void ht_bhv_glass_fold(bhv_screen *v)
{
    if (v->hpos.cursor >= v->nrows) return;
    bhv_row *r = &v->rows[v->hpos.cursor];
    if (r->kind == BHV_HEADING) return;
    if (!r->open) { /* to the row it was unfolded from */
        for (uint32_t j = v->hpos.cursor; j-- > 0 && v->rows[j].kind != BHV_HEADING;)
            if (v->rows[j].depth < r->depth) {
                v->hpos.cursor = j;
                return;
            }
        return;
    }
    uint32_t end = v->hpos.cursor + 1;
    while (end < v->nrows && v->rows[end].kind != BHV_HEADING && v->rows[end].depth > r->depth)
        end++;
    for (uint32_t i = v->hpos.cursor; i < end; i++) /* their subtrees may show elsewhere now */
        if (v->rows[i].open) *opened(v, &v->rows[i]) = 0;
    memmove(v->rows + v->hpos.cursor + 1, v->rows + end, (v->nrows - end) * sizeof *v->rows);
    v->nrows -= end - v->hpos.cursor - 1;
    r->open = 0;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const bhv_screen *v = ctx;
    const bhv_row *r = &v->rows[i];
    if (r->kind != BHV_UP && r->kind != BHV_DOWN && r->kind != BHV_DROP) return 0;
    return strstr(v->label[row_node(v, r)], text) != NULL;
}

int ht_bhv_glass_search(bhv_screen *v, const char *text, int forward, int from_cursor)
{
    return ht_list_search(&v->hpos, v->nrows, text, forward, from_cursor, has_text, v);
}
