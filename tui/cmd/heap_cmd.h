/*
 * heap_cmd.h - `heaptop heap`: a heap dump's histogram, dominators and paths
 * to GC roots as CSV files, without a terminal.
 */
#ifndef HEAPTOP_HEAP_CMD_H
#define HEAPTOP_HEAP_CMD_H

/* argv[0] is "heap". Exit status: 0, 1 (the dump or the files), 2 (usage). */
int ht_heap_main(int argc, char **argv);

#endif
