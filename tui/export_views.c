/* export_views.c - see export_views.h. */
#include "export_views.h"

#include "export_csv.h"

#include <stdlib.h>
#include <string.h>

int ht_export_tree(const ht_site_tree *t, const ht_store *s, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"depth",
                                       "kind",
                                       "name",
                                       "path",
                                       "est_bytes",
                                       "pct",
                                       "est_instances",
                                       "live_est_bytes",
                                       "young_est_bytes",
                                       "diff_bytes",
                                       "diff_instances",
                                       "growth_bytes",
                                       NULL};
    int mark = ht_store_has_mark(s);
    ht_csv_header(&o, cols);
    size_t cap = 4096;
    char *pathbuf = malloc(cap);
    size_t *lens = calloc((size_t)t->nnodes + 1, sizeof *lens);
    if (!pathbuf || !lens) {
        free(pathbuf);
        free(lens);
        ht_csv_close(&o);
        return -1;
    }
    /* In pre-order a node's parent is on the path of the node before it, so
     * cutting pathbuf back to the parent's length leaves the parent's path. */
    for (uint32_t n = ht_tree_preorder_next(t, 0); n; n = ht_tree_preorder_next(t, n)) {
        const ht_node *nd = &t->nodes[n];
        char name[1024];
        ht_tree_node_name(t, s, n, name, sizeof name);
        size_t base = nd->parent ? lens[nd->parent] : 0;
        size_t need = base + strlen(name) + 8;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *p = realloc(pathbuf, cap);
            if (!p) break;
            pathbuf = p;
        }
        size_t len = base;
        if (base) len += (size_t)sprintf(pathbuf + len, " -> ");
        len += (size_t)sprintf(pathbuf + len, "%s", name);
        lens[n] = len;
        char depth[16];
        snprintf(depth, sizeof depth, "%u", (unsigned)nd->depth);
        ht_csv_field(&o, depth);
        ht_csv_field(&o, nd->kind == HT_NODE_CLASS ? "class" : "frame");
        ht_csv_field(&o, name);
        ht_csv_field(&o, pathbuf);
        ht_csv_est(&o, nd->bytes);
        ht_csv_pct(&o, t->total_bytes > 0 ? 100.0 * nd->bytes / t->total_bytes : 0);
        ht_csv_est(&o, nd->instances);
        ht_csv_est(&o, nd->live_bytes);
        ht_csv_est(&o, nd->young_bytes);
        ht_csv_blank_or(&o, mark, nd->diff_bytes, 0);
        ht_csv_blank_or(&o, mark, nd->diff_instances, 0);
        ht_csv_blank_or(&o, mark, nd->growth_bytes, 1);
        ht_csv_end_row(&o);
    }
    free(pathbuf);
    free(lens);
    return ht_csv_close(&o);
}

int ht_export_class_table(const ht_class_table *t, const ht_store *s, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {
        "class",           "est_bytes",  "est_instances",  "live_est_bytes", "live_est_instances",
        "young_est_bytes", "diff_bytes", "diff_instances", "growth_bytes",   NULL};
    ht_csv_header(&o, cols);
    int mark = ht_store_has_mark(s);
    for (uint32_t i = 0; i < t->nrows; i++) {
        const ht_class_row *r = &t->rows[i];
        ht_csv_field(&o, r->name);
        ht_csv_est(&o, r->v[HT_COL_BYTES]);
        ht_csv_est(&o, r->v[HT_COL_INSTANCES]);
        ht_csv_est(&o, r->v[HT_COL_LIVE_BYTES]);
        ht_csv_est(&o, r->v[HT_COL_LIVE_INSTANCES]);
        ht_csv_est(&o, r->v[HT_COL_YOUNG_BYTES]);
        ht_csv_blank_or(&o, mark, r->v[HT_COL_DIFF_BYTES], 0);
        ht_csv_blank_or(&o, mark, r->v[HT_COL_DIFF_INSTANCES], 0);
        ht_csv_blank_or(&o, mark, r->v[HT_COL_GROWTH_BYTES], 1);
        ht_csv_end_row(&o);
    }
    return ht_csv_close(&o);
}
