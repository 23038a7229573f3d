/* export_csv.c - see export_csv.h. */
#include "export_csv.h"

#include "export_cpu.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ht_csv_open(ht_csv *o, const char *path)
{
    o->fields = 0;
    o->f = NULL;
    if (ht_outfile_create(&o->out, path) != 0) return -1;
    o->f = o->out.f;
    return 0;
}

void ht_csv_abort(ht_csv *o)
{
    ht_outfile_abort(&o->out);
    o->f = NULL;
}

void ht_csv_field(ht_csv *o, const char *text)
{
    if (o->fields++) fputc(',', o->f);
    const char *t = text ? text : "";
    csv_fwrite(o->f, t, strlen(t));
}

void ht_csv_u64(ht_csv *o, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    ht_csv_field(o, b);
}

void ht_csv_object_id(ht_csv *o, uint64_t id)
{
    char hex[24];
    snprintf(hex, sizeof hex, "0x%" PRIx64, id);
    ht_csv_field(o, hex);
}

void ht_csv_est(ht_csv *o, double v)
{
    char b[48];
    snprintf(b, sizeof b, "%.0f", v < 0 ? 0.0 : v);
    ht_csv_field(o, b);
}

void ht_csv_signed(ht_csv *o, double v)
{
    char b[48];
    snprintf(b, sizeof b, "%.0f", v);
    ht_csv_field(o, strcmp(b, "-0") == 0 ? "0" : b);
}

void ht_csv_blank_or(ht_csv *o, int has, double v, int is_signed)
{
    if (!has)
        ht_csv_field(o, "");
    else if (is_signed)
        ht_csv_signed(o, v);
    else
        ht_csv_est(o, v);
}

void ht_csv_pct(ht_csv *o, double v)
{
    char b[48];
    snprintf(b, sizeof b, "%.2f", v);
    ht_csv_field(o, b);
}

void ht_csv_end_row(ht_csv *o)
{
    fputs("\r\n", o->f);
    o->fields = 0;
}

void ht_csv_header(ht_csv *o, const char *const *names)
{
    for (; *names; names++)
        ht_csv_field(o, *names);
    ht_csv_end_row(o);
}

void ht_csv_view_header(ht_csv *o, const char *const *before, unsigned view,
                        const char *const *after)
{
    for (; *before; before++)
        ht_csv_field(o, *before);
    ht_col cols[HT_COL_COUNT];
    int n = ht_col_view_files(view, cols, HT_COL_COUNT);
    for (int i = 0; i < n; i++)
        ht_csv_field(o, ht_col_csv_name(cols[i]));
    ht_csv_header(o, after);
}

void ht_csv_view_figures(ht_csv *o, unsigned view, const double *v, int mark)
{
    ht_col cols[HT_COL_COUNT];
    int n = ht_col_view_files(view, cols, HT_COL_COUNT);
    for (int i = 0; i < n; i++) {
        const ht_col_info *c = ht_col_info_of(cols[i]);
        double x = v[cols[i]];
        if (c->flags & HT_COLF_SHARE)
            ht_csv_pct(o, x);
        else if (c->flags & HT_COLF_MARK)
            ht_csv_blank_or(o, mark, x, (c->flags & HT_COLF_SIGNED) != 0);
        else if (c->from == HT_FROM_AGG_COUNT)
            ht_csv_u64(o, x > 0 ? (uint64_t)x : 0);
        else
            ht_csv_est(o, x);
    }
}

void ht_csv_over(ht_csv *o, unsigned over)
{
    char b[256];
    size_t len = 0;
    b[0] = '\0';
    for (int c = 0; c < HT_COL_NAME && len < sizeof b; c++)
        if (over & 1u << c)
            len += (size_t)snprintf(b + len, sizeof b - len, "%s%s", len ? " " : "",
                                    ht_col_csv_name((ht_col)c));
    ht_csv_field(o, b);
}

ht_col_bounds ht_store_bounds(const ht_store *s)
{
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);
    return (ht_col_bounds){.heap_used = t ? (double)t->heap_used : 0};
}

int ht_csv_close(ht_csv *o)
{
    o->f = NULL;
    return ht_outfile_commit(&o->out);
}

/* Row indexes by the store's rows they point at (qsort_r's context). */
static int by_bytes(const void *a, const void *b, void *ctx)
{
    const ht_store *s = ctx;
    const ht_agg_rec *x = &s->rows[*(const uint32_t *)a];
    const ht_agg_rec *y = &s->rows[*(const uint32_t *)b];
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
    qsort_r(idx, s->nrows, sizeof *idx, by_bytes, (void *)s);
    return idx;
}

int ht_export_sites(const ht_store *s, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"class",
                                       "frame",
                                       "stack",
                                       "samples",
                                       "dropped",
                                       "est_bytes",
                                       "est_instances",
                                       "live_samples",
                                       "live_est_bytes",
                                       "live_est_instances",
                                       "young_samples",
                                       "young_est_bytes",
                                       "young_est_instances",
                                       "diff_bytes",
                                       "diff_instances",
                                       "growth_bytes",
                                       "growth_instances",
                                       "over_bound",
                                       "truncated",
                                       NULL};
    ht_csv_header(&o, cols);
    ht_col_bounds bounds = ht_store_bounds(s);
    uint32_t *idx = ht_rows_by_bytes(s);
    for (uint32_t k = 0; idx && k < s->nrows; k++) {
        const ht_agg_rec *r = &s->rows[idx[k]];
        char frame[1024];
        ht_store_site_name(s, r->trace_id, frame, sizeof frame);
        char *stack = ht_store_stack_text(s, r->trace_id);
        ht_csv_field(&o, ht_store_class(s, r->class_id));
        ht_csv_field(&o, frame);
        ht_csv_field(&o, stack ? stack : "");
        free(stack);
        ht_csv_u64(&o, r->samples);
        ht_csv_u64(&o, r->dropped);
        ht_csv_est(&o, r->est_bytes);
        ht_csv_est(&o, r->est_instances);
        ht_csv_u64(&o, r->live_samples);
        ht_csv_est(&o, r->live_est_bytes);
        ht_csv_est(&o, r->live_est_instances);
        ht_csv_u64(&o, r->young_samples);
        ht_csv_est(&o, r->young_est_bytes);
        ht_csv_est(&o, r->young_est_instances);
        int mark = ht_store_has_mark(s);
        ht_csv_blank_or(&o, mark, r->diff_bytes, 0);
        ht_csv_blank_or(&o, mark, r->diff_instances, 0);
        ht_csv_blank_or(&o, mark, r->growth_bytes, 1);
        ht_csv_blank_or(&o, mark, r->growth_instances, 1);
        double v[HT_COL_COUNT] = {[HT_COL_LIVE_BYTES] = r->live_est_bytes,
                                  [HT_COL_GROWTH_BYTES] = mark ? r->growth_bytes : 0};
        ht_csv_over(&o, ht_col_over_mask(&bounds, v));
        ht_csv_field(&o, ht_store_trace_cut(s, r->trace_id) ? "1" : "0");
        ht_csv_end_row(&o);
    }
    free(idx);
    return ht_csv_close(&o);
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
        t[i].live_samples = r->live_samples;
        t[i].young_samples = r->young_samples;
        t[i].est_bytes = r->est_bytes;
        t[i].est_instances = r->est_instances;
        t[i].live_est_bytes = r->live_est_bytes;
        t[i].live_est_instances = r->live_est_instances;
        t[i].young_est_bytes = r->young_est_bytes;
        t[i].young_est_instances = r->young_est_instances;
        t[i].diff_bytes = r->diff_bytes;
        t[i].diff_instances = r->diff_instances;
        t[i].growth_bytes = r->growth_bytes;
        t[i].growth_instances = r->growth_instances;
    }
    /* Sum rows with the same class name (one class can have many sites). */
    qsort(t, s->nrows, sizeof *t, by_name);
    size_t m = 0;
    for (uint32_t i = 0; i < s->nrows; i++) {
        if (m && strcmp(t[m - 1].name, t[i].name) == 0) {
            t[m - 1].samples += t[i].samples;
            t[m - 1].live_samples += t[i].live_samples;
            t[m - 1].young_samples += t[i].young_samples;
            t[m - 1].est_bytes += t[i].est_bytes;
            t[m - 1].est_instances += t[i].est_instances;
            t[m - 1].live_est_bytes += t[i].live_est_bytes;
            t[m - 1].live_est_instances += t[i].live_est_instances;
            t[m - 1].young_est_bytes += t[i].young_est_bytes;
            t[m - 1].young_est_instances += t[i].young_est_instances;
            t[m - 1].diff_bytes += t[i].diff_bytes;
            t[m - 1].diff_instances += t[i].diff_instances;
            t[m - 1].growth_bytes += t[i].growth_bytes;
            t[m - 1].growth_instances += t[i].growth_instances;
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
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) {
        free(t);
        return -1;
    }
    static const char *const cols[] = {"class",           "samples",
                                       "est_bytes",       "est_instances",
                                       "live_est_bytes",  "live_est_instances",
                                       "young_est_bytes", "young_est_instances",
                                       "diff_bytes",      "diff_instances",
                                       "growth_bytes",    "growth_instances",
                                       "live_samples",    "young_samples",
                                       "over_bound",      NULL};
    int mark = ht_store_has_mark(s);
    ht_col_bounds bounds = ht_store_bounds(s);
    ht_csv_header(&o, cols);
    for (size_t i = 0; i < n; i++) {
        ht_csv_field(&o, t[i].name);
        ht_csv_u64(&o, t[i].samples);
        ht_csv_est(&o, t[i].est_bytes);
        ht_csv_est(&o, t[i].est_instances);
        ht_csv_est(&o, t[i].live_est_bytes);
        ht_csv_est(&o, t[i].live_est_instances);
        ht_csv_est(&o, t[i].young_est_bytes);
        ht_csv_est(&o, t[i].young_est_instances);
        ht_csv_blank_or(&o, mark, t[i].diff_bytes, 0);
        ht_csv_blank_or(&o, mark, t[i].diff_instances, 0);
        ht_csv_blank_or(&o, mark, t[i].growth_bytes, 1);
        ht_csv_blank_or(&o, mark, t[i].growth_instances, 1);
        ht_csv_u64(&o, t[i].live_samples);
        ht_csv_u64(&o, t[i].young_samples);
        double v[HT_COL_COUNT] = {[HT_COL_LIVE_BYTES] = t[i].live_est_bytes,
                                  [HT_COL_GROWTH_BYTES] = mark ? t[i].growth_bytes : 0};
        ht_csv_over(&o, ht_col_over_mask(&bounds, v));
        ht_csv_end_row(&o);
    }
    free(t);
    return ht_csv_close(&o);
}

int ht_progress_stop(const ht_progress *p, uint64_t done, uint64_t total)
{
    if (!p || !p->tick || done % HT_PROGRESS_EVERY != 0) return 0;
    return p->tick(p->ctx, done, total) != 0;
}

/* Drop a file whose writing was stopped: -1, errno ECANCELED. */
static int stopped(ht_csv *o)
{
    ht_csv_abort(o);
    errno = ECANCELED;
    return -1;
}

int ht_csv_write_rows(const char *path, const char *const *cols, uint64_t n,
                      void (*row)(ht_csv *o, const void *ctx, uint64_t i), const void *ctx,
                      const ht_progress *p)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    ht_csv_header(&o, cols);
    for (uint64_t i = 0; i < n; i++) {
        if (ht_progress_stop(p, i, n)) return stopped(&o);
        row(&o, ctx, i);
        ht_csv_end_row(&o);
    }
    return ht_csv_close(&o);
}

int ht_export_telemetry(const ht_store *s, const char *path, const ht_progress *p)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"t_ms",
                                       "heap_used",
                                       "heap_committed",
                                       "heap_max",
                                       "alloc_bytes",
                                       "gc_count",
                                       "gc_time_ms",
                                       "gc_pct",
                                       "threads",
                                       "classes",
                                       "samples",
                                       "dropped",
                                       "interval",
                                       "live_lag_ms",
                                       "untracked",
                                       "base_interval",
                                       "budget_pct",
                                       "agent_cpu_pct",
                                       "agent_cpu_ms_per_s",
                                       "cpu_sampler_ms_per_s",
                                       "cpu_floor_ms_per_s",
                                       NULL};
    ht_csv_header(&o, cols);
    for (uint32_t i = 0; i < s->ntelemetry; i++) {
        if (ht_progress_stop(p, i, s->ntelemetry)) return stopped(&o);
        const ht_telemetry_rec *t = &s->telemetry[i];
        ht_csv_u64(&o, t->t_ms);
        ht_csv_u64(&o, t->heap_used);
        ht_csv_u64(&o, t->heap_committed);
        ht_csv_u64(&o, t->heap_max);
        if (t->alloc_bytes == UINT64_MAX)
            ht_csv_field(&o, "");
        else
            ht_csv_u64(&o, t->alloc_bytes);
        ht_csv_u64(&o, t->gc_count);
        ht_csv_u64(&o, t->gc_time_ms);
        ht_csv_pct(&o, t->gc_pct);
        ht_csv_u64(&o, t->threads);
        ht_csv_u64(&o, t->classes);
        ht_csv_u64(&o, t->samples);
        ht_csv_u64(&o, t->dropped);
        ht_csv_u64(&o, t->interval);
        ht_csv_u64(&o, t->live_lag_ms);
        ht_csv_u64(&o, t->untracked);
        ht_csv_u64(&o, t->base_interval);
        ht_csv_pct(&o, t->budget_x100 / 100.0);
        ht_csv_pct(&o, t->agent_cpu_pct);
        ht_csv_pct(&o, t->agent_cpu_ms_per_s);
        ht_csv_pct(&o, t->cpu_sampler_ms_per_s);
        ht_csv_pct(&o, t->cpu_floor_ms_per_s);
        ht_csv_end_row(&o);
    }
    return ht_csv_close(&o);
}

/* "2024-05-01T12:34:56.789Z" for ms since the epoch. */
static void iso_time(uint64_t epoch_ms, char *out, size_t n)
{
    time_t secs = (time_t)(epoch_ms / 1000);
    struct tm tm;
    char b[32];
    if (!gmtime_r(&secs, &tm) || !strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm)) {
        snprintf(out, n, "?");
        return;
    }
    snprintf(out, n, "%s.%03uZ", b, (unsigned)(epoch_ms % 1000));
}

int ht_export_summary(const ht_store *s, const ht_summary_span *span, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"pid",
                                       "main_class",
                                       "jdk",
                                       "options",
                                       "interval",
                                       "start_ms",
                                       "start_time",
                                       "end_ms",
                                       "end_time",
                                       "samples",
                                       "dropped",
                                       "dropped_pct",
                                       "missed",
                                       "sites",
                                       "mark",
                                       "mark_ms",
                                       "depth",
                                       "file",
                                       "view",
                                       "sort",
                                       "class_filter",
                                       "frame_filter",
                                       "class",
                                       "cpu_mode",
                                       "cpu_interval_ms",
                                       "cpu_attribution",
                                       "t1",
                                       "t2",
                                       "scc",
                                       "count",
                                       NULL};
    ht_csv_header(&o, cols);
    const ht_store_info *in = &s->info;
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);
    char when[48];
    ht_csv_u64(&o, in->pid);
    ht_csv_field(&o, in->main_class);
    ht_csv_field(&o, in->jdk_version);
    ht_csv_field(&o, in->options);
    ht_csv_u64(&o, t ? t->interval : in->interval);
    ht_csv_u64(&o, span->start_ms);
    iso_time(in->start_epoch_ms + span->start_ms, when, sizeof when);
    ht_csv_field(&o, when);
    ht_csv_u64(&o, span->end_ms);
    iso_time(in->start_epoch_ms + span->end_ms, when, sizeof when);
    ht_csv_field(&o, when);
    if (t) {
        ht_csv_u64(&o, t->samples);
        ht_csv_u64(&o, t->dropped);
        ht_csv_pct(&o, t->samples ? 100.0 * (double)t->dropped / (double)t->samples : 0.0);
    } else {
        ht_csv_field(&o, "");
        ht_csv_field(&o, "");
        ht_csv_field(&o, "");
    }
    ht_csv_u64(&o, span->missed);
    ht_csv_u64(&o, s->nrows);
    /* the mark the diff and growth columns belong to, and how long it counted */
    const ht_mark_rec *mk = &s->mark;
    ht_csv_field(&o, mk->state == HT_MARK_RUNNING   ? "running"
                     : mk->state == HT_MARK_STOPPED ? "ended"
                                                    : "none");
    uint64_t mark_ms = mk->length_ms;
    if (mk->state == HT_MARK_RUNNING && t && t->t_ms > mk->t_ms) mark_ms += t->t_ms - mk->t_ms;
    if (mk->state == HT_MARK_NONE)
        ht_csv_field(&o, "");
    else
        ht_csv_u64(&o, mark_ms);
    /* stacks this deep may have been cut (sites.csv's truncated column) */
    ht_csv_u64(&o, in->depth);
    /* what a viewer's export shows; empty for `heaptop record` */
    ht_csv_field(&o, span->file);
    ht_csv_field(&o, span->view);
    ht_csv_field(&o, span->sort);
    ht_csv_field(&o, span->class_filter);
    ht_csv_field(&o, span->frame_filter);
    ht_csv_field(&o, span->only_class);
    /* the CPU sampler's mode and tick in force, and where its frames are
     * taken (cpu=on: at safepoints, so a frame may be the next poll's) */
    const char *mode = ht_cpu_mode_name(in->cpu_mode);
    ht_csv_field(&o, mode ? mode : "");
    char ms[32];
    snprintf(ms, sizeof ms, in->cpu_interval_us % 1000 ? "%.3f" : "%.0f",
             in->cpu_interval_us / 1000.0);
    ht_csv_field(&o, ms);
    ht_csv_field(&o, ht_cpu_attribution(in->cpu_mode));
    /* the Behaviour screen's thresholds and analysis (export_behaviour.h) */
    ht_csv_field(&o, span->t1);
    ht_csv_field(&o, span->t2);
    ht_csv_field(&o, span->scc);
    ht_csv_field(&o, span->count);
    ht_csv_end_row(&o);
    return ht_csv_close(&o);
}
