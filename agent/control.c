/* control.c - see control.h. */
#include "control.h"

#include "cpu_sampler.h"
#include "drag.h"

#include "clock.h"

#include "collector_int.h"

#include <stdio.h>
#include <string.h>

static void reply_buf(ht_collector *c, ht_buf *b)
{
    if (!b->failed) ht_collector_reply(c, b->data, b->len);
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

static void build_hello(ht_collector *c, uint64_t id, ht_buf *b)
{
    ht_hello h;
    const char *main_class, *jdk, *options, *tcp;
    ht_collector_identity(c, &h, &main_class, &jdk, &options, &tcp);
    size_t m = ht_msg_begin(b, HT_MSG_HELLO_REP, id);
    ht_enc_hello(b, &h, main_class, jdk, options, tcp);
    ht_msg_end(b, m);
}

static void reply_hello(ht_collector *c, uint64_t id)
{
    ht_buf b;
    ht_buf_init(&b);
    build_hello(c, id, &b);
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

/* Everything a late viewer needs, consistent with a stream sequence number:
 * the collector publishes what is pending first, so the stream after that
 * number carries only what happens after this state. Last, a HELLO: the
 * telemetry history ends with a reading up to a second old, and a viewer
 * takes the state (paused, interval, CPU mode) from the newest message, so
 * without it "control pause" then "control status" said "sampling on". */
static void build_sync(ht_collector *c, uint64_t id, ht_buf *b)
{
    size_t m = ht_msg_begin(b, HT_MSG_SYNC_REP, id);
    size_t seq_at = b->len;
    ht_put_u64(b, 0);
    size_t count_at = ht_list_begin(b);
    sync_ctx ctx = {.body = b};
    ht_sink sink = {.emit = sync_emit, .ctx = &ctx};
    uint64_t seq = ht_collector_sync_state(c, &sink);
    ht_buf hello;
    ht_buf_init(&hello);
    build_hello(c, 0, &hello);
    ht_sink_emit_buf(&sink, &hello);
    b->failed |= hello.failed;
    ht_buf_free(&hello);
    ht_patch_u32(b, seq_at, (uint32_t)seq);
    ht_patch_u32(b, seq_at + 4, (uint32_t)(seq >> 32));
    ht_list_end(b, count_at, ctx.count);
    ht_msg_end(b, m);
}

static void reply_sync(ht_collector *c, uint64_t id)
{
    ht_buf b;
    ht_buf_init(&b);
    build_sync(c, id, &b);
    if (b.failed)
        reply_error(c, id, HT_EINTERNAL, "out of memory building the sync reply");
    else
        reply_buf(c, &b);
    ht_buf_free(&b);
}

/* What a viewer would get on connecting (the HELLO reply, then the SYNC
 * reply, each after its u32 length), for the heap dump's marker: a dump then
 * names its sampled objects' sites without a connection (heap_marker.h). */
static void session_bytes(ht_collector *c, ht_buf *out)
{
    ht_buf m;
    ht_buf_init(&m);
    build_hello(c, 0, &m);
    ht_put_u32(out, (uint32_t)m.len);
    ht_put_bytes(out, m.data, m.len);
    out->failed |= m.failed;
    ht_buf_reset(&m);
    build_sync(c, 0, &m);
    ht_put_u32(out, (uint32_t)m.len);
    ht_put_bytes(out, m.data, m.len);
    out->failed |= m.failed;
    ht_buf_free(&m);
}

static ht_reply_cache_entry *cached(ht_control *ctl, uint64_t id)
{
    if (id == 0) return NULL;
    for (int i = 0; i < HT_REPLY_CACHE; i++)
        if (ctl->cache[i].req_id == id) return &ctl->cache[i];
    return NULL;
}

static void remember(ht_control *ctl, uint64_t id, uint16_t type, uint64_t value, int code)
{
    ht_reply_cache_entry *e = &ctl->cache[ctl->cache_next++ % HT_REPLY_CACHE];
    e->req_id = id;
    e->type = type;
    e->value = value;
    e->code = code;
}

/* Heap dumps asked for over TCP: at most HT_TCP_DUMPS an hour. Each stops the
 * JVM and, unless kept, stays on disk until the JVM exits: a peer holding the
 * key must still not be able to loop them until the disk is full. */
static int tcp_dump_allowed(ht_control *ctl, char *text, size_t n)
{
    uint64_t now = ht_mono_ms(), oldest = ctl->tcp_dumps[0];
    int used = 0;
    for (int i = 0; i < HT_TCP_DUMPS; i++) {
        if (ctl->tcp_dumps[i] && now - ctl->tcp_dumps[i] < HT_TCP_DUMP_WINDOW_MS) used++;
        if (ctl->tcp_dumps[i] < oldest) oldest = ctl->tcp_dumps[i];
    }
    if (used >= HT_TCP_DUMPS) {
        snprintf(text, n,
                 "%d heap dumps were asked for over TCP in the last hour, the most this agent "
                 "takes from TCP; the next one in %llu min",
                 HT_TCP_DUMPS,
                 (unsigned long long)((HT_TCP_DUMP_WINDOW_MS - (now - oldest)) / 60000 + 1));
        return 0;
    }
    for (int i = 0; i < HT_TCP_DUMPS; i++) /* take the oldest slot */
        if (ctl->tcp_dumps[i] == oldest) {
            ctl->tcp_dumps[i] = now;
            break;
        }
    return 1;
}

/* Run a state-changing command once; a resend gets the remembered answer. */
static void run_command(ht_control *ctl, ht_collector *c, const ht_msg *m, ht_reader *r)
{
    ht_reply_cache_entry *e = cached(ctl, m->seq);
    if (e) {
        if (e->type == HT_MSG_ACK)
            reply_ack(c, m->seq, e->value);
        else
            reply_error(c, m->seq, e->code, "request failed (repeated request)");
        return;
    }
    uint64_t value = 0;
    int code = HT_OK;
    char text[1024] = "";
    int needs_vm = (ht_msg_info_of(m->type)->flags & HT_MSGF_VM) != 0;
    if (needs_vm && ht_collector_dumping(c)) {
        /* the JVMTI call would wait for the dump's safepoint, and the collector with it */
        snprintf(text, sizeof text,
                 "a heap dump is being written (the JVM stops for it); try again once it is "
                 "done");
        code = HT_EBUSY;
    } else if (m->type == HT_MSG_HEAP_DUMP_REQ && ht_collector_request_is_tcp(c) &&
               !tcp_dump_allowed(ctl, text, sizeof text)) {
        code = HT_EBUSY;
    } else if (m->type == HT_MSG_HEAP_DUMP_REQ) {
        uint8_t flags = ht_get_u8(r);
        ht_buf session;
        ht_buf_init(&session);
        if (!(flags & HT_DUMP_PLAIN) && !ht_collector_dumping(c)) session_bytes(c, &session);
        code = ht_collector_heap_dump(c, flags, session.failed ? NULL : session.data,
                                      session.failed ? 0 : session.len, &value, text, sizeof text);
        ht_buf_free(&session);
    } else if (m->type == HT_MSG_SET_INTERVAL_REQ) {
        value = ht_get_u64(r);
        if (value > HT_MAX_INTERVAL) {
            snprintf(text, sizeof text, "interval %llu is out of range (0..%u bytes)",
                     (unsigned long long)value, HT_MAX_INTERVAL);
            code = HT_EBADREQ;
        } else if (ht_collector_set_interval(c, value) != 0) {
            snprintf(text, sizeof text, "the JVM refused the sampling interval");
            code = HT_EINTERNAL;
        }
    } else if (m->type == HT_MSG_BUDGET_REQ) {
        value = ht_get_u32(r);
        if (value > HT_BUDGET_MAX_X100) {
            snprintf(text, sizeof text, "budget %llu.%02llu%% is out of range (at most 50%%)",
                     (unsigned long long)(value / 100), (unsigned long long)(value % 100));
            code = HT_EBADREQ;
        } else if (ht_collector_set_budget(c, (uint32_t)value) != 0) {
            snprintf(text, sizeof text, "the JVM refused the sampling interval");
            code = HT_EINTERNAL;
        }
    } else if (m->type == HT_MSG_CPU_REQ) {
        int mode = ht_get_u8(r);
        uint32_t us = ht_get_u32(r);
        value = (uint64_t)mode;
        if (us && (us < HT_CPU_INTERVAL_MIN_US || us > HT_CPU_INTERVAL_MAX_US)) {
            snprintf(text, sizeof text, "CPU interval %u us is out of range (%u..%u us)", us,
                     HT_CPU_INTERVAL_MIN_US, HT_CPU_INTERVAL_MAX_US);
            code = HT_EBADREQ;
        } else {
            code = ht_collector_set_cpu(c, mode, us, text, sizeof text);
            value = (uint64_t)ht_cpu_sampler_mode(); /* the mode now asked of the sampler */
        }
    } else if (m->type == HT_MSG_DRAG_REQ) {
        ht_str f = ht_get_str(r);
        code = ht_drag_request(c->jvmti, c->jni, f.s, f.len, &value, text, sizeof text);
    } else if (m->type == HT_MSG_DETACH_REQ) {
        ht_collector_detach(c); /* once this reply is out: the loop ends */
    } else if (m->type == HT_MSG_MARK_REQ) {
        uint8_t state = 0;
        if (ht_collector_mark(c, (ht_mark_op)ht_get_u8(r), &state) != 0) {
            snprintf(text, sizeof text, "out of memory setting the mark");
            code = HT_EINTERNAL;
        }
        value = state;
    } else {
        value = m->type == HT_MSG_RESUME_REQ;
        ht_collector_set_sampling(c, (int)value);
    }
    if (code != HT_OK) {
        remember(ctl, m->seq, HT_MSG_ERROR, 0, code);
        reply_error(c, m->seq, code, text);
    } else {
        remember(ctl, m->seq, HT_MSG_ACK, value, 0);
        reply_ack(c, m->seq, value);
    }
}

void ht_control_handle(ht_control *ctl, ht_collector *c, nng_msg *req)
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
    if (m.type == HT_MSG_HELLO_REQ) {
        reply_hello(c, m.seq);
    } else if (m.type == HT_MSG_SYNC_REQ) {
        reply_sync(c, m.seq);
    } else if (ht_msg_info_of(m.type)->flags & HT_MSGF_COMMAND) { /* protocol.h's table */
        run_command(ctl, c, &m, &r);
    } else {
        char text[96];
        snprintf(text, sizeof text, "message type %s is not a request", ht_msg_type_name(m.type));
        reply_error(c, m.seq, HT_EBADREQ, text);
    }
}
