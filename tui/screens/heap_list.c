/* heap_list.c - see heap_list.h. */
#include "heap_list.h"

#include "heap_rows.h"
#include "list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ht_heaplist_current(const ht_heaplist_src *s)
{
    return s->x && s->gen_now && *s->gen_now == s->gen;
}

int ht_heaplist_is(const ht_heaplist_src *s, const struct ht_heap *x, const uint64_t *gen_now)
{
    return s->x == x && s->gen_now == gen_now && s->gen == *gen_now;
}

void ht_heaplist_take(ht_heaplist_src *s, struct ht_heap *x, const uint64_t *gen_now)
{
    *s = (ht_heaplist_src){.x = x, .gen_now = gen_now, .gen = *gen_now};
}

int ht_heaplist_drawn(const ht_heaplist_src *s, const ht_draw_ctx *d)
{
    return s->x && s->x == d->heap && s->gen == d->heap_gen;
}

uint32_t ht_heaplist_at(const ht_heaplist *l)
{
    return l->pos.cursor < l->n ? l->rows[l->pos.cursor] : HT_NONE;
}

static void put_cursor(ht_heaplist *l, uint32_t keep)
{
    for (uint32_t i = 0; keep != HT_NONE && i < l->n; i++)
        if (l->rows[i] == keep) l->pos.cursor = i;
}

int ht_heaplist_fill(ht_heaplist *l, uint32_t total, const ht_filter *f, ht_heaplist_name_fn name,
                     ht_heaplist_cmp_fn cmp, void *ctx, uint32_t keep)
{
    ht_heaplist_free(l);
    l->rows = malloc((total ? total : 1) * sizeof *l->rows);
    if (!l->rows) return -1;
    for (uint32_t i = 0; i < total; i++) {
        const char *s = name(ctx, i);
        if (s && ht_filter_match(f, s)) l->rows[l->n++] = i;
    }
    if (l->n > 1) qsort_r(l->rows, l->n, sizeof *l->rows, cmp, ctx);
    put_cursor(l, keep);
    return 0;
}

void ht_heaplist_resort(ht_heaplist *l, ht_heaplist_cmp_fn cmp, void *ctx)
{
    uint32_t keep = ht_heaplist_at(l);
    if (l->n > 1) qsort_r(l->rows, l->n, sizeof *l->rows, cmp, ctx);
    put_cursor(l, keep);
}

void ht_heaplist_step(ht_heaplist *l, ht_sort_op op, int nsort, int name_key)
{
    if (op == HT_SORT_NEXT || op == HT_SORT_BY)
        l->sort = (l->sort + 1) % nsort, l->ascending = l->sort == name_key;
    else if (op == HT_SORT_PREV)
        l->sort = (l->sort + nsort - 1) % nsort, l->ascending = l->sort == name_key;
    else if (op == HT_SORT_REVERSE)
        l->ascending = !l->ascending;
}

typedef struct by_name {
    const ht_heaplist *l;
    ht_heaplist_name_fn name;
    const void *ctx;
} by_name;

static int has_name(void *ctx, uint32_t i, const char *text)
{
    const by_name *b = ctx;
    const char *s = b->name(b->ctx, b->l->rows[i]);
    return s && strstr(s, text) != NULL;
}

int ht_heaplist_search(ht_heaplist *l, const char *text, int forward, int from_cursor,
                       ht_heaplist_name_fn name, const void *ctx)
{
    by_name b = {.l = l, .name = name, .ctx = ctx};
    return ht_list_search(&l->pos, l->n, text, forward, from_cursor, has_name, &b);
}

void ht_heaplist_free(ht_heaplist *l)
{
    free(l->rows);
    l->rows = NULL;
    l->n = 0;
}

void ht_heaplist_draw(const ht_draw_ctx *d, ht_list_pos *pos, int *shown, uint32_t n, int y0,
                      const char *empty, ht_heaplist_line_fn line, void *ctx)
{
    int rows = d->height - y0;
    ht_list_fit(pos, shown, n, rows);
    if (n == 0 && empty) {
        ht_ui_put(stdscr, d->top + y0, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM), empty, 1);
        return;
    }
    char text[1600];
    for (int r = 0; r < rows && pos->top + (uint32_t)r < n; r++) {
        uint32_t i = pos->top + (uint32_t)r;
        line(ctx, d, i, text, sizeof text);
        ht_heaprow_row(d, r + y0, i == pos->cursor, text);
    }
    ht_list_more(d, pos, n, d->top + y0 - 1, rows);
}

void ht_heaplist_export(ht_export_req *req, ht_host *h, const char *view, const char *key,
                        int ascending, void *rows,
                        int (*write)(const void *rows, const ht_store *s, const char *path,
                                     const ht_progress *p),
                        void (*free_rows)(void *rows))
{
    req->view = view;
    if (key) snprintf(req->sort, sizeof req->sort, "%s %s", key, ascending ? "asc" : "desc");
    if (h)
        snprintf(req->class_filter, sizeof req->class_filter, "%s",
                 ht_host_lens(h)->class_filter.text);
    req->rows = rows;
    req->write = write;
    req->free_rows = free_rows;
}
