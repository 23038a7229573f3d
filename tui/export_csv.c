/* export_csv.c - see export_csv.h. */
#include "export_csv.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_out {
    FILE *f;
    int fields; /* fields written on the current line */
} csv_out;

static void field(csv_out *o, const char *text)
{
    if (o->fields++) fputc(',', o->f);
    const char *t = text ? text : "";
    csv_fwrite(o->f, t, strlen(t));
}

static void field_u64(csv_out *o, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    field(o, b);
}

static void field_est(csv_out *o, double v)
{
    char b[48];
    snprintf(b, sizeof b, "%.0f", v < 0 ? 0.0 : v);
    field(o, b);
}

static void field_pct(csv_out *o, double v)
{
    char b[48];
    snprintf(b, sizeof b, "%.2f", v);
    field(o, b);
}

static void end_row(csv_out *o)
{
    fputs("\r\n", o->f);
    o->fields = 0;
}

static void header(csv_out *o, const char *const *names)
{
    for (; *names; names++)
        field(o, *names);
    end_row(o);
}

static int close_out(csv_out *o)
{
    int bad = ferror(o->f);
    if (fclose(o->f) != 0 || bad) {
        if (!errno) errno = EIO;
        return -1;
    }
    return 0;
}

static const ht_store *g_sort_store; /* qsort has no context argument in C11 */

static int by_bytes(const void *a, const void *b)
{
    const ht_agg_rec *x = &g_sort_store->rows[*(const uint32_t *)a];
    const ht_agg_rec *y = &g_sort_store->rows[*(const uint32_t *)b];
    if (x->est_bytes != y->est_bytes) return x->est_bytes < y->est_bytes ? 1 : -1;
    if (x->trace_id != y->trace_id) return x->trace_id < y->trace_id ? -1 : 1;
    return x->class_id < y->class_id ? -1 : x->class_id > y->class_id;
}

uint32_t *ht_rows_by_bytes(const ht_store *s)
{
    uint32_t *idx = malloc(((size_t)s->nrows + 1) * sizeof *idx);
    if (!idx) return NULL;
    for (uint32_t i = 0; i < s->nrows; i++)
        idx[i] = i;
    g_sort_store = s;
    qsort(idx, s->nrows, sizeof *idx, by_bytes);
    return idx;
}

int ht_export_sites(const ht_store *s, const char *path)
{
    csv_out o = {fopen(path, "w"), 0};
    if (!o.f) return -1;
    static const char *const cols[] = {"class",
                                       "frame",
                                       "stack",
                                       "samples",
                                       "est_bytes",
                                       "est_instances",
                                       "live_samples",
                                       "live_est_bytes",
                                       "live_est_instances",
                                       NULL};
    header(&o, cols);
    uint32_t *idx = ht_rows_by_bytes(s);
    for (uint32_t k = 0; idx && k < s->nrows; k++) {
        const ht_agg_rec *r = &s->rows[idx[k]];
        char frame[1024];
        ht_store_site_name(s, r->trace_id, frame, sizeof frame);
        char *stack = ht_store_stack_text(s, r->trace_id);
        field(&o, ht_store_class(s, r->class_id));
        field(&o, frame);
        field(&o, stack ? stack : "");
        free(stack);
        field_u64(&o, r->samples);
        field_est(&o, r->est_bytes);
        field_est(&o, r->est_instances);
        field_u64(&o, r->live_samples);
        field_est(&o, r->live_est_bytes);
        field_est(&o, r->live_est_instances);
        end_row(&o);
    }
    free(idx);
    return close_out(&o);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ht_class_total *)a)->name, ((const ht_class_total *)b)->name);
}

static int by_total_bytes(const void *a, const void *b)
{
    const ht_class_total *x = a, *y = b;
    if (x->est_bytes != y->est_bytes) return x->est_bytes < y->est_bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

int ht_class_totals(const ht_store *s, ht_class_total **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    ht_class_total *t = calloc((size_t)s->nrows + 1, sizeof *t);
    if (!t) return -1;
    for (uint32_t i = 0; i < s->nrows; i++) {
        const ht_agg_rec *r = &s->rows[i];
        t[i].name = ht_store_class(s, r->class_id);
        t[i].samples = r->samples;
        t[i].est_bytes = r->est_bytes;
        t[i].est_instances = r->est_instances;
        t[i].live_est_bytes = r->live_est_bytes;
        t[i].live_est_instances = r->live_est_instances;
    }
    /* Sum rows with the same class name (one class can have many sites). */
    qsort(t, s->nrows, sizeof *t, by_name);
    size_t m = 0;
    for (uint32_t i = 0; i < s->nrows; i++) {
        if (m && strcmp(t[m - 1].name, t[i].name) == 0) {
            t[m - 1].samples += t[i].samples;
            t[m - 1].est_bytes += t[i].est_bytes;
            t[m - 1].est_instances += t[i].est_instances;
            t[m - 1].live_est_bytes += t[i].live_est_bytes;
            t[m - 1].live_est_instances += t[i].live_est_instances;
        } else {
            t[m++] = t[i];
        }
    }
    qsort(t, m, sizeof *t, by_total_bytes);
    *out = t;
    *n = m;
    return 0;
}

int ht_export_classes(const ht_store *s, const char *path)
{
    ht_class_total *t;
    size_t n;
    if (ht_class_totals(s, &t, &n) != 0) return -1;
    csv_out o = {fopen(path, "w"), 0};
    if (!o.f) {
        free(t);
        return -1;
    }
    static const char *const cols[] = {
        "class", "samples", "est_bytes", "est_instances", "live_est_bytes", "live_est_instances",
        NULL};
    header(&o, cols);
    for (size_t i = 0; i < n; i++) {
        field(&o, t[i].name);
        field_u64(&o, t[i].samples);
        field_est(&o, t[i].est_bytes);
        field_est(&o, t[i].est_instances);
        field_est(&o, t[i].live_est_bytes);
        field_est(&o, t[i].live_est_instances);
        end_row(&o);
    }
    free(t);
    return close_out(&o);
}

int ht_export_telemetry(const ht_store *s, const char *path)
{
    csv_out o = {fopen(path, "w"), 0};
    if (!o.f) return -1;
    static const char *const cols[] = {"t_ms",        "heap_used", "heap_committed", "heap_max",
                                       "alloc_bytes", "gc_count",  "gc_time_ms",     "gc_pct",
                                       "threads",     "classes",   "samples",        "dropped",
                                       NULL};
    header(&o, cols);
    for (uint32_t i = 0; i < s->ntelemetry; i++) {
        const ht_telemetry_rec *t = &s->telemetry[i];
        field_u64(&o, t->t_ms);
        field_u64(&o, t->heap_used);
        field_u64(&o, t->heap_committed);
        field_u64(&o, t->heap_max);
        if (t->alloc_bytes == UINT64_MAX)
            field(&o, "");
        else
            field_u64(&o, t->alloc_bytes);
        field_u64(&o, t->gc_count);
        field_u64(&o, t->gc_time_ms);
        field_pct(&o, t->gc_pct);
        field_u64(&o, t->threads);
        field_u64(&o, t->classes);
        field_u64(&o, t->samples);
        field_u64(&o, t->dropped);
        end_row(&o);
    }
    return close_out(&o);
}
