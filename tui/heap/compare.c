/* compare.c - see compare.h. */
#include "compare.h"

#include "hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Class names seen so far, while building: a name's hash -> its index. Two
 * names that hash alike probe on with another salt (never merged). */
typedef struct fig_build {
    ht_class_fig *figs;
    const char **src; /* names as the snapshot holds them */
    ht_map index;
} fig_build;

/* 1 and *idx when name is known; else 0 and *key is where it goes. */
static int find_name(const fig_build *b, const char *name, uint64_t *key, uint64_t *idx)
{
    uint64_t h = ht_hash_bytes(name, strlen(name));
    for (uint32_t salt = 0;; salt++) {
        *key = ht_map_salt(h, salt);
        if (!ht_map_get(&b->index, *key, idx)) return 0;
        if (strcmp(b->src[*idx], name) == 0) return 1;
    }
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const ht_class_fig *)x)->name, ((const ht_class_fig *)y)->name);
}

int ht_heap_figures_of(ht_heap_figures *f, const ht_snapshot *s, const char *path)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path ? path : "");
    f->timestamp_ms = s->h ? s->h->timestamp_ms : 0;
    f->objects = s->nobjects;
    f->bytes = s->total_bytes;
    uint32_t cap = s->nclasses ? s->nclasses : 1;
    fig_build b = {calloc(cap, sizeof *b.figs), calloc(cap, sizeof *b.src), {0}};
    ht_map_init(&b.index);
    size_t names_len = 0;
    uint32_t n = 0;
    int ok = b.figs && b.src && ht_map_reserve(&b.index, cap) == 0;
    for (uint32_t c = 0; ok && c < s->nclasses; c++) {
        const ht_class *k = &s->classes[c];
        if (!k->instances) continue;
        uint64_t key, idx;
        if (!find_name(&b, k->name, &key, &idx)) {
            idx = n++;
            b.src[idx] = k->name;
            names_len += strlen(k->name) + 1;
            if (ht_map_put(&b.index, key, idx) != 0) ok = 0;
        }
        b.figs[idx].instances += k->instances;
        b.figs[idx].bytes += k->shallow;
    }
    ht_map_free(&b.index);
    char *names = ok ? malloc(names_len ? names_len : 1) : NULL;
    if (!names) {
        free(b.figs), free(b.src);
        memset(f, 0, sizeof *f);
        return -1;
    }
    char *p = names;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(b.src[i]) + 1;
        memcpy(p, b.src[i], len);
        b.figs[i].name = p;
        p += len;
    }
    free(b.src);
    qsort(b.figs, n, sizeof *b.figs, by_name);
    f->classes = b.figs;
    f->nclasses = n;
    f->names = names;
    return 0;
}

int ht_heap_figures_read(ht_heap_figures *f, const char *path, const ht_snapshot_opts *opts,
                         char *err, size_t cap)
{
    memset(f, 0, sizeof *f);
    ht_hprof h;
    ht_snapshot s;
    memset(&s, 0, sizeof s);
    int rc = ht_hprof_open(&h, path);
    if (rc == HT_HPROF_OK) rc = ht_snapshot_build(&s, &h, opts);
    if (rc == HT_HPROF_OK && ht_heap_figures_of(f, &s, path) != 0)
        rc = ht_hprof_error(&h, HT_HPROF_ERR_NOMEM, "out of memory");
    if (rc != HT_HPROF_OK) snprintf(err, cap, "%s", h.err);
    if (s.h) ht_snapshot_free(&s);
    ht_hprof_close(&h);
    return rc;
}

void ht_heap_figures_free(ht_heap_figures *f)
{
    free(f->classes);
    free(f->names);
    memset(f, 0, sizeof *f);
}

static uint64_t abs_delta(const ht_compare_row *r)
{
    return r->bytes_b > r->bytes_a ? r->bytes_b - r->bytes_a : r->bytes_a - r->bytes_b;
}

int ht_compare_row_order(const void *x, const void *y)
{
    const ht_compare_row *a = x, *b = y;
    uint64_t da = abs_delta(a), db = abs_delta(b);
    if (da != db) return da < db ? 1 : -1;
    return strcmp(a->name, b->name);
}

int ht_compare_build(ht_compare *c, const ht_heap_figures *a, const ht_heap_figures *b)
{
    memset(c, 0, sizeof *c);
    size_t cap = (size_t)a->nclasses + b->nclasses;
    c->rows = malloc((cap ? cap : 1) * sizeof *c->rows);
    if (!c->rows) return -1;
    /* both tables are sorted by name and hold each name once: a merge */
    uint32_t i = 0, j = 0, n = 0;
    while (i < a->nclasses || j < b->nclasses) {
        int cmp = i == a->nclasses   ? 1
                  : j == b->nclasses ? -1
                                     : strcmp(a->classes[i].name, b->classes[j].name);
        ht_compare_row *r = &c->rows[n++];
        memset(r, 0, sizeof *r);
        if (cmp <= 0) {
            r->name = a->classes[i].name;
            r->inst_a = a->classes[i].instances;
            r->bytes_a = a->classes[i].bytes;
            i++;
        }
        if (cmp >= 0) {
            r->name = b->classes[j].name;
            r->inst_b = b->classes[j].instances;
            r->bytes_b = b->classes[j].bytes;
            j++;
        }
    }
    qsort(c->rows, n, sizeof *c->rows, ht_compare_row_order);
    c->nrows = n;
    return 0;
}

void ht_compare_free(ht_compare *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
