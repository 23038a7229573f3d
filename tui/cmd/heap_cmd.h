/*
 * heap_cmd.h - `heaptop heap`: a heap dump's histogram, dominators and paths
 * to GC roots as CSV files, without a terminal.
 */
#ifndef HEAPTOP_HEAP_CMD_H
#define HEAPTOP_HEAP_CMD_H

#include "layout.h"

/* argv[0] is "heap". Exit status: 0, 1 (the dump or the files), 2 (usage). */
int ht_heap_main(int argc, char **argv);
/* "compressed", "uncompressed", "compact"; NULL for another name. */
const ht_layout *ht_layout_by_name(const char *name);

#endif
