/*
 * heap_cmd.c - `heaptop heap [A.hprof] FILE.hprof[.gz] --out DIR [--paths
 * CLASS]`: a heap dump analysed without a terminal, into CSV files
 * (export_heap.h); given an older dump A too, compare.csv and survivors.csv
 * (compare.h, export_compare.h): A is read only as far as its class and
 * sample figures need and freed before FILE is.
 *
 * Runs on the main thread, start to end. Checks what it can before the long
 * work: the options, that the file opens and is HPROF, that the output
 * directory takes files.
 */
#include "heap_cmd.h"

#include "analysis.h"
#include "compare.h"
#include "export_compare.h"
#include "export_heap.h"
#include "outdir.h"
#include "paths.h"
#include "snapshot.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop heap [A.hprof] FILE.hprof[.gz] --out DIR [--paths CLASS]\n"
               "                    [--layout LAYOUT]\n"
               "  A.hprof          an older dump of the same JVM: also compare.csv, per class\n"
               "                   name the instances and shallow bytes in A and in FILE\n"
               "                   (class,instances_a,instances_b,bytes_a,bytes_b), the\n"
               "                   biggest change of bytes first; and survivors.csv: per\n"
               "                   allocation site, the objects heaptop's agent sampled that\n"
               "                   are new since A and alive in FILE (leak suspects), alive\n"
               "                   in both, or freed (two dumps the agent took of one run);\n"
               "                   the other files are FILE's\n"
               "  --out DIR        directory for histogram.csv, dominators.csv and\n"
               "                   duplicates.csv (heap_sites.csv: a dump by heaptop's agent)\n"
               "  --paths CLASS    also paths.csv: the shortest path from a GC root of up to\n"
               "                   1000 instances of CLASS (\"demo.Listener\", \"int[]\")\n"
               "  --layout LAYOUT  how the JVM laid objects out, for shallow sizes:\n"
               "                   compressed (the default flags), uncompressed\n"
               "                   (-XX:-UseCompressedOops) or compact\n"
               "                   (-XX:+UseCompactObjectHeaders); default: inferred from\n"
               "                   the dump's addresses\n");
}

const ht_layout *ht_layout_by_name(const char *name)
{
    static const ht_layout *const all[] = {&HT_LAYOUT_COMPRESSED, &HT_LAYOUT_UNCOMPRESSED,
                                           &HT_LAYOUT_COMPACT};
    static const char *const names[] = {"compressed", "uncompressed", "compact"};
    for (unsigned i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) return all[i];
    return NULL;
}

static int write_file(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    return 0;
}

int ht_heap_main(int argc, char **argv)
{
    static const struct option longs[] = {{"out", required_argument, NULL, 'o'},
                                          {"paths", required_argument, NULL, 'p'},
                                          {"layout", required_argument, NULL, 'l'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *out = NULL, *paths_class = NULL;
    const ht_layout *layout = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:p:l:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'p':
            paths_class = optarg;
            break;
        case 'l':
            layout = ht_layout_by_name(optarg);
            if (!layout) {
                fprintf(stderr,
                        "heaptop heap: --layout '%s' is not one of compressed, uncompressed, "
                        "compact\n",
                        optarg);
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        fprintf(stderr, "heaptop heap: %s\n",
                optind >= argc ? "which dump? give one FILE.hprof"
                               : "give one dump file, or two to compare, not more");
        usage(stderr);
        return 2;
    }
    if (!out) {
        fprintf(stderr, "heaptop heap: --out DIR is required (where the CSV files go)\n");
        return 2;
    }
    const char *file = argv[argc - 1], *older = argc - optind == 2 ? argv[optind] : NULL;
    /* what can be checked before the long work: the files are there and are
     * HPROF, the directory takes files */
    ht_hprof probe;
    if (older && ht_hprof_probe(&probe, older) != HT_HPROF_OK) {
        fprintf(stderr, "heaptop heap: %s: %s\n", older, probe.err);
        return 1;
    }
    if (ht_hprof_probe(&probe, file) != HT_HPROF_OK) {
        fprintf(stderr, "heaptop heap: %s: %s\n", file, probe.err);
        return 1;
    }
    char err[512];
    if (ht_outdir_prepare(out, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop heap: --out %s: %s\n", out, err);
        return 1;
    }
    static ht_heap x;
    ht_snapshot_opts opts = {.layout = layout};
    ht_heap_figures before = {0};
    if (older && ht_heap_figures_read(&before, older, &opts, err, sizeof err) != HT_HPROF_OK) {
        fprintf(stderr, "heaptop heap: %s: %s\n", older, err);
        return 1;
    }
    if (ht_heap_load(&x, file, &opts) != HT_HPROF_OK) {
        fprintf(stderr, "heaptop heap: %s: %s\n", file, x.h.err);
        ht_heap_figures_free(&before);
        return 1;
    }
    const ht_snapshot *s = &x.s;
    const ht_dominators *d = &x.d;
    /* the sites' names: the run's, as the dump's marker carries them (for
     * heap_sites.csv and survivors.csv; none without a marker) */
    ht_store names;
    ht_store_init(&names);
    ht_store_from_session(&names, s->sampled.session, s->sampled.session_len);
    printf("%s: %" PRIu32 " objects, %" PRIu64 " bytes, %" PRIu32 " classes, %" PRIu32
           " GC roots, %" PRIu64 " references\n",
           file, s->nobjects, s->total_bytes, s->nclasses, s->nroots, s->nrefs);
    printf("layout: %s (%s; the sizes of %" PRIu64 " of %" PRIu64 " objects sampled agree with "
           "the dump's addresses)\n",
           s->layout->name, s->layout_inferred ? "inferred" : "as given", s->layout_votes,
           s->layout_sampled);
    printf("reachable from GC roots: %" PRIu32 " objects, %" PRIu64 " bytes; unreachable: %" PRIu32
           " objects, %" PRIu64 " bytes\n",
           d->reachable, d->reachable_bytes, s->nobjects - d->reachable, d->unreachable_bytes);
    if (s->dangling)
        printf("references to objects not in the dump, dropped: %" PRIu64 "\n", s->dangling);
    if (s->sampled.n)
        printf("sampled by heaptop's agent: %" PRIu32 " live samples marked, %" PRIu32
               " of them in the dump\n",
               s->sampled.n, s->sampled.present);
    printf("analysed in %.2f s\n", x.load_s);
    printf("duplicates: %" PRIu32 " groups of equal objects (%" PRIu64 " objects) found in %.2f s "
           "of it, %.1f bytes/object at most\n",
           x.dups.ngroups, x.dups.nmembers, x.dups.seconds,
           s->nobjects ? (double)x.dups.peak_bytes / s->nobjects : 0.0);

    int rc = 0;
    char path[4096];
    write_file(out, "histogram.csv", path, sizeof path);
    if (ht_export_histogram(s, x.class_retained, path) != 0) {
        fprintf(stderr, "heaptop heap: cannot write %s: %s\n", path, strerror(errno));
        rc = 1;
    }
    write_file(out, "dominators.csv", path, sizeof path);
    if (!rc && ht_export_dominators(s, d, 1000, path) != 0) {
        fprintf(stderr, "heaptop heap: cannot write %s: %s\n", path, strerror(errno));
        rc = 1;
    }
    write_file(out, "duplicates.csv", path, sizeof path);
    if (!rc && ht_export_duplicates(s, &x.dups, path) != 0) {
        fprintf(stderr, "heaptop heap: cannot write %s: %s\n", path, strerror(errno));
        rc = 1;
    }
    if (!rc && paths_class) {
        uint64_t found = 0;
        write_file(out, "paths.csv", path, sizeof path);
        if (ht_export_paths(s, ht_heap_paths(&x, 0), paths_class, 1000, path, &found) != 0) {
            fprintf(stderr, "heaptop heap: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
        } else if (found == 0) {
            fprintf(stderr, "heaptop heap: --paths %s: no instance of that class in the dump\n",
                    paths_class);
            rc = 1;
        }
    }
    if (!rc && x.sites.n) {
        write_file(out, "heap_sites.csv", path, sizeof path);
        if (ht_export_heap_sites(&x, &names, path) != 0) {
            fprintf(stderr, "heaptop heap: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
        }
    }
    ht_export_survivors_said said = {0};
    if (!rc && older) {
        char spath[4096];
        write_file(out, "compare.csv", path, sizeof path);
        write_file(out, "survivors.csv", spath, sizeof spath);
        if (ht_export_compare_with(&before, s, &names, file, path, spath, &said) != 0) {
            fprintf(stderr, "heaptop heap: cannot write %s or %s: %s\n", path, spath,
                    strerror(errno));
            rc = 1;
        } else if (said.why) {
            printf("survivors: none joined: %s\n", said.why);
        } else {
            printf("survivors: %" PRIu64 " sampled objects allocated after %s still alive, "
                   "%" PRIu64 " alive in both, over %" PRIu32 " allocation sites\n",
                   said.fresh, older, said.kept, said.sites);
        }
    }
    if (!rc)
        printf("wrote %s/histogram.csv, dominators.csv, duplicates.csv%s%s%s\n", out,
               paths_class ? ", paths.csv" : "", x.sites.n ? ", heap_sites.csv" : "",
               older ? ", compare.csv, survivors.csv" : "");
    ht_store_free(&names);
    ht_heap_figures_free(&before);
    ht_heap_free(&x);
    return rc;
}
