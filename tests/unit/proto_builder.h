/*
 * proto_builder.h - protocol messages built record by record, for the unit
 * tests and the decoder fuzz target's seeds (tests/fuzz/make_seeds.c). Test
 * code only: it writes with protocol.h's encoders and adds only the framing
 * each message needs, so the bytes are those the agent would send.
 *
 * An mb is one message being written into the caller's buffer: mb_list()
 * opens a list message (CLASSES, METHODS, TRACES, AGGS, TELEMETRY, CPU_THREADS,
 * CPU_ROWS, DRAG_ROWS), each
 * record added counts itself (a trace's frames belong to its head and do
 * not), and mb_end() writes the count and the length. mb_sync() opens a
 * SYNC_REP the same way, whole messages added by mb_sync_add(). mb_hello(),
 * mb_drag_state() and mb_u8_req() write whole messages that hold no list.
 *
 * A test that includes check.h and store.h before this header also gets
 * mb_apply(): the message ended, checked valid, applied to an ht_store,
 * and the buffer emptied for the next, as the viewer's store is fed in
 * test_store.c, test_site_tree.c and test_class_table.c.
 */
#ifndef HEAPTOP_PROTO_BUILDER_H
#define HEAPTOP_PROTO_BUILDER_H

#include "protocol.h"

#include <stddef.h>
#include <stdint.h>

/* An aggregate row from its first eight figures (the rest zero). */
#define MB_ROW(t, c, n, ln, b, i, lb, li)                                                          \
    {                                                                                              \
        .trace_id = (t), .class_id = (c), .samples = (n), .live_samples = (ln), .est_bytes = (b),  \
        .est_instances = (i), .live_est_bytes = (lb), .live_est_instances = (li)                   \
    }

typedef struct mb {
    ht_buf *b;       /* the caller's buffer the message is appended to */
    size_t msg;      /* where its header starts */
    size_t count_at; /* where its record count goes */
    uint32_t n;      /* records (or embedded messages) added so far */
} mb;

/* A list message of `type` opened at the end of `b`. */
static inline mb mb_list(ht_buf *b, uint16_t type, uint64_t seq)
{
    mb m = {.b = b, .msg = ht_msg_begin(b, type, seq)};
    m.count_at = ht_list_begin(b);
    return m;
}

static inline void mb_class(mb *m, uint32_t id, const char *name)
{
    ht_enc_class(m->b, id, name);
    m->n++;
}

static inline void mb_method(mb *m, uint32_t id, const char *cls, const char *name, const char *src)
{
    ht_enc_method(m->b, id, cls, name, src);
    m->n++;
}

/* A trace's head; its `depth` frames follow, leaf first, by mb_frame(). */
static inline void mb_trace(mb *m, uint32_t id, uint16_t depth)
{
    ht_enc_trace_head(m->b, id, depth);
    m->n++;
}

static inline void mb_frame(mb *m, uint32_t method_id, int32_t line)
{
    ht_enc_frame(m->b, method_id, line);
}

static inline void mb_agg(mb *m, const ht_agg_rec *a)
{
    ht_enc_agg(m->b, a);
    m->n++;
}

static inline void mb_aggs(mb *m, const ht_agg_rec *rows, size_t nrows)
{
    for (size_t i = 0; i < nrows; i++)
        mb_agg(m, &rows[i]);
}

static inline void mb_telemetry(mb *m, const ht_telemetry_rec *t)
{
    ht_enc_telemetry(m->b, t);
    m->n++;
}

static inline void mb_cpu_thread(mb *m, const ht_cpu_thread_rec *t, const char *name)
{
    ht_enc_cpu_thread(m->b, t, name);
    m->n++;
}

static inline void mb_cpu_row(mb *m, const ht_cpu_row_rec *row)
{
    ht_enc_cpu_row(m->b, row);
    m->n++;
}

static inline void mb_drag_row(mb *m, const ht_drag_row_rec *row)
{
    ht_enc_drag_row(m->b, row);
    m->n++;
}

/* A whole DRAG_STATE at the end of `b` (no list: one state). */
static inline void mb_drag_state(ht_buf *b, uint64_t seq, const ht_drag_state_rec *s,
                                 const char *filter, const char *why)
{
    size_t at = ht_msg_begin(b, HT_MSG_DRAG_STATE, seq);
    ht_enc_drag_state(b, s, filter, why);
    ht_msg_end(b, at);
}

/* A SYNC_REP opened at the end of `b`: the stream's seq it is as of, then
 * the messages mb_sync_add() embeds. */
static inline mb mb_sync(ht_buf *b, uint64_t seq, uint64_t last_stream_seq)
{
    mb m = {.b = b, .msg = ht_msg_begin(b, HT_MSG_SYNC_REP, seq)};
    ht_put_u64(b, last_stream_seq);
    m.count_at = ht_list_begin(b);
    return m;
}

/* The whole message in `msg` (its bytes, as another buffer holds them). */
static inline void mb_sync_add(mb *m, const ht_buf *msg)
{
    ht_put_u32(m->b, (uint32_t)msg->len);
    ht_put_bytes(m->b, msg->data, msg->len);
    m->n++;
}

/* The message closed: its count and its body's length written. */
static inline void mb_end(mb *m)
{
    ht_list_end(m->b, m->count_at, m->n);
    ht_msg_end(m->b, m->msg);
}

/* A whole HELLO_REP at the end of `b`. */
static inline void mb_hello(ht_buf *b, uint64_t seq, const ht_hello *h, const char *main_class,
                            const char *jdk, const char *options, const char *tcp)
{
    size_t at = ht_msg_begin(b, HT_MSG_HELLO_REP, seq);
    ht_enc_hello(b, h, main_class, jdk, options, tcp);
    ht_msg_end(b, at);
}

/* A request whose body is one byte (MARK_REQ's operation, HEAP_DUMP_REQ's
 * flags), at the end of `b`; any value, for tests of the ones refused. */
static inline void mb_u8_req(ht_buf *b, uint16_t type, uint64_t seq, uint8_t v)
{
    size_t at = ht_msg_begin(b, type, seq);
    ht_put_u8(b, v);
    ht_msg_end(b, at);
}

#ifdef HEAPTOP_STORE_H
/* The message ended and applied to `s`: it must open, validate and apply
 * cleanly. Its buffer is emptied for the next. */
static inline void mb_apply(mb *m, ht_store *s)
{
    mb_end(m);
    ht_msg msg;
    CHECK(ht_msg_open(m->b->data + m->msg, m->b->len - m->msg, &msg) == HT_OK &&
          ht_msg_validate(&msg) == HT_OK);
    CHECK(ht_store_apply(s, &msg) == HT_OK);
    ht_buf_reset(m->b);
}
#endif

#endif
