/*
 * export_compare.h - compare.csv: two heap snapshots compared class by class
 * (compare.h), written with libcsv (the writer of export_csv.h).
 *
 * Owns: that file's columns, class,instances_a,instances_b,bytes_a,bytes_b
 * (a is the older snapshot, bytes are shallow bytes; a class absent from one
 * snapshot has 0 there), one row per class name, in the order given (the
 * compare's: the biggest change of bytes either way first). Shared by
 * `heaptop heap A B` and the Compare screen's export key. Runs on the
 * caller's thread (a job's worker in the viewer); reads the rows only.
 * Returns -1 with errno set when the file cannot be written (ECANCELED when
 * p said stop: the caller removes the file).
 */
#ifndef HEAPTOP_EXPORT_COMPARE_H
#define HEAPTOP_EXPORT_COMPARE_H

#include "compare.h"
#include "export_csv.h"

int ht_export_compare(const ht_compare_row *rows, uint32_t n, const char *path,
                      const ht_progress *p);
/* compare.csv of a (the older snapshot's figures) and snapshot b (of the
 * dump at b_path): the join made here and freed. 0, or -1 with errno set. */
int ht_export_compare_with(const ht_heap_figures *a, const ht_snapshot *b, const char *b_path,
                           const char *path);

#endif
