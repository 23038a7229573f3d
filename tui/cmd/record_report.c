/* record_report.c - see record_report.h. */
#include "record_report.h"

#include "bytesize.h"
#include "export_cpu.h"
#include "export_csv.h"
#include "export_drag.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Samples taken and dropped, from the last telemetry record; a distinct
 * warning when any were dropped, since every est_* then undercounts. */
void ht_record_report_drops(const ht_store *s)
{
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);
    if (!t) {
        fprintf(stderr, "heaptop record: no telemetry arrived, so dropped samples are unknown\n");
        return;
    }
    char taken[32], dropped[32], share[32];
    ht_format_count(t->samples, taken, sizeof taken);
    ht_format_count(t->dropped, dropped, sizeof dropped);
    double pct = t->samples ? 100.0 * (double)t->dropped / (double)t->samples : 0.0;
    snprintf(share, sizeof share,
             pct >= 10                ? "%.0f%%"
             : pct >= 0.1 || pct == 0 ? "%.1f%%"
                                      : "%.2g%%",
             pct);
    fprintf(stderr, "heaptop record: %s samples taken, %s dropped (%s)\n", taken, dropped, share);
    if (t->dropped)
        fprintf(stderr,
                "heaptop record: WARNING: %s of %s samples (%s) were dropped because the agent's "
                "event buffer was full; est_* columns undercount by about that share; raise "
                "buffer= or the interval\n",
                dropped, taken, share);
}

void ht_record_report_cpu(const ht_store *s)
{
    const ht_telemetry_rec *t = ht_store_last_telemetry(s);
    const char *mode = ht_cpu_mode_name(s->info.cpu_mode);
    if (s->info.cpu_mode == HT_CPU_OFF || !mode) {
        fprintf(stderr,
                "heaptop record: CPU sampling is %s (cpu.csv and threads.csv hold what "
                "it sampled before)\n",
                mode ? mode : "in an unknown mode");
        return;
    }
    char samples[32] = "?", failed[32] = "?";
    if (t) {
        ht_format_count(t->cpu_samples, samples, sizeof samples);
        ht_format_count(t->cpu_failed, failed, sizeof failed);
    }
    fprintf(stderr,
            "heaptop record: CPU sampling cpu=%s every %.3g ms, frames taken %s: %s samples "
            "(%s without a stack), %" PRIu32 " threads, %" PRIu32 " stacks\n",
            mode, s->info.cpu_interval_us / 1000.0, ht_cpu_attribution(s->info.cpu_mode), samples,
            failed, s->ncpu_threads, s->ncpu_rows);
    if (s->cpu_refused)
        fprintf(stderr,
                "heaptop record: WARNING: %" PRIu64 " CPU records past the viewer's caps were "
                "not kept (cpu.csv lacks them)\n",
                s->cpu_refused);
}

void ht_record_report_drag(const ht_store *s)
{
    const ht_drag_state_rec *st = &s->drag.rec;
    if (!s->drag.known || (!st->on && !st->samples && !s->ndrag_rows)) return;
    fprintf(stderr,
            "heaptop record: drag mode %s (filter %s%s%s): %" PRIu32 " classes, %" PRIu32
            " methods instrumented; %" PRIu64 " samples of its classes, %" PRIu64
            " tracked for last use; %" PRIu32 " sites%s\n",
            st->on ? "on" : "off", s->drag.filter[0] ? s->drag.filter : "none",
            s->drag.why[0] ? ", " : "", s->drag.why, st->classes, st->methods, st->samples,
            st->tracked, s->ndrag_rows, s->ndrag_rows ? " (drag.csv)" : "");
    if (s->drag_refused)
        fprintf(stderr,
                "heaptop record: WARNING: %" PRIu64 " drag rows past the viewer's cap were not "
                "kept (drag.csv lacks them)\n",
                s->drag_refused);
}

/* An estimate for the report (never negative): "812 bytes", "28.3 MiB". */
static void est_bytes(double v, char *out, size_t n)
{
    ht_format_bytes(v > 0 ? (uint64_t)llround(v) : 0, out, n);
}

/* One printed top row: what it shows (class as printed, then the allocating
 * frame) and its stack, for telling apart rows that would print alike. */
typedef struct top_row {
    char *key;
    const ht_strace *t;
    uint32_t parts; /* frames it shares with the closest row printed alike; 0: none */
} top_row;

static int frames_cmp(const ht_strace *a, const ht_strace *b)
{
    uint16_t da = a ? a->depth : 0, db = b ? b->depth : 0;
    for (uint16_t i = 0; i < da && i < db; i++) {
        const ht_frame_rec *x = &a->frames[i], *y = &b->frames[i];
        if (x->method_id != y->method_id) return x->method_id < y->method_id ? -1 : 1;
        if (x->line != y->line) return x->line < y->line ? -1 : 1;
    }
    return (da > db) - (da < db);
}

static int top_cmp(const void *pa, const void *pb)
{
    const top_row *a = *(top_row *const *)pa, *b = *(top_row *const *)pb;
    int c = strcmp(a->key, b->key);
    return c ? c : frames_cmp(a->t, b->t);
}

/* Frames a and b share from the allocating one down (their common prefix). */
static uint32_t shared_frames(const ht_strace *a, const ht_strace *b)
{
    uint32_t i = 0;
    while (a && b && i < a->depth && i < b->depth &&
           a->frames[i].method_id == b->frames[i].method_id &&
           a->frames[i].line == b->frames[i].line)
        i++;
    return i;
}

/* Rows printed alike (same class and allocating frame, differing deeper):
 * each gets the depth of the first frame where it parts from the others.
 * Sorted by text, then stack, the closest row of a group is a neighbour. */
static void tell_apart(top_row *rows, uint32_t n)
{
    top_row **by = malloc((n ? n : 1) * sizeof *by);
    if (!by) return;
    for (uint32_t i = 0; i < n; i++)
        by[i] = &rows[i];
    qsort(by, n, sizeof *by, top_cmp);
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (strcmp(by[i]->key, by[i + 1]->key) != 0) continue;
        uint32_t d = shared_frames(by[i]->t, by[i + 1]->t);
        if (d < 1) d = 1; /* printed alike though the frames' ids differ: the caller then */
        if (d > by[i]->parts) by[i]->parts = d;
        if (d > by[i + 1]->parts) by[i + 1]->parts = d;
    }
    free(by);
}

/* " <- ... <- via Foo.bar:12": where row r's stack parts from the rows
 * printed like it ("" for a row printed like no other). */
static void parting_text(const ht_store *s, const top_row *r, char *out, size_t n)
{
    out[0] = '\0';
    if (!r->parts) return;
    const char *gap = r->parts > 1 ? "... <- " : "";
    if (r->t && r->parts < r->t->depth) {
        char frame[512];
        ht_store_frame_name(s, &r->t->frames[r->parts], frame, sizeof frame);
        snprintf(out, n, " <- %svia %s", gap, frame);
    } else {
        snprintf(out, n, " <- %s(its stack ends here)", gap);
    }
}

void ht_record_print_top(const ht_store *s, int top)
{
    if (top <= 0) return;
    double total = 0;
    for (uint32_t i = 0; i < s->nrows; i++)
        total += s->rows[i].est_bytes;
    char tb[32];
    est_bytes(total, tb, sizeof tb);
    printf("Top allocation sites (estimated from %u sites, %s in all):\n", s->nrows, tb);
    printf("%10s %6s %12s %10s  %-40s %s\n", "est_bytes", "%", "est_inst", "live", "class",
           "frame");
    uint32_t *idx = ht_rows_by_bytes(s);
    uint32_t m = idx ? (s->nrows < (uint32_t)top ? s->nrows : (uint32_t)top) : 0;
    top_row *rows = calloc(m ? m : 1, sizeof *rows);
    if (!rows) m = 0;
    for (uint32_t k = 0; k < m; k++) {
        const ht_agg_rec *r = &s->rows[idx[k]];
        char frame[512], key[600];
        ht_store_site_name(s, r->trace_id, frame, sizeof frame);
        snprintf(key, sizeof key, "%-40.40s %s", ht_store_class(s, r->class_id), frame);
        rows[k].key = strdup(key);
        rows[k].t = ht_store_trace(s, r->trace_id);
        if (!rows[k].key) m = k; /* out of memory: print what is there */
    }
    tell_apart(rows, m);
    for (uint32_t k = 0; k < m; k++) {
        const ht_agg_rec *r = &s->rows[idx[k]];
        char b[32], lb[32], parting[600];
        est_bytes(r->est_bytes, b, sizeof b);
        est_bytes(r->live_est_bytes, lb, sizeof lb);
        parting_text(s, &rows[k], parting, sizeof parting);
        printf("%10s %5.1f%% %12.0f %10s  %s%s\n", b,
               total > 0 ? 100.0 * r->est_bytes / total : 0.0, r->est_instances, lb, rows[k].key,
               parting);
        free(rows[k].key);
    }
    free(rows);
    free(idx);
}
