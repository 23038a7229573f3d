/*
 * heap_report.h - a heap dump analysed into CSV files, for `heaptop record
 * --heap`: histogram.csv, dominators.csv, duplicates.csv, behaviour.csv and
 * behaviour_edges.csv (export_heap.h, export_behaviour.h) in out_dir, the
 * same files `heaptop heap` writes; and the behaviour files alone, with the
 * behaviour options of `heaptop heap`, for both commands.
 *
 * Runs on the caller's thread, start to end (seconds for a big dump); reads
 * the dump, never changes or removes it (the caller decides). The files go
 * through outdir.h's one writer (0600, never through a symlink); paths in
 * its error texts are shown escaped (shown.h).
 */
#ifndef HEAPTOP_HEAP_REPORT_H
#define HEAPTOP_HEAP_REPORT_H

#include "analysis.h"
#include "behaviour.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The behaviour options of `heaptop heap` (record --heap: the defaults). */
typedef struct ht_bhv_report_opts {
    ht_bhv_opts o; /* scc, count */
    double t1, t2; /* in (0, 1] */
} ht_bhv_report_opts;
#define HT_BHV_REPORT_DEFAULTS ((ht_bhv_report_opts){.t1 = 0.1, .t2 = 0.1})

/* What the behaviour files hold, for the command's summary line. */
typedef struct ht_bhv_report_said {
    uint32_t nodes, edges, dropped, flagged; /* nodes but ROOT; flagged at t1 */
    uint32_t selfs;                          /* nodes with a self-edge (rself > 0) */
    double overcount;                        /* MD_ROOT / reachable bytes (0: none) */
    double build_s;
    char top[256];         /* the first by rank ("" when none) */
    uint32_t top_branches; /* its forward branches at t1 */
    uint32_t top_backward; /* its backward edges at t2 */
    char why[160];         /* no ranking: why (the build's error), "" otherwise */
} ht_bhv_report_said;

/* behaviour.csv and behaviour_edges.csv of x in out_dir: x's own analysis
 * (x->bhv) with the default scc and count, else one built here with o's.
 * 0, or -1 with the reason in err. said may be NULL. */
int ht_heap_report_behaviour(ht_heap *x, const ht_bhv_report_opts *o, const char *out_dir,
                             ht_bhv_report_said *said, char *err, size_t errn);

/* The two `behaviour:` lines both commands print, into f: the counts
 * (nodes, edges, those the cycle rule dropped, and apart from them the
 * self-edge rows behaviour_edges.csv also has, kept 0), the overcount and
 * the flagged nodes; then the first node's branches and backward edges. A
 * failed build: one line saying why. prefix goes before each ("" or
 * "heaptop record: "). */
void ht_heap_report_say(FILE *f, const char *prefix, const ht_bhv_report_opts *o,
                        const ht_bhv_report_said *s);

/* 0, or -1 with the reason in err. Also heap_sites.csv when the agent marked
 * its samples in the dump; *sites: its rows (0 without). said (may be NULL):
 * what the behaviour files hold (the defaults' analysis). */
int ht_heap_report(const char *dump_path, const char *out_dir, uint32_t *sites,
                   ht_bhv_report_said *said, char *err, size_t errn);

#endif
