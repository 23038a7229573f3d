/*
 * source_lines.h - `heaptop record --source`'s lines.csv: every source line
 * the store's stacks pass through, with its figures and its text.
 *
 * Owns: which files the store's frames are in (a method's class and
 * SourceFile made a relative name, source_find.h: the name the Source screen
 * looks for), the rows (allocation and CPU, source_rows.h) through each
 * file, each file found on the source path given and then the JDK's
 * src.zip (found for the JVM as the Source screen finds it, source_path.h)
 * and read once, its lines' figures summed by the margin (source_margin.h)
 * over only the rows through that file, and the rows written file by file
 * in the order of the files' names, then of lines (export_lines.h). A file
 * found nowhere still gets its lines' figures, with no text.
 *
 * Threads: record's main thread, after the recording (it reads files and
 * zips); the store must not change meanwhile. Must never: hold more than
 * one file's text at a time, or trust a frame's line number: a margin holds
 * at most HT_LINES_MAX_LINE lines, and a frame past that is not counted.
 */
#ifndef HEAPTOP_SOURCE_LINES_H
#define HEAPTOP_SOURCE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "source_path.h"
#include "store.h"

#define HT_LINES_MAX_LINE (1u << 20)

/* dir/lines.csv from s's rows, the files looked for on `given` and then the
 * JDK's src.zip of the JVM pid (0: none running; by s's JDK version only).
 * 0 and one line in say: what was written ("wrote DIR/lines.csv: N lines of
 * F files"), which files were found nowhere and why the JDK's sources were
 * not searched; or -1 and one line in say: why nothing was written (out of
 * memory, the file could not be written: nothing is then left at its name). */
int ht_source_lines_write(const ht_store *s, const ht_source_path *given, uint32_t pid,
                          const char *dir, char *say, size_t sayn);

#endif
