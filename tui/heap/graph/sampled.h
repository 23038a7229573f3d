/*
 * sampled.h - the agent's sampled objects in a heap dump: which objects of
 * the snapshot were sampled, with each one's sample serial, allocation site
 * (the stream's trace and class ids) and weight, read from the marker the
 * agent leaves in the dumps it takes (common/heap_marker.h).
 *
 * Owns: the sample table (ht_sampled, in the snapshot) and the marker's own
 * objects, which the snapshot builder takes out before anything is counted:
 * the builder calls ht_sampled_take right after numbering the objects (the
 * marker's objects leave the numbering, their ids are kept to tell a
 * reference to them from a dangling one), and ht_sampled_resolve at the end
 * (each sample's object by number).
 *
 * Threads: built with the snapshot (a job), then read-only.
 *
 * Must never: trust the marker. It is found only through a JNI global root
 * holding an Object[] whose first element is a long[] that starts with the
 * magic and version and whose lengths agree; anything else is left as the
 * ordinary objects it is. Every read stays inside the sub-records the first
 * pass checked.
 */
#ifndef HEAPTOP_SAMPLED_H
#define HEAPTOP_SAMPLED_H

#include <stdint.h>

typedef struct ht_sample_obj {
    uint64_t serial;             /* the sample's number in the agent's run */
    uint32_t trace_id, class_id; /* its allocation site, as the stream names it */
    double bytes, instances;     /* what the sample stands for (estimate.h) */
    uint32_t obj;                /* its object, HT_NONE when it died before the dump */
} ht_sample_obj;

typedef struct ht_sampled {
    ht_sample_obj *v; /* as the marker lists them */
    uint32_t n;
    uint32_t present; /* samples with an object in the dump */
    uint32_t *by_obj; /* indexes into v of the present ones, by object number */
    uint64_t *hidden; /* ids of the marker's own objects, ascending */
    uint32_t nhidden;
    uint64_t *referent; /* during the build: each sample's object id (0: none) */
    /* what a viewer got on connecting when the dump was taken (heap_marker.h),
     * in the dump's mapping: the names of the sites (ht_store_from_session) */
    const uint8_t *session;
    uint32_t session_len;
    /* the agent run that made the marker, from the session's HELLO: its pid
     * and start (ms since the epoch; a restart after a detach is a new run,
     * its ids start again); 0 when the session does not say */
    uint32_t run_pid;
    uint64_t run_start_ms;
    uint8_t marked; /* 1: the dump has the marker (it may list no sample) */
} ht_sampled;

struct ht_snapshot;
/* The sample whose object is n, or NULL. */
const ht_sample_obj *ht_sampled_of(const struct ht_snapshot *s, uint32_t n);
/* 1 when id is one of the marker's own objects (taken out of the snapshot). */
int ht_sampled_hidden(const struct ht_snapshot *s, uint64_t id);
void ht_sampled_free(ht_sampled *m);

#endif
