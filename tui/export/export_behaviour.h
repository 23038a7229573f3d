/*
 * export_behaviour.h - the object-group reference graph ranking of a heap
 * snapshot (behaviour.h) as CSV, written with libcsv (export_csv.h's writer):
 * behaviour.csv (one row per node, by rank) and behaviour_edges.csv (every
 * node edge); and the Behaviour screen's export key: the rows it shows.
 *
 * behaviour.csv:
 *   rank,node,classes,units,objects,mc_bytes,md_bytes,mcc,branches,coverage,
 *   retained_bytes,flagged
 * one row per node but ROOT, in the order given (by rank for the files);
 * node: a class's name as the heap screens give it, or Cycle_N; classes: a
 * cycle node's member classes by name, separated by ';' (a class node: its
 * own name); branches, coverage and flagged (1: no forward branch) at t1
 * (ht_bhv_branches).
 * behaviour_edges.csv:
 *   from,to,refs,units,dr,cr,kept
 * every node edge by (from, to) (ROOT named ROOT), then one row per node with
 * references into its own units (a self-edge, kept out of MD: refs empty,
 * units the node's rself, dr and cr empty, kept 0); cr empty when undefined
 * (the parent's MD is 0), dr 0 on an edge the cycle rule dropped.
 * Numbers: bytes and counts as integers (exact); md_bytes, mcc, coverage,
 * dr and cr as doubles in "%.17g", which reads back to the same double.
 *
 * Owns: those files' columns and row order. Shared by `heaptop heap`,
 * `heaptop record --heap` and the Behaviour screen's export key. Runs on the
 * caller's thread; reads the analysis, or the rows given, only. Returns -1
 * with errno set when a file cannot be written (ECANCELED when p said stop;
 * nothing is then left at its name).
 */
#ifndef HEAPTOP_EXPORT_BEHAVIOUR_H
#define HEAPTOP_EXPORT_BEHAVIOUR_H

#include "behaviour.h"
#include "export_csv.h"
#include "snapshot.h"
#include "store.h"

#include <stdint.h>

/* behaviour.csv of every node by rank, branches at t1. */
int ht_export_behaviour(const ht_behaviour *b, const ht_snapshot *s, double t1, const char *path);
/* behaviour_edges.csv. */
int ht_export_behaviour_edges(const ht_behaviour *b, const ht_snapshot *s, const char *path);

/* --- the Behaviour screen's export key: a copy of the rows shown, made on
 * the UI thread (ht_export_bhv_rows_new, strings owned by the copy), written
 * and freed on a job's (ht_export_req's write and free_rows, screen.h). --- */
typedef struct ht_export_bhv_row {
    char *node, *classes;
    uint32_t rank, branches;
    uint64_t units, objects, mc, retained;
    double md, mcc, coverage;
    uint8_t flagged;
} ht_export_bhv_row;
typedef struct ht_export_bhv_rows {
    uint32_t n;
    ht_export_bhv_row *r;
} ht_export_bhv_rows;
/* The rows of nodes[0..n) (node indexes of b, in the order shown; ROOT is
 * skipped), branches at t1. NULL out of memory. */
ht_export_bhv_rows *ht_export_bhv_rows_new(const ht_behaviour *b, const ht_snapshot *s,
                                           const uint32_t *nodes, uint32_t n, double t1);
void ht_export_bhv_rows_free(void *rows);
/* behaviour.csv's columns, the rows in their order (the store unused). */
int ht_export_bhv_rows_write(const void *rows, const ht_store *st, const char *path,
                             const ht_progress *p);

#endif
