/* test_drag_guard.c - drag mode's cost guard (agent/drag_guard.h): the first
 * check only takes a baseline; under the budget nothing is hot; over it the
 * hottest classes are marked, hottest first, until the rest fit; a hot class
 * stays hot and no longer counts; the Java int counts wrap. */
#include "check.h"
#include "drag_guard.h"

#include <stdlib.h>
#include <string.h>

#define S 1000000000ull /* one second in ns */

static ht_drag_guard *fresh(uint64_t budget)
{
    ht_drag_guard *g = malloc(sizeof *g);
    CHECK(g != NULL);
    ht_drag_guard_init(g, budget);
    return g;
}

static void test_baseline_and_budget(void)
{
    ht_drag_guard *g = fresh(1000);
    uint32_t c[8] = {0, 5000000, 7000000, 0, 0, 0, 0, 0};
    uint16_t hot[4];
    uint64_t rate[4];
    /* the first check takes the counts as they are, however high */
    CHECK(ht_drag_guard_check(g, c, 8, 10 * S, hot, rate, 4) == 0 && g->nhot == 0);
    /* one second later, 400 + 500 looks: under 1000 a second */
    c[1] += 400, c[2] += 500;
    CHECK(ht_drag_guard_check(g, c, 8, 11 * S, hot, rate, 4) == 0 && g->nhot == 0);
    /* two seconds later, 3000 + 1600 + 600 looks: 2600 a second, over 1000;
     * the hottest (1) goes, then 2 (1100 a second left, still over), and
     * 3's 300 a second fits */
    c[1] += 3000, c[2] += 1600, c[3] += 600;
    CHECK(ht_drag_guard_check(g, c, 8, 13 * S, hot, rate, 4) == 2);
    CHECK(hot[0] == 1 && rate[0] == 1500 && hot[1] == 2 && rate[1] == 800);
    CHECK(ht_drag_guard_is_hot(g, 1) && ht_drag_guard_is_hot(g, 2) && !ht_drag_guard_is_hot(g, 3));
    CHECK(g->nhot == 2);
    /* a hot class no longer counts: 1 keeps running hot, 3 stays under */
    c[1] += 100000, c[3] += 900;
    CHECK(ht_drag_guard_check(g, c, 8, 14 * S, hot, rate, 4) == 0 && g->nhot == 2);
    /* and init makes every class cold again */
    ht_drag_guard_init(g, 1000);
    CHECK(!ht_drag_guard_is_hot(g, 1) && g->nhot == 0);
    free(g);
}

static void test_wrap_and_limits(void)
{
    ht_drag_guard *g = fresh(1000);
    uint32_t c[4] = {0, UINT32_MAX - 10, 0, 0};
    uint16_t hot[2];
    uint64_t rate[2];
    CHECK(ht_drag_guard_check(g, c, 4, S, hot, rate, 2) == 0);
    c[1] += 5000; /* wraps past 2^32: 5000 looks, not 4 billion */
    CHECK(ht_drag_guard_check(g, c, 4, 2 * S, hot, rate, 2) == 1 && hot[0] == 1 && rate[0] == 5000);
    /* at most max at once: three hot classes, room for two */
    c[1] += 1, c[2] += 9000, c[3] += 8000;
    c[0] += 1000000; /* cid 0 is never handed out: never hot */
    CHECK(ht_drag_guard_check(g, c, 4, 3 * S, hot, rate, 2) == 2 && hot[0] == 2 && hot[1] == 3);
    CHECK(!ht_drag_guard_is_hot(g, 0));
    /* the same instant twice: no rate, nothing marked */
    CHECK(ht_drag_guard_check(g, c, 4, 3 * S, hot, rate, 2) == 0);
    free(g);
}

int main(void)
{
    test_baseline_and_budget();
    test_wrap_and_limits();
    return check_summary();
}
