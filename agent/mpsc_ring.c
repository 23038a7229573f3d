/* mpsc_ring.c - see mpsc_ring.h. */
#include "mpsc_ring.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ht_ring {
    size_t mask;
    size_t elem_size;
    size_t slot_size;
    unsigned char *slots;
    /* Producers and the consumer touch different cache lines. */
    _Alignas(64) atomic_size_t head; /* next position to claim for writing */
    _Alignas(64) size_t tail;        /* next position to read (consumer only) */
};

typedef struct slot_header {
    atomic_size_t seq;
} slot_header;

static slot_header *slot_at(const ht_ring *r, size_t pos)
{
    return (slot_header *)(r->slots + (pos & r->mask) * r->slot_size);
}

ht_ring *ht_ring_create(size_t capacity, size_t elem_size)
{
    size_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    ht_ring *r = aligned_alloc(64, sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->mask = cap - 1;
    r->elem_size = elem_size;
    r->slot_size = (sizeof(slot_header) + elem_size + 7) & ~(size_t)7;
    r->slots = calloc(cap, r->slot_size);
    if (!r->slots) {
        free(r);
        return NULL;
    }
    for (size_t i = 0; i < cap; i++)
        atomic_init(&slot_at(r, i)->seq, i);
    atomic_init(&r->head, 0);
    return r;
}

void ht_ring_destroy(ht_ring *r)
{
    if (!r) return;
    free(r->slots);
    free(r);
}

size_t ht_ring_capacity(const ht_ring *r)
{
    return r->mask + 1;
}

int ht_ring_push(ht_ring *r, const void *elem)
{
    size_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (;;) {
        slot_header *s = slot_at(r, pos);
        size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)pos;
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                memcpy(s + 1, elem, r->elem_size);
                atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
                return 0;
            }
            /* pos was reloaded by the failed CAS */
        } else if (dif < 0) {
            return -1; /* the slot still holds an unread element: full */
        } else {
            pos = atomic_load_explicit(&r->head, memory_order_relaxed);
        }
    }
}

int ht_ring_pop(ht_ring *r, void *elem)
{
    size_t pos = r->tail;
    slot_header *s = slot_at(r, pos);
    size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if ((intptr_t)seq - (intptr_t)(pos + 1) < 0) return 0; /* empty or being written */
    memcpy(elem, s + 1, r->elem_size);
    atomic_store_explicit(&s->seq, pos + r->mask + 1, memory_order_release);
    r->tail = pos + 1;
    return 1;
}
