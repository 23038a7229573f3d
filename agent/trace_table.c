/* trace_table.c - see trace_table.h. */
#include "trace_table.h"

#include "protocol.h"
#include "hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ht_trace_table {
    _Atomic(ht_trace *) *slots;
    uint32_t mask;
    uint32_t max_traces;
    atomic_uint count;
    atomic_ulong overflows;
    pthread_mutex_t insert_lock;
    ht_trace *new_head; /* guarded by insert_lock */
};

static uint64_t hash_frames(const jvmtiFrameInfo *f, uint32_t depth)
{
    /* FNV-1a over method pointers and bytecode indexes, then a final mix. */
    uint64_t h = 1469598103934665603ull ^ depth;
    for (uint32_t i = 0; i < depth; i++) {
        h ^= (uint64_t)(uintptr_t)f[i].method;
        h *= 1099511628211ull;
        h ^= (uint64_t)f[i].location;
        h *= 1099511628211ull;
    }
    return ht_mix64(h);
}

static int same_frames(const ht_trace *t, uint64_t h, const jvmtiFrameInfo *f, uint32_t depth)
{
    if (t->hash != h || t->depth != depth) return 0;
    for (uint32_t i = 0; i < depth; i++)
        if (t->frames[i].method != f[i].method || t->frames[i].location != f[i].location) return 0;
    return 1;
}

ht_trace_table *ht_trace_table_create(uint32_t max_traces)
{
    ht_trace_table *tt = calloc(1, sizeof *tt);
    if (!tt) return NULL;
    uint64_t cap = 16;
    while (cap < 2ull * max_traces)
        cap <<= 1;
    tt->slots = calloc(cap, sizeof *tt->slots);
    if (!tt->slots) {
        free(tt);
        return NULL;
    }
    tt->mask = (uint32_t)(cap - 1);
    tt->max_traces = max_traces;
    pthread_mutex_init(&tt->insert_lock, NULL);
    return tt;
}

void ht_trace_table_destroy(ht_trace_table *tt)
{
    if (!tt) return;
    for (uint32_t i = 0; i <= tt->mask; i++)
        free(atomic_load_explicit(&tt->slots[i], memory_order_relaxed));
    free(tt->slots);
    pthread_mutex_destroy(&tt->insert_lock);
    free(tt);
}

/* Probe for the trace; returns its slot index, or the first empty slot index
 * with *found = 0. The table is never more than half full, so this ends. */
static uint32_t probe(const ht_trace_table *tt, uint64_t h, const jvmtiFrameInfo *f, uint32_t depth,
                      int *found)
{
    uint32_t i = (uint32_t)h & tt->mask;
    for (;;) {
        ht_trace *t = atomic_load_explicit(&tt->slots[i], memory_order_acquire);
        if (!t) {
            *found = 0;
            return i;
        }
        if (same_frames(t, h, f, depth)) {
            *found = 1;
            return i;
        }
        i = (i + 1) & tt->mask;
    }
}

ht_trace *ht_trace_intern_record(ht_trace_table *tt, const jvmtiFrameInfo *frames, uint32_t depth,
                                 ht_trace_pin_fn pin, void *pin_ctx, int *is_new)
{
    *is_new = 0;
    uint64_t h = hash_frames(frames, depth);
    int found;
    uint32_t i = probe(tt, h, frames, depth, &found);
    if (found) return atomic_load_explicit(&tt->slots[i], memory_order_acquire);

    pthread_mutex_lock(&tt->insert_lock);
    i = probe(tt, h, frames, depth, &found); /* someone may have won the race */
    if (found) {
        pthread_mutex_unlock(&tt->insert_lock);
        return atomic_load_explicit(&tt->slots[i], memory_order_acquire);
    }
    ht_trace *t = NULL;
    if (atomic_load_explicit(&tt->count, memory_order_relaxed) < tt->max_traces)
        t = malloc(sizeof *t + (size_t)depth * sizeof(jvmtiFrameInfo));
    if (!t) {
        pthread_mutex_unlock(&tt->insert_lock);
        atomic_fetch_add_explicit(&tt->overflows, 1, memory_order_relaxed);
        return NULL;
    }
    t->hash = h;
    t->id = i + 1;
    t->depth = depth;
    t->pins = NULL;
    atomic_init(&t->class_hint, 0);
    atomic_init(&t->drop_class, 0);
    atomic_init(&t->dropped, 0);
    memcpy(t->frames, frames, (size_t)depth * sizeof(jvmtiFrameInfo));
    if (pin) pin(pin_ctx, t);
    t->next_new = tt->new_head;
    tt->new_head = t;
    atomic_store_explicit(&tt->slots[i], t, memory_order_release);
    atomic_fetch_add_explicit(&tt->count, 1, memory_order_relaxed);
    pthread_mutex_unlock(&tt->insert_lock);
    *is_new = 1;
    return t;
}

uint32_t ht_trace_intern(ht_trace_table *tt, const jvmtiFrameInfo *frames, uint32_t depth,
                         ht_trace_pin_fn pin, void *pin_ctx, int *is_new)
{
    ht_trace *t = ht_trace_intern_record(tt, frames, depth, pin, pin_ctx, is_new);
    return t ? t->id : HT_TRACE_OVERFLOW;
}

ht_trace *ht_trace_take_new(ht_trace_table *tt)
{
    pthread_mutex_lock(&tt->insert_lock);
    ht_trace *list = tt->new_head;
    tt->new_head = NULL;
    pthread_mutex_unlock(&tt->insert_lock);
    return list;
}

const ht_trace *ht_trace_get(const ht_trace_table *tt, uint32_t id)
{
    if (id == 0 || id > tt->mask + 1) return NULL;
    return atomic_load_explicit(&tt->slots[id - 1], memory_order_acquire);
}

uint32_t ht_trace_count(const ht_trace_table *tt)
{
    return atomic_load_explicit(&tt->count, memory_order_relaxed);
}

uint64_t ht_trace_overflows(const ht_trace_table *tt)
{
    return atomic_load_explicit(&tt->overflows, memory_order_relaxed);
}
