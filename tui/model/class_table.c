/* class_table.c - see class_table.h. */
#include "class_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ht_class_table_init(ht_class_table *t)
{
    memset(t, 0, sizeof *t);
    t->sort_col = HT_COL_BYTES;
}

void ht_class_table_free(ht_class_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ht_class_row *)a)->name, ((const ht_class_row *)b)->name);
}

/* The table's order, read by by_column through qsort_r. */
static int by_column(const void *a, const void *b, void *ctx)
{
    const ht_class_table *t = ctx;
    const ht_class_row *x = a, *y = b;
    ht_col col = t->sort_col == HT_COL_PCT ? HT_COL_BYTES : t->sort_col;
    int asc = t->ascending, c;
    if (col == HT_COL_NAME)
        c = strcmp(x->name, y->name);
    else
        c = x->v[col] < y->v[col] ? -1 : x->v[col] > y->v[col];
    if (c == 0) c = strcmp(x->name, y->name) * (asc ? 1 : -1); /* stable tie order */
    return asc ? c : -c;
}

void ht_class_table_sort(ht_class_table *t)
{
    qsort_r(t->rows, t->nrows, sizeof *t->rows, by_column, t);
}

int ht_class_table_copy(ht_class_table *dst, const ht_class_table *src, const ht_store *names)
{
    ht_class_row *rows = realloc(dst->rows, ((size_t)src->nrows + 1) * sizeof *rows);
    if (!rows) return -1;
    ht_class_row *keep = rows;
    *dst = *src;
    dst->rows = keep;
    dst->cap = src->nrows + 1;
    for (uint32_t i = 0; i < src->nrows; i++) {
        dst->rows[i] = src->rows[i];
        dst->rows[i].name = ht_store_class(names, src->rows[i].class_id);
    }
    return 0;
}

uint32_t ht_class_table_find(const ht_class_table *t, const char *name)
{
    for (uint32_t i = 0; name && i < t->nrows; i++)
        if (strcmp(t->rows[i].name, name) == 0) return i;
    return UINT32_MAX;
}

int ht_class_table_build(ht_class_table *t, const ht_store *s, const ht_filter *f)
{
    if (s->nrows + 1 > t->cap) {
        ht_class_row *r = realloc(t->rows, ((size_t)s->nrows + 1) * sizeof *r);
        if (!r) return -1;
        t->rows = r;
        t->cap = s->nrows + 1;
    }
    uint32_t n = 0;
    double total = 0;
    for (uint32_t i = 0; i < s->nrows; i++) {
        const ht_agg_rec *a = &s->rows[i];
        const char *name = ht_store_class(s, a->class_id);
        if (f && !ht_filter_match(f, name)) continue;
        ht_class_row *r = &t->rows[n++];
        memset(r, 0, sizeof *r);
        r->name = name;
        r->class_id = a->class_id;
        ht_col_from_agg(a, r->v);
        r->young_samples = a->young_samples;
        total += a->est_bytes;
    }
    /* fold rows of the same class name into one */
    qsort(t->rows, n, sizeof *t->rows, by_name);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m && strcmp(t->rows[m - 1].name, t->rows[i].name) == 0) {
            for (int c = 0; c < HT_COL_COUNT; c++)
                t->rows[m - 1].v[c] += t->rows[i].v[c];
            t->rows[m - 1].young_samples += t->rows[i].young_samples;
        } else {
            t->rows[m++] = t->rows[i];
        }
    }
    t->nrows = m;
    memset(t->max_abs, 0, sizeof t->max_abs);
    memset(t->has_neg, 0, sizeof t->has_neg);
    t->name_max = 0;
    const ht_telemetry_rec *tel = ht_store_last_telemetry(s);
    t->bounds = (ht_col_bounds){.heap_used = tel ? (double)tel->heap_used : 0};
    t->over = 0;
    for (uint32_t i = 0; i < m; i++) {
        ht_class_row *r = &t->rows[i];
        r->v[HT_COL_PCT] = total > 0 ? 100.0 * r->v[HT_COL_BYTES] / total : 0;
        r->over = ht_col_over_mask(&t->bounds, r->v);
        t->over |= r->over;
        for (int c = 0; c < HT_COL_NAME; c++) {
            if (fabs(r->v[c]) > t->max_abs[c]) t->max_abs[c] = fabs(r->v[c]);
            if (r->v[c] < 0) t->has_neg[c] = 1;
        }
        int len = (int)strlen(r->name);
        if (len > t->name_max) t->name_max = len;
    }
    ht_class_table_sort(t);
    return 0;
}
