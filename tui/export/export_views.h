/*
 * export_views.h - CSV export of what a TUI screen shows, after its filters.
 *
 * Owns: the layouts of the tree export (allocation or CPU tree: one row per
 * node in the screen's order, each with an id and its parent's id instead of the path, so a 2048
 * frame stack costs one row per frame, not its square) and of the
 * class-table and threads exports (every column, diff columns included), both with the
 * samples each figure rests on and over_bound (export_csv.h), and the names of
 * export files: heaptop-<view>-<time>[-N].csv with a companion
 * ...summary.csv, both created exclusively (0600, never through a symlink:
 * outdir.h) so that an export never overwrites another. Writes through the same libcsv writer as
 * `heaptop record` (export_csv.c). -1 with errno when a file cannot be
 * written. The TUI runs them as jobs, on copies of its tree and table; no
 * terminal.
 */
#ifndef HEAPTOP_EXPORT_VIEWS_H
#define HEAPTOP_EXPORT_VIEWS_H

#include <stddef.h>

#include "class_table.h"
#include "site_tree.h"
#include "thread_table.h"
#include "store.h"

#include "export_csv.h"

/* The tree's nodes in pre-order (the allocation tree's columns or the CPU
 * tree's, as it was built), telling p (NULL: none) how far they got
 * and stopping when it says so. */
int ht_export_tree(const ht_site_tree *t, const ht_store *s, const char *path,
                   const ht_progress *p);
/* The two files' headers as the docs show them, one line each ("tree:
 * id,parent,...", "classes: class,...": `heaptop --csv-headers`, which
 * docs/csv-formats.md holds). */
void ht_export_views_headers(FILE *f);
/* The class table's rows; p as ht_export_tree's. */
int ht_export_class_table(const ht_class_table *t, const ht_store *s, const char *path,
                          const ht_progress *p);
/* The threads table's rows: name, id, its columns (state by name, CPU ms
 * and CPU % now to a tenth), daemon; p as ht_export_tree's. */
int ht_export_threads(const ht_thread_table *t, const ht_store *s, const char *path,
                      const ht_progress *p);
/* Create two new empty files in dir, DIR/heaptop-VIEW-STAMP[-N].csv and
 * DIR/heaptop-VIEW-STAMP[-N].summary.csv, with the smallest N (none, 2, 3,
 * ...) for which neither exists, and put their paths in data and summary.
 * 0, or -1 with errno. */
int ht_export_reserve(const char *dir, const char *view, const char *stamp, char *data,
                      char *summary, size_t n);

#endif
