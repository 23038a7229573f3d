/* mark.c - see mark.h. */
#include "mark.h"

#include <stdlib.h>
#include <string.h>

void ht_mark_init(ht_mark *m)
{
    memset(m, 0, sizeof *m);
}

void ht_mark_free(ht_mark *m)
{
    free(m->base);
    memset(m, 0, sizeof *m);
}

/* What the mark shows for row r now: diff and growth, in the base layout. */
static void current(const ht_mark *m, const ht_agg_rec *row, uint32_t r, double out[4])
{
    const double *b = r < m->nrows ? m->base[r] : NULL;
    if (m->state == HT_MARK_RUNNING) {
        out[0] = row->est_bytes - (b ? b[0] : 0);
        out[1] = row->est_instances - (b ? b[1] : 0);
        out[2] = row->live_est_bytes - (b ? b[2] : 0);
        out[3] = row->live_est_instances - (b ? b[3] : 0);
    } else if (m->state == HT_MARK_STOPPED && b) {
        memcpy(out, b, 4 * sizeof *out);
    } else {
        memset(out, 0, 4 * sizeof *out);
    }
}

int ht_mark_apply(ht_mark *m, ht_aggs *a, ht_mark_op op, uint64_t now_ms)
{
    ht_mark_state to;
    if (op == HT_MARK_BEGIN)
        to = HT_MARK_RUNNING;
    else if (op == HT_MARK_END)
        to = m->state == HT_MARK_RUNNING ? HT_MARK_STOPPED : m->state;
    else
        to = HT_MARK_RUNNING;
    if (op != HT_MARK_BEGIN && to == m->state) return 0; /* End when not running, etc. */
    double(*base)[4] = malloc(((size_t)a->n + 1) * sizeof *base);
    if (!base) return -1;
    for (uint32_t r = 0; r < a->n; r++) {
        const ht_agg_rec *row = &a->rows[r];
        double cur[4];
        if (op == HT_MARK_BEGIN) {
            base[r][0] = row->est_bytes;
            base[r][1] = row->est_instances;
            base[r][2] = row->live_est_bytes;
            base[r][3] = row->live_est_instances;
        } else if (op == HT_MARK_END) {
            current(m, row, r, base[r]); /* the frozen diff */
        } else if (m->state == HT_MARK_STOPPED) {
            current(m, row, r, cur); /* Continue: totals minus the frozen diff */
            base[r][0] = row->est_bytes - cur[0];
            base[r][1] = row->est_instances - cur[1];
            base[r][2] = row->live_est_bytes - cur[2];
            base[r][3] = row->live_est_instances - cur[3];
        } else { /* Continue without a mark begins one */
            base[r][0] = row->est_bytes;
            base[r][1] = row->est_instances;
            base[r][2] = row->live_est_bytes;
            base[r][3] = row->live_est_instances;
        }
    }
    free(m->base);
    m->base = base;
    m->nrows = a->n;
    if (to == HT_MARK_STOPPED) {
        m->counted_ms += now_ms - m->run_start_ms;
    } else {
        if (op == HT_MARK_BEGIN || m->state == HT_MARK_NONE) m->counted_ms = 0;
        m->run_start_ms = now_ms;
    }
    m->state = to;
    ht_aggs_mark_all_dirty(a);
    return 0;
}

void ht_mark_row(const ht_mark *m, const ht_aggs *a, uint32_t r, ht_agg_rec *out)
{
    *out = a->rows[r];
    double cur[4];
    current(m, &a->rows[r], r, cur);
    out->diff_bytes = cur[0];
    out->diff_instances = cur[1];
    out->growth_bytes = cur[2];
    out->growth_instances = cur[3];
}

uint64_t ht_mark_length_ms(const ht_mark *m, uint64_t now_ms)
{
    if (m->state == HT_MARK_RUNNING) return m->counted_ms + (now_ms - m->run_start_ms);
    return m->counted_ms;
}
