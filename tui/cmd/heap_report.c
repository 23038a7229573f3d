/* heap_report.c - see heap_report.h. */
#include "heap_report.h"

#include "analysis.h"
#include "export_behaviour.h"
#include "export_heap.h"
#include "shown.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows of dominators.csv, as `heaptop heap` writes them. */
#define TOP_DOMINATORS 1000

/* "cannot write PATH: why" into err, the path shown escaped. */
static void cannot_write(const char *path, char *err, size_t errn)
{
    int e = errno ? errno : EIO;
    char shown[HT_SHOWN_MAX];
    snprintf(err, errn, "cannot write %s: %s", ht_shown(path, shown, sizeof shown), strerror(e));
}

int ht_heap_report_behaviour(ht_heap *x, const ht_bhv_report_opts *o, const char *out_dir,
                             ht_bhv_report_said *said, char *err, size_t errn)
{
    ht_behaviour own = {0};
    const ht_behaviour *b = &x->bhv;
    if (o->o.scc_none || o->o.count_raw) { /* not the analysis the snapshot carries */
        /* a build that fails leaves own empty with why set: the files
         * then have no rows and the summary says why, as for x->bhv */
        ht_behaviour_build(&own, &x->s, &x->d, &o->o, NULL);
        x->h.err[0] = '\0';
        b = &own;
    }
    int rc = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/behaviour.csv", out_dir);
    errno = 0;
    if (ht_export_behaviour(b, &x->s, o->t1, path) != 0) {
        cannot_write(path, err, errn);
        rc = -1;
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/behaviour_edges.csv", out_dir);
        errno = 0;
        if (ht_export_behaviour_edges(b, &x->s, path) != 0) {
            cannot_write(path, err, errn);
            rc = -1;
        }
    }
    if (rc == 0 && said) {
        *said = (ht_bhv_report_said){
            .nodes = b->nnodes ? b->nnodes - 1 : 0,
            .edges = b->nedges,
            .dropped = b->dropped,
            .overcount = b->reachable_bytes ? b->md_root / (double)b->reachable_bytes : 0,
            .build_s = b->build_s,
        };
        snprintf(said->why, sizeof said->why, "%s", b->why);
        for (uint32_t n = 1; n < b->nnodes; n++)
            said->flagged += ht_bhv_branches(b, n, o->t1, NULL) == 0;
        for (uint32_t n = 0; n < b->nnodes; n++)
            said->selfs += b->nodes[n].rself > 0;
        if (b->nnodes > 1) {
            uint32_t top = b->ranked[0], one;
            char nb[HT_BHV_NAME_MAX];
            snprintf(said->top, sizeof said->top, "%s", ht_bhv_name(b, &x->s, top, nb, sizeof nb));
            said->top_branches = ht_bhv_branches(b, top, o->t1, NULL);
            said->top_backward = ht_bhv_backward(b, top, o->t2, &one, 1);
            if (said->top_backward == HT_NONE) {
                snprintf(err, errn, "the behaviour analysis: out of memory");
                rc = -1;
            }
        }
    }
    ht_behaviour_free(&own);
    return rc;
}

void ht_heap_report_say(FILE *f, const char *prefix, const ht_bhv_report_opts *o,
                        const ht_bhv_report_said *s)
{
    char shown[HT_SHOWN_MAX];
    if (s->why[0]) {
        fprintf(f, "%sbehaviour: no ranking: %s\n", prefix, ht_shown(s->why, shown, sizeof shown));
        return;
    }
    fprintf(f,
            "%sbehaviour: %" PRIu32 " nodes (scc=%s, count=%s), %" PRIu32 " edges, %" PRIu32
            " dropped by the cycle rule (besides them %" PRIu32 " self-edge rows, from = to, "
            "kept 0 in behaviour_edges.csv), overcount %.3f, %.2f s; %" PRIu32
            " flagged at t1=%g (no forward branch)\n",
            prefix, s->nodes, o->o.scc_none ? "none" : "literal",
            o->o.count_raw ? "raw" : "distinct", s->edges, s->dropped, s->selfs, s->overcount,
            s->build_s, s->flagged, o->t1);
    if (s->top[0])
        fprintf(f,
                "%sbehaviour: first by MCC %s: %" PRIu32 " forward branches at t1=%g, %" PRIu32
                " backward edges at t2=%g\n",
                prefix, ht_shown(s->top, shown, sizeof shown), s->top_branches, o->t1,
                s->top_backward, o->t2);
}

int ht_heap_report(const char *dump_path, const char *out_dir, uint32_t *sites,
                   ht_bhv_report_said *said, char *err, size_t errn)
{
    *sites = 0;
    ht_heap *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    ht_snapshot_opts opts = {0}; /* the layout inferred from the dump */
    if (ht_heap_load(x, dump_path, &opts) != HT_HPROF_OK) {
        char shown[HT_SHOWN_MAX], why[HT_SHOWN_MAX];
        snprintf(err, errn, "%s: %s", ht_shown(dump_path, shown, sizeof shown),
                 ht_shown(x->h.err, why, sizeof why));
        free(x);
        return -1;
    }
    int rc = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/histogram.csv", out_dir);
    errno = 0;
    if (ht_export_histogram(&x->s, x->class_retained, path) != 0) {
        cannot_write(path, err, errn);
        rc = -1;
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/dominators.csv", out_dir);
        errno = 0;
        if (ht_export_dominators(&x->s, &x->d, TOP_DOMINATORS, path) != 0) {
            cannot_write(path, err, errn);
            rc = -1;
        }
    }
    if (rc == 0 && x->sites.n) {
        snprintf(path, sizeof path, "%s/heap_sites.csv", out_dir);
        errno = 0;
        ht_store names; /* the sites' names: the session the dump's marker carries */
        ht_store_init(&names);
        ht_store_from_session(&names, x->s.sampled.session, x->s.sampled.session_len);
        if (ht_export_heap_sites(x, &names, path) != 0) {
            cannot_write(path, err, errn);
            rc = -1;
        }
        ht_store_free(&names);
        *sites = x->sites.n;
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/duplicates.csv", out_dir);
        errno = 0;
        if (ht_export_duplicates(&x->s, &x->dups, path) != 0) {
            cannot_write(path, err, errn);
            rc = -1;
        }
    }
    if (rc == 0) {
        ht_bhv_report_opts o = HT_BHV_REPORT_DEFAULTS;
        rc = ht_heap_report_behaviour(x, &o, out_dir, said, err, errn);
    }
    ht_heap_free(x);
    free(x);
    return rc;
}
