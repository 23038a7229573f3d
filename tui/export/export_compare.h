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
 * p said stop), and then nothing is written (outdir.h's writer).
 *
 * Also survivors.csv: the agent's sampled objects of the two snapshots
 * joined by sample serial (compare.h, ht_survivors), per allocation site:
 * class,frame,stack, then new_samples,new_est_instances,new_est_bytes
 * (allocated after A, alive in B: the leak suspects), kept_ (alive in both),
 * freed_ (alive in A, gone from B), most new bytes first; the sites named
 * from the session B's marker carries. Two snapshots that cannot be joined
 * (no marker, two runs) give the header only, and the reason.
 */
#ifndef HEAPTOP_EXPORT_COMPARE_H
#define HEAPTOP_EXPORT_COMPARE_H

#include "compare.h"
#include "export_csv.h"
#include "store.h"

int ht_export_compare(const ht_compare_row *rows, uint32_t n, const char *path,
                      const ht_progress *p);
/* A survivor site's names, made on the thread that owns the store (a job's
 * copy of the store has no stacks): its class, its frame and its stack. */
typedef struct ht_survivor_label {
    char *cls, *frame, *stack;
} ht_survivor_label;
/* Labels of v[0..n) from names. 0, or -1 out of memory (*out untouched). */
int ht_survivor_labels(const ht_survivor_site *v, uint32_t n, const ht_store *names,
                       ht_survivor_label **out);
void ht_survivor_labels_free(ht_survivor_label *l, uint32_t n);
int ht_export_survivors(const ht_survivor_site *v, const ht_survivor_label *labels, uint32_t n,
                        const char *path, const ht_progress *p);

/* What survivors.csv holds, to say it. */
typedef struct ht_export_survivors_said {
    uint32_t sites;
    uint64_t fresh, kept; /* samples */
    const char *why;      /* why none were joined, or NULL */
} ht_export_survivors_said;

/* compare.csv at path, and survivors.csv at survivors_path (NULL: not), of a
 * (the older snapshot's figures) and snapshot b (of the dump at b_path; the
 * sites named from names, the session b's marker carries): the joins made
 * here and freed. 0, or -1 with errno set. */
int ht_export_compare_with(const ht_heap_figures *a, const ht_snapshot *b, const ht_store *names,
                           const char *b_path, const char *path, const char *survivors_path,
                           ht_export_survivors_said *said);

#endif
