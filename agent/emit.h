/*
 * emit.h - building protocol list messages record by record.
 *
 * Owns: a batch that opens a list message on the first record, closes it when
 * it reaches a record or byte limit, and hands each finished message to a sink
 * (the PUB socket for the stream, or the body of a SYNC reply). Collector
 * thread only.
 */
#ifndef HEAPTOP_EMIT_H
#define HEAPTOP_EMIT_H

#include <stdint.h>

#include "wire.h"

typedef struct ht_sink {
    void (*emit)(void *ctx, const uint8_t *msg, size_t len);
    void *ctx;
    uint64_t *seq; /* stream sequence counter, advanced per message; NULL = seq 0 */
} ht_sink;

typedef struct ht_batch {
    ht_buf buf;
    ht_sink *sink;
    uint16_t type;
    int open;
    size_t msg_start, list_at;
    uint32_t count;
} ht_batch;

void ht_batch_init(ht_batch *b, ht_sink *sink, uint16_t type);
/* Call before writing a record into b->buf. */
void ht_batch_record(ht_batch *b);
/* Call after writing it: closes the message when it is big enough. */
void ht_batch_done(ht_batch *b);
/* Close and emit a message with whatever records it holds; frees the buffer. */
void ht_batch_finish(ht_batch *b);
/* Emit one finished message already in buf (used for single messages). */
void ht_sink_emit_buf(ht_sink *s, ht_buf *buf);
uint64_t ht_sink_next_seq(ht_sink *s);

#endif
