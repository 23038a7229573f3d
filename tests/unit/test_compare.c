/*
 * test_compare: two snapshots compared class by class (tui/heap/analysis/compare.c),
 * against truths computed here the slow and obvious way:
 *  - a snapshot's figures: two class objects of one name (two loaders'
 *    classes) are one figure, summed; a class without instances has none;
 *    the names are copies (the snapshot may go);
 *  - the join: a class only in A, only in B, in both, unchanged; the order,
 *    the biggest change of bytes either way first, ties by name;
 *  - thousands of names, half shared, against a quadratic join.
 * Only the snapshot's class table is read, so the snapshots here are that
 * table alone.
 */
#include "check.h"
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ht_snapshot table(ht_class *classes, uint32_t n)
{
    ht_snapshot s;
    memset(&s, 0, sizeof s);
    s.classes = classes;
    s.nclasses = n;
    return s;
}

static const ht_class_fig *fig(const ht_heap_figures *f, const char *name)
{
    for (uint32_t i = 0; i < f->nclasses; i++)
        if (strcmp(f->classes[i].name, name) == 0) return &f->classes[i];
    return NULL;
}

static const ht_compare_row *row(const ht_compare *c, const char *name)
{
    for (uint32_t i = 0; i < c->nrows; i++)
        if (strcmp(c->rows[i].name, name) == 0) return &c->rows[i];
    return NULL;
}

static void test_figures(void)
{
    char dup1[] = "demo.Dup", dup2[] = "demo.Dup", only[] = "demo.Only", zero[] = "demo.Zero",
         ints[] = "[I";
    ht_class k[5];
    memset(k, 0, sizeof k);
    k[0].name = dup1, k[0].instances = 3, k[0].shallow = 48;
    k[1].name = only, k[1].instances = 1, k[1].shallow = 16;
    k[2].name = dup2, k[2].instances = 2, k[2].shallow = 32;
    k[3].name = zero;
    k[4].name = ints, k[4].instances = 5, k[4].shallow = 100;
    ht_snapshot s = table(k, 5);
    ht_heap_figures f;
    CHECK(ht_heap_figures_of(&f, &s, "/x/a.hprof") == 0);
    CHECK_MSG(f.nclasses == 3, "three names with instances, not %u", f.nclasses);
    const ht_class_fig *d = fig(&f, "demo.Dup");
    CHECK_MSG(d && d->instances == 5 && d->bytes == 80,
              "two classes named demo.Dup are one figure, summed");
    CHECK(fig(&f, "demo.Only") && fig(&f, "demo.Only")->bytes == 16);
    CHECK_MSG(!fig(&f, "demo.Zero"), "a class without instances has no figure");
    for (uint32_t i = 1; i < f.nclasses; i++)
        CHECK_MSG(strcmp(f.classes[i - 1].name, f.classes[i].name) < 0, "by name");
    /* the snapshot's names go: the figures keep their own */
    memset(dup1, 'x', sizeof dup1 - 1), memset(dup2, 'x', sizeof dup2 - 1);
    memset(only, 'x', sizeof only - 1), memset(ints, 'x', sizeof ints - 1);
    CHECK_MSG(fig(&f, "demo.Dup") && fig(&f, "[I"), "names copied");
    CHECK(strcmp(f.path, "/x/a.hprof") == 0);
    ht_heap_figures_free(&f);

    ht_snapshot empty = table(NULL, 0);
    CHECK(ht_heap_figures_of(&f, &empty, NULL) == 0 && f.nclasses == 0);
    ht_heap_figures g;
    ht_compare c;
    CHECK(ht_heap_figures_of(&g, &empty, NULL) == 0);
    CHECK_MSG(ht_compare_build(&c, &f, &g) == 0 && c.nrows == 0, "two empty snapshots: no rows");
    ht_compare_free(&c);
    ht_heap_figures_free(&f);
    ht_heap_figures_free(&g);
}

static void test_join(void)
{
    ht_class a[4], b[4];
    memset(a, 0, sizeof a), memset(b, 0, sizeof b);
    a[0] = (ht_class){.name = "demo.Dup", .instances = 5, .shallow = 80};
    a[1] = (ht_class){.name = "demo.Only", .instances = 1, .shallow = 16};
    a[2] = (ht_class){.name = "demo.Same", .instances = 2, .shallow = 32};
    a[3] = (ht_class){.name = "demo.Shrink", .instances = 4, .shallow = 64};
    b[0] = (ht_class){.name = "demo.Same", .instances = 2, .shallow = 32};
    b[1] = (ht_class){.name = "demo.New", .instances = 4, .shallow = 64};
    b[2] = (ht_class){.name = "demo.Dup", .instances = 7, .shallow = 112};
    b[3] = (ht_class){.name = "demo.Shrink", .instances = 0, .shallow = 0};
    ht_snapshot sa = table(a, 4), sb = table(b, 4);
    ht_heap_figures fa, fb;
    ht_compare c;
    CHECK(ht_heap_figures_of(&fa, &sa, "a") == 0 && ht_heap_figures_of(&fb, &sb, "b") == 0);
    CHECK(ht_compare_build(&c, &fa, &fb) == 0);
    CHECK_MSG(c.nrows == 5, "five names in either, not %u", c.nrows);
    const ht_compare_row *r = row(&c, "demo.Only");
    CHECK_MSG(r && r->inst_a == 1 && r->bytes_a == 16 && r->inst_b == 0 && r->bytes_b == 0,
              "only in A: zero in B");
    r = row(&c, "demo.New");
    CHECK_MSG(r && r->inst_a == 0 && r->inst_b == 4 && r->bytes_b == 64, "only in B: zero in A");
    r = row(&c, "demo.Dup");
    CHECK(r && ht_compare_dinst(r) == 2 && ht_compare_dbytes(r) == 32);
    r = row(&c, "demo.Shrink");
    CHECK_MSG(r && ht_compare_dbytes(r) == -64, "a class whose instances all went: -64 bytes");
    /* |delta|: New 64 and Shrink 64 (ties by name), Dup 32, Only 16, Same 0 */
    static const char *const order[] = {"demo.New", "demo.Shrink", "demo.Dup", "demo.Only",
                                        "demo.Same"};
    for (uint32_t i = 0; i < 5 && i < c.nrows; i++)
        CHECK_MSG(strcmp(c.rows[i].name, order[i]) == 0, "row %u is %s, not %s", i, c.rows[i].name,
                  order[i]);
    ht_compare_free(&c);
    ht_heap_figures_free(&fa);
    ht_heap_figures_free(&fb);
}

/* Thousands of names, some in A only, some in B only, some twice in one
 * snapshot, against a quadratic join. */
static void test_many(void)
{
    enum { N = 6000 };
    ht_class *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    char(*names)[24] = calloc(N, sizeof *names);
    for (uint32_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "c.K%u", (i * 7919u) % N);
        /* A: names 0..N-1 (i and i ^ 1 share one name when i % 10 == 0);
         * B: every other name, a third larger */
        a[i].name = names[i % 10 == 0 ? i ^ 1 : i];
        a[i].instances = i + 1, a[i].shallow = 16 * (uint64_t)(i + 1);
        b[i].name = names[i];
        b[i].instances = i % 2 ? 0 : i + 2, b[i].shallow = i % 2 ? 0 : 24 * (uint64_t)(i + 2);
    }
    ht_snapshot sa = table(a, N), sb = table(b, N);
    ht_heap_figures fa, fb;
    ht_compare c;
    CHECK(ht_heap_figures_of(&fa, &sa, "a") == 0 && ht_heap_figures_of(&fb, &sb, "b") == 0);
    CHECK(ht_compare_build(&c, &fa, &fb) == 0);
    uint32_t wrong = 0, rows = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint64_t ia = 0, ba = 0, ib = 0, bb = 0;
        for (uint32_t j = 0; j < N; j++) {
            if (strcmp(a[j].name, names[i]) == 0) ia += a[j].instances, ba += a[j].shallow;
            if (strcmp(b[j].name, names[i]) == 0) ib += b[j].instances, bb += b[j].shallow;
        }
        const ht_compare_row *r = row(&c, names[i]);
        if (!ia && !ib) {
            wrong += r != NULL;
            continue;
        }
        rows++;
        if (!r || r->inst_a != ia || r->bytes_a != ba || r->inst_b != ib || r->bytes_b != bb)
            wrong++;
    }
    CHECK_MSG(wrong == 0 && c.nrows == rows, "%u of %u names wrong; %u rows, %u expected", wrong, N,
              c.nrows, rows);
    uint32_t unordered = 0;
    for (uint32_t i = 1; i < c.nrows; i++)
        unordered += ht_compare_row_order(&c.rows[i - 1], &c.rows[i]) > 0;
    CHECK_MSG(unordered == 0, "rows in order (%u out)", unordered);
    ht_compare_free(&c);
    ht_heap_figures_free(&fa);
    ht_heap_figures_free(&fb);
    free(a), free(b), free(names);
}

int main(void)
{
    test_figures();
    test_join();
    test_many();
    return check_summary();
}
