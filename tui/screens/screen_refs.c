/*
 * screen_refs.c - the reference browser: one object of the snapshot, what
 * it holds and what holds it.
 *
 * Owns: the object shown and the way back (the objects shown before it, as a
 * browser's history), and its rows: its fields and their values (strings as
 * text, arrays' first elements), who refers to it (an unfoldable tree: who
 * holds it, and who holds that), what it refers to (unfoldable likewise),
 * and its shortest path from a GC root, root first, ending in the root's
 * kind (referents of weak, soft and phantom references left out unless 'w'
 * says otherwise). Its own filter (the reference filter, class names in the
 * filter syntax) narrows the two trees to objects of those classes: a class
 * object a million instances refer to. Above them: its shallow and
 * retained sizes and its chain of dominators. An object heaptop's agent
 * sampled (and marked in the dump) shows first where it was allocated, named
 * from the session the dump carries. Enter follows the reference under the
 * cursor; Backspace (or Esc) goes back the way taken, to the row it was
 * followed from: the way back keeps each row's place (which row of its kind
 * it was, and the unfoldings down to it), unfolds them again and puts the
 * cursor there, as far down the page as it was. How many rows are hidden
 * above and below is said on the area's last line, under the rows
 * (ht_list_more). Its state and rows are in screen_refs_rows.h, its export
 * in screen_refs_export.c. UI thread only.
 */
#include "screen_refs.h"
#include "screen_refs_rows.h"

#include "heap_list.h"
#include "heap_rows.h"
#include "list.h"
#include "values.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *create(void)
{
    refs_screen *v = calloc(1, sizeof *v);
    if (v) v->obj = HT_NONE;
    if (v) ht_store_init(&v->names);
    return v;
}

static void destroy(void *self)
{
    refs_screen *v = self;
    free(v->rows);
    ht_store_free(&v->names);
    free(v);
}

/* snprintf that may cut: a row's text is as much as fits. */
static void put(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static ref_row *add_at(refs_screen *v, uint32_t at)
{
    if (v->nrows == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 256;
        ref_row *r = realloc(v->rows, cap * sizeof *r);
        if (!r) return NULL;
        v->rows = r, v->cap = cap;
    }
    memmove(v->rows + at + 1, v->rows + at, (v->nrows - at) * sizeof *v->rows);
    v->nrows++;
    ref_row *r = &v->rows[at];
    memset(r, 0, sizeof *r);
    r->obj = HT_NONE;
    return r;
}

static ref_row *add(refs_screen *v)
{
    return add_at(v, v->nrows);
}

static void heading(refs_screen *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void heading(refs_screen *v, const char *fmt, ...)
{
    ref_row *r = add(v);
    if (!r) return;
    r->kind = R_HEADING;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
}

static void on_field(void *ctx, const ht_field *f)
{
    refs_screen *v = ctx;
    ref_row *r = add(v);
    if (!r) return;
    r->kind = R_FIELD;
    r->obj = f->target;
    put(r->text, sizeof r->text, "  %s = %s", f->name, f->value);
}

/* The row text of a reference from `from` to `to`, either way round. */
static void ref_text(const ht_heap *x, int incoming, uint32_t from, uint32_t to, char *buf,
                     size_t cap)
{
    char name[160], obj[400];
    ht_snapshot_ref_name(&x->s, from, ht_ref_index(&x->s, from, to), name, sizeof name);
    ht_heaprow_object_text(x, incoming ? from : to, obj, sizeof obj);
    if (incoming)
        put(buf, cap, "<- %s  .%s", obj, name);
    else
        put(buf, cap, "-> %s: %s", name, obj);
}

/* The references into (incoming) or out of obj as rows after `at`. */
static uint32_t add_refs(refs_screen *v, uint32_t at, uint32_t obj, int incoming, uint16_t depth)
{
    const ht_snapshot *s = &v->src.x->s;
    const uint32_t *start = incoming ? s->in_start : s->out_start;
    const uint32_t *adj = incoming ? s->in : s->out;
    uint32_t a = start[obj], b = start[obj + 1], n = 0, left = 0;
    int filtered = ht_filter_active(&v->f);
    for (uint32_t e = a; e < b; e++) {
        if (filtered && !ht_filter_match(&v->f, ht_snapshot_class_name(s, adj[e]))) continue;
        if (n == MAX_CHILDREN) {
            left++;
            continue;
        }
        ref_row *r = add_at(v, at + n);
        if (!r) return n;
        n++;
        r->kind = incoming ? R_IN : R_OUT;
        r->depth = depth;
        r->obj = adj[e];
        char t[sizeof r->text];
        ref_text(v->src.x, incoming, incoming ? adj[e] : obj, incoming ? obj : adj[e], t, sizeof t);
        put(r->text, sizeof r->text, "%*s%s", 2 + 2 * (depth > 20 ? 20 : depth), "", t);
    }
    if (left) {
        ref_row *r = add_at(v, at + n);
        if (r) {
            r->kind = R_MORE;
            r->depth = depth;
            snprintf(r->text, sizeof r->text, "%*s... %u more", 2 + 2 * (depth > 20 ? 20 : depth),
                     "", left);
            n++;
        }
    }
    if (filtered && n == 0) {
        ref_row *r = add_at(v, at);
        if (r) {
            r->kind = R_MORE;
            r->depth = depth;
            snprintf(r->text, sizeof r->text, "%*s(none of the filtered classes)",
                     2 + 2 * (depth > 20 ? 20 : depth), "");
            n++;
        }
    }
    return n;
}

/* Where a sampled object was allocated: its stack, leaf first. */
static void allocated_at(refs_screen *v, uint32_t o)
{
    const ht_sample_obj *so = ht_sampled_of(&v->src.x->s, o);
    if (!so) return;
    if (v->names_gen != v->src.gen + 1) { /* the names of this snapshot's run, once */
        ht_store_clear(&v->names);
        const ht_sampled *m = &v->src.x->s.sampled;
        ht_store_from_session(&v->names, m->session, m->session_len);
        v->names_gen = v->src.gen + 1;
    }
    char b[32];
    ht_ui_bytes(so->bytes, HT_UNIT_AUTO, b, sizeof b);
    heading(v,
            "Allocated at (sampled by heaptop's agent, sample %" PRIu64 ": it stands for %.0f "
            "objects, %s, of its site)",
            so->serial, so->instances, b);
    const ht_strace *t = ht_store_trace(&v->names, so->trace_id);
    if (!t || !t->depth) {
        ref_row *r = add(v);
        if (r) {
            r->kind = R_FRAME;
            char site[300];
            ht_store_site_name(&v->names, so->trace_id, site, sizeof site);
            put(r->text, sizeof r->text, "  %s", site);
        }
        return;
    }
    for (uint16_t k = 0; k < t->depth; k++) {
        ref_row *r = add(v);
        if (!r) return;
        r->kind = R_FRAME;
        char frame[300];
        ht_store_frame_name(&v->names, &t->frames[k], frame, sizeof frame);
        put(r->text, sizeof r->text, "  %s%s", k ? "<- " : "", frame);
    }
    if (ht_store_trace_cut(&v->names, so->trace_id))
        heading(v, "  [stack cut at depth %u]", v->names.info.depth);
}

static void make_rows(refs_screen *v)
{
    v->nrows = 0;
    v->pos = (ht_list_pos){0, 0};
    ht_heap *x = v->src.x;
    uint32_t o = v->obj;
    if (!x || o == HT_NONE) return;
    const ht_snapshot *s = &x->s;
    allocated_at(v, o);
    heading(v, "%s", s->kind[o] == HT_OBJ_CLASS ? "Static fields" : "Fields");
    uint64_t all = ht_fields_each(s, o, MAX_ELEMENTS, on_field, v);
    if (all > MAX_ELEMENTS && s->kind[o] != HT_OBJ_INSTANCE)
        heading(v, "  ... %" PRIu64 " elements in all", all);
    const char *only = ht_filter_active(&v->f) ? ", filtered by class" : "";
    heading(v, "Referenced by (%u%s; Right unfolds: who holds that)",
            s->in_start[o + 1] - s->in_start[o], only);
    add_refs(v, v->nrows, o, 1, 0);
    heading(v, "References (%u%s)", s->out_start[o + 1] - s->out_start[o], only);
    add_refs(v, v->nrows, o, 0, 0);
    const ht_paths *p = ht_heap_paths(x, v->weak);
    heading(v, "Shortest path from a GC root (%s; w: %s)",
            v->weak ? "weak references followed" : "weak, soft, phantom referents left out",
            v->weak ? "leave them out" : "follow them");
    uint32_t path[64];
    uint32_t len = p ? ht_paths_get(p, o, path, 64) : 0;
    if (len == 0)
        heading(v, "  none: no GC root reaches it%s", v->weak ? "" : " through strong references");
    char line[400];
    uint32_t shown = len < 64 ? len : 64;
    for (uint32_t i = 0; i < shown; i++) {
        ref_row *r = add(v);
        if (!r) return;
        r->kind = R_PATH;
        r->obj = path[i];
        if (i == 0) {
            uint64_t ri;
            char obj[300];
            ht_heaprow_object_text(x, path[0], obj, sizeof obj);
            char kind[700] = "?";
            if (ht_map_get(&p->root, path[0], &ri))
                ht_root_describe(s, (uint32_t)ri, kind, sizeof kind);
            put(r->text, sizeof r->text, "  %sroot(%s) %s", len > shown ? "... " : "", kind, obj);
        } else {
            ref_text(x, 0, path[i - 1], path[i], line, sizeof line);
            put(r->text, sizeof r->text, "  %s", line);
        }
    }
}

static int is_tree(uint8_t kind)
{
    return kind == R_IN || kind == R_OUT;
}

/* The place of the cursor's row (an empty one when there are no rows). */
static void place_of(const refs_screen *v, ref_place *p)
{
    memset(p, 0, sizeof *p);
    p->obj = v->obj;
    if (v->pos.cursor >= v->nrows) return;
    p->offset = v->pos.cursor >= v->pos.top ? v->pos.cursor - v->pos.top : 0;
    uint8_t kind[MAX_DEPTH + 1];
    uint16_t ord[MAX_DEPTH + 1];
    int k = 0;
    for (uint32_t at = v->pos.cursor; k <= MAX_DEPTH;) {
        const ref_row *r = &v->rows[at];
        uint32_t n = 0, j = at, parent = HT_NONE;
        while (j-- > 0) { /* its siblings before it, back to its parent */
            const ref_row *q = &v->rows[j];
            if (r->depth > 0 && is_tree(q->kind) && q->depth < r->depth) {
                parent = j;
                break;
            }
            n += q->kind == r->kind && q->depth == r->depth;
        }
        kind[k] = r->kind;
        ord[k++] = (uint16_t)(n > UINT16_MAX ? UINT16_MAX : n);
        if (r->depth == 0 || parent == HT_NONE) break;
        at = parent;
    }
    p->n = (uint8_t)k;
    for (int i = 0; i < k; i++) { /* top level first */
        p->kind[i] = kind[k - 1 - i];
        p->ord[i] = ord[k - 1 - i];
    }
}

static uint32_t expand(refs_screen *v, uint32_t i);

/* Put the cursor on place p of rows made afresh: unfold down to it, as far
 * as the rows still match (another filter may have changed them). */
static void restore(refs_screen *v, const ref_place *p)
{
    uint32_t at = HT_NONE, seen = 0;
    for (uint32_t i = 0; p->n && i < v->nrows; i++)
        if (v->rows[i].depth == 0 && v->rows[i].kind == p->kind[0] && seen++ == p->ord[0]) {
            at = i;
            break;
        }
    for (int lvl = 1; at != HT_NONE && lvl < p->n; lvl++) {
        ref_row *r = &v->rows[at];
        if (!is_tree(r->kind) || (!r->open && expand(v, at) == 0)) break;
        uint32_t next = HT_NONE;
        seen = 0;
        for (uint32_t i = at + 1; i < v->nrows && v->rows[i].depth > v->rows[at].depth; i++)
            if (v->rows[i].depth == (uint16_t)lvl && v->rows[i].kind == p->kind[lvl] &&
                seen++ == p->ord[lvl]) {
                next = i;
                break;
            }
        if (next == HT_NONE) break;
        at = next;
    }
    if (at == HT_NONE) return;
    v->pos.cursor = at;
    v->pos.top = at > p->offset ? at - p->offset : 0;
}

void ht_screen_refs_open(void *state, struct ht_heap *x, const uint64_t *gen, uint32_t n)
{
    refs_screen *v = state;
    if (!ht_heaplist_is(&v->src, x, gen)) { /* another snapshot's way */
        ht_heaplist_take(&v->src, x, gen);
        v->obj = HT_NONE;
        v->nback = 0;
    }
    v->has_pending = 0;
    if (v->obj != HT_NONE && v->obj == n) { /* itself (a cycle): the cursor stays */
        place_of(v, &v->pending);
        v->has_pending = 1;
    } else if (v->obj != HT_NONE) {
        if (v->nback == HISTORY) {
            memmove(v->back, v->back + 1, (HISTORY - 1) * sizeof *v->back);
            v->nback--;
        }
        place_of(v, &v->back[v->nback++]);
    }
    v->obj = n;
    v->want_rows = 1;
}

static int build(void *self, const ht_build_ctx *b)
{
    refs_screen *v = self;
    if (strcmp(v->f.text, b->lens->ref_filter.text) != 0) { /* the filter changed */
        v->f = b->lens->ref_filter;
        v->want_rows = 1;
    }
    if (!ht_heaplist_is(&v->src, b->heap, b->heap_gen)) {
        /* a new snapshot: no object number of the old one means anything */
        ht_heaplist_take(&v->src, b->heap, b->heap_gen);
        v->obj = HT_NONE;
        v->nback = 0;
        v->want_rows = 1;
    }
    if (v->want_rows) {
        v->want_rows = 0;
        make_rows(v);
        if (v->has_pending) restore(v, &v->pending);
        v->has_pending = 0;
    }
    return 0;
}

/* Lines above the rows: the object, its sizes, its dominators. */
#define HEAD_LINES 3

static void draw(void *self, const ht_draw_ctx *d)
{
    refs_screen *v = self;
    if (!ht_heaplist_drawn(&v->src, d)) {
        ht_heaprow_none(d);
        return;
    }
    const ht_heap *x = v->src.x;
    if (v->obj == HT_NONE) {
        ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM),
                  "  no object chosen: Enter on an instance (4) or a dominator (5) opens it here",
                  1);
        return;
    }
    uint32_t o = v->obj;
    char line[1400], obj[900], b1[32], b2[32];
    ht_heaprow_object_text(x, o, obj, sizeof obj);
    snprintf(line, sizeof line, "%s%s", obj, v->nback ? "   (Backspace: back)" : "");
    ht_heaprow_row(d, 0, 0, line);
    ht_ui_bytes((double)ht_snapshot_shallow(&x->s, o), d->unit, b1, sizeof b1);
    ht_ui_bytes((double)x->d.retained[o], d->unit, b2, sizeof b2);
    size_t at =
        (size_t)snprintf(line, sizeof line, "  shallow %s  retained %s  dominated by: ", b1, b2);
    uint32_t dom = x->d.idom[o];
    if (dom == HT_NONE) snprintf(line + at, sizeof line - at, "nothing (no GC root reaches it)");
    for (int k = 0; dom != HT_NONE && k < 4 && at < sizeof line - 64; k++) {
        if (dom == HT_ROOT) {
            snprintf(line + at, sizeof line - at, "%sthe GC roots", k ? " < " : "");
            break;
        }
        char lb[200];
        ht_object_label(&x->s, dom, lb, sizeof lb);
        at += (size_t)snprintf(line + at, sizeof line - at, "%s%s", k ? " < " : "", lb);
        dom = x->d.idom[dom];
        if (k == 3 && dom != HT_ROOT) snprintf(line + at, sizeof line - at, " < ...");
    }
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), line, 1);
    int rows = d->height - HEAD_LINES;
    ht_list_clamp(&v->pos, v->nrows, rows);
    /* the rows hidden above and below (the path from a GC root, last, is
     * what most often runs past the bottom): on the line under them */
    ht_list_more(d, &v->pos, v->nrows, d->top + d->height - 1, rows);
    for (int r = 0; r < rows && v->pos.top + (uint32_t)r < v->nrows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        const ref_row *w = &v->rows[i];
        int attr = i == v->pos.cursor     ? ht_ui_attr(d->ui, HT_C_SELECTED)
                   : w->kind == R_HEADING ? ht_ui_attr(d->ui, HT_C_TITLE)
                   : w->kind == R_MORE    ? ht_ui_attr(d->ui, HT_C_DIM)
                                          : ht_ui_attr(d->ui, HT_C_NORMAL);
        const char *mark = (w->kind == R_IN || w->kind == R_OUT) ? (w->open ? "-" : "+") : " ";
        snprintf(line, sizeof line, "%s%s", w->kind == R_HEADING ? "" : mark, w->text);
        ht_ui_put(stdscr, d->top + HEAD_LINES - 1 + r, 0, d->ui->cols, attr, line, 1);
    }
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    refs_screen *v = self;
    *n = v->nrows;
    return &v->pos;
}

static void follow(void *self, ht_host *h, int ch)
{
    (void)ch;
    refs_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->pos.cursor >= v->nrows) return;
    uint32_t to = v->rows[v->pos.cursor].obj;
    if (to == HT_NONE) return;
    ht_screen_refs_open(v, v->src.x, v->src.gen_now, to);
    ht_host_rebuild(h);
}

static void go_back(void *self, ht_host *h, int ch)
{
    (void)ch;
    refs_screen *v = self;
    if (!ht_heaplist_current(&v->src) || !v->nback) {
        if (ht_host_back(h)) return; /* to the screen that opened it */
        ht_host_status(h, "the first object of the way: nothing to go back to");
        return;
    }
    v->pending = v->back[--v->nback];
    v->has_pending = 1;
    v->obj = v->pending.obj;
    v->want_rows = 1;
    ht_host_rebuild(h);
}

/* Unfold row i (who holds it, or what it holds): the rows added, 0 when
 * nothing (or it cannot unfold: not a reference, open, or as deep as may be). */
static uint32_t expand(refs_screen *v, uint32_t i)
{
    ref_row *w = &v->rows[i];
    if (!is_tree(w->kind) || w->open || w->depth >= MAX_DEPTH) return 0;
    w->open = 1;
    return add_refs(v, i + 1, w->obj, w->kind == R_IN, (uint16_t)(w->depth + 1));
}

static void unfold(void *self, ht_host *h, int ch)
{
    (void)ch;
    refs_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->pos.cursor >= v->nrows) return;
    ref_row *w = &v->rows[v->pos.cursor];
    if (!is_tree(w->kind) || w->open || w->depth >= MAX_DEPTH) return;
    int incoming = w->kind == R_IN;
    if (expand(v, v->pos.cursor) == 0)
        ht_host_status(h, "%s", incoming ? "nothing refers to it" : "it refers to nothing");
}

static void fold(void *self, ht_host *h, int ch)
{
    (void)h, (void)ch;
    refs_screen *v = self;
    if (v->pos.cursor >= v->nrows) return;
    ref_row *w = &v->rows[v->pos.cursor];
    if (w->kind != R_IN && w->kind != R_OUT && w->kind != R_MORE) return;
    if (!w->open) { /* to the row it unfolded from */
        for (uint32_t j = v->pos.cursor; j-- > 0 && v->rows[j].kind == w->kind;)
            if (v->rows[j].depth < w->depth) {
                v->pos.cursor = j;
                return;
            }
        return;
    }
    uint32_t end = v->pos.cursor + 1;
    while (end < v->nrows && (v->rows[end].kind == w->kind || v->rows[end].kind == R_MORE) &&
           v->rows[end].depth > w->depth)
        end++;
    memmove(v->rows + v->pos.cursor + 1, v->rows + end, (v->nrows - end) * sizeof *v->rows);
    v->nrows -= end - v->pos.cursor - 1;
    w->open = 0;
}

static void toggle_weak(void *self, ht_host *h, int ch)
{
    (void)ch;
    refs_screen *v = self;
    v->weak = !v->weak;
    v->want_rows = 1;
    ht_host_rebuild(h);
    ht_host_status(h, "paths from GC roots %s weak, soft and phantom referents",
                   v->weak ? "follow" : "leave out");
}

/* The allocation site's frame under the cursor, at its line (the Source
 * screen): the frame rows are the sampled object's stack, leaf first. */
static void open_source(void *self, ht_host *h, int ch)
{
    (void)ch;
    refs_screen *v = self;
    if (!ht_heaplist_current(&v->src) || v->pos.cursor >= v->nrows ||
        v->rows[v->pos.cursor].kind != R_FRAME) {
        ht_host_status(h, "o opens a frame's source: select a frame under Allocated at");
        return;
    }
    uint32_t first = v->pos.cursor;
    while (first > 0 && v->rows[first - 1].kind == R_FRAME)
        first--;
    const ht_sample_obj *so = ht_sampled_of(&v->src.x->s, v->obj);
    const ht_strace *t = so ? ht_store_trace(&v->names, so->trace_id) : NULL;
    uint32_t k = v->pos.cursor - first;
    if (!t || k >= t->depth) {
        ht_host_status(h, "this allocation site has no frames to open");
        return;
    }
    ht_host_open_source(h, &v->names, &t->frames[k]);
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    return strstr(((refs_screen *)ctx)->rows[i].text, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    refs_screen *v = self;
    return ht_list_search(&v->pos, v->nrows, text, forward, from_cursor, has_text, v);
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER), .help = "follow it", .act = follow},
    {HT_KEYS(KEY_BACKSPACE, 27), HT_ALSO(127, 8), .help = "back the way taken", .act = go_back,
     .flags = HT_KEY_RIGHT, .col = 38, .help_col = 49},
    {HT_KEYS(KEY_RIGHT, '+'), .help = "unfold", .act = unfold},
    {HT_KEYS(KEY_LEFT, '-'), .help = "fold", .act = fold, .flags = HT_KEY_RIGHT, .col = 38,
     .help_col = 49},
    {HT_KEYS('w'), .help = "paths from GC roots: follow weak references or not",
     .act = toggle_weak},
    {HT_KEYS('o'), .help = "on a frame of Allocated at: its source file at its line (--source)",
     .act = open_source},
    HT_KEYS_END,
};

const ht_screen ht_screen_refs = {
    .name = "references",
    .title = "references",
    .help_title = "Reference browser",
    .key = '6',
    .filter = HT_FILTER_REFS,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .search = search,
    .export = ht_refs_export,
};
