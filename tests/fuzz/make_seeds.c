/* Writes one well-formed message of each kind into DIR, as a fuzzing corpus
 * (built with the unit tests' proto_builder.h). */
#include "proto_builder.h"
#include "protocol.h"

#include <stdio.h>

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
    mb m = mb_list(b, type, 1);
    switch (type) {
    case HT_MSG_CLASSES:
        mb_class(&m, 1, "java.lang.String");
        break;
    case HT_MSG_METHODS:
        mb_method(&m, 1, "demo.A", "run", "A.java");
        break;
    case HT_MSG_TRACES:
        mb_trace(&m, 3, 2);
        mb_frame(&m, 1, 10);
        mb_frame(&m, 1, 12);
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
        mb_agg(&m, &a);
        break;
    }
    case HT_MSG_TELEMETRY: {
        /* an idle JVM: a large share of almost nothing */
        ht_telemetry_rec t = {.agent_cpu_pct = 25.94,
                              .agent_cpu_ms_per_s = 0.4,
                              .cpu_mode = HT_CPU_ON,
                              .cpu_interval_us = HT_CPU_INTERVAL_DEFAULT_US,
                              .cpu_samples = 200,
                              .cpu_failed = 10,
                              .cpu_sampler_ms_per_s = 0.2};
        mb_telemetry(&m, &t);
        break;
    }
    case HT_MSG_CPU_THREADS: {
        /* a busy thread, and one that ended (its figures stay) */
        ht_cpu_thread_rec busy = {.id = 1,
                                  .state = HT_THREAD_RUNNABLE,
                                  .cpu_ns = 2000000000,
                                  .recent_ns = 990000000,
                                  .samples = 200,
                                  .diff_cpu_ns = 500000000,
                                  .diff_samples = 50};
        ht_cpu_thread_rec ended = {.id = 2, .state = HT_THREAD_TERMINATED, .daemon = 1};
        mb_cpu_thread(&m, &busy, "main");
        mb_cpu_thread(&m, &ended, "worker-1");
        break;
    }
    case HT_MSG_CPU_ROWS: {
        /* a stack (the TRACES seed's), and a failed walk in its bucket */
        ht_cpu_row_rec stack = {.thread_id = 1,
                                .trace_id = 3,
                                .samples = 190,
                                .cpu_ns = 1900000000,
                                .diff_samples = 50,
                                .diff_cpu_ns = 500000000};
        ht_cpu_row_rec bucket = {.thread_id = 1,
                                 .trace_id = HT_TRACE_NONE,
                                 .bucket = HT_CPUB_ASGCT + 5,
                                 .samples = 10,
                                 .cpu_ns = 100000000};
        mb_cpu_row(&m, &stack);
        mb_cpu_row(&m, &bucket);
        break;
    }
    case HT_MSG_DRAG_ROWS: {
        /* a site (the TRACES seed's) with dead objects, two of them never used */
        ht_drag_row_rec row = {.trace_id = 3,
                               .class_id = 1,
                               .samples = 20,
                               .tracked = 18,
                               .dead = 12,
                               .void_ = 2,
                               .bytes = 12288,
                               .drag_lo = 20000,
                               .drag_hi = 24576,
                               .lag = 100,
                               .use = 500,
                               .hist = {[7] = 10, [8] = 2},
                               .diff_samples = 5,
                               .diff_dead = 3,
                               .diff_drag_hi = 6000};
        mb_drag_row(&m, &row);
        break;
    }
    }
    mb_end(&m);
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    const char *dir = argv[1];
    ht_buf b, sync;
    ht_buf_init(&b);
    ht_buf_init(&sync);
    uint16_t types[] = {HT_MSG_CLASSES,   HT_MSG_METHODS,     HT_MSG_TRACES,   HT_MSG_AGGS,
                        HT_MSG_TELEMETRY, HT_MSG_CPU_THREADS, HT_MSG_CPU_ROWS, HT_MSG_DRAG_ROWS};
    mb s = mb_sync(&sync, 1, 7);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        list_msg(&b, types[i]);
        mb_sync_add(&s, &b);
        save(dir, ht_msg_type_name(types[i]), &b);
    }
    /* drag mode on, with a method left alone and a share untracked */
    ht_drag_state_rec ds = {.on = 1,
                            .slots = 8,
                            .classes = 3,
                            .methods = 40,
                            .skipped_long = 1,
                            .t_on_ms = 100,
                            .samples = 20,
                            .tracked = 18,
                            .untracked = 2,
                            .tracking = 6};
    mb_drag_state(&b, 1, &ds, "demo.:org.h2.", "");
    mb_sync_add(&s, &b); /* before save(), which empties b */
    save(dir, "DRAG_STATE", &b);
    ht_hello h = {.pid = 1,
                  .start_epoch_ms = 2,
                  .interval = 3,
                  .depth = 4,
                  .live = 1,
                  .max_traces = 5,
                  .viewers = 1,
                  .cpu_mode = HT_CPU_ON,
                  .cpu_interval_us = HT_CPU_INTERVAL_DEFAULT_US};
    mb_hello(&b, 1, &h, "Main", "17", "interval=1", "");
    mb_sync_add(&s, &b); /* a sync ends with the state as of it (before save empties b) */
    save(dir, "HELLO_REP", &b);
    mb_end(&s);
    save(dir, "SYNC_REP", &sync);
    ht_enc_error(&b, 1, HT_EBADREQ, "no");
    save(dir, "ERROR", &b);
    ht_enc_u64_msg(&b, HT_MSG_SET_INTERVAL_REQ, 1, 4096);
    save(dir, "SET_INTERVAL_REQ", &b);
    ht_enc_bye(&b, 1, "JVM exited");
    save(dir, "BYE", &b);
    ht_mark_rec mk = {HT_MARK_RUNNING, 1500, 9000};
    ht_enc_mark(&b, 1, &mk);
    save(dir, "MARK", &b);
    mb_u8_req(&b, HT_MSG_MARK_REQ, 1, HT_MARK_BEGIN);
    save(dir, "MARK_REQ", &b);
    mb_u8_req(&b, HT_MSG_HEAP_DUMP_REQ, 1, HT_DUMP_ALL);
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
