/* protocol.c - see protocol.h. */
#include "protocol.h"

#include <string.h>

const char *ht_strerror(int code)
{
    switch (code) {
    case HT_OK:
        return "ok";
    case HT_ETRUNC:
        return "truncated message";
    case HT_EMAGIC:
        return "not a heaptop message (bad magic)";
    case HT_EVERSION:
        return "protocol version mismatch";
    case HT_ETYPE:
        return "unknown message type";
    case HT_ETOOBIG:
        return "message too large";
    case HT_EBODY:
        return "malformed message body";
    case HT_EBADREQ:
        return "bad request";
    case HT_EINTERNAL:
        return "agent internal error";
    case HT_EBUSY:
        return "busy with a heap dump";
    case HT_ENOSPACE:
        return "not enough disk space";
    case HT_EAUTH:
        return "the agent's key was not proved";
    default:
        return "unknown error";
    }
}

const ht_msg_info *ht_msg_info_of(int type)
{
    switch (type) {
#define HT_MSG_INFO(name, number, kind, flags)                                                     \
    case number: {                                                                                 \
        static const ht_msg_info info = {#name, HT_MSGK_##kind, flags};                            \
        return &info;                                                                              \
    }
        HT_MSG_LIST(HT_MSG_INFO)
#undef HT_MSG_INFO
    default:
        return NULL;
    }
}

const char *ht_msg_type_name(int type)
{
    const ht_msg_info *i = ht_msg_info_of(type);
    return i ? i->name : NULL;
}

int ht_msg_open(const void *data, size_t len, ht_msg *out)
{
    memset(out, 0, sizeof *out);
    if (len > HT_MAX_MESSAGE) return HT_ETOOBIG;
    if (!data || len < HT_HEADER_SIZE) return HT_ETRUNC;
    ht_reader r;
    ht_reader_init(&r, data, len);
    if (ht_get_u32(&r) != HT_MAGIC) return HT_EMAGIC;
    out->version = ht_get_u16(&r);
    out->type = ht_get_u16(&r);
    uint32_t body_len = ht_get_u32(&r);
    out->seq = ht_get_u64(&r);
    if (out->version != HT_PROTOCOL_VERSION) return HT_EVERSION;
    if (!ht_msg_type_name(out->type)) return HT_ETYPE;
    if (body_len != len - HT_HEADER_SIZE) return HT_ETRUNC;
    out->body = (const uint8_t *)data + HT_HEADER_SIZE;
    out->body_len = body_len;
    return HT_OK;
}

void ht_msg_reader(const ht_msg *m, ht_reader *r)
{
    ht_reader_init(r, m->body, m->body_len);
}

/* A list count is plausible only if that many minimal records could fit. */
static uint32_t get_count(ht_reader *r, size_t min_record)
{
    uint32_t n = ht_get_u32(r);
    if ((uint64_t)n * min_record > ht_remaining(r)) r->failed = 1;
    return r->failed ? 0 : n;
}

static void skip_records(ht_reader *r, uint32_t n, size_t size)
{
    ht_get_bytes(r, (size_t)n * size);
}

#define AGG_WIRE_SIZE       120u
#define TELEMETRY_WIRE_SIZE 194u

static int validate_body(const ht_msg *m, int depth);

static int validate_sync(const ht_msg *m, int depth)
{
    ht_sync_iter it;
    if (depth > 0) return HT_EBODY; /* no nesting */
    int rc = ht_sync_begin(m, &it);
    if (rc != HT_OK) return rc;
    ht_msg inner;
    while ((rc = ht_sync_next(&it, &inner)) == 1) {
        /* stream messages, and the HELLO that gives the state as of the sync */
        const ht_msg_info *in = ht_msg_info_of(inner.type);
        if (!in || (in->kind != HT_MSGK_STREAM && inner.type != HT_MSG_HELLO_REP)) return HT_EBODY;
        int v = validate_body(&inner, depth + 1);
        if (v != HT_OK) return v;
    }
    return rc == 0 ? HT_OK : -rc;
}

static int validate_body(const ht_msg *m, int depth)
{
    ht_reader r;
    ht_msg_reader(m, &r);
    uint32_t n;
    switch (m->type) {
    case HT_MSG_HELLO_REQ:
    case HT_MSG_SYNC_REQ:
    case HT_MSG_PAUSE_REQ:
    case HT_MSG_RESUME_REQ:
    case HT_MSG_DETACH_REQ:
        break;
    case HT_MSG_SET_INTERVAL_REQ:
    case HT_MSG_ACK:
        ht_get_u64(&r);
        break;
    case HT_MSG_AUTH_REQ:
    case HT_MSG_AUTH_PROOF_REQ:
        ht_get_bytes(&r, 32);
        break;
    case HT_MSG_AUTH_REP:
        ht_get_bytes(&r, 96);
        break;
    case HT_MSG_HELLO_REP: {
        ht_hello h;
        ht_dec_hello(&r, &h);
        if (h.cpu_mode >= HT_CPU_MODES) r.failed = 1;
        break;
    }
    case HT_MSG_ERROR:
        ht_get_u32(&r);
        ht_get_str(&r);
        break;
    case HT_MSG_BYE:
        ht_get_str(&r);
        break;
    case HT_MSG_MARK_REQ:
        if (ht_get_u8(&r) - 1u > 2u) r.failed = 1; /* begin, end or continue */
        break;
    case HT_MSG_BUDGET_REQ:
        ht_get_u32(&r);
        break;
    case HT_MSG_CPU_REQ:
        if (ht_get_u8(&r) >= HT_CPU_MODES) r.failed = 1;
        ht_get_u32(&r);
        break;
    case HT_MSG_CPU_THREADS:
    case HT_MSG_CPU_ROWS:
        ht_cpu_validate_body(m->type, &r);
        break;
    case HT_MSG_DRAG_REQ:
    case HT_MSG_DRAG_STATE:
    case HT_MSG_DRAG_ROWS:
        ht_drag_validate_body(m->type, &r);
        break;
    case HT_MSG_HEAP_DUMP_REQ:
        if (ht_get_u8(&r) & ~HT_DUMP_FLAGS) r.failed = 1; /* an unknown flag */
        break;
    case HT_MSG_HEAP_DUMP: {
        ht_heap_dump_rec d;
        ht_dec_heap_dump(&r, &d);
        if (d.state - 1u > 2u || (d.flags & ~HT_DUMP_FLAGS)) r.failed = 1;
        break;
    }
    case HT_MSG_MARK: {
        ht_mark_rec mk;
        ht_dec_mark(&r, &mk);
        if (mk.state > HT_MARK_STOPPED) r.failed = 1;
        break;
    }
    case HT_MSG_CLASSES:
        n = get_count(&r, 8);
        for (uint32_t i = 0; i < n && !r.failed; i++) {
            ht_get_u32(&r);
            ht_get_str(&r);
        }
        break;
    case HT_MSG_METHODS:
        n = get_count(&r, 16);
        for (uint32_t i = 0; i < n && !r.failed; i++) {
            ht_method_rec rec;
            ht_dec_method(&r, &rec);
        }
        break;
    case HT_MSG_TRACES:
        n = get_count(&r, 6);
        for (uint32_t i = 0; i < n && !r.failed; i++) {
            ht_trace_head t;
            ht_dec_trace_head(&r, &t);
            skip_records(&r, t.depth, HT_FRAME_WIRE_SIZE);
        }
        break;
    case HT_MSG_AGGS:
        n = get_count(&r, AGG_WIRE_SIZE);
        skip_records(&r, n, AGG_WIRE_SIZE);
        break;
    case HT_MSG_TELEMETRY:
        n = get_count(&r, TELEMETRY_WIRE_SIZE);
        skip_records(&r, n, TELEMETRY_WIRE_SIZE);
        break;
    case HT_MSG_SYNC_REP:
        return validate_sync(m, depth);
    default:
        return HT_ETYPE;
    }
    if (r.failed || ht_remaining(&r) != 0) return HT_EBODY;
    return HT_OK;
}

int ht_msg_validate(const ht_msg *m)
{
    return validate_body(m, 0);
}

size_t ht_msg_begin(ht_buf *b, uint16_t type, uint64_t seq)
{
    size_t start = b->len;
    ht_put_u32(b, HT_MAGIC);
    ht_put_u16(b, HT_PROTOCOL_VERSION);
    ht_put_u16(b, type);
    ht_put_u32(b, 0);
    ht_put_u64(b, seq);
    return start;
}

void ht_msg_end(ht_buf *b, size_t start)
{
    size_t body = b->len - start - HT_HEADER_SIZE;
    ht_patch_u32(b, start + 8, (uint32_t)body);
}

void ht_msg_set_seq(ht_buf *b, size_t start, uint64_t seq)
{
    ht_patch_u32(b, start + 12, (uint32_t)seq);
    ht_patch_u32(b, start + 16, (uint32_t)(seq >> 32));
}

size_t ht_list_begin(ht_buf *b)
{
    size_t at = b->len;
    ht_put_u32(b, 0);
    return at;
}

void ht_list_end(ht_buf *b, size_t at, uint32_t count)
{
    ht_patch_u32(b, at, count);
}

void ht_enc_hello(ht_buf *b, const ht_hello *h, const char *main_class, const char *jdk,
                  const char *options, const char *tcp)
{
    ht_put_u32(b, h->pid);
    ht_put_u64(b, h->start_epoch_ms);
    ht_put_u64(b, h->interval);
    ht_put_u32(b, h->depth);
    ht_put_u8(b, h->live);
    ht_put_u8(b, h->paused);
    ht_put_u32(b, h->max_traces);
    ht_put_u32(b, h->viewers);
    ht_put_str(b, main_class);
    ht_put_str(b, jdk);
    ht_put_str(b, options);
    ht_put_str(b, tcp ? tcp : "");
    ht_put_u8(b, h->cpu_mode);
    ht_put_u32(b, h->cpu_interval_us);
}

void ht_dec_hello(ht_reader *r, ht_hello *h)
{
    h->pid = ht_get_u32(r);
    h->start_epoch_ms = ht_get_u64(r);
    h->interval = ht_get_u64(r);
    h->depth = ht_get_u32(r);
    h->live = ht_get_u8(r);
    h->paused = ht_get_u8(r);
    h->max_traces = ht_get_u32(r);
    h->viewers = ht_get_u32(r);
    h->main_class = ht_get_str(r);
    h->jdk_version = ht_get_str(r);
    h->options = ht_get_str(r);
    h->tcp = ht_get_str(r);
    h->cpu_mode = ht_get_u8(r);
    h->cpu_interval_us = ht_get_u32(r);
}

void ht_enc_class(ht_buf *b, uint32_t id, const char *name)
{
    ht_put_u32(b, id);
    ht_put_str(b, name);
}

void ht_dec_class(ht_reader *r, ht_class_rec *c)
{
    c->id = ht_get_u32(r);
    c->name = ht_get_str(r);
}

void ht_enc_method(ht_buf *b, uint32_t id, const char *cls, const char *name, const char *src)
{
    ht_put_u32(b, id);
    ht_put_str(b, cls);
    ht_put_str(b, name);
    ht_put_str(b, src);
}

void ht_dec_method(ht_reader *r, ht_method_rec *m)
{
    m->id = ht_get_u32(r);
    m->class_name = ht_get_str(r);
    m->method_name = ht_get_str(r);
    m->source_file = ht_get_str(r);
}

void ht_enc_trace_head(ht_buf *b, uint32_t id, uint16_t depth)
{
    ht_put_u32(b, id);
    ht_put_u16(b, depth);
}

void ht_dec_trace_head(ht_reader *r, ht_trace_head *t)
{
    t->id = ht_get_u32(r);
    t->depth = ht_get_u16(r);
}

void ht_enc_frame(ht_buf *b, uint32_t method_id, int32_t line)
{
    ht_put_u32(b, method_id);
    ht_put_i32(b, line);
}

void ht_dec_frame(ht_reader *r, ht_frame_rec *f)
{
    f->method_id = ht_get_u32(r);
    f->line = ht_get_i32(r);
}

void ht_enc_agg(ht_buf *b, const ht_agg_rec *a)
{
    ht_put_u32(b, a->trace_id);
    ht_put_u32(b, a->class_id);
    ht_put_u64(b, a->samples);
    ht_put_u64(b, a->live_samples);
    ht_put_u64(b, a->young_samples);
    ht_put_u64(b, a->dropped);
    ht_put_f64(b, a->est_bytes);
    ht_put_f64(b, a->est_instances);
    ht_put_f64(b, a->live_est_bytes);
    ht_put_f64(b, a->live_est_instances);
    ht_put_f64(b, a->young_est_bytes);
    ht_put_f64(b, a->young_est_instances);
    ht_put_f64(b, a->diff_bytes);
    ht_put_f64(b, a->diff_instances);
    ht_put_f64(b, a->growth_bytes);
    ht_put_f64(b, a->growth_instances);
}

void ht_dec_agg(ht_reader *r, ht_agg_rec *a)
{
    a->trace_id = ht_get_u32(r);
    a->class_id = ht_get_u32(r);
    a->samples = ht_get_u64(r);
    a->live_samples = ht_get_u64(r);
    a->young_samples = ht_get_u64(r);
    a->dropped = ht_get_u64(r);
    a->est_bytes = ht_get_f64(r);
    a->est_instances = ht_get_f64(r);
    a->live_est_bytes = ht_get_f64(r);
    a->live_est_instances = ht_get_f64(r);
    a->young_est_bytes = ht_get_f64(r);
    a->young_est_instances = ht_get_f64(r);
    a->diff_bytes = ht_get_f64(r);
    a->diff_instances = ht_get_f64(r);
    a->growth_bytes = ht_get_f64(r);
    a->growth_instances = ht_get_f64(r);
}

void ht_enc_telemetry(ht_buf *b, const ht_telemetry_rec *t)
{
    ht_put_u64(b, t->t_ms);
    ht_put_u64(b, t->heap_used);
    ht_put_u64(b, t->heap_committed);
    ht_put_u64(b, t->heap_max);
    ht_put_u64(b, t->alloc_bytes);
    ht_put_u64(b, t->gc_count);
    ht_put_u64(b, t->gc_time_ms);
    ht_put_f64(b, t->gc_pct);
    ht_put_u32(b, t->threads);
    ht_put_u32(b, t->classes);
    ht_put_u64(b, t->threads_started);
    ht_put_u64(b, t->samples);
    ht_put_u64(b, t->dropped);
    ht_put_u64(b, t->interval);
    ht_put_u8(b, t->paused);
    ht_put_u64(b, t->live_lag_ms);
    ht_put_u64(b, t->live_as_of);
    ht_put_u64(b, t->untracked);
    ht_put_u64(b, t->base_interval);
    ht_put_u32(b, t->budget_x100);
    ht_put_f64(b, t->agent_cpu_pct);
    ht_put_f64(b, t->agent_cpu_ms_per_s);
    ht_put_u8(b, t->cpu_mode);
    ht_put_u32(b, t->cpu_interval_us);
    ht_put_u64(b, t->cpu_samples);
    ht_put_u64(b, t->cpu_failed);
    ht_put_f64(b, t->cpu_sampler_ms_per_s);
    ht_put_f64(b, t->cpu_floor_ms_per_s);
}

void ht_enc_mark(ht_buf *b, uint64_t seq, const ht_mark_rec *mk)
{
    size_t m = ht_msg_begin(b, HT_MSG_MARK, seq);
    ht_put_u8(b, mk->state);
    ht_put_u64(b, mk->length_ms);
    ht_put_u64(b, mk->t_ms);
    ht_msg_end(b, m);
}

void ht_dec_mark(ht_reader *r, ht_mark_rec *mk)
{
    mk->state = ht_get_u8(r);
    mk->length_ms = ht_get_u64(r);
    mk->t_ms = ht_get_u64(r);
}

void ht_enc_heap_dump(ht_buf *b, uint64_t seq, const ht_heap_dump_rec *d, const char *path,
                      const char *error)
{
    size_t m = ht_msg_begin(b, HT_MSG_HEAP_DUMP, seq);
    ht_put_u64(b, d->id);
    ht_put_u8(b, d->state);
    ht_put_u8(b, d->flags);
    ht_put_u64(b, d->t_ms);
    ht_put_u64(b, d->elapsed_ms);
    ht_put_u64(b, d->bytes);
    ht_put_u64(b, d->heap_used);
    ht_put_u64(b, d->marked);
    ht_put_str(b, path);
    ht_put_str(b, error);
    ht_msg_end(b, m);
}

void ht_dec_heap_dump(ht_reader *r, ht_heap_dump_rec *d)
{
    d->id = ht_get_u64(r);
    d->state = ht_get_u8(r);
    d->flags = ht_get_u8(r);
    d->t_ms = ht_get_u64(r);
    d->elapsed_ms = ht_get_u64(r);
    d->bytes = ht_get_u64(r);
    d->heap_used = ht_get_u64(r);
    d->marked = ht_get_u64(r);
    d->path = ht_get_str(r);
    d->error = ht_get_str(r);
}

void ht_dec_telemetry(ht_reader *r, ht_telemetry_rec *t)
{
    t->t_ms = ht_get_u64(r);
    t->heap_used = ht_get_u64(r);
    t->heap_committed = ht_get_u64(r);
    t->heap_max = ht_get_u64(r);
    t->alloc_bytes = ht_get_u64(r);
    t->gc_count = ht_get_u64(r);
    t->gc_time_ms = ht_get_u64(r);
    t->gc_pct = ht_get_f64(r);
    t->threads = ht_get_u32(r);
    t->classes = ht_get_u32(r);
    t->threads_started = ht_get_u64(r);
    t->samples = ht_get_u64(r);
    t->dropped = ht_get_u64(r);
    t->interval = ht_get_u64(r);
    t->paused = ht_get_u8(r);
    t->live_lag_ms = ht_get_u64(r);
    t->live_as_of = ht_get_u64(r);
    t->untracked = ht_get_u64(r);
    t->base_interval = ht_get_u64(r);
    t->budget_x100 = ht_get_u32(r);
    t->agent_cpu_pct = ht_get_f64(r);
    t->agent_cpu_ms_per_s = ht_get_f64(r);
    t->cpu_mode = ht_get_u8(r);
    t->cpu_interval_us = ht_get_u32(r);
    t->cpu_samples = ht_get_u64(r);
    t->cpu_failed = ht_get_u64(r);
    t->cpu_sampler_ms_per_s = ht_get_f64(r);
    t->cpu_floor_ms_per_s = ht_get_f64(r);
}

void ht_enc_error(ht_buf *b, uint64_t seq, int code, const char *text)
{
    size_t m = ht_msg_begin(b, HT_MSG_ERROR, seq);
    ht_put_u32(b, (uint32_t)code);
    ht_put_str(b, text);
    ht_msg_end(b, m);
}

void ht_enc_simple(ht_buf *b, uint16_t type, uint64_t seq)
{
    ht_msg_end(b, ht_msg_begin(b, type, seq));
}

void ht_enc_u64_msg(ht_buf *b, uint16_t type, uint64_t seq, uint64_t value)
{
    size_t m = ht_msg_begin(b, type, seq);
    ht_put_u64(b, value);
    ht_msg_end(b, m);
}

void ht_enc_bye(ht_buf *b, uint64_t seq, const char *reason)
{
    size_t m = ht_msg_begin(b, HT_MSG_BYE, seq);
    ht_put_str(b, reason);
    ht_msg_end(b, m);
}

int ht_sync_begin(const ht_msg *m, ht_sync_iter *it)
{
    if (m->type != HT_MSG_SYNC_REP) return HT_ETYPE;
    ht_msg_reader(m, &it->r);
    it->last_stream_seq = ht_get_u64(&it->r);
    it->left = get_count(&it->r, 4 + HT_HEADER_SIZE);
    return it->r.failed ? HT_EBODY : HT_OK;
}

int ht_sync_next(ht_sync_iter *it, ht_msg *out)
{
    if (it->left == 0) return ht_remaining(&it->r) == 0 && !it->r.failed ? 0 : -HT_EBODY;
    uint32_t len = ht_get_u32(&it->r);
    const uint8_t *p = ht_get_bytes(&it->r, len);
    if (!p) return -HT_EBODY;
    int rc = ht_msg_open(p, len, out);
    if (rc != HT_OK) return -rc;
    it->left--;
    return 1;
}
