/* Writes the unit test's small HPROF files (both id sizes, one heap dump and
 * a segmented one) into DIR, as the HPROF fuzzing corpus. */
#include "hprof_builder.h"

#include <stdio.h>

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
            char path[1024];
            snprintf(path, sizeof path, "%s/id%u_%s.hprof", argv[1], id, seg ? "segments" : "dump");
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(b.d, 1, b.len, f) != b.len || fclose(f) != 0) {
                perror(path);
                return 1;
            }
            free(b.d);
        }
    return 0;
}
