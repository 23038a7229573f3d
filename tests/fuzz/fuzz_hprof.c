/*
 * libFuzzer target: arbitrary bytes as an HPROF file through the whole heap
 * analyser: the reader's header and first pass (tui/heap/reader/hprof.c), the graph
 * (snapshot.c, classes.c, refs.c), the dominator tree (dominators.c), the
 * duplicate groups, their holders and the content of objects (duplicates.c,
 * values.c), paths to GC roots with their names (paths.c), and the
 * agent's marker: its samples by site (sampled.c, heap_sites.c) and joined
 * with themselves by serial (compare.c's survivors), and the behaviour
 * ranking in both scc modes (behaviour.c, behaviour_snapshot.c: its groups'
 * bytes must add up to the dominator tree's reachable bytes, each object in
 * one group, and the ranking's queries run on what it made). Any out-of-bounds read, leak,
 * undefined behaviour, hang or a failure without a message is a finding.
 */
#include "behaviour.h"
#include "compare.h"
#include "dominators.h"
#include "heap_sites.h"
#include "duplicates.h"
#include "hprof.h"
#include "paths.h"
#include "snapshot.h"
#include "values.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The behaviour ranking of s in one scc mode: its invariants, then a few
 * queries of the kind the screen makes. */
static void behaviour(ht_hprof *h, const ht_snapshot *s, const ht_dominators *d, int scc_none)
{
    ht_behaviour b;
    ht_bhv_opts o = {.scc_none = scc_none};
    if (ht_behaviour_build(&b, s, d, &o, NULL) != HT_HPROF_OK) {
        if (strncmp(h->err, "hprof: ", 7) != 0) abort();
        return;
    }
    uint64_t mc = 0, objects = 0;
    for (uint32_t i = 0; i < b.nnodes; i++)
        mc += b.nodes[i].mc, objects += b.nodes[i].objects;
    if (mc != d->reachable_bytes || objects != d->reachable || b.reachable_bytes != mc) abort();
    if (b.nnodes > 1) {
        uint32_t out[64];
        for (uint32_t r = 0; r < b.nnodes - 1 && r < 8; r++) {
            uint32_t n = b.ranked[r];
            if (n == HT_BHV_ROOT || n >= b.nnodes) abort();
            double cov;
            ht_bhv_branches(&b, n, 0.1, &cov);
            if (ht_bhv_forward(&b, n, 0.1, out, 64) > b.nedges) abort();
            if (ht_bhv_backward(&b, n, 0.1, out, 64) > b.nedges) abort();
            char nb[HT_BHV_NAME_MAX];
            (void)ht_bhv_name(&b, s, n, nb, sizeof nb);
        }
    }
    ht_behaviour_free(&b);
}

static void analyse(ht_hprof *h)
{
    ht_snapshot s;
    if (ht_snapshot_build(&s, h, NULL) != HT_HPROF_OK) {
        if (strncmp(h->err, "hprof: ", 7) != 0) abort();
        return;
    }
    ht_dominators d;
    if (ht_dominators_build(&d, &s, NULL) == HT_HPROF_OK) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < s.nobjects; i++)
            sum += d.retained[i];
        if (d.reachable > s.nobjects) abort();
        (void)sum;
        behaviour(h, &s, &d, 0);
        behaviour(h, &s, &d, 1);
        ht_heap_sites hs; /* the agent's marker, when a seed or a mutation has one */
        if (ht_heap_sites_build(&hs, &s, &d) == HT_HPROF_OK && s.sampled.present > s.nobjects)
            abort();
        ht_heap_sites_free(&hs);
        ht_heap_figures f; /* a snapshot joined with itself keeps every sample */
        ht_survivors sv;
        if (ht_heap_figures_of(&f, &s, "fuzz") == 0) {
            if (ht_survivors_build(&sv, &f, &f) == 0) {
                uint64_t kept = 0;
                for (uint32_t i = 0; i < sv.n; i++) {
                    if (sv.v[i].fresh || sv.v[i].freed) abort();
                    kept += sv.v[i].kept;
                }
                if (!sv.why && kept != f.nsamples) abort();
                ht_survivors_free(&sv);
            }
            ht_heap_figures_free(&f);
        }
        ht_dups g;
        if (ht_dups_build(&g, &s, &d, NULL) == HT_HPROF_OK) {
            uint64_t copies = 0;
            for (uint32_t i = 0; i < g.ngroups; i++) {
                if (g.groups[i].copies < 2 || g.groups[i].first + g.groups[i].copies > g.nmembers)
                    abort();
                copies += g.groups[i].copies;
                ht_dup_holder *hd;
                uint32_t nh;
                if (i < 8 && ht_dups_holders(&s, &g, i, &hd, &nh) == 0) free(hd);
            }
            if (copies != g.nmembers) abort();
            ht_dups_free(&g);
        } else if (strncmp(h->err, "hprof: ", 7) != 0) {
            abort();
        }
        ht_dominators_free(&d);
    }
    ht_paths p;
    if (ht_paths_build(&p, &s, 0) == HT_HPROF_OK) {
        char line[512], name[128];
        for (uint32_t i = 0; i < s.nobjects && i < 64; i++) {
            ht_paths_format(&p, &s, i, line, sizeof line);
            ht_object_content(&s, i, line, sizeof line);
            for (uint32_t k = 0; k < s.out_start[i + 1] - s.out_start[i] && k < 8; k++)
                ht_snapshot_ref_name(&s, i, k, name, sizeof name);
        }
        ht_paths_free(&p);
    }
    ht_snapshot_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ht_hprof h;
    if (ht_hprof_open_mem(&h, data, size) != HT_HPROF_OK) {
        if (strncmp(h.err, "hprof: ", 7) != 0) abort();
        return 0;
    }
    ht_hprof_summary s;
    int rc = ht_hprof_scan(&h, &s);
    if (rc != HT_HPROF_OK && strncmp(h.err, "hprof: ", 7) != 0) abort();
    uint64_t total = 0;
    for (uint32_t i = 0; i < s.nclasses; i++)
        total += s.classes[i].instances + strlen(s.classes[i].name);
    (void)total;
    ht_hprof_summary_free(&s);
    if (rc == HT_HPROF_OK) analyse(&h);
    ht_hprof_close(&h);
    return 0;
}
