/*
 * export_views.h - CSV export of what a TUI screen shows, after its filters.
 *
 * Owns: the layouts of the tree export (one row per node, with depth and the
 * full path from the root) and of the class-table export (every column, diff
 * columns included). Writes through the same libcsv writer as
 * `heaptop record` (export_csv.c). -1 with errno when the file cannot be written.
 */
#ifndef HEAPTOP_EXPORT_VIEWS_H
#define HEAPTOP_EXPORT_VIEWS_H

#include "class_table.h"
#include "site_tree.h"
#include "store.h"

int ht_export_tree(const ht_site_tree *t, const ht_store *s, const char *path);
int ht_export_class_table(const ht_class_table *t, const ht_store *s, const char *path);

#endif
