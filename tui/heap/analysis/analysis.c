/* analysis.c - see analysis.h. */
#include "analysis.h"

#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ht_heap_load(ht_heap *x, const char *path, const ht_snapshot_opts *opts)
{
    memset(x, 0, sizeof *x);
    snprintf(x->path, sizeof x->path, "%s", path);
    double t0 = ht_mono_s();
    ht_hprof_watch w = {0};
    if (opts)
        w = (ht_hprof_watch){
            .progress = opts->progress, .cancelled = opts->cancelled, .ctx = opts->ctx};
    int rc = ht_hprof_open_watched(&x->h, path, &w);
    if (rc) return rc;
    if ((rc = ht_snapshot_build(&x->s, &x->h, opts))) goto fail;
    if (opts && opts->progress) opts->progress(opts->ctx, "dominators", 0, x->s.nobjects);
    if ((rc = ht_dominators_build(&x->d, &x->s, opts))) goto fail;
    /* the behaviour ranking's per-object arrays are freed before it returns:
     * built here, they sit where the dominators' working arrays were. Only
     * a cancel stops the load: any other failure leaves x->bhv empty with
     * its why, and the rest of the analysis stands */
    if (!getenv("HEAPTOP_NO_BEHAVIOUR")) {
        if (opts && opts->progress) opts->progress(opts->ctx, "behaviour", 0, x->s.nobjects);
        rc = ht_behaviour_build(&x->bhv, &x->s, &x->d, NULL, opts);
        if (rc == HT_HPROF_ERR_CANCELLED) goto fail;
        x->h.err[0] = '\0', rc = HT_HPROF_OK;
    }
    /* duplicates before the paths, so that its arrays (18 bytes an object
     * at their peak on the benchmark's heap) are not on top of the paths'
     * (4 bytes an object): the process's peak 99 bytes an object, not 103 */
    if (opts && opts->progress) opts->progress(opts->ctx, "duplicates", 0, x->s.nobjects);
    if ((rc = ht_dups_build(&x->dups, &x->s, &x->d, opts))) goto fail;
    if (opts && opts->progress) opts->progress(opts->ctx, "paths", 0, x->s.nobjects);
    if ((rc = ht_paths_build(&x->strong, &x->s, 0))) goto fail;
    x->class_retained = ht_heap_class_retained(&x->s, &x->d);
    if (!x->class_retained) {
        rc = ht_hprof_error(&x->h, HT_HPROF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (ht_heap_sites_build(&x->sites, &x->s, &x->d) != HT_HPROF_OK) {
        rc = ht_hprof_error(&x->h, HT_HPROF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* the file shrank during the passes that do not look (hprof.h) */
    if ((rc = ht_hprof_check(&x->h, HT_HPROF_OK))) goto fail;
    x->load_s = ht_mono_s() - t0;
    return HT_HPROF_OK;
fail:
    rc = ht_hprof_check(&x->h, rc);
    char err[sizeof x->h.err];
    memcpy(err, x->h.err, sizeof err);
    ht_heap_free(x);
    memcpy(x->h.err, err, sizeof err);
    return rc;
}

void ht_heap_free(ht_heap *x)
{
    free(x->class_retained);
    ht_behaviour_free(&x->bhv);
    ht_heap_sites_free(&x->sites);
    ht_dups_free(&x->dups);
    ht_paths_free(&x->weak);
    ht_paths_free(&x->strong);
    ht_dominators_free(&x->d);
    if (x->s.h) ht_snapshot_free(&x->s);
    ht_hprof_close(&x->h);
    char path[sizeof x->path];
    memcpy(path, x->path, sizeof path);
    memset(x, 0, sizeof *x);
    memcpy(x->path, path, sizeof path);
}

const ht_paths *ht_heap_paths(ht_heap *x, int weak)
{
    if (!weak) return &x->strong;
    if (!x->weak.prev && ht_paths_build(&x->weak, &x->s, 1) != HT_HPROF_OK) return NULL;
    return &x->weak;
}

static uint32_t class_key(const void *ctx, uint32_t o)
{
    return ((const ht_snapshot *)ctx)->cls[o];
}

uint64_t *ht_heap_class_retained(const ht_snapshot *s, const ht_dominators *d)
{
    uint64_t *sum = malloc((s->nclasses ? s->nclasses : 1) * sizeof *sum);
    if (sum && ht_dominators_keyed_retained(d, class_key, s, s->nclasses, sum) == 0) return sum;
    free(sum);
    return NULL;
}
