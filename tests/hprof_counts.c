/*
 * hprof_counts - a test tool over the HPROF reader (tui/heap/hprof.h): reads
 * one dump and prints `class,instances` lines on stdout, one per class object
 * (two loaders' classes of one name are two lines), and the first pass's
 * counts on stderr. Exit 0, or 1 and the reader's message. For
 * tests/e2e/test_hprof_histogram.py, which compares it with
 * `jcmd GC.class_histogram`.
 */
#include "hprof.h"

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hprof_counts FILE.hprof\n");
        return 2;
    }
    ht_hprof h;
    ht_hprof_summary s;
    if (ht_hprof_open(&h, argv[1]) != HT_HPROF_OK) {
        fprintf(stderr, "%s\n", h.err);
        return 1;
    }
    int rc = ht_hprof_scan(&h, &s);
    if (rc != HT_HPROF_OK) {
        fprintf(stderr, "%s\n", h.err);
        ht_hprof_summary_free(&s);
        ht_hprof_close(&h);
        return 1;
    }
    printf("class,instances\n");
    for (uint32_t i = 0; i < s.nclasses; i++)
        printf("%s,%" PRIu64 "\n", s.classes[i].name, s.classes[i].instances);
    fprintf(stderr, "hprof_counts: JAVA PROFILE 1.0.%d, %u-byte ids, %" PRIu64 " objects\n",
            h.minor, h.id_size, s.objects);
    for (int r = 0; r < HT_REC_COUNT; r++)
        if (s.records[r])
            fprintf(stderr, "  %s: %" PRIu64 "\n", ht_hprof_rec_name(r), s.records[r]);
    for (int k = 0; k < HT_SUB_COUNT; k++)
        if (s.subrecords[k])
            fprintf(stderr, "  %s: %" PRIu64 "\n", ht_hprof_sub_name(k), s.subrecords[k]);
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    return 0;
}
