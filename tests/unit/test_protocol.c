/* Protocol round trips and malformed input. */
#include "check.h"
#include "proto_builder.h"
#include "protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_roundtrip_lists(void)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_TRACES, 42);
    mb_trace(&m, 7, 2);
    mb_frame(&m, 1, 10);
    mb_frame(&m, 2, HT_LINE_UNKNOWN);
    mb_trace(&m, 9, 0);
    mb_end(&m);

    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
    CHECK(msg.type == HT_MSG_TRACES && msg.seq == 42);
    CHECK(ht_msg_validate(&msg) == HT_OK);
    ht_reader r;
    ht_msg_reader(&msg, &r);
    CHECK(ht_get_u32(&r) == 2);
    ht_trace_head th;
    ht_frame_rec f;
    ht_dec_trace_head(&r, &th);
    CHECK(th.id == 7 && th.depth == 2);
    ht_dec_frame(&r, &f);
    CHECK(f.method_id == 1 && f.line == 10);
    ht_dec_frame(&r, &f);
    CHECK(f.method_id == 2 && f.line == HT_LINE_UNKNOWN);
    ht_dec_trace_head(&r, &th);
    CHECK(th.id == 9 && th.depth == 0);
    CHECK(ht_remaining(&r) == 0 && !r.failed);

    /* Every strict prefix is rejected, never read past. */
    for (size_t len = 0; len < b.len; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, b.data, len);
        int rc = ht_msg_open(copy, len, &msg);
        if (rc == HT_OK) rc = ht_msg_validate(&msg);
        CHECK(rc != HT_OK);
        free(copy);
    }
    ht_buf_free(&b);
}

static void test_fixed_records(void)
{
    ht_buf b;
    ht_buf_init(&b);
    /* every field a distinct value, so a field written or read in the wrong
     * place cannot round-trip */
    ht_agg_rec a = {.trace_id = 3,
                    .class_id = 4,
                    .samples = 100,
                    .live_samples = 20,
                    .young_samples = 7,
                    .dropped = 11,
                    .est_bytes = 1.5e9,
                    .est_instances = 12345.25,
                    .live_est_bytes = 7.0e8,
                    .live_est_instances = 99.5,
                    .young_est_bytes = 4096.5,
                    .young_est_instances = 3.25,
                    .diff_bytes = 1.0e6,
                    .diff_instances = 10.5,
                    .growth_bytes = -2048.0,
                    .growth_instances = -2.5};
    ht_telemetry_rec t;
    memset(&t, 0, sizeof t);
    t.t_ms = 1000;
    t.heap_used = 1u << 30;
    t.heap_committed = 3u << 29;
    t.heap_max = 1ull << 33;
    t.alloc_bytes = UINT64_MAX;
    t.gc_count = 17;
    t.gc_time_ms = 345;
    t.gc_pct = 12.5;
    t.threads = 9;
    t.classes = 1234;
    t.threads_started = 44;
    t.samples = 99999;
    t.dropped = 3;
    t.interval = 524288;
    t.paused = 1;
    t.live_lag_ms = 250;
    t.live_as_of = 16;
    t.untracked = 5;
    t.base_interval = 65536;
    t.budget_x100 = 150;
    t.agent_cpu_pct = 0.75;
    t.agent_cpu_ms_per_s = 3.25;
    t.cpu_mode = HT_CPU_ASYNC;
    t.cpu_interval_us = 20000;
    t.cpu_samples = 777;
    t.cpu_failed = 12;
    t.cpu_sampler_ms_per_s = 0.125;
    t.cpu_floor_ms_per_s = 0.0625;

    mb m = mb_list(&b, HT_MSG_AGGS, 1);
    size_t before = b.len;
    mb_agg(&m, &a);
    CHECK(b.len - before == 120);
    mb_end(&m);
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_reader r;
    ht_msg_reader(&msg, &r);
    ht_get_u32(&r);
    ht_agg_rec a2;
    ht_dec_agg(&r, &a2);
    CHECK(memcmp(&a, &a2, sizeof a) == 0);

    ht_buf_reset(&b);
    m = mb_list(&b, HT_MSG_TELEMETRY, 2);
    before = b.len;
    mb_telemetry(&m, &t);
    CHECK(b.len - before == 194);
    mb_end(&m);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_msg_reader(&msg, &r);
    ht_get_u32(&r);
    ht_telemetry_rec t2;
    memset(&t2, 0, sizeof t2);
    ht_dec_telemetry(&r, &t2);
    CHECK(memcmp(&t, &t2, sizeof t) == 0);
    CHECK(t2.agent_cpu_ms_per_s == 3.25); /* protocol 7: the agent's CPU in ms a second */
    CHECK(t2.cpu_mode == HT_CPU_ASYNC && t2.cpu_failed == 12); /* protocol 8: CPU sampling */
    /* A peer of protocol 7 (telemetry without the CPU sampler's fields, 157
     * bytes a record) is refused by the header, and its record would not
     * validate either. */
    b.data[4] = 7;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_EVERSION);
    b.data[4] = HT_PROTOCOL_VERSION;
    ht_buf old;
    ht_buf_init(&old);
    m = mb_list(&old, HT_MSG_TELEMETRY, 2);
    mb_telemetry(&m, &t);
    old.len -= 37; /* the record as protocol 7 wrote it */
    mb_end(&m);
    CHECK(ht_msg_open(old.data, old.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
    ht_buf_free(&old);

    /* the mark: a whole message; a state past STOPPED is malformed */
    ht_buf_reset(&b);
    ht_mark_rec mk = {HT_MARK_STOPPED, 12345, 67890};
    ht_enc_mark(&b, 4, &mk);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_msg_reader(&msg, &r);
    ht_mark_rec mk2;
    ht_dec_mark(&r, &mk2);
    CHECK(mk2.state == HT_MARK_STOPPED && mk2.length_ms == 12345 && mk2.t_ms == 67890);
    b.data[HT_HEADER_SIZE] = 3;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
    /* a mark request carries an operation: begin, end or continue */
    for (int op = 0; op <= 4; op++) {
        ht_buf_reset(&b);
        mb_u8_req(&b, HT_MSG_MARK_REQ, 9, (uint8_t)op);
        CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
        CHECK((ht_msg_validate(&msg) == HT_OK) == (op >= HT_MARK_BEGIN && op <= HT_MARK_CONTINUE));
    }
    ht_buf_free(&b);
}

static void test_hello_and_strings(void)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_hello h = {.pid = 1234,
                  .start_epoch_ms = 5678,
                  .interval = 524288,
                  .depth = 64,
                  .live = 1,
                  .max_traces = 200000,
                  .viewers = 3,
                  .cpu_mode = HT_CPU_ON,
                  .cpu_interval_us = 10000};
    mb_hello(&b, 77, &h, "demo.Main", "17.0.15", "interval=524288", "");
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_reader r;
    ht_msg_reader(&msg, &r);
    ht_hello h2;
    ht_dec_hello(&r, &h2);
    CHECK(h2.pid == 1234 && h2.interval == 524288 && h2.max_traces == 200000 && h2.viewers == 3);
    CHECK(h2.cpu_mode == HT_CPU_ON && h2.cpu_interval_us == 10000);
    CHECK(h2.main_class.len == 9 && memcmp(h2.main_class.s, "demo.Main", 9) == 0);
    char *dup = ht_str_dup(h2.options);
    CHECK(strcmp(dup, "interval=524288") == 0);
    free(dup);

    /* A string length that points past the end is rejected. */
    b.data[HT_HEADER_SIZE + 4 + 8 + 8 + 4 + 1 + 1 + 4 + 4] = 0xff;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
    CHECK(ht_msg_validate(&msg) == HT_EBODY);
    ht_buf_free(&b);
}

static void test_header_errors(void)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_simple(&b, HT_MSG_SYNC_REQ, 5);
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    CHECK(ht_msg_open(b.data, b.len - 1, &msg) == HT_ETRUNC);
    CHECK(ht_msg_open(NULL, 0, &msg) == HT_ETRUNC);
    b.data[0] ^= 1;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_EMAGIC);
    b.data[0] ^= 1;
    b.data[4] = 99; /* version */
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_EVERSION);
    b.data[4] = HT_PROTOCOL_VERSION;
    b.data[6] = 200; /* type */
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_ETYPE);
    b.data[6] = HT_MSG_SYNC_REQ;
    /* trailing bytes beyond the declared length */
    ht_put_u8(&b, 0);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_ETRUNC);
    CHECK(ht_msg_open(b.data, HT_MAX_MESSAGE + 1ull, &msg) == HT_ETOOBIG);
    /* a count that cannot fit is rejected before any record is read */
    ht_buf_reset(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_AGGS, 1);
    ht_put_u32(&b, 0x7fffffff);
    ht_msg_end(&b, m);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
    /* body of an empty request must be empty */
    ht_buf_reset(&b);
    m = ht_msg_begin(&b, HT_MSG_HELLO_REQ, 1);
    ht_put_u8(&b, 1);
    ht_msg_end(&b, m);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
    CHECK(strcmp(ht_strerror(HT_EVERSION), "protocol version mismatch") == 0);
    ht_buf_free(&b);
}

static void test_sync_nesting(void)
{
    ht_buf inner;
    ht_buf_init(&inner);
    mb m = mb_list(&inner, HT_MSG_CLASSES, 0);
    mb_class(&m, 1, "java.lang.String");
    mb_end(&m);

    ht_buf b;
    ht_buf_init(&b);
    m = mb_sync(&b, 9, 1234);
    for (int i = 0; i < 2; i++)
        mb_sync_add(&m, &inner);
    mb_end(&m);
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_sync_iter it;
    CHECK(ht_sync_begin(&msg, &it) == HT_OK && it.last_stream_seq == 1234);
    ht_msg in;
    int n = 0, rc;
    while ((rc = ht_sync_next(&it, &in)) == 1)
        n += in.type == HT_MSG_CLASSES;
    CHECK(rc == 0 && n == 2);

    /* a sync ends with a HELLO (the state as of it); no other reply fits */
    ht_buf hello;
    ht_buf_init(&hello);
    ht_hello h = {.pid = 7, .paused = 1};
    mb_hello(&hello, 0, &h, "Main", "17", "", "");
    ht_buf ack;
    ht_buf_init(&ack);
    ht_enc_u64_msg(&ack, HT_MSG_ACK, 0, 1);
    for (int k = 0; k < 2; k++) {
        ht_buf s;
        ht_buf_init(&s);
        m = mb_sync(&s, 9, 1234);
        mb_sync_add(&m, &inner);
        mb_sync_add(&m, k ? &ack : &hello);
        mb_end(&m);
        CHECK(ht_msg_open(s.data, s.len, &msg) == HT_OK);
        CHECK((ht_msg_validate(&msg) == HT_OK) == (k == 0));
        ht_buf_free(&s);
    }
    ht_buf_free(&ack);
    ht_buf_free(&hello);

    /* a sync embedded in a sync is refused */
    ht_buf outer;
    ht_buf_init(&outer);
    m = mb_sync(&outer, 1, 1);
    mb_sync_add(&m, &b);
    mb_end(&m);
    CHECK(ht_msg_open(outer.data, outer.len, &msg) == HT_OK && ht_msg_validate(&msg) != HT_OK);
    ht_buf_free(&outer);
    ht_buf_free(&b);
    ht_buf_free(&inner);
}

/* Heap dumps: the request's flags, the stream message both ways, every
 * truncation, bad states and flags; a dump message inside a sync. */
static void test_heap_dump(void)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_msg msg;
    ht_reader r;
    for (int flags = 0; flags <= 8; flags++) {
        ht_buf_reset(&b);
        mb_u8_req(&b, HT_MSG_HEAP_DUMP_REQ, 77, (uint8_t)flags);
        CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
        CHECK((ht_msg_validate(&msg) == HT_OK) == (flags <= HT_DUMP_FLAGS));
    }
    ht_buf_reset(&b); /* the request without its flags */
    ht_enc_simple(&b, HT_MSG_HEAP_DUMP_REQ, 1);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
    CHECK(strcmp(ht_msg_type_name(HT_MSG_HEAP_DUMP_REQ), "HEAP_DUMP_REQ") == 0);
    CHECK(strcmp(ht_msg_type_name(HT_MSG_HEAP_DUMP), "HEAP_DUMP") == 0);
    CHECK(strcmp(ht_strerror(HT_EBUSY), "busy with a heap dump") == 0);
    CHECK(strcmp(ht_strerror(HT_ENOSPACE), "not enough disk space") == 0);

    const char *path = "/tmp/heaptop-0/1234.dumps/heap-1234-3.hprof";
    ht_heap_dump_rec d = {.id = 3,
                          .state = HT_DUMP_DONE,
                          .flags = HT_DUMP_ALL | HT_DUMP_KEEP,
                          .t_ms = 123456,
                          .elapsed_ms = 2600,
                          .bytes = 365ull << 20,
                          .heap_used = 5ull << 30,
                          .marked = 2238};
    ht_buf_reset(&b);
    ht_enc_heap_dump(&b, 99, &d, path, "");
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    CHECK(msg.type == HT_MSG_HEAP_DUMP && msg.seq == 99);
    CHECK(b.len == HT_HEADER_SIZE + 8 + 1 + 1 + 5 * 8 + 4 + strlen(path) + 4);
    ht_msg_reader(&msg, &r);
    ht_heap_dump_rec d2;
    ht_dec_heap_dump(&r, &d2);
    CHECK(!r.failed && ht_remaining(&r) == 0);
    CHECK(d2.id == 3 && d2.state == HT_DUMP_DONE && d2.flags == (HT_DUMP_ALL | HT_DUMP_KEEP));
    CHECK(d2.t_ms == 123456 && d2.elapsed_ms == 2600 && d2.bytes == 365ull << 20 &&
          d2.heap_used == 5ull << 30 && d2.marked == 2238);
    CHECK(d2.path.len == strlen(path) && memcmp(d2.path.s, path, d2.path.len) == 0);
    CHECK(d2.error.len == 0);
    /* every cut is an error: the header's length, then the body's records */
    for (size_t len = 0; len < b.len; len++)
        CHECK(ht_msg_open(b.data, len, &msg) != HT_OK);
    for (size_t cut = 1; cut <= b.len - HT_HEADER_SIZE; cut++) {
        ht_buf t;
        ht_buf_init(&t);
        ht_put_bytes(&t, b.data, b.len - cut);
        ht_patch_u32(&t, 8, (uint32_t)(t.len - HT_HEADER_SIZE));
        CHECK(ht_msg_open(t.data, t.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);
        ht_buf_free(&t);
    }
    /* states 1..3 only, known flags only */
    size_t state_at = HT_HEADER_SIZE + 8, flags_at = state_at + 1;
    for (int st = 0; st <= 4; st++) {
        b.data[state_at] = (uint8_t)st;
        CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
        CHECK((ht_msg_validate(&msg) == HT_OK) == (st >= HT_DUMP_RUNNING && st <= HT_DUMP_FAILED));
    }
    b.data[state_at] = HT_DUMP_FAILED;
    b.data[flags_at] = HT_DUMP_PLAIN;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    b.data[flags_at] = 8;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);

    /* a failed dump with its reason, carried inside a sync */
    ht_heap_dump_rec f = {.id = 4, .state = HT_DUMP_FAILED, .heap_used = 1000};
    ht_buf inner;
    ht_buf_init(&inner);
    ht_enc_heap_dump(&inner, 0, &f, "", "java.io.IOException: No space left on device");
    ht_buf_reset(&b);
    mb m = mb_sync(&b, 5, 10);
    mb_sync_add(&m, &inner);
    mb_end(&m);
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_sync_iter it;
    ht_msg in;
    CHECK(ht_sync_begin(&msg, &it) == HT_OK && ht_sync_next(&it, &in) == 1);
    CHECK(in.type == HT_MSG_HEAP_DUMP);
    ht_msg_reader(&in, &r);
    ht_dec_heap_dump(&r, &d2);
    CHECK(d2.id == 4 && d2.state == HT_DUMP_FAILED && d2.path.len == 0 &&
          d2.error.len == strlen("java.io.IOException: No space left on device"));
    CHECK(ht_sync_next(&it, &in) == 0);
    ht_buf_free(&inner);
    ht_buf_free(&b);
}

/* protocol.h's message table: the number ranges the protocol keeps (requests
 * below 16, replies 16-31, the stream from 32), a name for every message,
 * and commands only among requests; and a message whose header names a
 * number outside the table is refused as ETYPE. */
static void test_message_table(void)
{
    int seen = 0;
    for (int type = 0; type < 256; type++) {
        const ht_msg_info *i = ht_msg_info_of(type);
        if (!i) {
            CHECK_MSG(ht_msg_type_name(type) == NULL, "%d has a name but no line", type);
            continue;
        }
        seen++;
        ht_msg_kind want = type < 16 ? HT_MSGK_REQ : type < 32 ? HT_MSGK_REP : HT_MSGK_STREAM;
        CHECK_MSG(i->kind == want, "%s (%d) is of the wrong kind", i->name, type);
        CHECK_MSG(i->name && strcmp(ht_msg_type_name(type), i->name) == 0, "%d's name", type);
        CHECK_MSG(!(i->flags & (HT_MSGF_COMMAND | HT_MSGF_VM)) || i->kind == HT_MSGK_REQ,
                  "%s: only a request runs as a command", i->name);
    }
    CHECK(seen == 30); /* 27 and the three of drag (protocol_drag.h) */
    CHECK(ht_msg_info_of(HT_MSG_PAUSE_REQ)->flags & HT_MSGF_VM);
    CHECK(!(ht_msg_info_of(HT_MSG_MARK_REQ)->flags & HT_MSGF_VM));
    ht_buf b;
    ht_buf_init(&b);
    ht_msg_end(&b, ht_msg_begin(&b, 35, 1)); /* a number no longer used */
    ht_msg m;
    CHECK(ht_msg_open(b.data, b.len, &m) == HT_ETYPE);
    ht_buf_free(&b);
}

/* Protocol 8's CPU records: a thread and a row round-trip; a row is either
 * a stack (a trace, no bucket) or a named bucket (no trace); a CPU request's
 * mode is one of three; the names of modes, states and buckets. */
static void test_cpu_records(void)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_cpu_thread_rec t = {.id = 7,
                           .state = HT_THREAD_NATIVE,
                           .daemon = 1,
                           .cpu_ns = 123456789,
                           .recent_ns = 5000000,
                           .samples = 42,
                           .diff_cpu_ns = 1000,
                           .diff_samples = 1};
    mb m = mb_list(&b, HT_MSG_CPU_THREADS, 1);
    mb_cpu_thread(&m, &t, "worker-1");
    mb_end(&m);
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_OK);
    ht_reader r;
    ht_msg_reader(&msg, &r);
    CHECK(ht_get_u32(&r) == 1);
    ht_cpu_thread_rec t2;
    ht_dec_cpu_thread(&r, &t2);
    CHECK(t2.id == 7 && t2.state == HT_THREAD_NATIVE && t2.cpu_ns == 123456789 &&
          t2.samples == 42 && t2.name.len == 8 && memcmp(t2.name.s, "worker-1", 8) == 0);
    b.data[HT_HEADER_SIZE + 8] = HT_THREAD_STATES; /* a state past the last */
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_msg_validate(&msg) == HT_EBODY);

    const ht_cpu_row_rec rows[] = {
        {.thread_id = 7, .trace_id = 3, .samples = 10, .cpu_ns = 99000000},
        {.thread_id = 7, .bucket = HT_CPUB_ASGCT + 5, .samples = 2, .cpu_ns = 20000000},
    };
    const ht_cpu_row_rec bad[] = {
        {.thread_id = 7, .trace_id = 3, .bucket = HT_CPUB_WALK_FAILED}, /* both */
        {.thread_id = 7},                                               /* neither */
        {.thread_id = 7, .bucket = 9},                                  /* no such bucket */
    };
    for (size_t i = 0; i < 2 + sizeof bad / sizeof *bad; i++) {
        ht_buf_reset(&b);
        m = mb_list(&b, HT_MSG_CPU_ROWS, 2);
        size_t before = b.len;
        mb_cpu_row(&m, i < 2 ? &rows[i] : &bad[i - 2]);
        CHECK(b.len - before == HT_CPU_ROW_WIRE_SIZE);
        mb_end(&m);
        CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
        CHECK_MSG((ht_msg_validate(&msg) == HT_OK) == (i < 2), "row %zu", i);
    }
    ht_buf_reset(&b);
    m = mb_list(&b, HT_MSG_CPU_ROWS, 2);
    mb_cpu_row(&m, &rows[1]);
    mb_end(&m);
    ht_msg_open(b.data, b.len, &msg);
    ht_msg_reader(&msg, &r);
    ht_get_u32(&r);
    ht_cpu_row_rec row;
    ht_dec_cpu_row(&r, &row);
    CHECK(row.thread_id == 7 && row.trace_id == HT_TRACE_NONE && row.bucket == HT_CPUB_ASGCT + 5 &&
          row.samples == 2 && row.cpu_ns == 20000000 && row.diff_samples == 0);
    CHECK(strcmp(ht_cpu_bucket_name(row.bucket), "unknown_Java") == 0);
    CHECK(ht_cpu_bucket_name(HT_CPUB_NONE) == NULL && ht_cpu_bucket_name(HT_CPUB_MAX + 1) == NULL);

    for (int mode = 0; mode <= HT_CPU_MODES; mode++) {
        ht_buf_reset(&b);
        size_t at = ht_msg_begin(&b, HT_MSG_CPU_REQ, 5);
        ht_put_u8(&b, (uint8_t)mode);
        ht_put_u32(&b, 10000);
        ht_msg_end(&b, at);
        CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK);
        CHECK((ht_msg_validate(&msg) == HT_OK) == (mode < HT_CPU_MODES));
    }
    CHECK(ht_cpu_mode_parse("async") == HT_CPU_ASYNC && ht_cpu_mode_parse("fast") == -1);
    CHECK(strcmp(ht_cpu_mode_name(HT_CPU_ON), "on") == 0 && ht_cpu_mode_name(3) == NULL);
    CHECK(strcmp(ht_thread_state_name(HT_THREAD_TIMED_WAITING), "TIMED_WAITING") == 0);
    ht_buf_free(&b);
}

int main(void)
{
    test_cpu_records();
    test_message_table();
    test_roundtrip_lists();
    test_fixed_records();
    test_hello_and_strings();
    test_header_errors();
    test_sync_nesting();
    test_heap_dump();
    return check_summary();
}
