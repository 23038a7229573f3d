/*
 * export_lines.h - lines.csv: the allocation bytes and CPU ms of each
 * source line, with its text (libcsv, through export_csv.h's writer).
 *
 * Owns: its column layout and number formatting.
 *   lines.csv: file,line,alloc_bytes,cpu_ms,text -- one row per source line
 *              that has allocation bytes or CPU time. file is the class's
 *              source file as it is looked for (pkg/Outer.java; the JDK's
 *              java/util/ArrayList.java), line from 1; alloc_bytes the
 *              estimated bytes allocated by the stacks through the line and
 *              cpu_ms (three decimals) the CPU of the CPU samples' stacks
 *              through it, each stack counted once a line (the Source
 *              screen's margin); text the line's bytes as in the file
 *              without its line end (a NUL byte written as '?'), empty when
 *              the file was not found.
 * Which lines, in which order, and their figures are the caller's
 * (source_lines.h, which reads the files): this writes rows as they come,
 * so no more than one file's text is held at a time. No terminal, no
 * network; runs on whichever thread calls it.
 */
#ifndef HEAPTOP_EXPORT_LINES_H
#define HEAPTOP_EXPORT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export_csv.h"

/* The file opened at path and its header written: 0, or -1 with errno. */
int ht_export_lines_open(ht_csv *o, const char *path);
/* One row; text is len bytes (any bytes; NULL: the file was not found). */
void ht_export_lines_row(ht_csv *o, const char *file, uint32_t line, double alloc_bytes,
                         double cpu_ms, const char *text, size_t len);
/* The file committed (ht_csv_close) or dropped (ht_csv_abort). */

/* Its header, one line ("lines.csv:   file,..."), for `heaptop
 * --csv-headers` (docs/csv-formats.md holds it). */
void ht_export_lines_headers(FILE *f);

#endif
