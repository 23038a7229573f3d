/* export_heap.c - see export_heap.h. */
#include "export_heap.h"

#include "java_name.h"
#include "values.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_shallow(const void *a, const void *b, void *ctx)
{
    const ht_snapshot *s = ctx;
    const ht_class *x = &s->classes[*(const uint32_t *)a], *y = &s->classes[*(const uint32_t *)b];
    if (x->shallow != y->shallow) return x->shallow < y->shallow ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Commit the file, or drop it when err (an errno) stopped its writing. */
static int finish(ht_csv *o, int err)
{
    if (err) {
        errno = err;
        ht_csv_abort(o);
        return -1;
    }
    return ht_csv_close(o);
}

int ht_export_histogram(const ht_snapshot *s, const uint64_t *retained, const char *path)
{
    uint32_t *order = malloc((s->nclasses ? s->nclasses : 1) * sizeof *order);
    ht_csv o;
    if (!order || ht_csv_open(&o, path) != 0) {
        int e = !order ? ENOMEM : errno;
        free(order);
        errno = e;
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t c = 0; c < s->nclasses; c++)
        if (s->classes[c].instances) order[k++] = c;
    qsort_r(order, k, sizeof *order, by_shallow, (void *)s);
    static const char *const cols[] = {"class", "instances", "shallow_bytes", "retained_bytes",
                                       NULL};
    ht_csv_header(&o, cols);
    for (uint32_t i = 0; i < k; i++) {
        const ht_class *c = &s->classes[order[i]];
        ht_csv_field(&o, c->name);
        ht_csv_u64(&o, c->instances);
        ht_csv_u64(&o, c->shallow);
        ht_csv_u64(&o, retained[order[i]]);
        ht_csv_end_row(&o);
    }
    free(order);
    return finish(&o, 0);
}

/* A min-heap of the `top` biggest retained sizes seen so far. */
static void sift_down(uint32_t *heap, uint32_t n, uint32_t i, const uint64_t *r)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && r[heap[l]] < r[heap[m]]) m = l;
        if (l + 1 < n && r[heap[l + 1]] < r[heap[m]]) m = l + 1;
        if (m == i) return;
        uint32_t t = heap[i];
        heap[i] = heap[m], heap[m] = t;
        i = m;
    }
}

static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const uint64_t *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (r[x] != r[y]) return r[x] < r[y] ? 1 : -1;
    return (x > y) - (x < y);
}

int ht_export_dominators(const ht_snapshot *s, const ht_dominators *d, uint32_t top,
                         const char *path)
{
    uint32_t *heap = malloc((top ? top : 1) * sizeof *heap);
    ht_csv o;
    if (!heap || ht_csv_open(&o, path) != 0) {
        int e = !heap ? ENOMEM : errno;
        free(heap);
        errno = e;
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nobjects && top; i++) {
        if (d->idom[i] == HT_NONE) continue;
        if (k < top) {
            heap[k++] = i;
            if (k == top)
                for (uint32_t j = top / 2 + 1; j-- > 0;)
                    sift_down(heap, k, j, d->retained);
        } else if (d->retained[i] > d->retained[heap[0]]) {
            heap[0] = i;
            sift_down(heap, k, 0, d->retained);
        }
    }
    qsort_r(heap, k, sizeof *heap, by_retained_desc, d->retained);
    static const char *const cols[] = {"object_id",      "class",     "shallow_bytes",
                                       "retained_bytes", "parent_id", NULL};
    ht_csv_header(&o, cols);
    char label[512];
    for (uint32_t i = 0; i < k; i++) {
        uint32_t n = heap[i];
        ht_csv_object_id(&o, s->ids[n]);
        ht_object_label(s, n, label, sizeof label);
        ht_csv_field(&o, label);
        ht_csv_u64(&o, ht_snapshot_shallow(s, n));
        ht_csv_u64(&o, d->retained[n]);
        if (d->idom[n] == HT_ROOT)
            ht_csv_field(&o, "");
        else
            ht_csv_object_id(&o, s->ids[d->idom[n]]);
        ht_csv_end_row(&o);
    }
    free(heap);
    return finish(&o, 0);
}

int ht_export_paths(const ht_snapshot *s, const ht_paths *p, const ht_dominators *d,
                    const char *cls, uint32_t max, const char *path, ht_paths_found *found)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"object_id", "class", "path", NULL};
    ht_csv_header(&o, cols);
    /* the class's name in Java's spelling, which the snapshot holds: "[I"
     * and "int[]" both name int[] */
    char want[1024], label[512];
    ht_java_class_name(cls, want, sizeof want);
    uint8_t *match = calloc(s->nclasses ? s->nclasses : 1, 1); /* 1 the class, 2 not */
    char *line = malloc(65536);
    if (!match || !line) {
        free(match), free(line);
        return finish(&o, ENOMEM);
    }
    for (uint32_t c = 0; c < s->nclasses; c++)
        match[c] = strcmp(s->classes[c].name, want) == 0 ? 1 : 2;
    *found = (ht_paths_found){0};
    /* instances a GC root reaches by strong references first (by address),
     * then the others (weakly reachable, or garbage in an -all dump): the
     * first `max` of an -all dump must not be all garbage */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t n = 0; n < s->nobjects; n++) {
            if (s->kind[n] == HT_OBJ_CLASS || s->cls[n] == HT_NONE || match[s->cls[n]] != 1)
                continue;
            int strong = p->prev[n] != HT_NONE;
            if (strong != !pass) continue;
            if (pass == 0) found->reached++;
            found->instances++;
            if (found->written == max) continue;
            found->written++;
            ht_csv_object_id(&o, s->ids[n]);
            ht_object_label(s, n, label, sizeof label);
            ht_csv_field(&o, label);
            if (strong)
                ht_paths_format(p, s, n, line, 65536);
            else
                snprintf(line, 65536, "%s",
                         d && d->idom[n] == HT_NONE
                             ? "(unreachable: no GC root reaches it, garbage of an -all dump)"
                             : "(no path from a GC root but through weak, soft or phantom "
                               "references)");
            ht_csv_field(&o, line);
            ht_csv_end_row(&o);
        }
    free(match), free(line);
    return finish(&o, 0);
}

int ht_export_heap_sites(const ht_heap *x, const ht_store *names, const char *path)
{
    const ht_heap_sites *hs = &x->sites;
    const ht_store *st = names;
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"class",
                                       "frame",
                                       "stack",
                                       "samples_in_heap",
                                       "heap_est_instances",
                                       "heap_est_shallow_bytes",
                                       "heap_est_retained_bytes",
                                       "live_est_bytes",
                                       "live_est_instances",
                                       "over_bound",
                                       NULL};
    ht_csv_header(&o, cols);
    for (uint32_t i = 0; i < hs->n; i++) { /* already by retained bytes */
        const ht_heap_site *h = &hs->v[i];
        const ht_agg_rec *r = ht_store_row(st, h->trace_id, h->class_id);
        char frame[1024];
        ht_store_site_name(st, h->trace_id, frame, sizeof frame);
        char *stack = ht_store_stack_text(st, h->trace_id);
        ht_csv_field(&o, ht_store_class(st, h->class_id));
        ht_csv_field(&o, frame);
        ht_csv_field(&o, stack ? stack : "");
        free(stack);
        ht_csv_u64(&o, h->samples);
        ht_csv_est(&o, h->instances);
        ht_csv_est(&o, h->shallow);
        ht_csv_est(&o, h->retained);
        ht_csv_est(&o, r ? r->live_est_bytes : 0);
        ht_csv_est(&o, r ? r->live_est_instances : 0);
        /* retained above the snapshot's bytes: kept as estimated, flagged */
        ht_csv_over(&o, h->over ? 1u << HT_COL_HEAP_RETAINED : 0);
        ht_csv_end_row(&o);
    }
    return finish(&o, 0);
}

int ht_export_duplicates(const ht_snapshot *s, const ht_dups *g, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    static const char *const cols[] = {"class",        "copies",  "bytes_each",
                                       "wasted_bytes", "preview", NULL};
    ht_csv_header(&o, cols);
    char preview[200]; /* enough to recognise it */
    for (uint32_t i = 0; i < g->ngroups; i++) {
        const ht_dup_group *gr = &g->groups[i];
        ht_csv_field(&o, s->classes[gr->cls].name);
        ht_csv_u64(&o, gr->copies);
        ht_csv_u64(&o, gr->bytes_each);
        ht_csv_u64(&o, gr->wasted);
        ht_object_content(s, g->members[gr->first], preview, sizeof preview);
        ht_csv_field(&o, preview);
        ht_csv_end_row(&o);
    }
    return finish(&o, 0);
}
