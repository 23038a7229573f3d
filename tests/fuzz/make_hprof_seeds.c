/* Writes the unit tests' small HPROF files (both id sizes, one heap dump and
 * a segmented one, a dump with heaptop's marker, small versions of the
 * crafted class shapes, and the dump of every modelling edge) into DIR, as
 * the HPROF fuzzing corpus.
 *
 * With --hostile, writes instead the full-size crafted files that
 * tests/e2e/test_hostile_dumps.py reads: wide.hprof (one class of 65,535
 * boolean fields and 100,000 empty subclasses), chain.hprof (4,000 classes
 * of 8 reference fields each in one chain, 15 instances of the deepest),
 * plain.hprof (a dump of ordinary classes and instances about as big as
 * wide.hprof, the yardstick) and big.hprof (3 M instances, about 140 MB). */
#include "hprof_builder.h"
#include "hprof_marker_builder.h"

#include <stdio.h>

static int write_seed(const char *dir, const char *name, hb *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->d, 1, b->len, f) != b->len || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    free(b->d);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--hostile") == 0) {
        hb b;
        hb_shape_wide(&b, 65535, 100000);
        if (write_seed(argv[2], "wide.hprof", &b)) return 1;
        hb_shape_chain(&b, 4000, 8, 15);
        if (write_seed(argv[2], "chain.hprof", &b)) return 1;
        hb_shape_plain(&b, 20000, 200000);
        if (write_seed(argv[2], "plain.hprof", &b)) return 1;
        hb_shape_plain(&b, 50, 3000000);
        return write_seed(argv[2], "big.hprof", &b);
    }
    if (argc != 2) {
        fprintf(stderr, "usage: make_hprof_seeds DIR | --hostile DIR\n");
        return 2;
    }
    for (unsigned id = 4; id <= 8; id += 4)
        for (int seg = 0; seg <= 1; seg++) {
            hb b;
            hb_expect e;
            hb_sample(&b, &e, id, seg);
            char name[64];
            snprintf(name, sizeof name, "id%u_%s.hprof", id, seg ? "segments" : "dump");
            if (write_seed(argv[1], name, &b)) return 1;
        }
    /* the agent's marker: two sites, a sample that died before the dump */
    static const hb_mark_sample v[] = {
        {1, 7, 1, 100, 2, 1}, {2, 7, 1, 100, 2, 0}, {3, 8, 2, 300, 5, 1}};
    for (unsigned id = 4; id <= 8; id += 4) {
        hb b;
        char name[64];
        hb_marker(&b, id, 4242, 1700000000000ull, v, 3);
        snprintf(name, sizeof name, "id%u_marker.hprof", id);
        if (write_seed(argv[1], name, &b)) return 1;
    }
    /* the crafted class shapes, small */
    hb b;
    hb_shape_wide(&b, 2000, 50);
    if (write_seed(argv[1], "wide.hprof", &b)) return 1;
    hb_shape_chain(&b, 40, 8, 2);
    if (write_seed(argv[1], "chain.hprof", &b)) return 1;
    hb_shape_plain(&b, 3, 10);
    if (write_seed(argv[1], "plain.hprof", &b)) return 1;
    /* a class loader, statics, a constant pool: every modelling edge */
    hb_loader_dump(&b, 1);
    return write_seed(argv[1], "loader.hprof", &b);
}
