/* Writes one well-formed message of each kind into DIR, as a fuzzing corpus. */
#include "protocol.h"

#include <stdio.h>
#include <string.h>

static void save(const char *dir, const char *name, ht_buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(b->data, 1, b->len, f);
    fclose(f);
    ht_buf_reset(b);
}

static void list_msg(ht_buf *b, uint16_t type)
{
    size_t m = ht_msg_begin(b, type, 1), at = ht_list_begin(b);
    switch (type) {
    case HT_MSG_CLASSES:
        ht_enc_class(b, 1, "java.lang.String");
        break;
    case HT_MSG_METHODS:
        ht_enc_method(b, 1, "demo.A", "run", "A.java");
        break;
    case HT_MSG_TRACES:
        ht_enc_trace_head(b, 3, 2);
        ht_enc_frame(b, 1, 10);
        ht_enc_frame(b, 1, 12);
        break;
    case HT_MSG_AGGS: {
        ht_agg_rec a = {.trace_id = 3,
                        .class_id = 1,
                        .samples = 2,
                        .live_samples = 1,
                        .young_samples = 1,
                        .est_bytes = 48,
                        .est_instances = 2,
                        .live_est_bytes = 24,
                        .live_est_instances = 1,
                        .young_est_bytes = 24,
                        .young_est_instances = 1,
                        .diff_bytes = 24,
                        .diff_instances = 1,
                        .growth_bytes = -24,
                        .growth_instances = -1};
        ht_enc_agg(b, &a);
        break;
    }
    case HT_MSG_TELEMETRY: {
        ht_telemetry_rec t;
        memset(&t, 0, sizeof t);
        t.agent_cpu_pct = 25.94; /* an idle JVM: a large share of almost nothing */
        t.agent_cpu_ms_per_s = 0.4;
        ht_enc_telemetry(b, &t);
        break;
    }
    }
    ht_list_end(b, at, 1);
    ht_msg_end(b, m);
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    const char *dir = argv[1];
    ht_buf b, sync;
    ht_buf_init(&b);
    ht_buf_init(&sync);
    uint16_t types[] = {HT_MSG_CLASSES, HT_MSG_METHODS, HT_MSG_TRACES, HT_MSG_AGGS,
                        HT_MSG_TELEMETRY};
    size_t m = ht_msg_begin(&sync, HT_MSG_SYNC_REP, 1);
    ht_put_u64(&sync, 7);
    ht_put_u32(&sync, sizeof types / sizeof types[0]);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        list_msg(&b, types[i]);
        ht_put_u32(&sync, (uint32_t)b.len);
        ht_put_bytes(&sync, b.data, b.len);
        save(dir, ht_msg_type_name(types[i]), &b);
    }
    ht_msg_end(&sync, m);
    save(dir, "SYNC_REP", &sync);
    ht_hello h = {.pid = 1,
                  .start_epoch_ms = 2,
                  .interval = 3,
                  .depth = 4,
                  .live = 1,
                  .max_traces = 5,
                  .viewers = 1};
    m = ht_msg_begin(&b, HT_MSG_HELLO_REP, 1);
    ht_enc_hello(&b, &h, "Main", "17", "interval=1", "");
    ht_msg_end(&b, m);
    save(dir, "HELLO_REP", &b);
    ht_enc_error(&b, 1, HT_EBADREQ, "no");
    save(dir, "ERROR", &b);
    ht_enc_u64_msg(&b, HT_MSG_SET_INTERVAL_REQ, 1, 4096);
    save(dir, "SET_INTERVAL_REQ", &b);
    ht_enc_bye(&b, 1, "JVM exited");
    save(dir, "BYE", &b);
    ht_mark_rec mk = {HT_MARK_RUNNING, 1500, 9000};
    ht_enc_mark(&b, 1, &mk);
    save(dir, "MARK", &b);
    size_t mr = ht_msg_begin(&b, HT_MSG_MARK_REQ, 1);
    ht_put_u8(&b, HT_MARK_BEGIN);
    ht_msg_end(&b, mr);
    save(dir, "MARK_REQ", &b);
    size_t dr = ht_msg_begin(&b, HT_MSG_HEAP_DUMP_REQ, 1);
    ht_put_u8(&b, HT_DUMP_ALL);
    ht_msg_end(&b, dr);
    save(dir, "HEAP_DUMP_REQ", &b);
    ht_heap_dump_rec hd = {.id = 1, .state = HT_DUMP_DONE, .elapsed_ms = 900, .bytes = 4096};
    ht_enc_heap_dump(&b, 1, &hd, "/tmp/heaptop-0/1.dumps/heap-1-1.hprof", "");
    save(dir, "HEAP_DUMP", &b);
    hd.state = HT_DUMP_FAILED;
    ht_enc_heap_dump(&b, 1, &hd, "", "java.io.IOException: No space left on device");
    save(dir, "HEAP_DUMP_FAILED", &b);
    ht_buf_free(&b);
    ht_buf_free(&sync);
    return 0;
}
