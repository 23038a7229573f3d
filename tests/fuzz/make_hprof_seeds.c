/* Writes the unit tests' small HPROF files (both id sizes, one heap dump and
 * a segmented one, and a dump with heaptop's marker) into DIR, as the HPROF
 * fuzzing corpus. */
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
    if (argc != 2) {
        fprintf(stderr, "usage: make_hprof_seeds DIR\n");
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
    return 0;
}
