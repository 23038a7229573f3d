/*
 * record_report.h - what `heaptop record` prints on stderr and stdout when it
 * stops: the samples dropped, the CPU sampler's figures, drag mode's, and the top
 * allocation sites, rows that would
 * read alike told apart by the first frame where their stacks part.
 *
 * Owns: only the printing; the figures are the store's (store.h). Runs on
 * record's one thread, after the stream has ended. Must never write a file
 * (the CSVs are export/'s) nor talk to the agent.
 */
#ifndef HEAPTOP_RECORD_REPORT_H
#define HEAPTOP_RECORD_REPORT_H

#include "store.h"

/* Samples lost to a full buffer, per class, on stderr (nothing when none). */
void ht_record_report_drops(const ht_store *s);
/* The CPU sampler's mode, tick and where its frames are taken, its samples
 * (those without a stack) and threads, on stderr. */
void ht_record_report_cpu(const ht_store *s);
/* Drag mode's state and its sites (drag.csv), on stderr; nothing when
 * drag mode was never on. */
void ht_record_report_drag(const ht_store *s);
/* The `top` biggest sites by estimated bytes, on stdout. */
void ht_record_print_top(const ht_store *s, int top);

#endif
