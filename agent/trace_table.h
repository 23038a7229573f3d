/*
 * trace_table.h - interned call traces: same frames, same id.
 *
 * Owns: a fixed open-addressed table of immutable trace records, and the list
 * of traces not yet announced to the collector. Sized once (capacity >= 2 x the
 * trace cap) and never resized, so a lookup is a few loads with no lock: the
 * common path on application threads. Only the first sight of a new trace
 * takes the insert mutex (re-probe, allocate, publish with a release store);
 * past the cap the caller gets HT_TRACE_OVERFLOW, which is reported as such and
 * never merged into another trace. Records live until the table is destroyed.
 * The insert path may run inside a JVMTI callback: it does no I/O.
 * Runs on application threads (inside SampledObjectAlloc): never does I/O,
 * never talks to nng, never waits but on its insert mutex (a test checks the
 * object file's symbols). Why not the one hash map (common/hashmap.h): that
 * map is single-owner and grows; this table is read by many threads at once
 * without a lock, which works only because it never moves.
 */
#ifndef HEAPTOP_TRACE_TABLE_H
#define HEAPTOP_TRACE_TABLE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct ht_trace {
    uint64_t hash;
    uint32_t id; /* 1..capacity */
    uint32_t depth;
    struct ht_trace *next_new;   /* announce list link (insert mutex) */
    void *pins;                  /* owner data set by the pin hook (e.g. class refs) */
    _Atomic uint32_t class_hint; /* class most recently allocated here (0 = none) */
    _Atomic uint64_t dropped;    /* samples taken here that the full ring lost */
    _Atomic uint32_t drop_class; /* the class of the first drop: the row all drops count in */
    jvmtiFrameInfo frames[];     /* leaf first */
} ht_trace;

typedef struct ht_trace_table ht_trace_table;

/* Called under the insert mutex, before the trace becomes visible. */
typedef void (*ht_trace_pin_fn)(void *ctx, ht_trace *t);

ht_trace_table *ht_trace_table_create(uint32_t max_traces);
void ht_trace_table_destroy(ht_trace_table *tt);
/* Id of this trace, inserting it on first sight; HT_TRACE_OVERFLOW past the cap
 * or when memory runs out. *is_new is set when this call inserted it. */
uint32_t ht_trace_intern(ht_trace_table *tt, const jvmtiFrameInfo *frames, uint32_t depth,
                         ht_trace_pin_fn pin, void *pin_ctx, int *is_new);
/* The same, handing back the record itself (NULL past the cap): the sampler
 * keeps working with it instead of looking the id up again. */
ht_trace *ht_trace_intern_record(ht_trace_table *tt, const jvmtiFrameInfo *frames, uint32_t depth,
                                 ht_trace_pin_fn pin, void *pin_ctx, int *is_new);
/* Take every trace inserted since the last call (newest first). Single consumer. */
ht_trace *ht_trace_take_new(ht_trace_table *tt);
/* The record of an id, or NULL. */
const ht_trace *ht_trace_get(const ht_trace_table *tt, uint32_t id);
uint32_t ht_trace_count(const ht_trace_table *tt);
uint64_t ht_trace_overflows(const ht_trace_table *tt);

#endif
