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

/* duplicates.csv's columns, and one group's fields: `heaptop heap`'s file
 * and the duplicates screen's export alike. */
static const char *const DUP_COLS[] = {"class",        "copies",  "bytes_each",
                                       "wasted_bytes", "preview", NULL};

static void dup_fields(ht_csv *o, const char *name, uint64_t copies, uint64_t each, uint64_t wasted,
                       const char *preview)
{
    ht_csv_field(o, name);
    ht_csv_u64(o, copies);
    ht_csv_u64(o, each);
    ht_csv_u64(o, wasted);
    ht_csv_field(o, preview);
}

int ht_export_duplicates(const ht_snapshot *s, const ht_dups *g, const char *path)
{
    ht_csv o;
    if (ht_csv_open(&o, path) != 0) return -1;
    ht_csv_header(&o, DUP_COLS);
    char preview[200]; /* enough to recognise it */
    for (uint32_t i = 0; i < g->ngroups; i++) {
        const ht_dup_group *gr = &g->groups[i];
        ht_object_content(s, g->members[gr->first], preview, sizeof preview);
        dup_fields(&o, s->classes[gr->cls].name, gr->copies, gr->bytes_each, gr->wasted, preview);
        ht_csv_end_row(&o);
    }
    return finish(&o, 0);
}

/* --- the heap screens' export key --- */

ht_export_heap_classes *ht_export_heap_classes_new(uint32_t n)
{
    ht_export_heap_classes *c = calloc(1, sizeof *c);
    if (c && n && !(c->r = calloc(n, sizeof *c->r))) free(c), c = NULL;
    return c;
}

void ht_export_heap_classes_free(void *rows)
{
    ht_export_heap_classes *c = rows;
    for (uint32_t i = 0; c->r && i < c->n; i++)
        free(c->r[i].name);
    free(c->r);
    free(c);
}

static void class_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const ht_export_class_row *r = &((const ht_export_heap_classes *)ctx)->r[i];
    ht_csv_field(o, r->name);
    ht_csv_u64(o, r->instances);
    ht_csv_u64(o, r->shallow);
    ht_csv_u64(o, r->retained);
    ht_csv_field(o, r->loader);
}

int ht_export_heap_classes_write(const void *rows, const ht_store *st, const char *path,
                                 const ht_progress *p)
{
    (void)st;
    static const char *const cols[] = {"class",          "instances", "shallow_bytes",
                                       "retained_bytes", "loader",    NULL};
    return ht_csv_write_rows(path, cols, ((const ht_export_heap_classes *)rows)->n, class_row, rows,
                             p);
}

ht_export_heap_doms *ht_export_heap_doms_new(uint32_t n)
{
    ht_export_heap_doms *c = calloc(1, sizeof *c);
    if (c && n && !(c->r = calloc(n, sizeof *c->r))) free(c), c = NULL;
    return c;
}

void ht_export_heap_doms_free(void *rows)
{
    ht_export_heap_doms *e = rows;
    free(e->r);
    free(e);
}

static void dom_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const ht_export_dom_row *r = &((const ht_export_heap_doms *)ctx)->r[i];
    ht_csv_u64(o, r->depth);
    if (r->more) { /* the row that stands for the rest */
        char t[64];
        snprintf(t, sizeof t, "... %llu more", (unsigned long long)r->more);
        ht_csv_field(o, "");
        ht_csv_field(o, t);
        ht_csv_field(o, "");
        ht_csv_field(o, "");
    } else {
        ht_csv_object_id(o, r->id);
        ht_csv_field(o, r->label);
        ht_csv_u64(o, r->shallow);
        ht_csv_u64(o, r->retained);
    }
}

int ht_export_heap_doms_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p)
{
    (void)st;
    static const char *const cols[] = {"depth",         "object_id",      "class",
                                       "shallow_bytes", "retained_bytes", NULL};
    return ht_csv_write_rows(path, cols, ((const ht_export_heap_doms *)rows)->n, dom_row, rows, p);
}

ht_export_heap_dups *ht_export_heap_dups_new(uint32_t n)
{
    ht_export_heap_dups *c = calloc(1, sizeof *c);
    if (c && n && !(c->r = calloc(n, sizeof *c->r))) free(c), c = NULL;
    return c;
}

void ht_export_heap_dups_free(void *rows)
{
    ht_export_heap_dups *e = rows;
    for (uint32_t i = 0; e->r && i < e->n; i++)
        free(e->r[i].name), free(e->r[i].preview);
    free(e->r);
    free(e);
}

static void dup_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const ht_export_dup_row *r = &((const ht_export_heap_dups *)ctx)->r[i];
    dup_fields(o, r->name, r->copies, r->each, r->wasted, r->preview);
}

int ht_export_heap_dups_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p)
{
    (void)st;
    return ht_csv_write_rows(path, DUP_COLS, ((const ht_export_heap_dups *)rows)->n, dup_row, rows,
                             p);
}

ht_export_heap_refs *ht_export_heap_refs_new(uint32_t n)
{
    ht_export_heap_refs *c = calloc(1, sizeof *c);
    if (c && n && !(c->r = calloc(n, sizeof *c->r))) free(c), c = NULL;
    return c;
}

void ht_export_heap_refs_free(void *rows)
{
    ht_export_heap_refs *e = rows;
    free(e->r);
    free(e);
}

static void ref_row(ht_csv *o, const void *ctx, uint64_t i)
{
    static const char *const parts[] = {
        [HT_REF_PART_HEADING] = "heading",    [HT_REF_PART_FIELD] = "field",
        [HT_REF_PART_IN] = "referenced_by",   [HT_REF_PART_OUT] = "references",
        [HT_REF_PART_PATH] = "path",          [HT_REF_PART_MORE] = "more",
        [HT_REF_PART_FRAME] = "allocated_at",
    };
    const ht_export_ref_row *r = &((const ht_export_heap_refs *)ctx)->r[i];
    ht_csv_field(o, r->part < sizeof parts / sizeof *parts ? parts[r->part] : "");
    ht_csv_u64(o, r->depth);
    if (r->has_id)
        ht_csv_object_id(o, r->id);
    else
        ht_csv_field(o, "");
    const char *t = r->text;
    while (*t == ' ')
        t++;
    ht_csv_field(o, t);
}

int ht_export_heap_refs_write(const void *rows, const ht_store *st, const char *path,
                              const ht_progress *p)
{
    (void)st;
    static const char *const cols[] = {"part", "depth", "object_id", "text", NULL};
    return ht_csv_write_rows(path, cols, ((const ht_export_heap_refs *)rows)->n, ref_row, rows, p);
}
