/* test_tree_jump.c - a jump's selection in a built tree (tui/screens/
 * tree_jump.h): with the site's stack, the node on that call path (x on a
 * drag site), not the first node with the frame's method and line; through
 * a class level at the top; the frame alone when the tree has no such path
 * (hot spots) or no stack was given. */
#include "check.h"
#include "protocol.h"
#include "site_tree.h"
#include "store.h"
#include "tree_jump.h"

#include "proto_builder.h" /* after check.h and store.h: with mb_apply() */

#include <string.h>

/* methods: 1 main, 2 a, 3 b, 4 alloc
 * traces (leaf first): 10 = alloc:7 <- a:3 <- main:1 (1000 bytes, first)
 *                      11 = alloc:7 <- b:5 <- main:1 (300 bytes) */
static void fill(ht_store *s)
{
    ht_buf b;
    ht_buf_init(&b);
    mb m = mb_list(&b, HT_MSG_CLASSES, 1);
    mb_class(&m, 2, "demo.Point");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_METHODS, 2);
    const char *names[] = {"main", "a", "b", "alloc"};
    for (uint32_t i = 0; i < 4; i++)
        mb_method(&m, i + 1, "demo.App", names[i], "App.java");
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_TRACES, 3);
    uint32_t tm[2][3] = {{4, 2, 1}, {4, 3, 1}};
    int32_t tl[2][3] = {{7, 3, 1}, {7, 5, 1}};
    for (uint32_t t = 0; t < 2; t++) {
        mb_trace(&m, 10 + t, 3);
        for (int f = 0; f < 3; f++)
            mb_frame(&m, tm[t][f], tl[t][f]);
    }
    mb_apply(&m, s);
    m = mb_list(&b, HT_MSG_AGGS, 4);
    ht_agg_rec rows[] = {MB_ROW(10, 2, 1, 1, 1000, 10, 100, 1), MB_ROW(11, 2, 1, 0, 300, 3, 0, 0)};
    mb_aggs(&m, rows, 2);
    mb_apply(&m, s);
    ht_buf_free(&b);
}

/* The selected node's caller's method id. */
static uint32_t caller_of_selected(const ht_site_tree *t, const ht_list_pos *pos)
{
    uint32_t n = t->visible[pos->cursor];
    return t->nodes[t->nodes[n].parent].id;
}

static ht_jump jump_to(const ht_store *s, uint32_t trace)
{
    const ht_strace *tr = ht_store_trace(s, trace);
    ht_jump j = {.has_frame = 1, .frame = tr->frames[0], .depth = tr->depth, .class_id = 2};
    memcpy(j.stack, tr->frames, tr->depth * sizeof *tr->frames);
    return j;
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
    ht_list_pos pos = {0};
    /* trace 11's path: alloc under b, though alloc under a comes first */
    ht_jump j = jump_to(&s, 11);
    CHECK(ht_jump_select(&t, &j, &pos) == 1);
    CHECK(t.nodes[t.visible[pos.cursor]].id == 4 && caller_of_selected(&t, &pos) == 3);
    /* the frame alone: the first node with it, under a */
    j.depth = 0;
    CHECK(ht_jump_select(&t, &j, &pos) == 1 && caller_of_selected(&t, &pos) == 2);
    /* through the class level at the top */
    o.group = HT_GROUP_TOP;
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    j = jump_to(&s, 11);
    CHECK(ht_jump_select(&t, &j, &pos) == 1);
    CHECK(t.nodes[t.visible[pos.cursor]].id == 4 && caller_of_selected(&t, &pos) == 3);
    /* hot spots: no such path from the root; the allocating frame itself */
    o = (ht_tree_opts){.shape = HT_TREE_HOT_SPOTS};
    CHECK(ht_tree_build(&t, &s, &o) == 0);
    CHECK(ht_jump_select(&t, &j, &pos) == 1 && t.nodes[t.visible[pos.cursor]].id == 4 &&
          t.nodes[t.visible[pos.cursor]].parent == 0);
    ht_tree_free(&t);
    ht_store_free(&s);
    return check_summary();
}
