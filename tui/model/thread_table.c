/* thread_table.c - see thread_table.h. */
#include "thread_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ht_thread_table_init(ht_thread_table *t)
{
    memset(t, 0, sizeof *t);
    t->sort_col = HT_COL_CPU_NOW;
}

void ht_thread_table_free(ht_thread_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* qsort_r's context: the table and the store that names its threads. */
typedef struct order {
    const ht_thread_table *t;
    const ht_store *s;
} order;

static int by_column(const void *a, const void *b, void *ctx)
{
    const order *o = ctx;
    const ht_thread_row *x = a, *y = b;
    ht_col col = o->t->sort_col;
    int asc = o->t->ascending, c = 0;
    char nx[HT_STORE_CPU_NAME_MAX + 32], ny[HT_STORE_CPU_NAME_MAX + 32];
    if (col < HT_COL_NAME) c = x->v[col] < y->v[col] ? -1 : x->v[col] > y->v[col];
    if (c == 0 && col != HT_COL_NAME) /* ties: the thread that used more CPU first */
        c = x->v[HT_COL_CPU_MS] < y->v[HT_COL_CPU_MS] ? -1
                                                      : x->v[HT_COL_CPU_MS] > y->v[HT_COL_CPU_MS];
    if (c == 0) {
        ht_store_cpu_thread_name(o->s, x->id, nx, sizeof nx);
        ht_store_cpu_thread_name(o->s, y->id, ny, sizeof ny);
        c = strcmp(nx, ny);
        if (col != HT_COL_NAME) c = -c; /* names A to Z among equal figures, largest first */
    }
    if (c == 0) c = x->id < y->id ? -1 : x->id > y->id;
    return asc ? c : -c;
}

void ht_thread_table_sort(ht_thread_table *t, const ht_store *s)
{
    order o = {t, s};
    qsort_r(t->rows, t->nrows, sizeof *t->rows, by_column, &o);
}

int ht_thread_table_build(ht_thread_table *t, const ht_store *s, const ht_filter *f)
{
    if (s->ncpu_threads + 1 > t->cap) {
        ht_thread_row *r = realloc(t->rows, ((size_t)s->ncpu_threads + 1) * sizeof *r);
        if (!r) return -1;
        t->rows = r;
        t->cap = s->ncpu_threads + 1;
    }
    memset(t->max_abs, 0, sizeof t->max_abs);
    memset(t->has_neg, 0, sizeof t->has_neg);
    t->name_max = 0;
    t->nrows = 0;
    char name[HT_STORE_CPU_NAME_MAX + 32];
    for (uint32_t i = 0; i < s->ncpu_threads; i++) {
        const ht_store_cpu_thread *th = &s->cpu_threads[i];
        ht_store_cpu_thread_name(s, th->rec.id, name, sizeof name);
        if (f && !ht_filter_match(f, name)) continue;
        ht_thread_row *r = &t->rows[t->nrows++];
        memset(r, 0, sizeof *r);
        r->id = th->rec.id;
        ht_col_from_thread(&th->rec, r->v);
        for (int c = 0; c < HT_COL_NAME; c++)
            if (fabs(r->v[c]) > t->max_abs[c]) t->max_abs[c] = fabs(r->v[c]);
        int len = (int)strlen(name);
        if (len > t->name_max) t->name_max = len;
    }
    ht_thread_table_sort(t, s);
    return 0;
}

uint32_t ht_thread_table_find(const ht_thread_table *t, uint32_t id)
{
    for (uint32_t i = 0; i < t->nrows; i++)
        if (t->rows[i].id == id) return i;
    return UINT32_MAX;
}

int ht_thread_table_copy(ht_thread_table *dst, const ht_thread_table *src)
{
    ht_thread_row *rows = realloc(dst->rows, ((size_t)src->nrows + 1) * sizeof *rows);
    if (!rows) return -1;
    *dst = *src;
    dst->rows = rows;
    dst->cap = src->nrows + 1;
    if (src->nrows) memcpy(rows, src->rows, src->nrows * sizeof *rows);
    return 0;
}
