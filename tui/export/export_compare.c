/* export_compare.c - see export_compare.h. */
#include "export_compare.h"

#include <errno.h>

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

int ht_export_compare_with(const ht_heap_figures *a, const ht_snapshot *b, const char *b_path,
                           const char *path)
{
    ht_heap_figures fb;
    ht_compare c;
    if (ht_heap_figures_of(&fb, b, b_path) != 0) {
        errno = ENOMEM;
        return -1;
    }
    if (ht_compare_build(&c, a, &fb) != 0) {
        ht_heap_figures_free(&fb);
        errno = ENOMEM;
        return -1;
    }
    int rc = ht_export_compare(c.rows, c.nrows, path, NULL);
    int e = errno;
    ht_compare_free(&c);
    ht_heap_figures_free(&fb);
    errno = e;
    return rc;
}
