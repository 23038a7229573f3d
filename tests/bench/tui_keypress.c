/*
 * tui_keypress.c - how long the TUI takes to handle a key and draw, with
 * 100 000 distinct stacks and 10 000 classes in the store (the bar for a
 * TUI that keeps up: under 50 ms). Builds the store through the real
 * protocol path, then times the work behind each kind of key, and a full
 * ncurses frame written to /dev/null through a real terminal description.
 * Prints medians in ms.
 * Usage: tui_keypress [--check] [STACKS] [CLASSES]
 *
 * --check (for CI, ctest label `bench`): exits 1 when the worst key and its
 * frame (median) or the longest a key waits while a rebuild runs exceeds
 * that bar of 50 ms. The wait is measured in the thread's CPU time as well
 * as on the clock, and the CPU figure is the one checked: on a shared
 * machine the clock also counts time the scheduler gave to others.
 * Measured on this 2-core machine: the worst key (F6 on the unfolded tree)
 * and its frame 15-21 ms (46 ms before a sort re-ordered only the forks; a
 * CI machine twice as slow passed 50 then), the wait 11-14 ms.
 */
#include "app.h"
#include "protocol.h"
#include "screen_classes.h"
#include "screen_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void apply(ht_store *s, ht_buf *b)
{
    ht_msg m;
    if (ht_msg_open(b->data, b->len, &m) == HT_OK && ht_msg_validate(&m) == HT_OK)
        ht_store_apply(s, &m);
    ht_buf_reset(b);
}

static void fill(ht_store *s, uint32_t stacks, uint32_t classes)
{
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_CLASSES, 1), at = ht_list_begin(&b);
    char name[128];
    for (uint32_t c = 1; c <= classes; c++) {
        snprintf(name, sizeof name, "com.example.pkg%u.Class%u", c % 97, c);
        ht_enc_class(&b, c, name);
    }
    ht_list_end(&b, at, classes);
    ht_msg_end(&b, m);
    apply(s, &b);
    uint32_t methods = 20000;
    m = ht_msg_begin(&b, HT_MSG_METHODS, 2), at = ht_list_begin(&b);
    for (uint32_t i = 1; i <= methods; i++) {
        snprintf(name, sizeof name, "com.example.pkg%u.Service%u", i % 53, i % 400);
        char meth[32];
        snprintf(meth, sizeof meth, "handle%u", i);
        ht_enc_method(&b, i, name, meth, "Service.java");
    }
    ht_list_end(&b, at, methods);
    ht_msg_end(&b, m);
    apply(s, &b);
    /* stacks share prefixes like a real program: a few entry points fanning out */
    uint64_t x = 88172645463325252ull;
    m = ht_msg_begin(&b, HT_MSG_TRACES, 3), at = ht_list_begin(&b);
    for (uint32_t t = 1; t <= stacks; t++) {
        uint16_t depth = 24;
        ht_enc_trace_head(&b, t, depth);
        for (int f = depth - 1; f >= 0; f--) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t fan = f > 16 ? 4 : f > 8 ? 30 : methods;
            uint32_t mid =
                1 + (uint32_t)((f * 7919u + (t % fan) * 31u + (uint32_t)(x % 3)) % methods);
            ht_enc_frame(&b, mid, 10 + f);
        }
    }
    ht_list_end(&b, at, stacks);
    ht_msg_end(&b, m);
    apply(s, &b);
    m = ht_msg_begin(&b, HT_MSG_AGGS, 4), at = ht_list_begin(&b);
    for (uint32_t t = 1; t <= stacks; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ht_agg_rec a = {.trace_id = t,
                        .class_id = 1 + (uint32_t)(x % classes),
                        .samples = 10,
                        .live_samples = 2,
                        .est_bytes = (double)(x % 100000) * 100.0,
                        .est_instances = (double)(x % 5000),
                        .live_est_bytes = (double)(x % 1000) * 10.0,
                        .live_est_instances = 3};
        ht_enc_agg(&b, &a);
    }
    ht_list_end(&b, at, stacks);
    ht_msg_end(&b, m);
    apply(s, &b);
    ht_buf_free(&b);
}

/* Records the longest gap between the build's stop polls: how long a key can
 * wait while a rebuild for new data runs before the build gives way. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double g_last_poll, g_max_gap, g_last_cpu, g_max_cpu_gap;
static int record_gap(void *ctx)
{
    (void)ctx;
    double t = now_ms(), c = cpu_ms();
    if (t - g_last_poll > g_max_gap) g_max_gap = t - g_last_poll;
    if (c - g_last_cpu > g_max_cpu_gap) g_max_cpu_gap = c - g_last_cpu;
    g_last_poll = t;
    g_last_cpu = c;
    return 0;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && strcmp(argv[1], "--check") == 0;
    if (check) argc--, argv++;
    uint32_t stacks = argc > 1 ? (uint32_t)atoi(argv[1]) : 100000;
    uint32_t classes = argc > 2 ? (uint32_t)atoi(argv[2]) : 10000;
    static ht_app app;
    ht_app *a = &app;
    if (ht_app_init(a) != 0) return 1;
    ht_tree_screen *tv = ht_app_state(a, &ht_screen_tree);
    ht_classes_screen *cv = ht_app_state(a, &ht_screen_classes);
    int tree_screen = ht_screen_index(&ht_screen_tree);
    int classes_screen = ht_screen_index(&ht_screen_classes);
    ht_client cli;
    memset(&cli, 0, sizeof cli);
    ht_store_init(&cli.store);
    cli.state = HT_CONN_LIVE;
    a->conn.cli = &cli;
    a->out_dir = "/tmp";
    double t0 = now_ms();
    fill(&cli.store, stacks, classes);
    printf("store: %u stacks, %u classes, %u rows, loaded in %.0f ms\n", stacks, classes,
           cli.store.nrows, now_ms() - t0);

    FILE *devnull = fopen("/dev/null", "w");
    SCREEN *scr = newterm("xterm-256color", devnull, stdin);
    if (!scr) {
        fprintf(stderr, "no terminal description for xterm-256color\n");
        return 1;
    }
    set_term(scr);
    a->ui.rows = 40;
    a->ui.cols = 120;
    resizeterm(40, 120);
    start_color();
    a->ui.color = 1;
    a->ui.utf8 = 1;

    enum { RUNS = 15 };
    double build[RUNS], expand[RUNS], move[RUNS], sort[RUNS], draw_tree[RUNS], draw_cls[RUNS];
    double build_cls[RUNS], sort_tree[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t = now_ms();
        a->front = tree_screen;
        ht_app_build(a); /* what arriving data costs, at most twice a second */
        build[r] = now_ms() - t;
        t = now_ms();
        a->front = classes_screen;
        ht_app_build(a);
        build_cls[r] = now_ms() - t;
        t = now_ms();
        uint32_t first = tv->tree.nodes[0].first_child;
        ht_tree_expand_all(&tv->tree, first); /* '*' on the top node: the worst fold key */
        ht_tree_flatten(&tv->tree);
        expand[r] = now_ms() - t;
        t = now_ms();
        tv->pos.cursor = (tv->pos.cursor + 37) % (tv->tree.nvisible ? tv->tree.nvisible : 1);
        ht_list_clamp(&tv->pos, tv->tree.nvisible, 34);
        move[r] = now_ms() - t;
        t = now_ms();
        erase();
        int top = ht_draw_header(a);
        a->front = tree_screen;
        ht_app_draw_screen(a, top, 40 - 2 - top);
        ht_draw_footer(a);
        wnoutrefresh(stdscr);
        doupdate();
        draw_tree[r] = now_ms() - t;
        t = now_ms();
        cv->table.sort_col = (ht_col)(r % HT_COL_COUNT);
        ht_class_table_sort(&cv->table);
        sort[r] = now_ms() - t;
        t = now_ms();
        erase();
        top = ht_draw_header(a);
        a->front = classes_screen;
        ht_app_draw_screen(a, top, 40 - 2 - top);
        ht_draw_footer(a);
        wnoutrefresh(stdscr);
        doupdate();
        draw_cls[r] = now_ms() - t;
        t = now_ms();
        /* F6 on the tree: every node's children re-ordered, then flattened */
        static const ht_col tree_cols[] = {HT_COL_INSTANCES, HT_COL_LIVE_BYTES, HT_COL_BYTES};
        ht_tree_sort(&tv->tree, tree_cols[r % 3], r & 1);
        sort_tree[r] = now_ms() - t;
        ht_tree_set_expanded(&tv->tree, first, 0);
    }
    endwin();
    delscreen(scr);
    /* a rebuild with the stop hook: the longest stretch without a poll */
    ht_tree_opts o = tv->opts;
    o.should_stop = record_gap;
    g_last_poll = now_ms();
    g_last_cpu = cpu_ms();
    g_max_gap = g_max_cpu_gap = 0;
    ht_tree_rebuild(&tv->tree, &tv->next, &cli.store, &o);
    double tail = now_ms() - g_last_poll, cpu_tail = cpu_ms() - g_last_cpu;
    if (tail > g_max_gap) g_max_gap = tail;
    if (cpu_tail > g_max_cpu_gap) g_max_cpu_gap = cpu_tail;
    printf("visible rows after '*': %u, tree nodes %u\n", tv->tree.nvisible, tv->tree.nnodes);
    printf("median ms over %d runs:\n", RUNS);
    printf("  key '*' (unfold all) + flatten   %8.2f\n", median(expand, RUNS));
    printf("  cursor move                      %8.3f\n", median(move, RUNS));
    printf("  sort classes by a column         %8.2f\n", median(sort, RUNS));
    printf("  sort the unfolded tree by a column %6.2f\n", median(sort_tree, RUNS));
    printf("  draw tree screen (ncurses)       %8.2f\n", median(draw_tree, RUNS));
    printf("  draw classes screen (ncurses)    %8.2f\n", median(draw_cls, RUNS));
    printf("  rebuild tree on new data         %8.2f  (abandoned when a key waits)\n",
           median(build, RUNS));
    printf("  rebuild class table on new data  %8.2f\n", median(build_cls, RUNS));
    printf(
        "  longest wait of a key during a rebuild (gap between polls) %.2f ms (%.2f ms of CPU)\n",
        g_max_gap, g_max_cpu_gap);
    double worst = median(expand, RUNS) + median(draw_tree, RUNS);
    if (median(sort, RUNS) + median(draw_cls, RUNS) > worst)
        worst = median(sort, RUNS) + median(draw_cls, RUNS);
    if (median(sort_tree, RUNS) + median(draw_tree, RUNS) > worst)
        worst = median(sort_tree, RUNS) + median(draw_tree, RUNS);
    printf("  worst key + draw: %.2f ms\n", worst);
    if (!check) return 0;
    const double bar = 50.0; /* a key answered within 50 ms */
    int ok = worst <= bar && g_max_cpu_gap <= bar;
    printf("check: worst key + draw %.2f ms, longest wait during a rebuild %.2f ms of CPU: %s "
           "(at most %.0f ms each)\n",
           worst, g_max_cpu_gap, ok ? "ok" : "FAILED", bar);
    return ok ? 0 : 1;
}
