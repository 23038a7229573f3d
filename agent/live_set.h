/*
 * live_set.h - sampled objects that may still be alive, and what each one adds
 * to its aggregate row.
 *
 * Owns: one entry per tracked sample (an opaque reference the caller can test
 * for death, the aggregate row, the estimated bytes and instances), kept in two
 * generations. New entries are young. A young sweep (the collector runs one
 * after each GC) tests every young entry once: most sampled objects die young,
 * so this is where most deaths are found, at one test per sample. Survivors
 * move to the old generation, which is swept in slices of a bounded size so no
 * single step tests more than a budget of entries, however many live.
 *
 * Why not JVMTI object tags and ObjectFree: SetTag takes the VM's tag-map lock
 * and hashes the object on the allocating thread (measured 1.2 us a sample);
 * a JNI weak reference costs 0.25 us there, and finding deaths moves to the
 * collector thread.
 *
 * Pure C: the caller says how to test and release a reference, so it is
 * unit-tested without a JVM. Collector thread only.
 */
#ifndef HEAPTOP_LIVE_SET_H
#define HEAPTOP_LIVE_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ht_live_entry {
    uint64_t ref; /* the caller's reference to the object, never 0 */
    uint32_t agg; /* aggregate row */
    uint32_t pad;
    double bytes;
    double instances;
} ht_live_entry;

typedef struct ht_live_gen {
    ht_live_entry *v;
    size_t n, cap;
} ht_live_gen;

typedef struct ht_live_set {
    ht_live_gen young, old;
    size_t cursor; /* next old entry the current old pass tests */
    int passing;   /* an old pass is in progress */
    size_t max_count;
} ht_live_set;

/* is_dead: 1 when the object behind ref is gone. dead: the entry is removed;
 * the callback undoes its contribution and releases ref. */
typedef struct ht_live_ops {
    int (*is_dead)(void *ctx, uint64_t ref);
    void (*dead)(void *ctx, const ht_live_entry *e);
    void *ctx;
} ht_live_ops;

int ht_live_init(ht_live_set *s, size_t max_count);
void ht_live_destroy(ht_live_set *s);
/* 0 added (young), -1 full (at the cap or out of memory). */
int ht_live_add(ht_live_set *s, uint64_t ref, uint32_t agg, double bytes, double instances);
size_t ht_live_count(const ht_live_set *s);
int ht_live_full(const ht_live_set *s);
/* Test every young entry: the dead go to ops->dead, the rest become old.
 * Returns the number of deaths. */
size_t ht_live_sweep_young(ht_live_set *s, const ht_live_ops *ops);
/* Start a pass over the old generation (restarts one in progress). */
void ht_live_begin_old_pass(ht_live_set *s);
/* Continue the old pass, testing at most budget entries. Returns the number of
 * deaths; *done is set to 1 when no pass is in progress any more. */
size_t ht_live_sweep_old(ht_live_set *s, const ht_live_ops *ops, size_t budget, int *done);

#endif
