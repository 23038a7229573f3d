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

static int by_serial(const void *x, const void *y)
{
    uint64_t a = ((const ht_sample_fig *)x)->serial, b = ((const ht_sample_fig *)y)->serial;
    return (a > b) - (a < b);
}

/* The sampled objects present in s, by serial. 0, or -1 out of memory. */
static int samples_of(ht_heap_figures *f, const ht_snapshot *s)
{
    const ht_sampled *m = &s->sampled;
    f->marked = m->marked;
    f->run_pid = m->run_pid;
    f->run_start_ms = m->run_start_ms;
    if (!m->present) return 0;
    f->samples = malloc(m->present * sizeof *f->samples);
    if (!f->samples) return -1;
    for (uint32_t k = 0; k < m->present; k++) {
        const ht_sample_obj *o = &m->v[m->by_obj[k]];
        f->samples[k] =
            (ht_sample_fig){o->serial, o->trace_id, o->class_id, o->instances, o->bytes};
    }
    f->nsamples = m->present;
    qsort(f->samples, f->nsamples, sizeof *f->samples, by_serial);
    return 0;
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
    if (!names || samples_of(f, s) != 0) {
        free(b.figs), free(b.src), free(names), free(f->samples);
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
    ht_hprof_watch w = {0};
    if (opts)
        w = (ht_hprof_watch){
            .progress = opts->progress, .cancelled = opts->cancelled, .ctx = opts->ctx};
    int rc = ht_hprof_open_watched(&h, path, &w);
    if (rc == HT_HPROF_OK) rc = ht_snapshot_build(&s, &h, opts);
    if (rc == HT_HPROF_OK && ht_heap_figures_of(f, &s, path) != 0)
        rc = ht_hprof_error(&h, HT_HPROF_ERR_NOMEM, "out of memory");
    if (rc == HT_HPROF_OK) rc = ht_hprof_check(&h, rc);
    if (rc != HT_HPROF_OK) snprintf(err, cap, "%s", h.err);
    if (s.h) ht_snapshot_free(&s);
    ht_hprof_close(&h);
    return rc;
}

void ht_heap_figures_free(ht_heap_figures *f)
{
    free(f->classes);
    free(f->names);
    free(f->samples);
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

/* --- survivors: the sampled objects of one run, joined by serial --- */

static int by_fresh_bytes(const void *x, const void *y)
{
    const ht_survivor_site *a = x, *b = y;
    if (a->fresh_bytes != b->fresh_bytes) return a->fresh_bytes < b->fresh_bytes ? 1 : -1;
    if (a->kept_bytes != b->kept_bytes) return a->kept_bytes < b->kept_bytes ? 1 : -1;
    uint64_t ka = (uint64_t)a->trace_id << 32 | a->class_id;
    uint64_t kb = (uint64_t)b->trace_id << 32 | b->class_id;
    return (ka > kb) - (ka < kb);
}

/* Why a and b cannot be joined, or NULL. */
static const char *unjoinable(const ht_heap_figures *a, const ht_heap_figures *b)
{
    if (!a->marked || !b->marked)
        return "a snapshot without heaptop's marker (not taken by its agent, or --plain): no "
               "sampled objects to follow";
    if (!a->run_pid || a->run_pid != b->run_pid || a->run_start_ms != b->run_start_ms)
        return "the snapshots are of two agent runs (another JVM, or the agent restarted): "
               "sample ids do not carry over";
    return NULL;
}

int ht_survivors_build(ht_survivors *sv, const ht_heap_figures *a, const ht_heap_figures *b)
{
    memset(sv, 0, sizeof *sv);
    if ((sv->why = unjoinable(a, b)) != NULL) return 0;
    size_t cap = (size_t)a->nsamples + b->nsamples;
    sv->v = calloc(cap ? cap : 1, sizeof *sv->v);
    ht_map sites;
    ht_map_init(&sites);
    int ok = sv->v && ht_map_reserve(&sites, (uint32_t)(cap ? cap : 1)) == 0;
    /* both are sorted by serial, each serial once: a merge */
    uint32_t i = 0, j = 0;
    while (ok && (i < a->nsamples || j < b->nsamples)) {
        int cmp = i == a->nsamples   ? 1
                  : j == b->nsamples ? -1
                                     : by_serial(&a->samples[i], &b->samples[j]);
        const ht_sample_fig *o = cmp <= 0 ? &a->samples[i] : &b->samples[j];
        uint64_t key = (uint64_t)o->trace_id << 32 | o->class_id, at;
        if (!ht_map_get(&sites, key, &at)) {
            at = sv->n++;
            sv->v[at].trace_id = o->trace_id;
            sv->v[at].class_id = o->class_id;
            if (ht_map_put(&sites, key, at) != 0) ok = 0;
        }
        ht_survivor_site *st = &sv->v[at];
        if (cmp == 0) { /* a's weights: the sample is the same */
            st->kept++, st->kept_inst += o->instances, st->kept_bytes += o->bytes;
            i++, j++;
        } else if (cmp < 0) {
            st->freed++, st->freed_inst += o->instances, st->freed_bytes += o->bytes;
            i++;
        } else {
            st->fresh++, st->fresh_inst += o->instances, st->fresh_bytes += o->bytes;
            j++;
        }
    }
    ht_map_free(&sites);
    if (!ok) {
        ht_survivors_free(sv);
        return -1;
    }
    qsort(sv->v, sv->n, sizeof *sv->v, by_fresh_bytes);
    return 0;
}

void ht_survivors_free(ht_survivors *sv)
{
    free(sv->v);
    memset(sv, 0, sizeof *sv);
}
