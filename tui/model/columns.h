/*
 * columns.h - the figures the list screens show (allocation tree, classes,
 * CPU tree, threads) and the one place that decides which of them fit the
 * terminal.
 *
 * Owns: the column ids (also the sort keys of the site tree and the class
 * table), the one table that says what each column is (ht_col_info: title,
 * file name, kind, display priority, which lists show it, where its figure
 * comes from), and the layout. A screen says, for each numeric
 * column, how wide its values want to be in the current unit, how narrow it
 * can go (values then fall back to automatic units), and its priority; the
 * layout keeps the name column at least `name_min` wide and fits numeric
 * columns in priority order: each at its wanted width, else at its narrowest,
 * else it is left out. Names come first: numeric columns are narrowed and
 * dropped before the name goes below its minimum. Pure arithmetic, no
 * terminal and no store: called on the UI thread and by unit tests.
 */
#ifndef HEAPTOP_COLUMNS_H
#define HEAPTOP_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

#include "protocol.h"

/* Bytes first, so a zeroed sort key means "by bytes". */
typedef enum ht_col {
    HT_COL_BYTES = 0,
    HT_COL_PCT, /* share of the total bytes: sorts as HT_COL_BYTES */
    HT_COL_INSTANCES,
    HT_COL_LIVE_BYTES,
    HT_COL_LIVE_INSTANCES,
    HT_COL_YOUNG_BYTES,
    HT_COL_DIFF_BYTES,
    HT_COL_DIFF_INSTANCES,
    HT_COL_GROWTH_BYTES,
    HT_COL_HEAP_OBJECTS,  /* a heap snapshot's objects of the site (estimated) */
    HT_COL_HEAP_RETAINED, /* the bytes they retain (estimated) */
    HT_COL_SAMPLES,       /* the samples BYTES, INST and the diff rest on */
    HT_COL_LIVE_SAMPLES,  /* the samples LIVE and GROWTH rest on */
    /* the threads table's own */
    HT_COL_THREAD_STATE, /* a thread's state (ht_thread_state): drawn as its name */
    HT_COL_CPU_NOW,      /* a thread's CPU % in the last second */
    /* the CPU sampler's (HT_COL_CPU_FIRST..HT_COL_CPU_LAST: a CPU tree's
     * node keeps them in its figures from 0 on, site_tree.h) */
    HT_COL_CPU_MS,           /* CPU time through a frame (or a thread's) */
    HT_COL_CPU_PCT,          /* its share of the list's CPU: sorts as HT_COL_CPU_MS */
    HT_COL_SELF_MS,          /* CPU time in the frame itself (the leaf of the stack) */
    HT_COL_SELF_PCT,         /* its share: sorts as HT_COL_SELF_MS */
    HT_COL_CPU_SAMPLES,      /* the stacks CPU ms rests on */
    HT_COL_DIFF_CPU_MS,      /* CPU ms while the mark ran */
    HT_COL_DIFF_CPU_SAMPLES, /* stacks while the mark ran */
    HT_COL_NAME,
    HT_COL_COUNT
} ht_col;

/* What kind of figure a column holds. */
enum {
    HT_COLF_COUNT = 1u << 0,   /* a count (instances, samples), not bytes */
    HT_COLF_MARK = 1u << 1,    /* the mark's: blank while there is none */
    HT_COLF_SIGNED = 1u << 2,  /* can be negative (growth) */
    HT_COLF_LIVE = 1u << 3,    /* rests on the live samples, not all samples */
    HT_COLF_HEAP = 1u << 4,    /* a heap snapshot's: shown only with one on screen */
    HT_COLF_SHARE = 1u << 5,   /* a share of the list's total of share_of (sorts as it) */
    HT_COLF_MS = 1u << 6,      /* milliseconds */
    HT_COLF_PERCENT = 1u << 7, /* a percentage figure of its own (CPU % now) */
    HT_COLF_CPU = 1u << 8,     /* rests on the CPU samples (HT_COL_CPU_SAMPLES) */
    HT_COLF_TEXT = 1u << 9,    /* a small number drawn as a word (a thread's state) */
};
#define HT_COL_CPU_FIRST HT_COL_CPU_MS
#define HT_COL_CPU_LAST  HT_COL_DIFF_CPU_SAMPLES /* the last a tree node holds */
/* The lists that show a column (and write it to their files). */
enum {
    HT_VIEW_TREE = 1u << 0,    /* the allocation tree (and hot spots) */
    HT_VIEW_CLASSES = 1u << 1, /* the classes screen */
    HT_VIEW_LISTS = HT_VIEW_TREE | HT_VIEW_CLASSES,
    HT_VIEW_CPU = 1u << 2,     /* the CPU tree and hot spots */
    HT_VIEW_THREADS = 1u << 3, /* the threads table */
};
/* Where a figure comes from. */
typedef enum ht_col_from {
    HT_FROM_NONE = 0,
    HT_FROM_AGG,       /* a double of the agent's ht_agg_rec, at agg_off */
    HT_FROM_AGG_COUNT, /* a uint64_t of it (sample counts) */
    HT_FROM_SHARE,     /* computed: a row's share of the list's bytes */
    HT_FROM_HEAP,      /* the heap snapshot on screen */
    HT_FROM_CPU_ROW,   /* a uint64_t of the agent's ht_cpu_row_rec, at agg_off (ns: HT_COLF_MS) */
    HT_FROM_THREAD,    /* a thread's own (ht_col_from_thread) */
} ht_col_from;

typedef struct ht_col_info {
    const char *title; /* on the title row: "BYTES", "GROWTH B" */
    const char *csv;   /* in CSV headers: "est_bytes" */
    const char *help;  /* what it means, for the docs' reference (ht_col_reference) */
    unsigned flags;    /* HT_COLF_* */
    int rank;          /* kept when a line is short: smaller first */
    unsigned views;    /* HT_VIEW_*: the lists that show it */
    ht_col_from from;
    size_t agg_off;
    int share_of; /* HT_COLF_SHARE: the column it is a share of (+1: 0 means bytes) */
} ht_col_info;

/* The row of column c (a placeholder row past the last). */
const ht_col_info *ht_col_info_of(ht_col c);
/* The figures an agent row gives, into v (indexed by ht_col; the others
 * are left as they are). */
void ht_col_from_agg(const ht_agg_rec *r, double *v);
/* The same for a CPU row and a CPU thread (nanoseconds become ms). */
void ht_col_from_cpu_row(const ht_cpu_row_rec *r, double *v);
void ht_col_from_thread(const ht_cpu_thread_rec *t, double *v);
/* The columns a list shows, in display order (heap: with a snapshot on
 * screen), into out[0..max); how many. */
int ht_col_view(unsigned view, int heap, ht_col *out, int max);
/* The columns its sort keys step through: those shown that sort as
 * themselves (not %), then NAME where the list sorts by name. */
int ht_col_view_sorts(unsigned view, int heap, ht_col *out, int max);
/* The figures its files hold, in file (enum) order: those shown, without
 * the snapshot's. */
int ht_col_view_files(unsigned view, ht_col *out, int max);
/* The reference of every column, one line each in display order: title,
 * the lists that show it, its CSV name, what it means (`heaptop --columns`,
 * which docs/usage.md holds). */
void ht_col_reference(FILE *f);
/* The column a sort by c orders by (a share: the column it is a share of,
 * HT_COL_PCT: HT_COL_BYTES). */
ht_col ht_col_sort_key(ht_col c);
/* A share drawn as a percentage ("12.3%"): shares and HT_COLF_PERCENT. */
int ht_col_is_percent(ht_col c);
/* Milliseconds. */
int ht_col_is_ms(ht_col c);

/* Short title for the title row ("BYTES", "GROWTH B", ...). */
const char *ht_col_title(ht_col c);
/* The column's name in CSV headers ("est_bytes", "samples", ...). */
const char *ht_col_csv_name(ht_col c);
/* Instances are counts; the other numeric columns are bytes or a share. */
int ht_col_is_count(ht_col c);
/* Diff and growth belong to the mark: blank while there is none. */
int ht_col_is_mark(ht_col c);
/* What is kept longest when a line is short (smaller first): bytes, live,
 * the mark's growth and diff, then the rest; the samples after the figures
 * they qualify and after INST, so that a narrow line drops them first. */
int ht_col_rank(ht_col c);

/* How sure a figure is: the samples column it rests on (HT_COL_LIVE_SAMPLES
 * for live and growth, HT_COL_SAMPLES for the rest), and whether a row's
 * figure in column c rests on fewer than HT_FEW_SAMPLES (estimate.h: one
 * standard error over 30%); v is the row's figures indexed by column, its
 * samples columns filled. Screens dim such a row. */
ht_col ht_col_samples_of(ht_col c); /* CPU columns: HT_COL_CPU_SAMPLES */
int ht_col_few(const double *v, ht_col c);

/* The bounds the data give a column's figures: no class's or site's LIVE
 * or GROWTH bytes can exceed the heap's used bytes (the latest telemetry: a
 * live object is in the heap, after any collection), and no site's RETAINED
 * the heap snapshot's bytes. (YOUNG has none: it counts objects allocated
 * since a collection the agent could rely on, dead ones too, and the heap's
 * used bytes read right after a later one can be fewer.) An estimate
 * above its bound rests on too few samples (large intervals, a budget that
 * raised it) or, for RETAINED, on retained sets that nest (each sampled
 * object of a linked list retains the rest of it): it is kept as estimated
 * (files keep it, flagged over_bound, so sums still add up) but a screen
 * shows HT_COL_OVER_MARK in its place, never a number larger than the heap. */
typedef struct ht_col_bounds {
    double heap_used;      /* 0: not known */
    double snapshot_bytes; /* 0: no snapshot */
} ht_col_bounds;
#define HT_COL_OVER_MARK ">heap"
/* Column c's bound (0: none); is v above it? */
double ht_col_bound(const ht_col_bounds *b, ht_col c);
int ht_col_over(const ht_col_bounds *b, ht_col c, double v);
/* Bit c set for each column of v (HT_COL_COUNT figures) above its bound. */
unsigned ht_col_over_mask(const ht_col_bounds *b, const double *v);

typedef struct ht_col_req {
    ht_col col;
    int want;     /* width its values need as the user asked for them */
    int min;      /* narrowest width that still holds every value */
    int priority; /* smaller is kept longer */
} ht_col_req;

typedef struct ht_col_slot {
    ht_col col;
    int x, w; /* a one-space gap follows each numeric column */
} ht_col_slot;

typedef struct ht_col_layout {
    ht_col_slot slot[HT_COL_COUNT]; /* numeric columns drawn, in display order */
    int n;
    int name_x, name_w; /* the name takes the rest of the line */
} ht_col_layout;

/* Lay out `n` numeric columns (given in display order) on a line of `cols`
 * columns, keeping at least `name_min` for the name. */
void ht_col_layout_make(ht_col_layout *l, const ht_col_req *req, int n, int cols, int name_min);
/* The column drawn at x (a numeric column's gap counts as that column):
 * a numeric column, HT_COL_NAME, or HT_COL_COUNT past the line. */
ht_col ht_col_layout_at(const ht_col_layout *l, int x);
/* The slot of column c, or NULL when it is not drawn. */
const ht_col_slot *ht_col_layout_find(const ht_col_layout *l, ht_col c);
/* Put HT_COL_OVER_MARK, right-aligned, in the cell of every column of `over`
 * (bits by ht_col) drawn in a line of cells laid out by l, of length len. */
void ht_col_mark_over(const ht_col_layout *l, unsigned over, char *line, size_t len);

#endif
