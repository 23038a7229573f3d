/* export_drag.c - see export_drag.h. */
#include "export_drag.h"

#include "hash.h"

#include <errno.h>
#include <stdlib.h>

static const char *const DRAG_COLS[] = {
    "class",          "frame",      "stack",      "samples",      "tracked",   "drag_byte_s_lo",
    "drag_byte_s_hi", "lag_byte_s", "use_byte_s", "void_samples", "truncated", NULL};

void ht_export_drag_headers(FILE *f)
{
    fputs("drag.csv:    ", f);
    for (int i = 0; DRAG_COLS[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", DRAG_COLS[i]);
    fputc('\n', f);
}

/* The rows written: pointers into the store's rows, in order. */
typedef struct drag_rows {
    const ht_store *s;
    const ht_drag_row_rec **rows;
    uint32_t n;
    int mark;
    int sums;                   /* rows are classes' sums: estimates already */
    ht_drag_class_sum *classes; /* their storage */
} drag_rows;

/* Ranked by the site's estimate (ht_drag_row_estimate), as written. */
static double hi_of(const ht_drag_row_rec *r, int mark)
{
    return (mark ? r->diff_drag_hi : r->drag_hi) * ht_drag_row_scale(r);
}

static int by_drag(const void *a, const void *b, void *ctx)
{
    const ht_drag_row_rec *x = *(const ht_drag_row_rec *const *)a;
    const ht_drag_row_rec *y = *(const ht_drag_row_rec *const *)b;
    int mark = *(const int *)ctx;
    double hx = hi_of(x, mark), hy = hi_of(y, mark);
    if (hx != hy) return hx > hy ? -1 : 1;
    if (x->trace_id != y->trace_id) return x->trace_id < y->trace_id ? -1 : 1;
    return x->class_id < y->class_id ? -1 : x->class_id > y->class_id;
}

static int collect(drag_rows *c, const ht_store *s, const ht_drag_export *how)
{
    *c = (drag_rows){.s = s, .mark = how && how->mark};
    uint32_t cap = how && how->sites ? how->nsites : s->ndrag_rows;
    c->rows = malloc(((size_t)cap + 1) * sizeof *c->rows);
    if (!c->rows) {
        errno = ENOMEM;
        return -1;
    }
    if (how && how->sites && how->by_class) {
        int n = ht_drag_class_sums(s, NULL, NULL, &c->classes);
        if (n < 0) {
            free(c->rows);
            errno = ENOMEM;
            return -1;
        }
        c->sums = 1;
        for (uint32_t i = 0; i < how->nsites; i++)
            for (int k = 0; k < n; k++)
                if (c->classes[k].est.class_id == how->sites[i])
                    c->rows[c->n++] = &c->classes[k].est;
        return 0;
    }
    if (how && how->sites) {
        for (uint32_t i = 0; i < how->nsites; i++) {
            const ht_drag_row_rec *r = ht_store_drag_row(s, (uint32_t)(how->sites[i] >> 32),
                                                         (uint32_t)(how->sites[i] & 0xffffffffu));
            if (r) c->rows[c->n++] = r;
        }
        return 0;
    }
    for (uint32_t i = 0; i < s->ndrag_rows; i++)
        c->rows[c->n++] = &s->drag_rows[i];
    qsort_r(c->rows, c->n, sizeof *c->rows, by_drag, &c->mark);
    return 0;
}

static void drag_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const drag_rows *c = ctx;
    ht_drag_row_rec est; /* samples and tracked as counted, the rest scaled */
    if (c->sums)
        est = *c->rows[i];
    else
        ht_drag_row_estimate(c->rows[i], &est);
    const ht_drag_row_rec *r = &est;
    int m = c->mark;
    char frame[1024] = "";
    if (!c->sums) ht_store_site_name(c->s, r->trace_id, frame, sizeof frame);
    char *stack = c->sums ? NULL : ht_store_stack_text(c->s, r->trace_id);
    ht_csv_field(o, ht_store_class(c->s, r->class_id));
    ht_csv_field(o, frame);
    ht_csv_field(o, stack ? stack : "");
    free(stack);
    ht_csv_u64(o, m ? r->diff_samples : r->samples);
    ht_csv_u64(o, m ? r->diff_tracked : r->tracked);
    ht_csv_est(o, m ? r->diff_drag_lo : r->drag_lo);
    ht_csv_est(o, m ? r->diff_drag_hi : r->drag_hi);
    ht_csv_est(o, m ? r->diff_lag : r->lag);
    ht_csv_est(o, m ? r->diff_use : r->use);
    ht_csv_u64(o, m ? r->diff_void : r->void_);
    ht_csv_u64(o, c->sums ? 0 : ht_store_trace_cut(c->s, r->trace_id));
}

int ht_export_drag(const ht_store *s, const char *path, const ht_drag_export *how,
                   const ht_progress *p)
{
    drag_rows c;
    if (collect(&c, s, how) != 0) return -1;
    int rc = ht_csv_write_rows(path, DRAG_COLS, c.n, drag_row, &c, p);
    int e = errno;
    free(c.rows);
    free(c.classes);
    errno = e;
    return rc;
}
