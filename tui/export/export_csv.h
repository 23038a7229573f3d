/*
 * export_csv.h - CSV files from a store, written with libcsv.
 *
 * Owns: the column layouts of sites.csv (its truncated column: a stack as deep
 * as the agent's depth option, which may have been cut; its over_bound column:
 * estimates above what the data allow, ht_csv_over), classes.csv,
 * telemetry.csv and summary.csv, row
 * order (largest est_bytes first) and number formatting. Every file has a
 * header row, the same number of fields on every row, CRLF line ends (RFC
 * 4180), and every field quoted by libcsv. Shared by `heaptop record` and the
 * TUI's export key. Every file goes through the one writer of outdir.h
 * (ht_outfile: a 0600 temporary, renamed onto its name when complete, never
 * following what was there). Returns -1 with errno set when a file cannot
 * be written; nothing is then left at its name.
 */
#ifndef HEAPTOP_EXPORT_CSV_H
#define HEAPTOP_EXPORT_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "columns.h"
#include "outdir.h"
#include "store.h"

/* One row per class, summed over sites. */
typedef struct ht_class_total {
    const char *name;
    uint64_t samples, live_samples, young_samples;
    double est_bytes, est_instances, live_est_bytes, live_est_instances;
    double young_est_bytes, young_est_instances;
    double diff_bytes, diff_instances, growth_bytes, growth_instances;
} ht_class_total;

/* Class totals sorted by est_bytes, largest first. Caller frees *out. */
int ht_class_totals(const ht_store *s, ht_class_total **out, size_t *n);
/* Row indexes of s->rows sorted by est_bytes, largest first. Caller frees. */
uint32_t *ht_rows_by_bytes(const ht_store *s);

/* The CSV writer every exporter uses: every field quoted by libcsv, CRLF
 * rows, into an ht_outfile (outdir.h). ht_csv_close commits it (0, or -1
 * with errno and nothing written); ht_csv_abort drops it (errno kept). */
typedef struct ht_csv {
    FILE *f;
    int fields; /* fields written on the current line */
    ht_outfile out;
} ht_csv;
int ht_csv_open(ht_csv *o, const char *path);
void ht_csv_abort(ht_csv *o);
void ht_csv_field(ht_csv *o, const char *text);
void ht_csv_u64(ht_csv *o, uint64_t v);
void ht_csv_object_id(ht_csv *o, uint64_t id); /* hex as the screens show it: "0xe0000000" */
void ht_csv_est(ht_csv *o, double v);          /* rounded, never negative */
void ht_csv_signed(ht_csv *o, double v);       /* rounded, may be negative (growth) */
void ht_csv_blank_or(ht_csv *o, int has, double v, int is_signed); /* "" when !has */
void ht_csv_pct(ht_csv *o, double v);
void ht_csv_end_row(ht_csv *o);
void ht_csv_header(ht_csv *o, const char *const *names); /* NULL-terminated */
/* A list's file (columns.h's HT_VIEW_*): the header is `before`, the CSV
 * names of the figures the list shows (ht_col_view_files), then `after`
 * (both NULL-terminated); a row's figures are v's (by ht_col) in that order,
 * each written as its column's kind says: a share as a percentage, the
 * mark's blank without a mark, sample counts whole, estimates rounded. */
void ht_csv_view_header(ht_csv *o, const char *const *before, unsigned view,
                        const char *const *after);
void ht_csv_view_figures(ht_csv *o, unsigned view, const double *v, int mark);
/* The over_bound field: the CSV names (ht_col_csv_name) of the figures of a
 * row above the bound the data give (bit c of `over`, ht_col_over_mask:
 * live and growth bytes above the heap's used bytes as of the last
 * telemetry row, retained bytes above the snapshot's), space-separated; ""
 * when none. The figures themselves are written as estimated, unclamped:
 * sums over rows still add up, and over many runs they stay unbiased. */
void ht_csv_over(ht_csv *o, unsigned over);
/* The bounds a store gives (columns.h): the heap's used bytes, last telemetry. */
ht_col_bounds ht_store_bounds(const ht_store *s);
int ht_csv_close(ht_csv *o);

/* How far a long export got, told every few thousand rows (the exports of
 * the TUI run as jobs off the UI thread); a non-zero answer stops it: the
 * writer returns -1 with errno ECANCELED (and writes nothing). */
typedef struct ht_progress {
    int (*tick)(void *ctx, uint64_t done, uint64_t total);
    void *ctx;
} ht_progress;
/* Call p's tick (p may be NULL) every HT_PROGRESS_EVERY rows: 1 to stop. */
#define HT_PROGRESS_EVERY 4096
int ht_progress_stop(const ht_progress *p, uint64_t done, uint64_t total);
/* A whole file of n rows: the header cols (NULL-terminated), then row(o, ctx,
 * i) writes the fields of row i (the row is ended here), p told as it goes.
 * 0, or -1 with errno set (ECANCELED when p stopped it; nothing written). */
int ht_csv_write_rows(const char *path, const char *const *cols, uint64_t n,
                      void (*row)(ht_csv *o, const void *ctx, uint64_t i), const void *ctx,
                      const ht_progress *p);

int ht_export_sites(const ht_store *s, const char *path);
int ht_export_classes(const ht_store *s, const char *path);
/* Telemetry rows; p (NULL: none) is told how far it got and may stop it. */
int ht_export_telemetry(const ht_store *s, const char *path, const ht_progress *p);

/* What summary.csv says beyond the store: the span the viewer followed, in ms
 * since the agent started (the totals in the other files count from the
 * agent's start), the stream messages the viewer missed, and, for the TUI's
 * export of a screen, the file it describes and what the screen applied
 * (NULL: an empty field, as in `heaptop record`). */
typedef struct ht_summary_span {
    uint64_t start_ms, end_ms;
    uint64_t missed;
    const char *file;         /* the data file's name */
    const char *view;         /* tree, hotspots, classes, telemetry */
    const char *sort;         /* "GROWTH B desc" */
    const char *class_filter; /* as typed */
    const char *frame_filter;
    const char *only_class; /* the tree opened from the class table */
    /* the Behaviour screen's analysis: t1, t2 as shown ("0.10"), scc
     * (literal, none), count (distinct, raw); NULL elsewhere */
    const char *t1, *t2, *scc, *count;
} ht_summary_span;
/* One header row and one row: pid, main_class, jdk, options, interval,
 * start_ms, start_time, end_ms, end_time, samples, dropped, dropped_pct,
 * missed, sites, mark, mark_ms, depth, file, view, sort, class_filter,
 * frame_filter, class, cpu_mode, cpu_interval_ms, cpu_attribution, t1, t2, scc,
 * count (the last four a Behaviour export's, empty otherwise). Times are
 * ISO 8601 UTC with milliseconds; samples, dropped and interval come from the
 * last telemetry record (empty without one); depth is the agent's stack depth
 * (a stack that deep may be cut); the CPU sampler's mode and tick are those
 * in force, cpu_attribution where its frames are taken (export_cpu.h). */
int ht_export_summary(const ht_store *s, const ht_summary_span *span, const char *path);

#endif
