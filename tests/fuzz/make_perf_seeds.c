/* Writes the unit test's hand-built perf data files (perf_builder.h, both
 * byte orders) into DIR, as the perf data fuzzing corpus. */
#include "perf_builder.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_perf_seeds DIR\n");
        return 2;
    }
    for (int big = 0; big <= 1; big++) {
        pb p;
        size_t n = pb_g1(&p, big);
        char path[1024];
        snprintf(path, sizeof path, "%s/g1_%s.perf", argv[1], big ? "big" : "little");
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(p.b, 1, n, f) != n || fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}
