/*
 * test_survivors: the agent's sampled objects of two snapshots of one run,
 * joined by sample serial (tui/heap/analysis/compare.c, ht_survivors), read from real
 * HPROF bytes that hold the agent's marker (hprof_marker_builder.h) through
 * the whole reader (sampled.c takes the marker out). Truths computed here the
 * slow and obvious way, from the samples the test wrote:
 *  - the marker's own objects are not in the snapshot; each live sample is,
 *    with its serial, site and weights; the run's pid and start are read;
 *  - per site: kept (in A and B), new (in B only), freed (in A only, or dead
 *    by B), samples and summed weights; the order, most new bytes first;
 *  - two runs (another start), or a dump without the marker: nothing
 *    joined, and a reason;
 *  - 3,000 random samples over 40 sites against a quadratic join;
 *  - both id sizes.
 */
#include "check.h"
#include "compare.h"
#include "hprof_marker_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dump {
    hb b;
    ht_hprof h;
    ht_snapshot s;
    ht_heap_figures f;
} dump;

/* A's or B's figures, from the HPROF bytes of samples v[0..n). */
static int load(dump *d, unsigned id, uint32_t pid, uint64_t start, const hb_mark_sample *v,
                unsigned n)
{
    hb_marker(&d->b, id, pid, start, v, n);
    if (ht_hprof_open_mem(&d->h, d->b.d, d->b.len) != HT_HPROF_OK) {
        fprintf(stderr, "open: %s\n", d->h.err);
        return -1;
    }
    if (ht_snapshot_build(&d->s, &d->h, NULL) != HT_HPROF_OK) {
        fprintf(stderr, "build: %s\n", d->h.err);
        return -1;
    }
    return ht_heap_figures_of(&d->f, &d->s, "mem");
}

static void unload(dump *d)
{
    ht_heap_figures_free(&d->f);
    ht_snapshot_free(&d->s);
    ht_hprof_close(&d->h);
    free(d->b.d);
}

static const hb_mark_sample *find(const hb_mark_sample *v, unsigned n, uint64_t serial)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i].serial == serial && v[i].alive) return &v[i];
    return NULL;
}

/* The join the slow way, for site (trace, cls), compared with row r. */
static int site_agrees(const hb_mark_sample *a, unsigned na, const hb_mark_sample *b, unsigned nb,
                       const ht_survivor_site *r)
{
    uint32_t kept = 0, fresh = 0, freed = 0;
    double kept_b = 0, fresh_b = 0, freed_b = 0, fresh_i = 0;
    for (unsigned i = 0; i < na; i++) {
        if (!a[i].alive || a[i].trace_id != r->trace_id || a[i].class_id != r->class_id) continue;
        if (find(b, nb, a[i].serial))
            kept++, kept_b += a[i].bytes;
        else
            freed++, freed_b += a[i].bytes;
    }
    for (unsigned i = 0; i < nb; i++) {
        if (!b[i].alive || b[i].trace_id != r->trace_id || b[i].class_id != r->class_id) continue;
        if (!find(a, na, b[i].serial)) fresh++, fresh_b += b[i].bytes, fresh_i += b[i].instances;
    }
    int ok = kept == r->kept && fresh == r->fresh && freed == r->freed &&
             fabs(kept_b - r->kept_bytes) < 1e-6 && fabs(fresh_b - r->fresh_bytes) < 1e-6 &&
             fabs(freed_b - r->freed_bytes) < 1e-6 && fabs(fresh_i - r->fresh_inst) < 1e-6;
    if (!ok)
        fprintf(stderr,
                "site %u/%u: kept %u/%u new %u/%u freed %u/%u (truth/join), new bytes %.0f/%.0f\n",
                r->trace_id, r->class_id, kept, r->kept, fresh, r->fresh, freed, r->freed, fresh_b,
                r->fresh_bytes);
    return ok;
}

static const ht_survivor_site *site(const ht_survivors *sv, uint32_t trace, uint32_t cls)
{
    for (uint32_t i = 0; i < sv->n; i++)
        if (sv->v[i].trace_id == trace && sv->v[i].class_id == cls) return &sv->v[i];
    return NULL;
}

static void test_known(unsigned id)
{
    /* site 7/1 keeps one, frees one, gains one; 8/2 grows; 9/3 dies out */
    static const hb_mark_sample a[] = {
        {1, 7, 1, 100, 2, 1}, {2, 7, 1, 100, 2, 1}, {3, 8, 2, 300, 5, 1},
        {4, 8, 2, 300, 5, 1}, {5, 7, 1, 100, 2, 0}, {6, 9, 3, 50, 1, 1},
    };
    static const hb_mark_sample b[] = {
        {2, 7, 1, 100, 2, 1}, {4, 8, 2, 300, 5, 1}, {6, 9, 3, 50, 1, 0},
        {7, 8, 2, 310, 6, 1}, {8, 8, 2, 290, 4, 1}, {9, 7, 1, 100, 2, 1},
    };
    dump da, db;
    memset(&da, 0, sizeof da), memset(&db, 0, sizeof db);
    CHECK(load(&da, id, 4242, 1700000000000ull, a, 6) == 0);
    CHECK(load(&db, id, 4242, 1700000000000ull, b, 6) == 0);
    /* the marker is gone: 4 classes and the live samples' objects remain */
    CHECK_MSG(da.s.nobjects == 4 + 5, "A has %u objects, not 9", da.s.nobjects);
    CHECK_MSG(db.s.nobjects == 4 + 5, "B has %u objects, not 9", db.s.nobjects);
    CHECK(da.s.sampled.marked && da.s.sampled.n == 6 && da.s.sampled.present == 5);
    CHECK(da.f.run_pid == 4242 && da.f.run_start_ms == 1700000000000ull);
    CHECK(da.f.nsamples == 5 && db.f.nsamples == 5);
    for (uint32_t i = 1; i < da.f.nsamples; i++)
        CHECK(da.f.samples[i - 1].serial < da.f.samples[i].serial);

    ht_survivors sv;
    CHECK(ht_survivors_build(&sv, &da.f, &db.f) == 0);
    CHECK_MSG(sv.why == NULL, "why: %s", sv.why ? sv.why : "");
    CHECK_MSG(sv.n == 3, "%u sites, not 3", sv.n);
    for (uint32_t i = 0; i < sv.n; i++)
        CHECK(site_agrees(a, 6, b, 6, &sv.v[i]));
    const ht_survivor_site *grow = site(&sv, 8, 2), *mixed = site(&sv, 7, 1),
                           *gone = site(&sv, 9, 3);
    CHECK(grow && grow->fresh == 2 && grow->kept == 1 && grow->freed == 1);
    CHECK(grow && grow->fresh_bytes == 600 && grow->fresh_inst == 10);
    CHECK(mixed && mixed->fresh == 1 && mixed->kept == 1 && mixed->freed == 1);
    CHECK(gone && gone->fresh == 0 && gone->kept == 0 && gone->freed == 1);
    CHECK(sv.n == 3 && sv.v[0].trace_id == 8 && sv.v[1].trace_id == 7 && sv.v[2].trace_id == 9);
    ht_survivors_free(&sv);

    /* the other way round: what was new is freed */
    CHECK(ht_survivors_build(&sv, &db.f, &da.f) == 0);
    const ht_survivor_site *g2 = site(&sv, 8, 2);
    CHECK(g2 && g2->freed == 2 && g2->fresh == 1 && g2->kept == 1);
    ht_survivors_free(&sv);
    unload(&db);

    /* the agent restarted (another start): its serials mean other objects */
    CHECK(load(&db, id, 4242, 1700000009999ull, b, 6) == 0);
    CHECK(ht_survivors_build(&sv, &da.f, &db.f) == 0);
    CHECK(sv.why != NULL && strstr(sv.why, "two agent runs") && sv.n == 0);
    ht_survivors_free(&sv);
    unload(&db);

    /* a dump without the marker */
    memset(&db, 0, sizeof db);
    hb_expect e;
    hb_sample(&db.b, &e, id, 0);
    CHECK(ht_hprof_open_mem(&db.h, db.b.d, db.b.len) == HT_HPROF_OK);
    CHECK(ht_snapshot_build(&db.s, &db.h, NULL) == HT_HPROF_OK);
    CHECK(ht_heap_figures_of(&db.f, &db.s, "plain") == 0);
    CHECK(!db.f.marked && db.f.nsamples == 0);
    CHECK(ht_survivors_build(&sv, &da.f, &db.f) == 0);
    CHECK(sv.why != NULL && strstr(sv.why, "marker") && sv.n == 0);
    ht_survivors_free(&sv);
    unload(&db);
    unload(&da);
}

static uint32_t rnd(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return (uint32_t)(*x >> 11);
}

static void test_random(void)
{
    enum { N = 3000, SITES = 40 };
    hb_mark_sample *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    unsigned na = 0, nb = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    /* serial s lives from birth on until it dies; A is taken at 2/3 of the
     * serials, B at the end; the marker lists those not yet collected */
    for (uint64_t s = 1; s <= N; s++) {
        uint32_t k = rnd(&x) % SITES;
        hb_mark_sample m = {s, 100 + k, 1 + k % 7, 64.0 * (1 + rnd(&x) % 50), 1 + rnd(&x) % 9, 1};
        int dies_before_a = rnd(&x) % 3 == 0, dies_before_b = dies_before_a || rnd(&x) % 3 == 0;
        if (s <= 2 * N / 3 && !dies_before_a) a[na++] = m;
        if (!dies_before_b) {
            m.alive = rnd(&x) % 10 != 0; /* some die after the marker, before the dump */
            b[nb++] = m;
        }
    }
    dump da, db;
    memset(&da, 0, sizeof da), memset(&db, 0, sizeof db);
    CHECK(load(&da, 8, 7, 99, a, na) == 0);
    CHECK(load(&db, 8, 7, 99, b, nb) == 0);
    ht_survivors sv;
    CHECK(ht_survivors_build(&sv, &da.f, &db.f) == 0 && sv.why == NULL);
    uint32_t bad = 0;
    uint64_t kept = 0, fresh = 0;
    for (uint32_t i = 0; i < sv.n; i++) {
        bad += !site_agrees(a, na, b, nb, &sv.v[i]);
        kept += sv.v[i].kept, fresh += sv.v[i].fresh;
        if (i) CHECK(sv.v[i - 1].fresh_bytes >= sv.v[i].fresh_bytes);
    }
    CHECK_MSG(bad == 0, "%u of %u sites disagree with the quadratic join", bad, sv.n);
    CHECK_MSG(kept + fresh == db.f.nsamples, "kept %llu + new %llu != B's %u live samples",
              (unsigned long long)kept, (unsigned long long)fresh, db.f.nsamples);
    CHECK(kept > 100 && fresh > 100);
    ht_survivors_free(&sv);
    unload(&da);
    unload(&db);
    free(a), free(b);
}

int main(void)
{
    test_known(8);
    test_known(4);
    test_random();
    return check_summary();
}
