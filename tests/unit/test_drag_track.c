/* test_drag_track.c - drag mode's bookkeeping (agent/drag_track.h): slots
 * per class id handed out and freed, untracked when every slot is taken, the
 * figures a death adds (drag as an interval, lag, use, void, the histogram),
 * the overflow row, and the mark's diffs. */
#include "check.h"
#include "drag_track.h"

#include <math.h>
#include <string.h>

#define S 1000000000ull /* one second in ns */

static void test_slots(void)
{
    ht_drag_track t;
    CHECK(ht_drag_track_init(&t, 100) == 0);
    uint16_t a[] = {5}, ab[] = {5, 9};
    uint32_t r = ht_drag_track_sample(&t, 1, 2);
    for (int k = 0; k < HT_DRAG_SLOTS; k++) {
        const ht_drag_obj *o = ht_drag_track_take(&t, r, 100 + (uint64_t)k, S, 10, a, 1);
        CHECK(o && o->n == 1 && o->cid[0] == 5 && o->slot[0] == k);
    }
    CHECK(ht_drag_track_take(&t, r, 200, S, 10, a, 1) == NULL); /* all 8 taken */
    CHECK(t.untracked == 1 && t.tracked == HT_DRAG_SLOTS);
    /* a subclass's object: cid 9 still has room, 5 has none */
    const ht_drag_obj *o = ht_drag_track_take(&t, r, 201, S, 10, ab, 2);
    CHECK(o && o->n == 1 && o->cid[0] == 9 && o->slot[0] == 0);
    CHECK(ht_drag_track_take(&t, r, 201, S, 10, ab, 2) == NULL); /* a serial once */
    /* a death frees the slot: the next object gets it */
    ht_drag_track_died(&t, 103, 0, 0, S, 2 * S);
    CHECK(ht_drag_track_find(&t, 103) == NULL);
    o = ht_drag_track_take(&t, r, 300, S, 10, a, 1);
    CHECK(o && o->slot[0] == 3);
    CHECK(ht_drag_track_count(&t) == HT_DRAG_SLOTS + 1);
    /* let go as too hot: tracked becomes untracked, in the row too, the slot free */
    uint64_t tr = t.tracked, un = t.untracked, rt = t.rows[r].tracked;
    ht_drag_track_untrack(&t, 300);
    CHECK(t.tracked == tr - 1 && t.untracked == un + 1 && t.rows[r].tracked == rt - 1);
    CHECK(ht_drag_track_find(&t, 300) == NULL && ht_drag_track_count(&t) == HT_DRAG_SLOTS);
    o = ht_drag_track_take(&t, r, 301, S, 10, a, 1);
    CHECK(o && o->slot[0] == 3);
    ht_drag_track_forget_all(&t);
    CHECK(ht_drag_track_count(&t) == 0);
    o = ht_drag_track_take(&t, r, 400, S, 10, a, 1);
    CHECK(o && o->slot[0] == 0);
    ht_drag_track_destroy(&t);
}

static void test_figures(void)
{
    ht_drag_track t;
    CHECK(ht_drag_track_init(&t, 100) == 0);
    uint16_t a[] = {1};
    uint32_t r = ht_drag_track_sample(&t, 7, 3);
    ht_drag_track_sample(&t, 7, 3);
    /* used: alloc 1 s, first 2 s, last 3 s, alive at 5 s, found dead at 7 s; 1000 bytes */
    CHECK(ht_drag_track_take(&t, r, 1, 1 * S, 1000, a, 1));
    ht_drag_track_died(&t, 1, 2 * S, 3 * S, 5 * S, 7 * S);
    /* void: alloc 1 s, alive at 1.5 s, dead at 2 s; 500 bytes */
    CHECK(ht_drag_track_take(&t, r, 2, 1 * S, 500, a, 1));
    ht_drag_track_died(&t, 2, 0, 0, 3 * S / 2, 2 * S);
    ht_drag_row_rec row;
    ht_drag_track_row(&t, r, &row);
    CHECK(row.trace_id == 7 && row.class_id == 3 && row.samples == 2 && row.tracked == 2);
    CHECK(row.dead == 2 && row.void_ == 1);
    CHECK_NEAR(row.bytes, 1500, 1e-9);
    CHECK_NEAR(row.drag_lo, 1000 * 2.0 + 500 * 0.5, 1e-6); /* 5-3 s; 1.5-1 s */
    CHECK_NEAR(row.drag_hi, 1000 * 4.0 + 500 * 1.0, 1e-6); /* 7-3 s; 2-1 s */
    CHECK_NEAR(row.lag, 1000 * 1.0, 1e-6);
    CHECK_NEAR(row.use, 1000 * 1.0, 1e-6);
    CHECK(row.hist[ht_drag_hist_bucket(4 * S)] == 1 && row.hist[ht_drag_hist_bucket(S)] == 1);
    /* seen alive after it was found dead cannot be: the interval stays true */
    CHECK(ht_drag_track_take(&t, r, 3, 1 * S, 100, a, 1));
    ht_drag_track_died(&t, 3, 0, 2 * S, 9 * S, 4 * S);
    ht_drag_track_row(&t, r, &row);
    CHECK(row.drag_lo <= row.drag_hi);
    ht_drag_track_destroy(&t);
}

static void test_overflow_and_mark(void)
{
    ht_drag_track t;
    CHECK(ht_drag_track_init(&t, 2) == 0);
    ht_drag_track_sample(&t, 1, 1);
    ht_drag_track_sample(&t, 2, 1);
    uint32_t r = ht_drag_track_sample(&t, 3, 1); /* past the cap */
    CHECK(t.rows[r].trace_id == HT_TRACE_OVERFLOW && t.rows[r].class_id == 1);
    CHECK(t.ndirty == 3);
    ht_drag_track_clear_dirty(&t);
    CHECK(ht_drag_track_mark(&t, HT_MARK_BEGIN) == 0 && t.ndirty == 3);
    ht_drag_track_sample(&t, 1, 1);
    ht_drag_row_rec row;
    ht_drag_track_row(&t, 0, &row);
    CHECK(row.samples == 2 && row.diff_samples == 1);
    CHECK(ht_drag_track_mark(&t, HT_MARK_END) == 0);
    ht_drag_track_sample(&t, 1, 1);
    ht_drag_track_row(&t, 0, &row);
    CHECK(row.samples == 3 && row.diff_samples == 1); /* frozen at End */
    CHECK(ht_drag_track_mark(&t, HT_MARK_CONTINUE) == 0);
    ht_drag_track_sample(&t, 1, 1);
    ht_drag_track_row(&t, 0, &row);
    CHECK(row.diff_samples == 2);
    ht_drag_track_destroy(&t);
}

int main(void)
{
    test_slots();
    test_figures();
    test_overflow_and_mark();
    return check_summary();
}
