/* export_compare.c - see export_compare.h. */
#include "export_compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void compare_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const ht_compare_row *r = &((const ht_compare_row *)ctx)[i];
    ht_csv_field(o, r->name);
    ht_csv_u64(o, r->inst_a);
    ht_csv_u64(o, r->inst_b);
    ht_csv_u64(o, r->bytes_a);
    ht_csv_u64(o, r->bytes_b);
}

int ht_export_compare(const ht_compare_row *rows, uint32_t n, const char *path,
                      const ht_progress *p)
{
    static const char *const cols[] = {"class",   "instances_a", "instances_b",
                                       "bytes_a", "bytes_b",     NULL};
    return ht_csv_write_rows(path, cols, n, compare_row, rows, p);
}

int ht_survivor_labels(const ht_survivor_site *v, uint32_t n, const ht_store *names,
                       ht_survivor_label **out)
{
    ht_survivor_label *l = calloc(n ? n : 1, sizeof *l);
    if (!l) return -1;
    char frame[1024];
    for (uint32_t i = 0; i < n; i++) {
        ht_store_site_name(names, v[i].trace_id, frame, sizeof frame);
        l[i].cls = strdup(ht_store_class(names, v[i].class_id));
        l[i].frame = strdup(frame);
        l[i].stack = ht_store_stack_text(names, v[i].trace_id);
        if (!l[i].cls || !l[i].frame || !l[i].stack) {
            ht_survivor_labels_free(l, i + 1);
            return -1;
        }
    }
    *out = l;
    return 0;
}

void ht_survivor_labels_free(ht_survivor_label *l, uint32_t n)
{
    for (uint32_t i = 0; l && i < n; i++)
        free(l[i].cls), free(l[i].frame), free(l[i].stack);
    free(l);
}

typedef struct survivor_rows {
    const ht_survivor_site *v;
    const ht_survivor_label *l;
} survivor_rows;

static void survivor_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const survivor_rows *c = ctx;
    const ht_survivor_site *r = &c->v[i];
    ht_csv_field(o, c->l[i].cls);
    ht_csv_field(o, c->l[i].frame);
    ht_csv_field(o, c->l[i].stack);
    ht_csv_u64(o, r->fresh);
    ht_csv_est(o, r->fresh_inst);
    ht_csv_est(o, r->fresh_bytes);
    ht_csv_u64(o, r->kept);
    ht_csv_est(o, r->kept_inst);
    ht_csv_est(o, r->kept_bytes);
    ht_csv_u64(o, r->freed);
    ht_csv_est(o, r->freed_inst);
    ht_csv_est(o, r->freed_bytes);
}

int ht_export_survivors(const ht_survivor_site *v, const ht_survivor_label *labels, uint32_t n,
                        const char *path, const ht_progress *p)
{
    static const char *const cols[] = {"class",
                                       "frame",
                                       "stack",
                                       "new_samples",
                                       "new_est_instances",
                                       "new_est_bytes",
                                       "kept_samples",
                                       "kept_est_instances",
                                       "kept_est_bytes",
                                       "freed_samples",
                                       "freed_est_instances",
                                       "freed_est_bytes",
                                       NULL};
    survivor_rows c = {v, labels};
    return ht_csv_write_rows(path, cols, n, survivor_row, &c, p);
}

int ht_export_compare_with(const ht_heap_figures *a, const ht_snapshot *b, const ht_store *names,
                           const char *b_path, const char *path, const char *survivors_path,
                           ht_export_survivors_said *said)
{
    ht_heap_figures fb;
    ht_compare c;
    ht_survivors sv;
    memset(said, 0, sizeof *said);
    if (ht_heap_figures_of(&fb, b, b_path) != 0) {
        errno = ENOMEM;
        return -1;
    }
    if (ht_compare_build(&c, a, &fb) != 0) {
        ht_heap_figures_free(&fb);
        errno = ENOMEM;
        return -1;
    }
    if (ht_survivors_build(&sv, a, &fb) != 0) {
        ht_compare_free(&c);
        ht_heap_figures_free(&fb);
        errno = ENOMEM;
        return -1;
    }
    int rc = ht_export_compare(c.rows, c.nrows, path, NULL);
    if (rc == 0 && survivors_path) {
        ht_survivor_label *l = NULL;
        rc = ht_survivor_labels(sv.v, sv.n, names, &l);
        if (rc == 0)
            rc = ht_export_survivors(sv.v, l, sv.n, survivors_path, NULL);
        else
            errno = ENOMEM;
        ht_survivor_labels_free(l, sv.n);
        said->sites = sv.n;
        said->why = sv.why;
        for (uint32_t i = 0; i < sv.n; i++)
            said->fresh += sv.v[i].fresh, said->kept += sv.v[i].kept;
    }
    int e = errno;
    ht_survivors_free(&sv);
    ht_compare_free(&c);
    ht_heap_figures_free(&fb);
    errno = e;
    return rc;
}
