/*
 * control.c - answers control requests on the REP socket (collector thread).
 *
 * Requests are decoded with the shared protocol module; anything malformed gets
 * an ERROR reply naming the problem, never a crash. Commands that change state
 * (set interval, pause, resume, mark) are remembered by request id: nng's REQ resends
 * a request after a reconnect, and the resend must get the first answer, not
 * run the command a second time.
 */
#include "collector.h"

#include "agent_state.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void reply_buf(ht_collector *c, ht_buf *b)
{
    if (!b->failed) ht_transport_reply(&c->tr, b->data, b->len);
}

static void reply_error(ht_collector *c, uint64_t id, int code, const char *text)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_error(&b, id, code, text);
    reply_buf(c, &b);
    ht_buf_free(&b);
}

static void reply_ack(ht_collector *c, uint64_t id, uint64_t value)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_u64_msg(&b, HT_MSG_ACK, id, value);
    reply_buf(c, &b);
    ht_buf_free(&b);
}

static void reply_hello(ht_collector *c, uint64_t id)
{
    ht_hello h;
    memset(&h, 0, sizeof h);
    h.pid = (uint32_t)getpid();
    h.start_epoch_ms = ht_g.start_epoch_ms;
    h.interval = atomic_load(&ht_g.interval);
    h.depth = ht_g.opt.depth;
    h.live = (uint8_t)ht_g.opt.live;
    h.paused = (uint8_t)c->paused;
    h.max_traces = ht_g.opt.max_traces;
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_HELLO_REP, id);
    ht_enc_hello(&b, &h, c->main_class, c->jdk_version, ht_g.options_text);
    ht_msg_end(&b, m);
    reply_buf(c, &b);
    ht_buf_free(&b);
}

typedef struct sync_ctx {
    ht_buf *body;
    uint32_t count;
} sync_ctx;

static void sync_emit(void *vctx, const uint8_t *msg, size_t len)
{
    sync_ctx *s = vctx;
    ht_put_u32(s->body, (uint32_t)len);
    ht_put_bytes(s->body, msg, len);
    s->count++;
}

/* Everything a late viewer needs, consistent with stream sequence number L:
 * the pending changes are published first, so the stream after L carries only
 * what happens after this snapshot. */
static void reply_sync(ht_collector *c, uint64_t id)
{
    ht_collector_step(c);
    ht_collector_publish(c);
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_SYNC_REP, id);
    ht_put_u64(&b, c->stream_seq);
    size_t count_at = ht_list_begin(&b);
    sync_ctx ctx = {&b, 0};
    ht_sink sink = {sync_emit, &ctx, NULL};
    ht_symbols_emit(&c->syms, &sink, 0);
    ht_collector_emit_rows(c, &sink, 0);
    ht_collector_emit_mark(c, &sink);
    ht_batch tel;
    ht_batch_init(&tel, &sink, HT_MSG_TELEMETRY);
    for (uint32_t i = 0; i < c->tel.nhistory; i++) {
        ht_batch_record(&tel);
        ht_enc_telemetry(&tel.buf, ht_telemetry_at(&c->tel, i));
        ht_batch_done(&tel);
    }
    ht_batch_finish(&tel);
    ht_list_end(&b, count_at, ctx.count);
    ht_msg_end(&b, m);
    if (b.failed)
        reply_error(c, id, HT_EINTERNAL, "out of memory building the sync reply");
    else
        reply_buf(c, &b);
    ht_buf_free(&b);
}

static ht_reply_cache_entry *cached(ht_collector *c, uint64_t id)
{
    if (id == 0) return NULL;
    for (int i = 0; i < HT_REPLY_CACHE; i++)
        if (c->cache[i].req_id == id) return &c->cache[i];
    return NULL;
}

static void remember(ht_collector *c, uint64_t id, uint16_t type, uint64_t value, int code)
{
    ht_reply_cache_entry *e = &c->cache[c->cache_next++ % HT_REPLY_CACHE];
    e->req_id = id;
    e->type = type;
    e->value = value;
    e->code = code;
}

static void set_sampling(ht_collector *c, int on)
{
    jvmtiEnv *j = c->jvmti;
    (*j)->SetEventNotificationMode(j, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                   JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    atomic_store(&ht_g.sampling, on);
    c->paused = !on;
}

/* Run a state-changing command once; a resend gets the remembered answer. */
static void run_command(ht_collector *c, const ht_msg *m, ht_reader *r)
{
    ht_reply_cache_entry *e = cached(c, m->seq);
    if (e) {
        if (e->type == HT_MSG_ACK)
            reply_ack(c, m->seq, e->value);
        else
            reply_error(c, m->seq, e->code, "request failed (repeated request)");
        return;
    }
    if (m->type == HT_MSG_SET_INTERVAL_REQ) {
        uint64_t v = ht_get_u64(r);
        if (v > HT_MAX_INTERVAL) {
            char text[128];
            snprintf(text, sizeof text, "interval %llu is out of range (0..%u bytes)",
                     (unsigned long long)v, HT_MAX_INTERVAL);
            remember(c, m->seq, HT_MSG_ERROR, 0, HT_EBADREQ);
            reply_error(c, m->seq, HT_EBADREQ, text);
            return;
        }
        if ((*c->jvmti)->SetHeapSamplingInterval(c->jvmti, (jint)v) != JVMTI_ERROR_NONE) {
            remember(c, m->seq, HT_MSG_ERROR, 0, HT_EINTERNAL);
            reply_error(c, m->seq, HT_EINTERNAL, "the JVM refused the sampling interval");
            return;
        }
        atomic_store(&ht_g.interval, v);
        remember(c, m->seq, HT_MSG_ACK, v, 0);
        reply_ack(c, m->seq, v);
    } else if (m->type == HT_MSG_MARK_REQ) {
        ht_mark_op op = (ht_mark_op)ht_get_u8(r);
        uint64_t now_ms = (ht_now_ns() - ht_g.start_ns) / 1000000u;
        /* fold in what is queued, so the mark starts or stops at this moment */
        ht_collector_step(c);
        if (ht_mark_apply(&c->mark, &c->aggs, op, now_ms) != 0) {
            remember(c, m->seq, HT_MSG_ERROR, 0, HT_EINTERNAL);
            reply_error(c, m->seq, HT_EINTERNAL, "out of memory setting the mark");
            return;
        }
        /* the new diffs go out before the mark, so a viewer sees them together */
        ht_collector_publish(c);
        ht_collector_emit_mark(c, &c->stream);
        remember(c, m->seq, HT_MSG_ACK, c->mark.state, 0);
        reply_ack(c, m->seq, c->mark.state);
    } else {
        int on = m->type == HT_MSG_RESUME_REQ;
        set_sampling(c, on);
        remember(c, m->seq, HT_MSG_ACK, (uint64_t)on, 0);
        reply_ack(c, m->seq, (uint64_t)on);
    }
}

void ht_control_handle(ht_collector *c, nng_msg *req)
{
    ht_msg m;
    int rc = ht_msg_open(nng_msg_body(req), nng_msg_len(req), &m);
    if (rc == HT_OK) rc = ht_msg_validate(&m);
    if (rc != HT_OK) {
        char text[160];
        snprintf(text, sizeof text, "rejected request: %s (agent speaks protocol %d)",
                 ht_strerror(rc), HT_PROTOCOL_VERSION);
        reply_error(c, m.seq, rc, text);
        return;
    }
    ht_reader r;
    ht_msg_reader(&m, &r);
    switch (m.type) {
    case HT_MSG_HELLO_REQ:
        reply_hello(c, m.seq);
        break;
    case HT_MSG_SYNC_REQ:
        reply_sync(c, m.seq);
        break;
    case HT_MSG_SET_INTERVAL_REQ:
    case HT_MSG_PAUSE_REQ:
    case HT_MSG_RESUME_REQ:
    case HT_MSG_MARK_REQ:
        run_command(c, &m, &r);
        break;
    default: {
        char text[96];
        snprintf(text, sizeof text, "message type %s is not a request", ht_msg_type_name(m.type));
        reply_error(c, m.seq, HT_EBADREQ, text);
    }
    }
}
