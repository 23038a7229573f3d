/*
 * export_heap.h - CSV files from a heap snapshot, written with libcsv (the
 * writer of export_csv.h): histogram.csv, dominators.csv, paths.csv and
 * duplicates.csv.
 *
 * Owns: those files' columns and row order. Shared by `heaptop heap`,
 * `heaptop record --heap` and the heap screens' export key. Runs on the
 * caller's thread; reads the snapshot only. Returns -1 with errno set when a
 * file cannot be written (ECANCELED when p said stop).
 */
#ifndef HEAPTOP_EXPORT_HEAP_H
#define HEAPTOP_EXPORT_HEAP_H

#include "analysis.h"
#include "dominators.h"
#include "export_csv.h"
#include "paths.h"
#include "snapshot.h"
#include "store.h"

/* class,instances,shallow_bytes,retained_bytes: every class with instances,
 * biggest shallow bytes first; retained by class (ht_heap_class_retained: a
 * lower bound). */
int ht_export_histogram(const ht_snapshot *s, const uint64_t *retained, const char *path);
/* object_id,class,shallow_bytes,retained_bytes,parent_id: the `top` objects
 * with the biggest retained size, biggest first; parent_id is the immediate
 * dominator, empty for the virtual root. Ids in hex as the screens show them
 * ("0xe0000000"), class names in Java's spelling ("int[]") as in every CSV. */
int ht_export_dominators(const ht_snapshot *s, const ht_dominators *d, uint32_t top,
                         const char *path);
/* object_id,class,path: up to `max` instances of the class named cls (in
 * either spelling: "[I" or "int[]"), their shortest path from a GC root (p:
 * strong references): first the instances a root reaches, by address, then
 * the others, their path column saying why there is none (d tells
 * unreachable garbage from weakly reachable; NULL: not told). Ids in hex. */
typedef struct ht_paths_found {
    uint64_t instances; /* of the class in the dump */
    uint64_t reached;   /* of them with a path from a GC root */
    uint64_t written;   /* rows */
} ht_paths_found;
int ht_export_paths(const ht_snapshot *s, const ht_paths *p, const ht_dominators *d,
                    const char *cls, uint32_t max, const char *path, ht_paths_found *found);

/* class,frame,stack,samples_in_heap,heap_est_instances,heap_est_shallow_bytes,
 * heap_est_retained_bytes,live_est_bytes,live_est_instances,over_bound: per
 * allocation site of the agent's samples marked in the dump (heap_sites.h),
 * biggest estimated retained bytes first, named from the session the dump's
 * marker carries (names: ht_store_from_session of it; its live_ columns are
 * the agent's figures as of the dump). over_bound is heap_est_retained_bytes
 * when that estimate is above the snapshot's bytes (retained sets nest: each
 * node of a list retains the rest of it), kept as estimated. A dump without
 * samples gives the header only. */
int ht_export_heap_sites(const ht_heap *x, const ht_store *names, const char *path);
/* class,copies,bytes_each,wasted_bytes,preview: every group of duplicate
 * objects (duplicates.h), most wasted first; the preview is one copy's
 * content (values.h, ht_object_content), cut to 200 bytes. */
int ht_export_duplicates(const ht_snapshot *s, const ht_dups *g, const char *path);

#endif
