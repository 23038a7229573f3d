/*
 * export_heap.h - CSV files from a heap snapshot, written with libcsv (the
 * writer of export_csv.h): histogram.csv, dominators.csv, paths.csv,
 * heap_sites.csv and duplicates.csv; and the heap screens' exports (the e
 * key on heap classes, dominators, duplicates, references): the rows shown.
 *
 * Owns: those files' columns and row order. Shared by `heaptop heap`,
 * `heaptop record --heap` and the heap screens' export key. Runs on the
 * caller's thread (a job's worker in the viewer); reads the snapshot, or the
 * rows given, only. Returns -1 with errno set when a file cannot be written
 * (ECANCELED when p said stop).
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

/* --- the heap screens' export key (heap_list.h): a copy of the rows shown,
 * made on the UI thread (strings owned by it), written and freed on a job's;
 * each _write has the signature of ht_export_req's write (the store unused),
 * each _free its free_rows. _new(n): room for n rows, none counted yet (n
 * counts the rows filled, which _free frees), NULL out of memory. --- */

/* The heap classes screen: class,instances,shallow_bytes,retained_bytes,
 * loader (histogram.csv's columns, and the class's loader in words). */
typedef struct ht_export_class_row {
    char *name;
    uint64_t instances, shallow, retained;
    char loader[64];
} ht_export_class_row;
typedef struct ht_export_heap_classes {
    uint32_t n;
    ht_export_class_row *r;
} ht_export_heap_classes;
ht_export_heap_classes *ht_export_heap_classes_new(uint32_t n);
void ht_export_heap_classes_free(void *rows);
int ht_export_heap_classes_write(const void *rows, const ht_store *st, const char *path,
                                 const ht_progress *p);

/* The dominator tree as unfolded: depth,object_id,class,shallow_bytes,
 * retained_bytes, one row an object; a row standing for the children not
 * shown (more > 0) has its depth and "... N more" as its class only. */
typedef struct ht_export_dom_row {
    uint32_t depth;
    uint64_t id, shallow, retained, more;
    char label[256];
} ht_export_dom_row;
typedef struct ht_export_heap_doms {
    uint32_t n;
    ht_export_dom_row *r;
} ht_export_heap_doms;
ht_export_heap_doms *ht_export_heap_doms_new(uint32_t n);
void ht_export_heap_doms_free(void *rows);
int ht_export_heap_doms_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p);

/* The duplicate groups shown: duplicates.csv's columns. */
typedef struct ht_export_dup_row {
    char *name, *preview;
    uint64_t copies, each, wasted;
} ht_export_dup_row;
typedef struct ht_export_heap_dups {
    uint32_t n;
    ht_export_dup_row *r;
} ht_export_heap_dups;
ht_export_heap_dups *ht_export_heap_dups_new(uint32_t n);
void ht_export_heap_dups_free(void *rows);
int ht_export_heap_dups_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p);

/* The reference browser's rows: part,depth,object_id,text; the part is the
 * section a row is of (heading, field, referenced_by, references, path,
 * more, allocated_at), the id empty for a row naming no object, the text
 * without its indent. */
typedef enum ht_export_ref_part {
    HT_REF_PART_HEADING,
    HT_REF_PART_FIELD,
    HT_REF_PART_IN,
    HT_REF_PART_OUT,
    HT_REF_PART_PATH,
    HT_REF_PART_MORE,
    HT_REF_PART_FRAME,
} ht_export_ref_part;
typedef struct ht_export_ref_row {
    uint8_t part; /* ht_export_ref_part */
    uint8_t has_id;
    uint16_t depth;
    uint64_t id;
    char text[240];
} ht_export_ref_row;
typedef struct ht_export_heap_refs {
    uint32_t n;
    ht_export_ref_row *r;
} ht_export_heap_refs;
ht_export_heap_refs *ht_export_heap_refs_new(uint32_t n);
void ht_export_heap_refs_free(void *rows);
int ht_export_heap_refs_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p);

#endif
