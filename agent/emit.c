/* emit.c - see emit.h. */
#include "emit.h"

#include "protocol.h"

#include <string.h>

#define BATCH_MAX_RECORDS 8192u
#define BATCH_MAX_BYTES   (1u << 20)

uint64_t ht_sink_next_seq(ht_sink *s)
{
    return s->seq ? ++*s->seq : 0;
}

void ht_sink_emit_buf(ht_sink *s, ht_buf *buf)
{
    if (!buf->failed && buf->len) s->emit(s->ctx, buf->data, buf->len);
}

void ht_batch_init(ht_batch *b, ht_sink *sink, uint16_t type)
{
    memset(b, 0, sizeof *b);
    ht_buf_init(&b->buf);
    b->sink = sink;
    b->type = type;
}

void ht_batch_record(ht_batch *b)
{
    if (b->open) return;
    ht_buf_reset(&b->buf);
    b->msg_start = ht_msg_begin(&b->buf, b->type, 0); /* seq stamped when sent */
    b->list_at = ht_list_begin(&b->buf);
    b->count = 0;
    b->open = 1;
}

static void close_message(ht_batch *b)
{
    if (!b->open) return;
    ht_list_end(&b->buf, b->list_at, b->count);
    ht_msg_end(&b->buf, b->msg_start);
    ht_msg_set_seq(&b->buf, b->msg_start, ht_sink_next_seq(b->sink));
    ht_sink_emit_buf(b->sink, &b->buf);
    b->open = 0;
}

void ht_batch_done(ht_batch *b)
{
    b->count++;
    if (b->count >= BATCH_MAX_RECORDS || b->buf.len >= BATCH_MAX_BYTES) close_message(b);
}

void ht_batch_finish(ht_batch *b)
{
    close_message(b);
    ht_buf_free(&b->buf);
}
