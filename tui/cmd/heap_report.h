/*
 * heap_report.h - a heap dump analysed into CSV files, for `heaptop record
 * --heap`: histogram.csv, dominators.csv and duplicates.csv (export_heap.h)
 * in out_dir, the same files `heaptop heap` writes.
 *
 * Runs on the caller's thread, start to end (seconds for a big dump); reads
 * the dump, never changes or removes it (the caller decides). The files go
 * through outdir.h's one writer (0600, never through a symlink); paths in
 * its error texts are shown escaped (shown.h).
 */
#ifndef HEAPTOP_HEAP_REPORT_H
#define HEAPTOP_HEAP_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -1 with the reason in err. Also heap_sites.csv when the agent marked
 * its samples in the dump; *sites: its rows (0 without). */
int ht_heap_report(const char *dump_path, const char *out_dir, uint32_t *sites, char *err,
                   size_t errn);

#endif
