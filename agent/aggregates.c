/* aggregates.c - see aggregates.h. */
#include "aggregates.h"

#include "estimate.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

int ht_aggs_init(ht_aggs *a, uint32_t max_rows, size_t max_live)
{
    memset(a, 0, sizeof *a);
    a->max_rows = max_rows;
    ht_map_init(&a->index);
    if (ht_map_reserve(&a->index, 1024) != 0 || ht_live_init(&a->live, max_live) != 0) {
        ht_aggs_destroy(a);
        return -1;
    }
    return 0;
}

void ht_aggs_destroy(ht_aggs *a)
{
    free(a->rows);
    free(a->dirty_flag);
    free(a->dirty);
    ht_map_free(&a->index);
    ht_live_destroy(&a->live);
    memset(a, 0, sizeof *a);
}

const ht_agg_rec *ht_aggs_find(const ht_aggs *a, uint32_t trace, uint32_t cls)
{
    uint64_t r;
    return ht_map_get(&a->index, ht_row_key(trace, cls), &r) ? &a->rows[r] : NULL;
}

static int grow_rows(ht_aggs *a)
{
    uint32_t ncap = a->cap ? a->cap * 2 : 256;
    ht_agg_rec *rows = realloc(a->rows, (size_t)ncap * sizeof *rows);
    if (!rows) return -1;
    a->rows = rows;
    uint8_t *flags = realloc(a->dirty_flag, ncap);
    if (!flags) return -1;
    a->dirty_flag = flags;
    uint32_t *dirty = realloc(a->dirty, (size_t)ncap * sizeof *dirty);
    if (!dirty) return -1;
    a->dirty = dirty;
    a->cap = ncap;
    return 0;
}

/* Row index for (trace, cls), creating it; UINT32_MAX only when out of memory. */
static uint32_t row_for(ht_aggs *a, uint32_t trace, uint32_t cls)
{
    uint64_t key = ht_row_key(trace, cls), found;
    if (ht_map_get(&a->index, key, &found)) return (uint32_t)found;
    if (a->n >= a->max_rows && trace != HT_TRACE_OVERFLOW) {
        a->overflow_rows++;
        return row_for(a, HT_TRACE_OVERFLOW, cls);
    }
    if (a->n == a->cap && grow_rows(a) != 0) return UINT32_MAX;
    if (ht_map_put(&a->index, key, a->n) != 0) return UINT32_MAX;
    uint32_t r = a->n++;
    memset(&a->rows[r], 0, sizeof a->rows[r]);
    a->rows[r].trace_id = trace;
    a->rows[r].class_id = cls;
    a->dirty_flag[r] = 0;
    return r;
}

static void mark_dirty(ht_aggs *a, uint32_t r)
{
    if (!a->dirty_flag[r]) {
        a->dirty_flag[r] = 1;
        a->dirty[a->ndirty++] = r;
    }
}

int ht_aggs_add(ht_aggs *a, uint32_t trace, uint32_t cls, uint64_t size, uint64_t interval,
                uint64_t ref, uint32_t epoch)
{
    uint32_t r = row_for(a, trace, cls);
    if (r == UINT32_MAX) return -1;
    double w = ht_sample_weight(size, interval);
    double bytes = w * (double)size;
    ht_agg_rec *row = &a->rows[r];
    row->samples++;
    row->est_instances += w;
    row->est_bytes += bytes;
    a->samples++;
    int rc = 0;
    if (ref) {
        if (ht_live_add(&a->live, ref, r, epoch, bytes, w, a->samples) == 0) {
            row->young_samples++;
            row->young_est_bytes += bytes;
            row->young_est_instances += w;
        } else {
            rc = -1;
        }
    }
    mark_dirty(a, r);
    return rc;
}

/* Take one tracked sample out of a count and its two sums; at a count of zero
 * the sums become an exact zero instead of the rounding residue of many
 * additions and subtractions. */
static void take_out(uint64_t *count, double *bytes, double *instances, const ht_live_entry *e)
{
    if (*count > 0) (*count)--;
    if (*count == 0) {
        *bytes = 0;
        *instances = 0;
        return;
    }
    *bytes -= e->bytes;
    *instances -= e->instances;
    if (*bytes < 0) *bytes = 0;
    if (*instances < 0) *instances = 0;
}

void ht_aggs_tracked_died(ht_aggs *a, const ht_live_entry *e, int was_young)
{
    ht_agg_rec *row = &a->rows[e->agg];
    if (was_young)
        take_out(&row->young_samples, &row->young_est_bytes, &row->young_est_instances, e);
    else
        take_out(&row->live_samples, &row->live_est_bytes, &row->live_est_instances, e);
    mark_dirty(a, e->agg);
}

void ht_aggs_tracked_proven(ht_aggs *a, const ht_live_entry *e)
{
    ht_agg_rec *row = &a->rows[e->agg];
    take_out(&row->young_samples, &row->young_est_bytes, &row->young_est_instances, e);
    row->live_samples++;
    row->live_est_bytes += e->bytes;
    row->live_est_instances += e->instances;
    mark_dirty(a, e->agg);
}

void ht_aggs_set_dropped(ht_aggs *a, uint32_t trace, uint32_t cls, uint64_t dropped)
{
    uint32_t r = row_for(a, trace, cls);
    if (r == UINT32_MAX || a->rows[r].dropped == dropped) return;
    a->rows[r].dropped = dropped;
    mark_dirty(a, r);
}

void ht_aggs_mark_all_dirty(ht_aggs *a)
{
    for (uint32_t r = 0; r < a->n; r++)
        mark_dirty(a, r);
}

void ht_aggs_clear_dirty(ht_aggs *a)
{
    for (uint32_t i = 0; i < a->ndirty; i++)
        a->dirty_flag[a->dirty[i]] = 0;
    a->ndirty = 0;
}
