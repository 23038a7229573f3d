/*
 * live_set.h - sampled objects that may still be alive, split into the ones a
 * collection has proven alive (LIVE) and the ones allocated since (YOUNG).
 *
 * Owns: one entry per tracked sample (an opaque reference the caller can test
 * for death, the aggregate row, the estimated bytes and instances, and the GC
 * epoch it was allocated in), kept in two lists:
 *   young - not yet proven alive: allocated after the last collection the
 *           sweep could rely on. An object in eden is neither dead nor alive
 *           until a collection looks at it, so it is never counted as live.
 *   live  - alive after at least one collection that began after it was
 *           allocated, and not found dead since.
 * A sweep (the collector runs one after GC pauses) tests every entry of the
 * lists it covers once: the dead leave, young entries old enough to have been
 * through a collection move to live. Testing is cheap (JNI IsSameObject on a
 * weak reference: 12 ns measured, so 1 M entries in about 12 ms), so a sweep
 * covers a whole list and the figures are never a slice behind. The young
 * list is swept after every pause (its length follows the sampling rate); the
 * live list, which can hold a million entries, as often as the caller allows.
 *
 * Epochs are the JVM's count of GC pauses started when the sample was taken;
 * the caller decides from which epoch on entries count as proven (see
 * collector.c: a pause is not always a collection).
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
    uint64_t ref;    /* the caller's reference to the object, never 0 */
    uint64_t serial; /* the sample's number in the run (1, 2, ...): its id in heap dumps */
    uint32_t agg;    /* aggregate row */
    uint32_t epoch;  /* GC pauses started before the sample was taken */
    double bytes;
    double instances;
} ht_live_entry;

typedef struct ht_live_list {
    ht_live_entry *v;
    size_t n, cap;
} ht_live_list;

typedef struct ht_live_set {
    ht_live_list young, live;
    size_t max_count;
} ht_live_set;

/* What a sweep reports: is_dead tests a reference (1 = the object is gone);
 * dead is called for an entry found dead (was_young says from which list; the
 * callback undoes its contribution and releases ref); proven is called for a
 * young entry that moves to the live list. */
typedef struct ht_live_ops {
    int (*is_dead)(void *ctx, uint64_t ref);
    void (*dead)(void *ctx, const ht_live_entry *e, int was_young);
    void (*proven)(void *ctx, const ht_live_entry *e);
    void *ctx;
} ht_live_ops;

typedef struct ht_sweep_result {
    size_t tested, young_dead, live_dead, proven;
} ht_sweep_result;

int ht_live_init(ht_live_set *s, size_t max_count);
void ht_live_destroy(ht_live_set *s);
/* 0 added (young), -1 full (at the cap or out of memory). */
int ht_live_add(ht_live_set *s, uint64_t ref, uint32_t agg, uint32_t epoch, double bytes,
                double instances, uint64_t serial);
size_t ht_live_count(const ht_live_set *s);
int ht_live_full(const ht_live_set *s);
/* Test every young entry once, and every live one too when `live_too`. Young
 * entries still alive whose epoch is before `proven_before` (allocated before
 * a collection that has since finished) move to the live list; younger ones
 * stay young. Epochs compare modulo 2^32. */
ht_sweep_result ht_live_sweep(ht_live_set *s, const ht_live_ops *ops, uint32_t proven_before,
                              int live_too);

/*
 * Which epochs a sweep may count as proven. A GC pause is not always a
 * collection (G1's remark and cleanup pauses, ZGC's pauses inside one cycle),
 * and an object that is alive after a pause that collected nothing has proven
 * nothing: an object in eden at a remark pause is still in eden after it. So
 * the collector also reads how many collections the VM has finished (its GC
 * beans, which count collections, not pauses: one count per kind of
 * collection) and feeds them here at each sweep, reading the pauses first.
 * When a count moved since the last sweep, a collection of that kind finished
 * at one of the pauses since that sweep (or just after), so everything
 * allocated before the first of those pauses has been through it. A kind
 * whose collections are concurrent cycles spanning several pauses (ZGC,
 * Shenandoah) may have begun the cycle before the last sweep, though not
 * before the previous cycle of the same kind ended: there only what predates
 * that kind's previous window counts. Kinds are judged apart because cycles
 * of different kinds overlap (generational ZGC runs minor cycles inside a
 * major one). Without any count every pause counts as a collection.
 *
 * Some kinds prove only what predates the cycle before the one that ended
 * (`late`): generational ZGC's major cycles. Measured on JDK 25 under heavy
 * churn: a few times a minute, a batch of dead young objects allocated before
 * a major cycle began still had their JNI weak references set after it ended,
 * and lost them at the end of the next one (objects promoted to the old
 * generation while its marking runs count as alive for that marking). Every
 * object those two cycles saw was dead by the end of the second.
 */
#define HT_GC_KINDS 8

typedef struct ht_gc_proof {
    uint64_t swept_pauses;         /* pauses finished as of the last sweep */
    uint64_t counts[HT_GC_KINDS];  /* each kind's count at the last sweep */
    uint64_t window[HT_GC_KINDS];  /* pauses at the start of its last window */
    uint64_t window2[HT_GC_KINDS]; /* ... and of the window before */
    uint32_t concurrent;           /* bit k: kind k is a concurrent cycle */
    uint32_t late;                 /* bit k: kind k proves what predates its previous cycle */
    uint32_t proven_before;        /* current answer */
} ht_gc_proof;

#define HT_GC_NO_WINDOW UINT64_MAX /* a window before the agent watched */

/* concurrent: bit k set when kind k's collections are concurrent cycles;
 * late: bit k set when kind k proves only what predates its previous cycle;
 * counts: each kind's count now (n = 0: the VM does not say). */
void ht_gc_proof_init(ht_gc_proof *p, uint32_t concurrent, uint32_t late, const uint64_t *counts,
                      int n);
/* A sweep is about to run: pauses finished now (read first), then each
 * kind's collection count (n = 0: the VM does not say). Returns the
 * proven_before epoch for ht_live_sweep. */
uint32_t ht_gc_proof_update(ht_gc_proof *p, uint64_t pauses, const uint64_t *counts, int n);

#endif
