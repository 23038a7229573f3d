/* Aggregation into trees both ways, grouping, filters, fold state, flattening,
 * sorting by every column at every level, cut stacks, and the tree export. */
#include "check.h"
#include "export_views.h"
#include "protocol.h"
#include "site_tree.h"
#include "store.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* methods: 1 main, 2 a, 3 b, 4 alloc, 5 java.io.Util.copy
 * traces (leaf first): 10 = alloc:7 <- a:3 <- main:1
 *                      11 = alloc:7 <- b:5 <- main:1
 *                      12 = copy:9 <- b:6 <- main:1 */
static void fill(ht_store *s)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "byte[]");
    mb_class(&m, 2, "demo.Point");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_METHODS, 2);
    const char *names[] = {"main", "a", "b", "alloc"};
    for (uint32_t i = 0; i < 4; i++)
        mb_method(&m, i + 1, "demo.App", names[i], "App.java");
    mb_method(&m, 5, "java.io.Util", "copy", "Util.java");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TRACES, 3);
    uint32_t tm[3][3] = {{4, 2, 1}, {4, 3, 1}, {5, 3, 1}};
    int32_t tl[3][3] = {{7, 3, 1}, {7, 5, 1}, {9, 6, 1}};
    for (uint32_t t = 0; t < 3; t++) {
        mb_trace(&m, 10 + t, 3);
        for (int f = 0; f < 3; f++)
            mb_frame(&m, tm[t][f], tl[t][f]);
    }
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_AGGS, 4);
    ht_agg_rec rows[] = {MB_ROW(10, 1, 1, 1, 1000, 10, 100, 1), MB_ROW(11, 2, 1, 0, 300, 30, 0, 0),
                         MB_ROW(11, 1, 1, 0, 200, 2, 0, 0), MB_ROW(12, 1, 1, 1, 50, 1, 50, 1)};
    mb_aggs(&m, rows, 4);
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

/* Are the children of every node in column order (ties by bytes)? */
static int ordered(const ht_site_tree *t, ht_col col, int asc)
{
    for (uint32_t p = 0; p < t->nnodes; p++)
        for (uint32_t c = t->nodes[p].first_child; c && t->nodes[c].next_sibling;
             c = t->nodes[c].next_sibling) {
            const ht_node *x = &t->nodes[c], *y = &t->nodes[x->next_sibling];
            double vx = ht_node_value(t, x, col), vy = ht_node_value(t, y, col);
            if (asc ? vx > vy : vx < vy) return 0;
            if (vx == vy && (asc ? x->v[HT_COL_BYTES] > y->v[HT_COL_BYTES]
                                 : x->v[HT_COL_BYTES] < y->v[HT_COL_BYTES]))
                return 0;
        }
    return 1;
}

static uint32_t nth_child(const ht_site_tree *t, uint32_t parent, int k)
{
    uint32_t c = t->nodes[parent].first_child;
    while (c && k--)
        c = t->nodes[c].next_sibling;
    return c;
}

/* Sorting: by every column, both ways, at every level; a re-sort without a
 * rebuild; the order kept across rebuilds. */
static void test_sorting(ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.shape = HT_TREE_HOT_SPOTS};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    uint32_t alloc = find_child(&t, s, 0, "demo.App.alloc:7");
    uint32_t copy = find_child(&t, s, 0, "java.io.Util.copy:9");
    uint32_t via_a = find_child(&t, s, alloc, "demo.App.a:3");
    uint32_t via_b = find_child(&t, s, alloc, "demo.App.b:5");
    CHECK(alloc && copy && via_a && via_b);
    /* by bytes: alloc (1500) before copy (50); under alloc a (1000) before b (500) */
    CHECK(nth_child(&t, 0, 0) == alloc && nth_child(&t, alloc, 0) == via_a);
    /* by instances, both levels: alloc 42 > copy 1; b 32 > a 10 */
    ht_tree_sort(&t, HT_COL_INSTANCES, 0);
    CHECK(nth_child(&t, 0, 0) == alloc && nth_child(&t, alloc, 0) == via_b);
    CHECK(t.visible[0] == alloc && t.nvisible == 2); /* flattened again */
    /* reversed: smallest first at every level */
    ht_tree_sort(&t, HT_COL_INSTANCES, 1);
    CHECK(nth_child(&t, 0, 0) == copy && nth_child(&t, alloc, 0) == via_a);
    /* live: a (100) before b (0) under alloc */
    ht_tree_sort(&t, HT_COL_LIVE_BYTES, 0);
    CHECK(nth_child(&t, alloc, 0) == via_a);
    /* the share sorts as bytes */
    ht_tree_sort(&t, HT_COL_PCT, 1);
    CHECK(nth_child(&t, 0, 0) == copy && nth_child(&t, alloc, 0) == via_b);
    /* the samples each figure rests on: b (2 samples) before a (1), though
     * a has twice b's bytes; copy's 1 after alloc's 3 */
    ht_tree_sort(&t, HT_COL_SAMPLES, 0);
    CHECK(nth_child(&t, alloc, 0) == via_b && nth_child(&t, 0, 0) == alloc);
    ht_tree_sort(&t, HT_COL_SAMPLES, 1);
    CHECK(nth_child(&t, 0, 0) == copy && nth_child(&t, alloc, 0) == via_a);
    ht_tree_sort(&t, HT_COL_LIVE_SAMPLES, 1); /* b 0 before a 1 */
    CHECK(nth_child(&t, alloc, 0) == via_b);
    const ht_col cols[] = {HT_COL_BYTES,        HT_COL_INSTANCES,  HT_COL_LIVE_BYTES,
                           HT_COL_YOUNG_BYTES,  HT_COL_DIFF_BYTES, HT_COL_DIFF_INSTANCES,
                           HT_COL_GROWTH_BYTES, HT_COL_SAMPLES,    HT_COL_LIVE_SAMPLES};
    const size_t ncols = sizeof cols / sizeof cols[0];
    for (int shape = 0; shape < 2; shape++)
        for (size_t i = 0; i < ncols; i++)
            for (int asc = 0; asc < 2; asc++) {
                /* through the build's options, as a rebuild for new data does */
                o.shape = (ht_tree_shape)shape;
                o.group = HT_GROUP_LEAVES;
                o.sort_col = cols[i];
                o.ascending = asc;
                CHECK(ht_tree_build(&t, s, &o) == 0);
                CHECK(ordered(&t, cols[i], asc));
                ht_tree_sort(&t, cols[(i + 1) % ncols], !asc);
                CHECK(ordered(&t, cols[(i + 1) % ncols], !asc));
            }
    /* growth, signed: b:5 +80, b:6 0, a:3 -30 under main (rows set in main) */
    o = (ht_tree_opts){.shape = HT_TREE_TOP_DOWN, .sort_col = HT_COL_GROWTH_BYTES};
    CHECK(ht_tree_build(&t, s, &o) == 0);
    uint32_t m = find_child(&t, s, 0, "demo.App.main:1");
    CHECK(nth_child(&t, m, 0) == find_child(&t, s, m, "demo.App.b:5"));
    CHECK(nth_child(&t, m, 2) == find_child(&t, s, m, "demo.App.a:3"));
    CHECK(t.has_neg[HT_COL_GROWTH_BYTES] && t.max_abs[HT_COL_GROWTH_BYTES] == 80);
    CHECK(t.max_abs[HT_COL_BYTES] == 1550);
    /* the samples, summed up the tree as the figures are: main rests on all
     * four rows, two of them live; its column's extreme for the layout */
    CHECK(ht_node_value(&t, &t.nodes[m], HT_COL_SAMPLES) == 4 &&
          ht_node_value(&t, &t.nodes[m], HT_COL_LIVE_SAMPLES) == 2);
    uint32_t b5 = find_child(&t, s, m, "demo.App.b:5");
    CHECK(b5 && t.nodes[b5].v[HT_COL_SAMPLES] == 2 && t.nodes[b5].v[HT_COL_LIVE_SAMPLES] == 0);
    CHECK(t.max_abs[HT_COL_SAMPLES] == 4 && t.max_abs[HT_COL_LIVE_SAMPLES] == 2);
    ht_tree_free(&t);
}

/* Stacks as deep as the agent's depth get a pseudo-frame at the outer end,
 * and the export says so; each export row names its parent by id. */
static void test_cut_and_export(ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.shape = HT_TREE_TOP_DOWN};
    s->info.depth = 64; /* the traces are 3 deep: none cut */
    CHECK(ht_tree_build(&t, s, &o) == 0);
    CHECK(find_child(&t, s, 0, "demo.App.main:1") && !t.nodes[0].truncated);
    s->info.depth = 3; /* as deep as the agent keeps: may be cut */
    CHECK(ht_tree_build(&t, s, &o) == 0);
    uint32_t cut = find_child(&t, s, 0, "[stack cut at depth 3]");
    CHECK(cut && t.nodes[0].nchildren == 1 && t.nodes[cut].kind == HT_NODE_CUT);
    uint32_t m = find_child(&t, s, cut, "demo.App.main:1");
    CHECK(m && t.nodes[m].truncated && t.nodes[cut].v[HT_COL_BYTES] == t.nodes[0].v[HT_COL_BYTES]);
    o.shape = HT_TREE_HOT_SPOTS;
    CHECK(ht_tree_build(&t, s, &o) == 0);
    uint32_t a = find_child(&t, s, 0, "demo.App.alloc:7");
    uint32_t via = find_child(&t, s, a, "demo.App.a:3");
    uint32_t top = find_child(&t, s, via, "demo.App.main:1");
    CHECK(top && find_child(&t, s, top, "[stack cut at depth 3]") != 0);

    char path[] = "/tmp/heaptop-tree-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(ht_export_tree(&t, s, path, NULL) == 0);
    FILE *f = fopen(path, "r");
    char line[2048];
    CHECK(f && fgets(line, sizeof line, f));
    CHECK(strncmp(line, "\"id\",\"parent\",\"depth\",\"kind\",\"name\",", 36) == 0);
    CHECK(strstr(line, "\"truncated\"") != NULL && strstr(line, "path") == NULL);
    CHECK(strstr(line, "\"samples\",\"live_samples\"") != NULL);
    CHECK(strstr(line, "\"live_est_bytes\",\"live_est_instances\",\"young_est_bytes\"") != NULL);
    unsigned rows = 0, ok = 1, cuts = 0, allocs = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned id, parent, depth;
        ok &= sscanf(line, "\"%u\",\"%u\",\"%u\"", &id, &parent, &depth) == 3;
        ok &= id == ++rows && parent < id && (parent == 0) == (depth == 1);
        if (strstr(line, "\"cut\",\"[stack cut at depth 3]\"")) cuts++;
        /* alloc's samples (3) and live samples (1), nothing over a bound */
        if (strstr(line, "\"demo.App.alloc:7\""))
            allocs += strstr(line, "\"3\",\"1\",\"\",\"1\"\r\n") != NULL;
        ok &= strstr(line, "\"1\"\r\n") != NULL; /* every stack here may be cut */
    }
    CHECK(ok && rows == t.nnodes - 1 && cuts == 3 && allocs == 1);
    if (f) fclose(f);
    unlink(path);
    s->info.depth = 0;
    ht_tree_free(&t);
}

/* A 2048-frame stack exports in one short row per frame: the rows name their
 * parent instead of repeating the path (which made it 29.5 MB). */
static void test_deep_export(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "byte[]");
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_METHODS, 2);
    mb_method(&m, 1, "com.example.deeply.nested.pkg.Recursion", "descend", "R.java");
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_TRACES, 3);
    mb_trace(&m, 1, 2048);
    for (int f = 0; f < 2048; f++)
        mb_frame(&m, 1, 10 + f % 7);
    mb_apply(&m, &s);
    m = mb_list(&b, HT_MSG_AGGS, 4);
    ht_agg_rec r = MB_ROW(1, 1, 1, 0, 4096, 1, 0, 0);
    mb_agg(&m, &r);
    mb_apply(&m, &s);
    ht_buf_free(&b);
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.shape = HT_TREE_TOP_DOWN};
    CHECK(ht_tree_build(&t, &s, &o) == 0 && t.nnodes == 2049);
    char path[] = "/tmp/heaptop-deep-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(ht_export_tree(&t, &s, path, NULL) == 0);
    FILE *f = fopen(path, "r");
    long size = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    printf("2048-frame tree export: %ld bytes\n", size);
    CHECK(size > 2048 * 60 && size < 2048 * 200);
    unlink(path);
    ht_tree_free(&t);
    ht_store_free(&s);
}

static int always_stop(void *ctx)
{
    (void)ctx;
    return 1;
}

/* Trace 11's byte[] row (b:5 -> alloc) set to `bytes` by one AGGS message. */
static void set_b5_bytes(ht_store *s, ht_buf *b, uint64_t seq, double bytes)
{
    mb m = mb_list(b, HT_MSG_AGGS, seq);
    ht_agg_rec r = MB_ROW(11, 1, 1, 0, bytes, 2, 0, 0);
    mb_agg(&m, &r);
    mb_apply(&m, s);
}

/* The tree rebuilt with the hot path shown; main, a:3 and b:5 found in it. */
static void show_hot_path(ht_site_tree *t, ht_store *s, const ht_tree_opts *o, uint32_t *main_,
                          uint32_t *a, uint32_t *b5)
{
    CHECK(ht_tree_build(t, s, o) == 0);
    ht_tree_show_hot_path(t, 0);
    *main_ = find_child(t, s, 0, "demo.App.main:1");
    *a = find_child(t, s, *main_, "demo.App.a:3");
    *b5 = find_child(t, s, *main_, "demo.App.b:5");
}

/* The hot path alone unfolded, following the data: a path that takes over
 * is unfolded and the old one folded; a leader by less than a fifth does not
 * take the place of the path shown. */
static void test_hot_path(ht_store *s)
{
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.shape = HT_TREE_TOP_DOWN};
    uint32_t main_, a, b5;
    /* main -> a:3 (1000 of 1550) -> alloc: main and a unfolded, b:5 folded */
    show_hot_path(&t, s, &o, &main_, &a, &b5);
    CHECK(ht_tree_is_expanded(&t, main_) && ht_tree_is_expanded(&t, a));
    CHECK(!ht_tree_is_expanded(&t, b5));
    CHECK(t.nvisible == 5); /* main, a, alloc, b:5, b:6 */
    /* b:5 grows to 1150 bytes (1.15 a's): not enough to move the path */
    ht_buf b;
    ht_buf_init(&b);
    set_b5_bytes(s, &b, 20, 850);
    show_hot_path(&t, s, &o, &main_, &a, &b5);
    CHECK(t.nodes[main_].first_child == b5); /* it sorts first */
    CHECK(ht_tree_is_expanded(&t, a) && !ht_tree_is_expanded(&t, b5));
    /* b:5 at 2000 bytes: it takes over, a folds */
    set_b5_bytes(s, &b, 21, 1700);
    show_hot_path(&t, s, &o, &main_, &a, &b5);
    CHECK(ht_tree_is_expanded(&t, b5) && !ht_tree_is_expanded(&t, a));
    /* put the store back as fill() made it */
    set_b5_bytes(s, &b, 22, 200);
    ht_buf_free(&b);
    ht_tree_free(&t);
}

/* Names fitted to a column: packages shortened from the left, as far as
 * needed; class and method kept; placeholders untouched. Indentation
 * narrows with depth and numbers the levels past its cap. */
static void test_names(void)
{
    const char *f = "org.apache.catalina.connector.CoyoteAdapter.service:357";
    char out[256];
    ht_name_shorten(f, 80, out, sizeof out);
    CHECK(strcmp(out, f) == 0);
    ht_name_shorten(f, 41, out, sizeof out);
    CHECK(strcmp(out, "o.a.c.connector.CoyoteAdapter.service:357") == 0);
    ht_name_shorten(f, 40, out, sizeof out);
    CHECK(strcmp(out, "o.a.c.c.CoyoteAdapter.service:357") == 0);
    ht_name_shorten(f, 0, out, sizeof out);
    CHECK(strcmp(out, "o.a.c.c.CoyoteAdapter.service:357") == 0);
    ht_name_shorten(f, 10, out, sizeof out); /* as short as it gets */
    CHECK(strcmp(out, "o.a.c.c.CoyoteAdapter.service:357") == 0);
    ht_name_shorten("java.lang.Throwable.fillInStackTrace [native]", 0, out, sizeof out);
    CHECK(strcmp(out, "j.l.Throwable.fillInStackTrace [native]") == 0);
    ht_name_shorten("java.util.HashMap$Node", 0, out, sizeof out); /* a class */
    CHECK(strcmp(out, "j.u.HashMap$Node") == 0);
    ht_name_shorten("foo.bar.baz.run:3", 0, out, sizeof out); /* lowercase class kept */
    CHECK(strcmp(out, "f.b.baz.run:3") == 0);
    ht_name_shorten("[stack cut at depth 64]", 0, out, sizeof out);
    CHECK(strcmp(out, "[stack cut at depth 64]") == 0);
    ht_name_shorten("Demo$$Lambda#2.run", 0, out, sizeof out);
    CHECK(strcmp(out, "Demo$$Lambda#2.run") == 0);
    CHECK(ht_text_width("a\xe2\x96\xb2"
                        "b") == 3);
    /* indentation: grows with the level, never past a quarter of the width */
    for (int width = 20; width <= 200; width += 30) {
        int last = -1, numbered = 0, first_numbered = -1;
        for (int level = 0; level < 100; level++) {
            int at = ht_tree_indent(level, width, &numbered);
            int cap = width / 4 > 8 ? width / 4 : 8;
            CHECK(at <= cap && at >= last);
            CHECK(numbered || at > last); /* unnumbered levels are told apart */
            if (numbered && first_numbered < 0) first_numbered = level;
            CHECK(!numbered || first_numbered >= 0);
            last = at;
        }
        CHECK(first_numbered > 0 && first_numbered < 40);
        CHECK(ht_tree_indent(1, width, &numbered) == 2 && !numbered); /* two at first */
    }
}

int main(void)
{
    ht_store s;
    ht_store_init(&s);
    fill(&s);
    ht_site_tree t;
    ht_tree_init(&t);
    ht_tree_opts o = {.shape = HT_TREE_TOP_DOWN, .group = HT_GROUP_NONE};
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    CHECK(t.total == 1550 && t.nodes[0].v[HT_COL_BYTES] == 1550);
    uint32_t main_ = find_child(&t, &s, 0, "demo.App.main:1");
    CHECK(main_ && t.nodes[main_].v[HT_COL_BYTES] == 1550 && t.nodes[0].nchildren == 1);
    uint32_t a = find_child(&t, &s, main_, "demo.App.a:3");
    uint32_t b5 = find_child(&t, &s, main_, "demo.App.b:5");
    uint32_t b6 = find_child(&t, &s, main_, "demo.App.b:6");
    CHECK(a && b5 && b6); /* different call lines are different nodes */
    CHECK(t.nodes[a].v[HT_COL_BYTES] == 1000 && t.nodes[b5].v[HT_COL_BYTES] == 500 &&
          t.nodes[b6].v[HT_COL_BYTES] == 50);
    CHECK(t.nodes[b5].v[HT_COL_INSTANCES] == 32 && t.nodes[a].v[HT_COL_LIVE_BYTES] == 100);
    CHECK(t.nodes[main_].v[HT_COL_LIVE_INSTANCES] == 2 && t.nodes[a].v[HT_COL_LIVE_INSTANCES] == 1);
    /* children sorted by bytes, largest first */
    CHECK(t.nodes[main_].first_child == a && t.nodes[a].next_sibling == b5);
    /* folded: only the root's children are visible */
    CHECK(t.nvisible == 1 && t.visible[0] == main_);
    ht_tree_set_expanded(&t, main_, 1);
    ht_tree_flatten(&t);
    CHECK(t.nvisible == 4 && t.visible[1] == a);
    /* fold state survives a rebuild with new data */
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    main_ = find_child(&t, &s, 0, "demo.App.main:1");
    CHECK(ht_tree_is_expanded(&t, main_) && t.nvisible == 4);
    ht_tree_expand_all(&t, main_);
    ht_tree_flatten(&t);
    CHECK(t.nvisible == 7);
    ht_tree_set_expanded(&t, main_, 0);
    ht_tree_flatten(&t);
    CHECK(t.nvisible == 1);

    /* hot spots: rooted at allocating frames, expanding to callers */
    o.shape = HT_TREE_HOT_SPOTS;
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    uint32_t alloc = find_child(&t, &s, 0, "demo.App.alloc:7");
    uint32_t copy = find_child(&t, &s, 0, "java.io.Util.copy:9");
    CHECK(alloc && copy && t.nodes[alloc].v[HT_COL_BYTES] == 1500 &&
          t.nodes[copy].v[HT_COL_BYTES] == 50);
    CHECK(t.nodes[0].first_child == alloc);
    uint32_t via_a = find_child(&t, &s, alloc, "demo.App.a:3");
    CHECK(via_a && t.nodes[via_a].v[HT_COL_BYTES] == 1000);
    CHECK(find_child(&t, &s, via_a, "demo.App.main:1") != 0);

    /* grouping by class at the leaves and at the top */
    o.shape = HT_TREE_TOP_DOWN;
    o.group = HT_GROUP_TOP;
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    uint32_t cb = find_child(&t, &s, 0, "byte[]"), cp = find_child(&t, &s, 0, "demo.Point");
    CHECK(cb && cp && t.nodes[cb].v[HT_COL_BYTES] == 1250 && t.nodes[cp].v[HT_COL_BYTES] == 300);
    o.group = HT_GROUP_LEAVES;
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    main_ = find_child(&t, &s, 0, "demo.App.main:1");
    b5 = find_child(&t, &s, main_, "demo.App.b:5");
    uint32_t al = find_child(&t, &s, b5, "demo.App.alloc:7");
    CHECK(al && t.nodes[al].nchildren == 2 && find_child(&t, &s, al, "demo.Point") != 0);

    /* filters: class filter and a frame filter with an exclude */
    ht_filter cf, ff;
    char err[64];
    ht_filter_parse(&cf, "demo.", err, sizeof err);
    o.group = HT_GROUP_NONE;
    o.class_filter = &cf;
    CHECK(ht_tree_build(&t, &s, &o) == 0 && t.total == 300);
    o.class_filter = NULL;
    ht_filter_parse(&ff, "!.io.", err, sizeof err);
    o.frame_filter = &ff;
    CHECK(ht_tree_build(&t, &s, &o) == 0 && t.total == 1500);
    ht_filter_parse(&ff, "App.a:", err, sizeof err);
    CHECK(ht_tree_build(&t, &s, &o) == 0 && t.total == 1000);
    o.frame_filter = NULL;
    o.only_class = 2;
    CHECK(ht_tree_build(&t, &s, &o) == 0 && t.total == 300);

    /* young, diff and growth come with the rows (the agent keeps the mark)
     * and sum up the tree like the other figures */
    {
        ht_buf b;
        ht_buf_init(&b);
        mb m = mb_list(&b, HT_MSG_AGGS, 9);
        ht_agg_rec r1 = MB_ROW(10, 1, 1, 1, 1000, 10, 100, 1);
        r1.young_est_bytes = 70;
        r1.diff_bytes = 400;
        r1.diff_instances = 4;
        r1.growth_bytes = -30;
        ht_agg_rec r2 = MB_ROW(11, 1, 1, 0, 200, 2, 0, 0);
        r2.young_est_bytes = 5;
        r2.diff_bytes = 200;
        r2.growth_bytes = 80;
        mb_agg(&m, &r1);
        mb_agg(&m, &r2);
        mb_apply(&m, &s);
        ht_buf_free(&b);
        o.only_class = 0;
        CHECK(ht_tree_build(&t, &s, &o) == 0);
        CHECK(t.nodes[0].v[HT_COL_DIFF_BYTES] == 600 && t.nodes[0].v[HT_COL_DIFF_INSTANCES] == 4);
        CHECK(t.nodes[0].v[HT_COL_YOUNG_BYTES] == 75 && t.nodes[0].v[HT_COL_GROWTH_BYTES] == 50);
        uint32_t mn = find_child(&t, &s, 0, "demo.App.main:1");
        uint32_t an = find_child(&t, &s, mn, "demo.App.a:3");
        CHECK(an && t.nodes[an].v[HT_COL_DIFF_BYTES] == 400 &&
              t.nodes[an].v[HT_COL_GROWTH_BYTES] == -30);
    }

    test_sorting(&s);
    test_cut_and_export(&s);
    test_deep_export();
    test_hot_path(&s);
    test_names();

    /* pre-order both ways visits every node once, the one walk the other reversed */
    {
        uint32_t fwd[64], nf = 0, nb = 0, ok = 1;
        for (uint32_t n = ht_tree_preorder_next(&t, 0); n && nf < 64;
             n = ht_tree_preorder_next(&t, n))
            fwd[nf++] = n;
        for (uint32_t n = ht_tree_preorder_prev(&t, 0); n && nb < 64;
             n = ht_tree_preorder_prev(&t, n))
            ok &= nb < nf && fwd[nf - 1 - nb++] == n;
        CHECK(nf == t.nnodes - 1 && nb == nf && ok);
        CHECK(fwd[0] == t.nodes[0].first_child && t.nodes[fwd[1]].parent == fwd[0]);
    }

    /* double-buffered rebuild: an abandoned build leaves the shown tree intact */
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    main_ = find_child(&t, &s, 0, "demo.App.main:1");
    ht_tree_set_expanded(&t, main_, 1);
    ht_tree_flatten(&t);
    uint32_t shown = t.nvisible;
    ht_site_tree next;
    ht_tree_init(&next);
    o.should_stop = always_stop;
    CHECK(ht_tree_rebuild(&t, &next, &s, &o) == 1);
    CHECK(t.nvisible == shown && find_child(&t, &s, 0, "demo.App.main:1") == main_);
    o.should_stop = NULL;
    CHECK(ht_tree_rebuild(&t, &next, &s, &o) == 0);
    main_ = find_child(&t, &s, 0, "demo.App.main:1");
    CHECK(ht_tree_is_expanded(&t, main_) && t.nvisible == shown); /* fold state moved along */
    CHECK(ht_tree_rebuild(&t, &next, &s, &o) == 0 && t.nvisible == shown);
    ht_tree_free(&next);
    ht_tree_free(&t);
    ht_store_free(&s);
    return check_summary();
}
