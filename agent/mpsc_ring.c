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

/* A slot's sequence number is stored minus the slot's index, so the initial
 * state (sequence = index) is all zeros: calloc's untouched pages serve as the
 * initialised ring, and start-up writes none of its megabytes. */
typedef struct slot_header {
    atomic_size_t seq_minus_index;
} slot_header;

static slot_header *slot_at(const ht_ring *r, size_t pos)
{
    return (slot_header *)(r->slots + (pos & r->mask) * r->slot_size);
}

static size_t load_seq(const ht_ring *r, slot_header *s, size_t pos)
{
    return atomic_load_explicit(&s->seq_minus_index, memory_order_acquire) + (pos & r->mask);
}

static void store_seq(const ht_ring *r, slot_header *s, size_t pos, size_t seq)
{
    atomic_store_explicit(&s->seq_minus_index, seq - (pos & r->mask), memory_order_release);
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

void *ht_ring_claim(ht_ring *r, size_t *pos_out)
{
    size_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (;;) {
        slot_header *s = slot_at(r, pos);
        size_t seq = load_seq(r, s, pos);
        intptr_t dif = (intptr_t)seq - (intptr_t)pos;
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *pos_out = pos;
                return s + 1;
            }
            /* pos was reloaded by the failed CAS */
        } else if (dif < 0) {
            return NULL; /* the slot still holds an unread element: full */
        } else {
            pos = atomic_load_explicit(&r->head, memory_order_relaxed);
        }
    }
}

void ht_ring_publish(ht_ring *r, size_t pos)
{
    store_seq(r, slot_at(r, pos), pos, pos + 1);
}

int ht_ring_push(ht_ring *r, const void *elem)
{
    size_t pos;
    void *at = ht_ring_claim(r, &pos);
    if (!at) return -1;
    memcpy(at, elem, r->elem_size);
    ht_ring_publish(r, pos);
    return 0;
}

int ht_ring_pop(ht_ring *r, void *elem)
{
    size_t pos = r->tail;
    slot_header *s = slot_at(r, pos);
    size_t seq = load_seq(r, s, pos);
    if ((intptr_t)seq - (intptr_t)(pos + 1) < 0) return 0; /* empty or being written */
    memcpy(elem, s + 1, r->elem_size);
    store_seq(r, s, pos, pos + r->mask + 1);
    r->tail = pos + 1;
    return 1;
}
