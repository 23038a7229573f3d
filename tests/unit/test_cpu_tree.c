/* The CPU tree (site_tree.h over the CPU rows) and the threads table: CPU ms
 * and SELF ms per frame both ways, threads at the top or merged, samples
 * without a stack in their bucket, the frame, thread-name and one-thread
 * filters, sort by every CPU column, shares, the mark's diff, a frame found
 * for the jump between the trees, and both exports; the store fed with
 * CPU_THREADS and CPU_ROWS messages as the agent sends them. */
#include "check.h"
#include "export_views.h"
#include "protocol.h"
#include "site_tree.h"
#include "store.h"
#include "thread_table.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull /* ns */

/* methods: 1 Burn.main, 2 Burn.spin, 3 Burn.waitFor, 4 java.util.Arrays.fill
 * traces (leaf first): 20 = spin:10 <- main:3
 *                      21 = fill:100 <- spin:12 <- main:3
 *                      22 = waitFor:20 <- main:4 (no CPU row: an idle stack)
 * threads: 1 burner (RUNNABLE), 2 idler (TIMED_WAITING, no CPU), 3 helper
 * rows: (1, 20) 600 ms, (1, 21) 300 ms, (3, 20) 100 ms, (3, [walk_failed]) 50 ms */
static void fill(ht_store *s)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_METHODS, 1);
    mb_method(&m, 1, "demo.Burn", "main", "Burn.java");
    mb_method(&m, 2, "demo.Burn", "spin", "Burn.java");
    mb_method(&m, 3, "demo.Burn", "waitFor", "Burn.java");
    mb_method(&m, 4, "java.util.Arrays", "fill", "Arrays.java");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TRACES, 2);
    mb_trace(&m, 20, 2);
    mb_frame(&m, 2, 10);
    mb_frame(&m, 1, 3);
    mb_trace(&m, 21, 3);
    mb_frame(&m, 4, 100);
    mb_frame(&m, 2, 12);
    mb_frame(&m, 1, 3);
    mb_trace(&m, 22, 2);
    mb_frame(&m, 3, 20);
    mb_frame(&m, 1, 4);
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_CPU_THREADS, 3);
    ht_cpu_thread_rec th[] = {
        {.id = 1,
         .state = HT_THREAD_RUNNABLE,
         .cpu_ns = 905 * MS,
         .recent_ns = 990 * MS,
         .samples = 90,
         .diff_cpu_ns = 400 * MS,
         .diff_samples = 40},
        {.id = 2, .state = HT_THREAD_TIMED_WAITING, .daemon = 1},
        {.id = 3,
         .state = HT_THREAD_RUNNABLE,
         .cpu_ns = 151 * MS,
         .recent_ns = 100 * MS,
         .samples = 15},
    };
    const char *names[] = {"burner", "idler", "helper"};
    for (int i = 0; i < 3; i++)
        mb_cpu_thread(&m, &th[i], names[i]);
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_CPU_ROWS, 4);
    ht_cpu_row_rec rows[] = {
        {.thread_id = 1,
         .trace_id = 20,
         .samples = 60,
         .cpu_ns = 600 * MS,
         .diff_samples = 30,
         .diff_cpu_ns = 300 * MS},
        {.thread_id = 1,
         .trace_id = 21,
         .samples = 30,
         .cpu_ns = 300 * MS,
         .diff_samples = 10,
         .diff_cpu_ns = 100 * MS},
        {.thread_id = 3, .trace_id = 20, .samples = 10, .cpu_ns = 100 * MS},
        {.thread_id = 3,
         .trace_id = HT_TRACE_NONE,
         .bucket = HT_CPUB_WALK_FAILED,
         .samples = 5,
         .cpu_ns = 50 * MS},
    };
    for (int i = 0; i < 4; i++)
        mb_cpu_row(&m, &rows[i]);
    mb_apply(&m, s);
    ht_buf_free(&b);
}

static uint32_t find_child(const ht_site_tree *t, const ht_store *s, uint32_t parent,
                           const char *name)
{
    char buf[256];
    for (uint32_t c = t->nodes[parent].first_child; c; c = t->nodes[c].next_sibling) {
        ht_tree_node_name(t, s, c, buf, sizeof buf);
        if (strcmp(buf, name) == 0) return c;
    }
    return 0;
}

static double val(const ht_site_tree *t, uint32_t n, ht_col c)
{
    return ht_node_value(t, &t->nodes[n], c);
}

static void test_top_down(const ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.source = HT_SOURCE_CPU, .sort_col = HT_COL_CPU_MS};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    CHECK(t.source == HT_SOURCE_CPU && ht_tree_view(&t) == HT_VIEW_CPU);
    CHECK_NEAR(t.total, 1050, 1e-9);
    /* two roots: the stacks' main:3, and the samples without a stack */
    CHECK(t.nodes[0].nchildren == 2);
    uint32_t main_ = find_child(&t, s, 0, "demo.Burn.main:3");
    uint32_t failed = find_child(&t, s, 0, "[walk_failed]");
    CHECK(main_ && failed && t.nodes[0].first_child == main_); /* heaviest first */
    CHECK(t.nodes[failed].kind == HT_NODE_BUCKET && t.nodes[failed].first_child == 0);
    CHECK_NEAR(val(&t, main_, HT_COL_CPU_MS), 1000, 1e-9);
    CHECK_NEAR(val(&t, main_, HT_COL_SELF_MS), 0, 1e-9);
    CHECK_NEAR(val(&t, main_, HT_COL_CPU_PCT), 100.0 * 1000 / 1050, 1e-9);
    CHECK_NEAR(val(&t, main_, HT_COL_CPU_SAMPLES), 100, 1e-9);
    CHECK_NEAR(val(&t, failed, HT_COL_SELF_MS), 50, 1e-9); /* its own: no frame to charge */
    /* spin at two lines: two frames; line 10's CPU is its own, line 12's is fill's */
    uint32_t spin10 = find_child(&t, s, main_, "demo.Burn.spin:10");
    uint32_t spin12 = find_child(&t, s, main_, "demo.Burn.spin:12");
    CHECK(spin10 && spin12 && t.nodes[main_].first_child == spin10);
    CHECK_NEAR(val(&t, spin10, HT_COL_CPU_MS), 700, 1e-9);
    CHECK_NEAR(val(&t, spin10, HT_COL_SELF_MS), 700, 1e-9);
    CHECK_NEAR(val(&t, spin10, HT_COL_SELF_PCT), 100.0 * 700 / 1050, 1e-9);
    CHECK_NEAR(val(&t, spin12, HT_COL_SELF_MS), 0, 1e-9);
    uint32_t fill_ = find_child(&t, s, spin12, "java.util.Arrays.fill:100");
    CHECK(fill_ && val(&t, fill_, HT_COL_SELF_MS) == 300 && val(&t, fill_, HT_COL_CPU_MS) == 300);
    /* no allocation figure in a CPU tree; the idle stack (no CPU row) nowhere */
    CHECK(val(&t, main_, HT_COL_BYTES) == 0 && val(&t, main_, HT_COL_PCT) == 0);
    CHECK(ht_tree_find_frame(&t, 3, 20) == 0);
    /* the mark's diff, summed like the rest */
    CHECK_NEAR(val(&t, main_, HT_COL_DIFF_CPU_MS), 400, 1e-9);
    CHECK_NEAR(val(&t, fill_, HT_COL_DIFF_CPU_SAMPLES), 10, 1e-9);
    CHECK(t.max_abs[HT_COL_CPU_MS] == 1000 && t.max_abs[HT_COL_CPU_PCT] == 100);
    /* the jump's frame: the exact line, else the method's first (heaviest) */
    CHECK(ht_tree_find_frame(&t, 2, 12) == spin12);
    CHECK(ht_tree_find_frame(&t, 2, 99) == spin10);
    CHECK(ht_tree_find_frame(&t, 77, 1) == 0);
    ht_tree_show_hot_path(&t, 0);
    CHECK(!ht_tree_is_expanded(&t, spin12));
    ht_tree_reveal(&t, fill_);
    CHECK(ht_tree_is_expanded(&t, spin12) && ht_tree_is_expanded(&t, main_));
    int shown = 0;
    for (uint32_t i = 0; i < t.nvisible; i++)
        shown |= t.visible[i] == fill_;
    CHECK(shown);
    /* sorted by SELF ms: spin:12 (0 self) after spin:10 either way it holds */
    ht_tree_sort(&t, HT_COL_SELF_MS, 1);
    CHECK(t.nodes[main_].first_child == spin12);
    ht_tree_sort(&t, HT_COL_SELF_PCT, 0); /* a share sorts as its column */
    CHECK(t.nodes[main_].first_child == spin10);
    ht_tree_free(&t);
}

static void test_hot_spots_and_threads(const ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {
        .source = HT_SOURCE_CPU, .shape = HT_TREE_HOT_SPOTS, .sort_col = HT_COL_SELF_MS};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    /* bottom-up: the running frames at the top, by self time */
    uint32_t spin10 = t.nodes[0].first_child;
    char name[256];
    ht_tree_node_name(&t, s, spin10, name, sizeof name);
    CHECK(strcmp(name, "demo.Burn.spin:10") == 0);
    CHECK(t.nodes[0].nchildren == 3);
    uint32_t fill_ = find_child(&t, s, 0, "java.util.Arrays.fill:100");
    CHECK(fill_ && t.nodes[spin10].next_sibling == fill_);
    CHECK(val(&t, fill_, HT_COL_SELF_MS) == 300 && val(&t, spin10, HT_COL_SELF_MS) == 700);
    uint32_t caller = find_child(&t, s, fill_, "demo.Burn.spin:12");
    CHECK(caller && find_child(&t, s, caller, "demo.Burn.main:3"));
    CHECK(val(&t, caller, HT_COL_CPU_MS) == 300);

    /* threads at the top: a thread level, self-less, its stacks below */
    o = (ht_tree_opts){.source = HT_SOURCE_CPU, .group = HT_GROUP_TOP, .sort_col = HT_COL_CPU_MS};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    CHECK(t.nodes[0].nchildren == 2); /* the idle thread has no CPU row */
    uint32_t burner = t.nodes[0].first_child, helper = t.nodes[burner].next_sibling;
    CHECK(t.nodes[burner].kind == HT_NODE_THREAD && t.nodes[burner].id == 1);
    ht_tree_node_name(&t, s, burner, name, sizeof name);
    CHECK(strcmp(name, "burner") == 0);
    CHECK(val(&t, burner, HT_COL_CPU_MS) == 900 && val(&t, burner, HT_COL_SELF_MS) == 0);
    CHECK(val(&t, helper, HT_COL_CPU_MS) == 150);
    CHECK(find_child(&t, s, helper, "[walk_failed]") &&
          find_child(&t, s, helper, "demo.Burn.main:3"));

    /* filters: a thread's name, one thread, frames (include, exclude) */
    ht_filter f;
    char err[128];
    CHECK(ht_filter_parse(&f, "burn", err, sizeof err) == 0);
    o = (ht_tree_opts){.source = HT_SOURCE_CPU, .thread_filter = &f};
    CHECK(ht_tree_build(&t, s, &o) == 0 && t.total == 900);
    o = (ht_tree_opts){.source = HT_SOURCE_CPU, .only_thread = 3};
    CHECK(ht_tree_build(&t, s, &o) == 0 && t.total == 150);
    CHECK(ht_filter_parse(&f, "Arrays", err, sizeof err) == 0);
    o = (ht_tree_opts){.source = HT_SOURCE_CPU, .frame_filter = &f};
    CHECK(ht_tree_build(&t, s, &o) == 0 && t.total == 300); /* no bucket: it has no frame */
    CHECK(ht_filter_parse(&f, "!Arrays", err, sizeof err) == 0);
    CHECK(ht_tree_build(&t, s, &o) == 0 && t.total == 750);
    CHECK(find_child(&t, s, 0, "[walk_failed]") != 0);
    ht_tree_free(&t);
}

static void test_export(ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.source = HT_SOURCE_CPU, .group = HT_GROUP_TOP, .sort_col = HT_COL_CPU_MS};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    char path[] = "/tmp/test_cpu_tree_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    s->mark.state = HT_MARK_RUNNING;
    CHECK(ht_export_tree(&t, s, path, NULL) == 0);
    const char *csv = check_slurp(path);
    const char *head = "\"id\",\"parent\",\"depth\",\"kind\",\"name\",\"cpu_ms\",\"cpu_pct\","
                       "\"self_cpu_ms\",\"self_pct\",\"samples\",\"diff_cpu_ms\",\"diff_samples\","
                       "\"truncated\"\r\n";
    CHECK_MSG(csv && strncmp(csv, head, strlen(head)) == 0, "%.200s", csv ? csv : "");
    CHECK_MSG(csv && strstr(csv, "\n\"1\",\"0\",\"1\",\"thread\",\"burner\",\"900\",\"85.71\","
                                 "\"0\",\"0.00\",\"90\",\"400\",\"40\",\"0\"\r\n"),
              "%s", csv ? csv : "");
    CHECK(csv && strstr(csv, "\"bucket\",\"[walk_failed]\",\"50\",\"4.76\",\"50\",\"4.76\",\"5\","
                             "\"0\",\"0\",\"0\"\r\n"));
    /* the threads table: the busy thread first by CPU now, the idle one at 0 */
    ht_thread_table tt;
    ht_thread_table_init(&tt);
    CHECK(ht_thread_table_build(&tt, s, NULL) == 0 && tt.nrows == 3);
    CHECK(tt.rows[0].id == 1 && tt.rows[2].id == 2);
    CHECK_NEAR(tt.rows[0].v[HT_COL_CPU_NOW], 99, 1e-9);
    CHECK(tt.rows[2].v[HT_COL_CPU_MS] == 0 &&
          tt.rows[2].v[HT_COL_THREAD_STATE] == HT_THREAD_TIMED_WAITING);
    tt.sort_col = HT_COL_NAME;
    tt.ascending = 1;
    ht_thread_table_sort(&tt, s);
    CHECK(tt.rows[0].id == 1 && tt.rows[1].id == 3 &&
          tt.rows[2].id == 2); /* burner, helper, idler */
    CHECK(ht_thread_table_find(&tt, 3) == 1 && ht_thread_table_find(&tt, 9) == UINT32_MAX);
    CHECK(ht_export_threads(&tt, s, path, NULL) == 0);
    csv = check_slurp(path);
    CHECK_MSG(csv &&
                  strstr(csv, "\"thread\",\"id\",\"state\",\"cpu_pct_now\",\"cpu_ms\",\"samples\","
                              "\"diff_cpu_ms\",\"diff_samples\",\"daemon\"\r\n"),
              "%s", csv ? csv : "");
    CHECK(
        csv &&
        strstr(
            csv,
            "\n\"burner\",\"1\",\"RUNNABLE\",\"99.0\",\"905.0\",\"90\",\"400\",\"40\",\"0\"\r\n"));
    CHECK(
        csv &&
        strstr(csv,
               "\n\"idler\",\"2\",\"TIMED_WAITING\",\"0.0\",\"0.0\",\"0\",\"0\",\"0\",\"1\"\r\n"));
    ht_filter f;
    char err[128];
    CHECK(ht_filter_parse(&f, "idl", err, sizeof err) == 0);
    CHECK(ht_thread_table_build(&tt, s, &f) == 0 && tt.nrows == 1 && tt.rows[0].id == 2);
    s->mark.state = HT_MARK_NONE;
    unlink(path);
    ht_thread_table_free(&tt);
    ht_tree_free(&t);
}

int main(void)
{
    ht_store s;
    ht_store_init(&s);
    fill(&s);
    CHECK(s.ncpu_rows == 4 && s.ncpu_threads == 3);
    test_top_down(&s);
    test_hot_spots_and_threads(&s);
    test_export(&s);
    ht_store_free(&s);
    return check_summary();
}
