/* export_views.c - see export_views.h. */
#include "export_views.h"

#include "export_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fields around the figures (columns.h's table) in the two lists' files. */
static const char *const TREE_BEFORE[] = {"id", "parent", "depth", "kind", "name", NULL};
static const char *const TREE_AFTER[] = {"over_bound", "truncated", NULL};
static const char *const CPU_TREE_AFTER[] = {"truncated", NULL};
static const char *const CLASSES_BEFORE[] = {"class", NULL};
static const char *const CLASSES_AFTER[] = {"young_samples", "over_bound", NULL};
static const char *const THREADS_BEFORE[] = {"thread", "id", NULL};
static const char *const THREADS_AFTER[] = {"daemon", NULL};

static void header_line(FILE *f, const char *what, const char *const *before, unsigned view,
                        const char *const *after)
{
    ht_col cols[HT_COL_COUNT];
    int n = ht_col_view_files(view, cols, HT_COL_COUNT), first = 1;
    fprintf(f, "%s", what);
    for (; *before; before++, first = 0)
        fprintf(f, "%s%s", first ? "" : ",", *before);
    for (int i = 0; i < n; i++)
        fprintf(f, ",%s", ht_col_csv_name(cols[i]));
    for (; *after; after++)
        fprintf(f, ",%s", *after);
    fputc('\n', f);
}

void ht_export_views_headers(FILE *f)
{
    header_line(f, "tree:    ", TREE_BEFORE, HT_VIEW_TREE, TREE_AFTER);
    header_line(f, "classes: ", CLASSES_BEFORE, HT_VIEW_CLASSES, CLASSES_AFTER);
    header_line(f, "cputree: ", TREE_BEFORE, HT_VIEW_CPU, CPU_TREE_AFTER);
    header_line(f, "threads: ", THREADS_BEFORE, HT_VIEW_THREADS, THREADS_AFTER);
}

/* Drop a file whose writing was stopped: -1, errno ECANCELED. */
static int stopped(ht_csv *o)
{
    ht_csv_abort(o);
    errno = ECANCELED;
    return -1;
}

int ht_export_tree(const ht_site_tree *t, const ht_store *s, const char *path, const ht_progress *p)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    int mark = ht_store_has_mark(s);
    ht_col_bounds bounds = ht_store_bounds(s);
    unsigned view = ht_tree_view(t);
    int cpu = view == HT_VIEW_CPU;
    ht_csv_view_header(&o, TREE_BEFORE, view, cpu ? CPU_TREE_AFTER : TREE_AFTER);
    /* ids are row numbers in pre-order, so a parent's id precedes its children's */
    uint32_t *ids = calloc((size_t)t->nnodes + 1, sizeof *ids);
    if (!ids) {
        errno = ENOMEM;
        ht_csv_abort(&o);
        return -1;
    }
    uint32_t next = 0;
    for (uint32_t n = ht_tree_preorder_next(t, 0); n; n = ht_tree_preorder_next(t, n)) {
        if (ht_progress_stop(p, next, t->nnodes - 1)) {
            free(ids);
            return stopped(&o);
        }
        const ht_node *nd = &t->nodes[n];
        char name[1024];
        ht_tree_node_name(t, s, n, name, sizeof name);
        ids[n] = ++next;
        ht_csv_u64(&o, ids[n]);
        ht_csv_u64(&o, ids[nd->parent]); /* the root's id is 0: a top-level row */
        ht_csv_u64(&o, nd->depth);
        ht_csv_field(&o, nd->kind == HT_NODE_CLASS    ? "class"
                         : nd->kind == HT_NODE_CUT    ? "cut"
                         : nd->kind == HT_NODE_THREAD ? "thread"
                         : nd->kind == HT_NODE_BUCKET ? "bucket"
                                                      : "frame");
        ht_csv_field(&o, name);
        double v[HT_COL_COUNT];
        ht_node_values(t, nd, v);
        ht_csv_view_figures(&o, view, v, mark);
        /* over its bound: what the file holds (the snapshot's figures are
         * not in it, nor the mark's without a mark) */
        v[HT_COL_HEAP_RETAINED] = 0;
        if (!mark) v[HT_COL_GROWTH_BYTES] = 0;
        if (!cpu) ht_csv_over(&o, ht_col_over_mask(&bounds, v));
        ht_csv_field(&o, nd->truncated ? "1" : "0");
        ht_csv_end_row(&o);
    }
    free(ids);
    return ht_csv_close(&o);
}

int ht_export_class_table(const ht_class_table *t, const ht_store *s, const char *path,
                          const ht_progress *p)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    ht_csv_view_header(&o, CLASSES_BEFORE, HT_VIEW_CLASSES, CLASSES_AFTER);
    int mark = ht_store_has_mark(s);
    for (uint32_t i = 0; i < t->nrows; i++) {
        if (ht_progress_stop(p, i, t->nrows)) return stopped(&o);
        const ht_class_row *r = &t->rows[i];
        ht_csv_field(&o, r->name);
        ht_csv_view_figures(&o, HT_VIEW_CLASSES, r->v, mark);
        ht_csv_u64(&o, r->young_samples);
        ht_csv_over(&o, r->over);
        ht_csv_end_row(&o);
    }
    return ht_csv_close(&o);
}

int ht_export_threads(const ht_thread_table *t, const ht_store *s, const char *path,
                      const ht_progress *p)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    ht_csv_view_header(&o, THREADS_BEFORE, HT_VIEW_THREADS, THREADS_AFTER);
    int mark = ht_store_has_mark(s);
    ht_col cols[HT_COL_COUNT];
    int n = ht_col_view_files(HT_VIEW_THREADS, cols, HT_COL_COUNT);
    for (uint32_t i = 0; i < t->nrows; i++) {
        if (ht_progress_stop(p, i, t->nrows)) return stopped(&o);
        const ht_thread_row *r = &t->rows[i];
        const ht_store_cpu_thread *th = ht_store_cpu_thread_by_id(s, r->id);
        char name[HT_STORE_CPU_NAME_MAX + 32], b[32];
        ht_store_cpu_thread_name(s, r->id, name, sizeof name);
        ht_csv_field(&o, name);
        ht_csv_u64(&o, r->id);
        for (int k = 0; k < n; k++) {
            ht_col c = cols[k];
            const ht_col_info *ci = ht_col_info_of(c);
            if (c == HT_COL_THREAD_STATE) {
                ht_csv_field(&o, ht_thread_state_name((int)r->v[c]));
            } else if (ci->flags & HT_COLF_MARK) {
                ht_csv_blank_or(&o, mark, r->v[c], 0);
            } else if (ci->flags & (HT_COLF_MS | HT_COLF_PERCENT)) {
                snprintf(b, sizeof b, "%.1f", r->v[c]); /* a thread's CPU is exact */
                ht_csv_field(&o, b);
            } else {
                ht_csv_u64(&o, r->v[c] > 0 ? (uint64_t)r->v[c] : 0);
            }
        }
        ht_csv_field(&o, th && th->rec.daemon ? "1" : "0");
        ht_csv_end_row(&o);
    }
    return ht_csv_close(&o);
}

int ht_export_reserve(const char *dir, const char *view, const char *stamp, char *data,
                      char *summary, size_t n)
{
    for (unsigned k = 1; k < 1000; k++) {
        char suffix[16] = "";
        if (k > 1) snprintf(suffix, sizeof suffix, "-%u", k);
        int a = snprintf(data, n, "%s/heaptop-%s-%s%s.csv", dir, view, stamp, suffix);
        int b = snprintf(summary, n, "%s/heaptop-%s-%s%s.summary.csv", dir, view, stamp, suffix);
        if (a < 0 || b < 0 || (size_t)a >= n || (size_t)b >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (ht_outfile_reserve(data) != 0) {
            if (errno == EEXIST) continue;
            return -1;
        }
        if (ht_outfile_reserve(summary) != 0) {
            int e = errno;
            ht_outfile_unreserve(data); /* ours, just created and empty */
            if (e == EEXIST) continue;
            errno = e;
            return -1;
        }
        return 0;
    }
    errno = EEXIST;
    return -1;
}
