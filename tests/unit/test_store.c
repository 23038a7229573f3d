/* The viewer's store and CSV export, fed with encoded protocol messages;
 * socket-path rules. */
#include "check.h"

#include "export_cpu.h"
#include "export_csv.h"
#include "ipc_path.h"
#include "protocol.h"
#include "store.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fill(ht_store *s)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "byte[]");
    mb_class(&m, 2, "demo.Point");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_METHODS, 2);
    mb_method(&m, 1, "demo.Main", "alloc", "Main.java");
    mb_method(&m, 2, "demo.Main", "main", "Main.java");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TRACES, 3);
    mb_trace(&m, 5, 2);
    mb_frame(&m, 1, 42);
    mb_frame(&m, 2, HT_LINE_UNKNOWN);
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_AGGS, 4);
    ht_agg_rec a1 = MB_ROW(5, 1, 10, 2, 5000.4, 50, 1000, 10);
    ht_agg_rec a2 = MB_ROW(5, 2, 3, 0, 90000, 3000, 0, 0);
    ht_agg_rec a3 = MB_ROW(HT_TRACE_OVERFLOW, 2, 1, 0, 10, 1, 0, 0);
    mb_agg(&m, &a1);
    mb_agg(&m, &a2);
    mb_agg(&m, &a3);
    mb_apply(&m, s);
    /* an update replaces a row with the agent's new absolute totals */
    m = mb_list(&b, HT_MSG_AGGS, 5);
    a1.samples = 11;
    a1.est_bytes = 6000;
    mb_agg(&m, &a1);
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TELEMETRY, 6);
    ht_telemetry_rec t = {.t_ms = 1000, .heap_used = 123, .alloc_bytes = UINT64_MAX, .gc_pct = 2.5};
    mb_telemetry(&m, &t);
    t.t_ms = 1000; /* duplicate time: ignored */
    mb_telemetry(&m, &t);
    t.t_ms = 2000;
    t.alloc_bytes = 777;
    mb_telemetry(&m, &t);
    mb_apply(&m, s);
    ht_buf_free(&b);
}

static void test_store_and_export(void)
{
    ht_store s;
    ht_store_init(&s);
    fill(&s);
    CHECK(s.nrows == 3 && s.ntelemetry == 2);
    char name[256];
    ht_store_site_name(&s, 5, name, sizeof name);
    CHECK(strcmp(name, "demo.Main.alloc:42") == 0);
    ht_store_site_name(&s, HT_TRACE_OVERFLOW, name, sizeof name);
    CHECK(strstr(name, "overflow") != NULL);
    char *stack = ht_store_stack_text(&s, 5);
    CHECK(stack && strcmp(stack, "demo.Main.alloc:42 <- demo.Main.main") == 0);
    free(stack);
    CHECK(strcmp(ht_store_class(&s, 99), "<unknown class>") == 0);
    /* a native frame says why it has no line; a class without a line table
     * has the bare name */
    ht_frame_rec native = {2, HT_LINE_NATIVE}, nolines = {2, HT_LINE_UNKNOWN};
    ht_store_frame_name(&s, &native, name, sizeof name);
    CHECK(strcmp(name, "demo.Main.main [native]") == 0);
    ht_store_frame_name(&s, &nolines, name, sizeof name);
    CHECK(strcmp(name, "demo.Main.main") == 0);

    char dir[] = "/tmp/heaptop-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/sites.csv", dir);
    CHECK(ht_export_sites(&s, path) == 0);
    char *text = check_slurp(path);
    CHECK(text &&
          strncmp(text, "\"class\",\"frame\",\"stack\",\"samples\",\"dropped\",\"est_bytes\"",
                  55) == 0);
    /* largest est_bytes first; absolute update applied */
    char *p1 = strstr(text, "\"demo.Point\",\"demo.Main.alloc:42\"");
    char *p2 = strstr(text, "\"byte[]\",\"demo.Main.alloc:42\"");
    CHECK(p1 && p2 && p1 < p2);
    /* young columns, then diff and growth left blank: there is no mark; its
     * 1000 live bytes are above the 123 bytes of heap the last telemetry
     * says are used (over_bound names the column); the 2-frame stack is not
     * cut (the agent keeps 64) */
    CHECK(strstr(
              text,
              "\"11\",\"0\",\"6000\",\"50\",\"2\",\"1000\",\"10\",\"0\",\"0\",\"0\",\"\",\"\",\"\","
              "\"\",\"live_est_bytes\",\"0\"\r\n") != NULL);
    CHECK(strstr(text, "\"growth_instances\",\"over_bound\",\"truncated\"\r\n") != NULL);
    /* a stack as deep as the agent's depth may have been cut: flagged */
    s.info.depth = 2;
    CHECK(ht_store_trace_cut(&s, 5) && !ht_store_trace_cut(&s, HT_TRACE_OVERFLOW));
    CHECK(ht_export_sites(&s, path) == 0);
    text = check_slurp(path);
    CHECK(strstr(text, "\"\",\"1\"\r\n") != NULL && strstr(text, "\"\",\"0\"\r\n") != NULL);
    s.info.depth = 64;
    snprintf(path, sizeof path, "%s/classes.csv", dir);
    CHECK(ht_export_classes(&s, path) == 0);
    text = check_slurp(path);
    /* demo.Point sums its site and its overflow row */
    CHECK(text &&
          strstr(text, "\"demo.Point\",\"4\",\"90010\",\"3001\",\"0\",\"0\",\"0\",\"0\",\"\",\"\","
                       "\"\",\"\",\"0\",\"0\",\"\"\r\n"));
    snprintf(path, sizeof path, "%s/telemetry.csv", dir);
    CHECK(ht_export_telemetry(&s, path, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\"1000\",\"123\",\"0\",\"0\",\"\",\"0\",\"0\",\"2.50\""));
    CHECK(strstr(text, "\"2000\",\"123\",\"0\",\"0\",\"777\""));
    /* summary.csv: record leaves the view's fields empty, a screen export fills them */
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    ht_summary_span span = {.start_ms = 0, .end_ms = 2000};
    CHECK(ht_export_summary(&s, &span, path) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\"mark_ms\",\"depth\",\"file\",\"view\",\"sort\","
                               "\"class_filter\",\"frame_filter\",\"class\","));
    CHECK(strstr(text, "\"none\",\"\",\"64\",\"\",\"\",\"\",\"\",\"\",\"\",\"off\",\"0\",\"\","
                       "\"\",\"\",\"\",\"\"\r\n"));
    span.file = "heaptop-tree-x.csv";
    span.view = "tree";
    span.sort = "GROWTH B desc";
    span.class_filter = "demo.";
    span.frame_filter = "!.io.";
    span.only_class = "demo.Point";
    CHECK(ht_export_summary(&s, &span, path) == 0);
    text = check_slurp(path);
    CHECK(strstr(text, "\"64\",\"heaptop-tree-x.csv\",\"tree\",\"GROWTH B desc\",\"demo.\","
                       "\"!.io.\",\"demo.Point\","));
    /* a Behaviour export: its thresholds and analysis, the last four */
    span.t1 = "0.35", span.t2 = "0.10", span.scc = "literal", span.count = "distinct";
    CHECK(ht_export_summary(&s, &span, path) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, ",\"0.35\",\"0.10\",\"literal\",\"distinct\"\r\n"));
    /* unwritable path: error, no crash */
    CHECK(ht_export_sites(&s, "/nonexistent-dir/x.csv") == -1);
    ht_store_clear(&s);
    CHECK(s.nrows == 0 && ht_store_trace(&s, 5) == NULL);
    ht_store_free(&s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* CPU threads and rows: HELLO's and TELEMETRY's CPU fields into the info, a
 * record replacing its key's last copy, buckets named in brackets, a long
 * thread name cut, the caps, a job's copy, clear. */
static void test_cpu_store(void)
{
    ht_store s;
    ht_store_init(&s);
    fill(&s);
    ht_buf b;
    ht_buf_init(&b);
    ht_hello h = {.pid = 7, .cpu_mode = HT_CPU_ON, .cpu_interval_us = 10000};
    mb_hello(&b, 1, &h, "demo.Main", "17", "", "");
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_store_apply(&s, &msg) == HT_OK);
    ht_buf_reset(&b);
    CHECK(s.info.cpu_mode == HT_CPU_ON && s.info.cpu_interval_us == 10000);
    mb m = mb_list(&b, HT_MSG_TELEMETRY, 2);
    ht_telemetry_rec t = {.t_ms = 3000, .cpu_mode = HT_CPU_ASYNC, .cpu_interval_us = 20000};
    mb_telemetry(&m, &t);
    mb_apply(&m, &s);
    CHECK(s.info.cpu_mode == HT_CPU_ASYNC && s.info.cpu_interval_us == 20000);

    uint64_t gen = s.generation;
    m = mb_list(&b, HT_MSG_CPU_THREADS, 3);
    ht_cpu_thread_rec main_t = {.id = 1, .state = HT_THREAD_RUNNABLE, .cpu_ns = 5000000};
    ht_cpu_thread_rec idle_t = {.id = 2, .state = HT_THREAD_WAITING, .daemon = 1};
    mb_cpu_thread(&m, &main_t, "main");
    mb_cpu_thread(&m, &idle_t, "idle");
    mb_apply(&m, &s);
    CHECK(s.generation > gen && s.ncpu_threads == 2);
    m = mb_list(&b, HT_MSG_CPU_ROWS, 4);
    ht_cpu_row_rec stack = {.thread_id = 1, .trace_id = 5, .samples = 3, .cpu_ns = 30000000};
    ht_cpu_row_rec other = {.thread_id = 2, .trace_id = 5, .samples = 1, .cpu_ns = 1000000};
    ht_cpu_row_rec unk = {.thread_id = 1,
                          .trace_id = HT_TRACE_NONE,
                          .bucket = HT_CPUB_ASGCT + 5,
                          .samples = 2,
                          .cpu_ns = 20000000};
    ht_cpu_row_rec nojava = unk;
    nojava.bucket = HT_CPUB_NO_JAVA_FRAMES;
    mb_cpu_row(&m, &stack);
    mb_cpu_row(&m, &other);
    mb_cpu_row(&m, &unk);
    mb_cpu_row(&m, &nojava);
    mb_apply(&m, &s);
    CHECK(s.ncpu_rows == 4);
    /* the same keys again: the new cumulative copy replaces the old one */
    m = mb_list(&b, HT_MSG_CPU_THREADS, 5);
    main_t.cpu_ns = 9000000;
    main_t.state = HT_THREAD_TERMINATED;
    mb_cpu_thread(&m, &main_t, "main-renamed");
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_CPU_ROWS, 6);
    stack.samples = 4;
    stack.cpu_ns = 40000000;
    unk.samples = 9;
    mb_cpu_row(&m, &stack);
    mb_cpu_row(&m, &unk);
    mb_apply(&m, &s);
    CHECK(s.ncpu_threads == 2 && s.ncpu_rows == 4);
    const ht_store_cpu_thread *th = ht_store_cpu_thread_by_id(&s, 1);
    CHECK(th && th->rec.cpu_ns == 9000000 && th->rec.state == HT_THREAD_TERMINATED &&
          strcmp(th->name, "main-renamed") == 0 && th->rec.name.s == NULL);
    CHECK(ht_store_cpu_thread_by_id(&s, 3) == NULL);
    const ht_cpu_row_rec *r = ht_store_cpu_row(&s, 1, 5, HT_CPUB_NONE);
    CHECK(r && r->samples == 4 && r->cpu_ns == 40000000);
    r = ht_store_cpu_row(&s, 2, 5, HT_CPUB_NONE);
    CHECK(r && r->samples == 1);
    r = ht_store_cpu_row(&s, 1, HT_TRACE_NONE, HT_CPUB_ASGCT + 5);
    CHECK(r && r->samples == 9);
    CHECK(ht_store_cpu_row(&s, 1, HT_TRACE_NONE, HT_CPUB_NO_JAVA_FRAMES) != NULL);
    CHECK(ht_store_cpu_row(&s, 1, 6, HT_CPUB_NONE) == NULL);
    CHECK(ht_store_cpu_row(&s, 2, HT_TRACE_NONE, HT_CPUB_NO_JAVA_FRAMES) == NULL);
    char name[256];
    ht_store_cpu_row_name(&s, ht_store_cpu_row(&s, 1, 5, HT_CPUB_NONE), name, sizeof name);
    CHECK(strcmp(name, "demo.Main.alloc:42") == 0);
    ht_store_cpu_row_name(&s, ht_store_cpu_row(&s, 1, HT_TRACE_NONE, HT_CPUB_ASGCT + 5), name,
                          sizeof name);
    CHECK(strcmp(name, "[unknown_Java]") == 0);
    ht_store_cpu_thread_name(&s, HT_THREAD_OTHER, name, sizeof name);
    CHECK(strcmp(name, "[other threads]") == 0);
    ht_store_cpu_thread_name(&s, 2, name, sizeof name);
    CHECK(strcmp(name, "idle") == 0);

    /* a name of 5000 bytes is kept cut, never whole */
    char longname[5001];
    memset(longname, 'x', 5000);
    longname[5000] = '\0';
    m = mb_list(&b, HT_MSG_CPU_THREADS, 7);
    ht_cpu_thread_rec lt = {.id = 9};
    mb_cpu_thread(&m, &lt, longname);
    mb_apply(&m, &s);
    th = ht_store_cpu_thread_by_id(&s, 9);
    CHECK(th && strlen(th->name) == HT_STORE_CPU_NAME_MAX);

    /* a job's copy: threads, rows, lookups, and the stacks the rows use */
    ht_store c;
    ht_store_init(&c);
    CHECK(ht_store_snapshot(&c, &s) == 0);
    CHECK(c.ncpu_threads == 3 && c.ncpu_rows == 4 && c.info.cpu_mode == HT_CPU_ASYNC);
    th = ht_store_cpu_thread_by_id(&c, 1);
    CHECK(th && th != ht_store_cpu_thread_by_id(&s, 1) && strcmp(th->name, "main-renamed") == 0);
    r = ht_store_cpu_row(&c, 1, 5, HT_CPUB_NONE);
    CHECK(r && r->samples == 4);
    ht_store_cpu_row_name(&c, r, name, sizeof name);
    CHECK(strcmp(name, "demo.Main.alloc:42") == 0);
    ht_store_free(&c);

    ht_store_clear(&s);
    CHECK(s.ncpu_threads == 0 && s.ncpu_rows == 0 && ht_store_cpu_thread_by_id(&s, 1) == NULL &&
          ht_store_cpu_row(&s, 1, 5, HT_CPUB_NONE) == NULL);
    ht_buf_free(&b);
    ht_store_free(&s);
}

/* cpu.csv and threads.csv: the layouts, most CPU first, frames as
 * sites.csv writes them, a bucket's frame and stack its bracketed name, the
 * thread filter, stacks merged over threads, the mark's figures; the
 * summary's CPU mode, tick and where frames are taken. */
static void test_cpu_export(void)
{
    ht_store s;
    ht_store_init(&s);
    fill(&s);
    s.info.cpu_mode = HT_CPU_ON;
    s.info.cpu_interval_us = 10000;
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CPU_THREADS, 1);
    ht_cpu_thread_rec busy = {.id = 1,
                              .state = HT_THREAD_RUNNABLE,
                              .cpu_ns = 2500000000,
                              .samples = 250,
                              .diff_cpu_ns = 1000,
                              .diff_samples = 1};
    ht_cpu_thread_rec idle = {.id = 2, .state = HT_THREAD_WAITING, .cpu_ns = 1500000};
    mb_cpu_thread(&m, &idle, "idle, \"quoted\"");
    mb_cpu_thread(&m, &busy, "busy");
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_CPU_ROWS, 2);
    ht_cpu_row_rec r1 = {.thread_id = 1,
                         .trace_id = 5,
                         .samples = 240,
                         .cpu_ns = 2400000000,
                         .diff_samples = 1,
                         .diff_cpu_ns = 1000};
    ht_cpu_row_rec r2 = {.thread_id = 1,
                         .trace_id = HT_TRACE_NONE,
                         .bucket = HT_CPUB_ASGCT + 5,
                         .samples = 10,
                         .cpu_ns = 100000000};
    ht_cpu_row_rec r3 = {.thread_id = 2, .trace_id = 5, .samples = 1, .cpu_ns = 1500000};
    mb_cpu_row(&m, &r3);
    mb_cpu_row(&m, &r2);
    mb_cpu_row(&m, &r1);
    mb_apply(&m, &s);

    char dir[] = "/tmp/heaptop-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/cpu.csv", dir);
    CHECK(ht_export_cpu(&s, path, NULL, NULL) == 0);
    char *text = check_slurp(path);
    const char *want =
        "\"thread\",\"frame\",\"stack\",\"samples\",\"cpu_ms\",\"truncated\"\r\n"
        "\"busy\",\"demo.Main.alloc:42\",\"demo.Main.alloc:42 <- demo.Main.main\",\"240\","
        "\"2400.000\",\"0\"\r\n"
        "\"busy\",\"[unknown_Java]\",\"[unknown_Java]\",\"10\",\"100.000\",\"0\"\r\n"
        "\"idle, \"\"quoted\"\"\",\"demo.Main.alloc:42\",\"demo.Main.alloc:42 <- "
        "demo.Main.main\",\"1\",\"1.500\",\"0\"\r\n";
    CHECK_MSG(text && strcmp(text, want) == 0, "cpu.csv:\n%s", text ? text : "(none)");
    /* one thread's rows; a stack as deep as the agent's depth is flagged */
    s.info.depth = 2;
    ht_cpu_export only_idle = {.thread = 2};
    CHECK(ht_export_cpu(&s, path, &only_idle, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\"idle") && !strstr(text, "\"busy\"") &&
          strstr(text, "\"1.500\",\"1\"\r\n"));
    s.info.depth = 64;
    /* merged over threads: one row per stack, thread "" */
    ht_cpu_export merged = {.merged = 1};
    CHECK(ht_export_cpu(&s, path, &merged, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\"\",\"demo.Main.alloc:42\",\"demo.Main.alloc:42 <- "
                               "demo.Main.main\",\"241\",\"2401.500\",\"0\"\r\n"));
    CHECK(text && !strstr(text, "busy"));
    /* the mark's figures */
    ht_cpu_export marked = {.mark = 1};
    CHECK(ht_export_cpu(&s, path, &marked, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strstr(text, "\r\n\"busy\",\"demo.Main.alloc:42\",\"demo.Main.alloc:42 <- "
                               "demo.Main.main\",\"1\",\"0.001\",\"0\"\r\n"));

    snprintf(path, sizeof path, "%s/threads.csv", dir);
    CHECK(ht_export_cpu_threads(&s, path, 0, NULL) == 0);
    text = check_slurp(path);
    want = "\"thread\",\"state\",\"cpu_ms\",\"samples\"\r\n"
           "\"busy\",\"RUNNABLE\",\"2500.000\",\"250\"\r\n"
           "\"idle, \"\"quoted\"\"\",\"WAITING\",\"1.500\",\"0\"\r\n";
    CHECK_MSG(text && strcmp(text, want) == 0, "threads.csv:\n%s", text ? text : "(none)");

    snprintf(path, sizeof path, "%s/summary.csv", dir);
    ht_summary_span span = {.end_ms = 1000};
    CHECK(ht_export_summary(&s, &span, path) == 0);
    text = check_slurp(path);
    CHECK(text &&
          strstr(text, "\"class\",\"cpu_mode\",\"cpu_interval_ms\",\"cpu_attribution\",\"t1\","
                       "\"t2\",\"scc\",\"count\"\r\n"));
    CHECK(text &&
          strstr(text, "\"on\",\"10\",\"at safepoints (JVMTI stacks)\",\"\",\"\",\"\",\"\"\r\n"));
    s.info.cpu_mode = HT_CPU_ASYNC;
    s.info.cpu_interval_us = 500;
    CHECK(ht_export_summary(&s, &span, path) == 0);
    text = check_slurp(path);
    CHECK(text &&
          strstr(text, "\"async\",\"0.500\",\"at any instruction (AsyncGetCallTrace)\",\"\",\"\","
                       "\"\",\"\"\r\n"));

    /* no CPU data (cpu=off from the start): the headers alone */
    ht_store_clear(&s);
    snprintf(path, sizeof path, "%s/cpu.csv", dir);
    CHECK(ht_export_cpu(&s, path, NULL, NULL) == 0);
    text = check_slurp(path);
    CHECK(text && strcmp(text, "\"thread\",\"frame\",\"stack\",\"samples\",\"cpu_ms\","
                               "\"truncated\"\r\n") == 0);
    CHECK(ht_export_cpu(&s, "/nonexistent-dir/cpu.csv", NULL, NULL) == -1);
    ht_buf_free(&b);
    ht_store_free(&s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* What an agent can make the viewer hold: rows and threads past the caps
 * are counted, not kept; the rows already kept still update. */
static void test_cpu_caps(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    uint32_t id = 1;
    while (s.ncpu_rows < HT_STORE_CPU_ROWS_MAX) {
        mb m = mb_list(&b, HT_MSG_CPU_ROWS, id);
        for (int i = 0; i < 65536; i++, id++) {
            ht_cpu_row_rec row = {.thread_id = 1, .trace_id = id, .samples = 1};
            mb_cpu_row(&m, &row);
        }
        mb_apply(&m, &s);
    }
    CHECK(s.ncpu_rows == HT_STORE_CPU_ROWS_MAX && s.cpu_refused == 0);
    mb m = mb_list(&b, HT_MSG_CPU_ROWS, id);
    ht_cpu_row_rec past = {.thread_id = 1, .trace_id = id, .samples = 1};
    ht_cpu_row_rec kept = {.thread_id = 1, .trace_id = 1, .samples = 7};
    mb_cpu_row(&m, &past);
    mb_cpu_row(&m, &kept);
    mb_apply(&m, &s);
    CHECK(s.ncpu_rows == HT_STORE_CPU_ROWS_MAX && s.cpu_refused == 1);
    CHECK(ht_store_cpu_row(&s, 1, id, HT_CPUB_NONE) == NULL);
    CHECK(ht_store_cpu_row(&s, 1, 1, HT_CPUB_NONE)->samples == 7);
    for (id = 1; s.ncpu_threads < HT_STORE_CPU_THREADS_MAX;) {
        m = mb_list(&b, HT_MSG_CPU_THREADS, id);
        for (int i = 0; i < 4096; i++, id++) {
            ht_cpu_thread_rec t = {.id = id};
            mb_cpu_thread(&m, &t, "t");
        }
        mb_apply(&m, &s);
    }
    m = mb_list(&b, HT_MSG_CPU_THREADS, id);
    ht_cpu_thread_rec t = {.id = id};
    mb_cpu_thread(&m, &t, "one too many");
    mb_apply(&m, &s);
    CHECK(s.ncpu_threads == HT_STORE_CPU_THREADS_MAX && s.cpu_refused == 2 &&
          ht_store_cpu_thread_by_id(&s, id) == NULL);
    ht_buf_free(&b);
    ht_store_free(&s);
}

static void test_ipc_paths(void)
{
    char out[256], err[512];
    unsetenv("XDG_RUNTIME_DIR");
    CHECK(ht_ipc_default_base(out, sizeof out, 42) == 0);
    char want[64];
    snprintf(want, sizeof want, "/tmp/heaptop-%u/42", (unsigned)geteuid());
    CHECK(strcmp(out, want) == 0);
    setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    CHECK(ht_ipc_default_base(out, sizeof out, 7) == 0 &&
          strcmp(out, "/run/user/1000/heaptop/7") == 0);
    unsetenv("XDG_RUNTIME_DIR");
    CHECK(ht_ipc_url(out, sizeof out, "/a/b", ".ctl") == 0 && strcmp(out, "ipc:///a/b.ctl") == 0);
    char dir[] = "/tmp/heaptop-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char base[256];
    snprintf(base, sizeof base, "%s/sub/app", dir);
    CHECK(ht_ipc_secure_dir(base, err, sizeof err) == 0); /* creates sub 0700 */
    struct stat st;
    snprintf(out, sizeof out, "%s/sub", dir);
    CHECK(stat(out, &st) == 0 && (st.st_mode & 0777) == 0700);
    chmod(out, 0755);
    CHECK(ht_ipc_secure_dir(base, err, sizeof err) == -1 && strstr(err, "0700"));
    CHECK(ht_ipc_secure_dir("/app", err, sizeof err) == -1);
    rmdir(out);
    rmdir(dir);
}

int main(void)
{
    test_store_and_export();
    test_cpu_store();
    test_cpu_export();
    test_cpu_caps();
    test_ipc_paths();
    return check_summary();
}
