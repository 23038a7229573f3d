/*
 * mpsc_ring.h - bounded lock-free queue: many producers, one consumer.
 *
 * Owns: fixed-size slots allocated once at creation. Producers are application
 * threads inside JVMTI callbacks (a test checks the object file references no
 * I/O, nng or waiting):
 * push never blocks, never allocates and never takes a lock; when the ring is
 * full it fails and the caller counts a drop. One consumer (the collector
 * thread) pops. Each slot carries a sequence number (the scheme of D. Vyukov's
 * bounded queue), so a consumer never reads a slot a producer is still writing.
 */
#ifndef HEAPTOP_MPSC_RING_H
#define HEAPTOP_MPSC_RING_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct ht_ring ht_ring;

/* capacity is rounded up to a power of two; elem_size bytes per element. */
ht_ring *ht_ring_create(size_t capacity, size_t elem_size);
void ht_ring_destroy(ht_ring *r);
/* 0 on success, -1 when full (nothing written). */
int ht_ring_push(ht_ring *r, const void *elem);
/* The same push in two steps, for a producer that writes the element in place
 * (cpu=async's signal handler, whose element is a whole stack): claim a slot
 * (NULL when full), write its elem_size bytes, then publish it with the
 * position claim gave. Until then the consumer stops before that slot. */
void *ht_ring_claim(ht_ring *r, size_t *pos);
void ht_ring_publish(ht_ring *r, size_t pos);
/* 1 with elem filled, 0 when empty. Single consumer only. */
int ht_ring_pop(ht_ring *r, void *elem);
size_t ht_ring_capacity(const ht_ring *r);

#endif
