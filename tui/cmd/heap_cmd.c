/*
 * heap_cmd.c - `heaptop heap [A.hprof] FILE.hprof[.gz] --out DIR [--paths
 * CLASS] [--scc ..] [--count ..] [--t1 X] [--t2 X]`: a heap dump analysed
 * without a terminal, into CSV files (export_heap.h, and the behaviour
 * ranking's through heap_report.h); given an older dump A too, compare.csv and survivors.csv
 * (compare.h, export_compare.h): A is read only as far as its class and
 * sample figures need and freed before FILE is.
 *
 * Runs on the main thread, start to end. Checks what it can before the long
 * work, each in one line: the options and arguments (nothing surplus), the
 * output directory first (outdir.h: the user's own, takes files; the files
 * are 0600, written through its one writer), then that the files open and
 * are HPROF. Paths in messages are shown escaped (shown.h).
 */
#include "heap_cmd.h"

#include "analysis.h"
#include "compare.h"
#include "export_compare.h"
#include "export_heap.h"
#include "heap_report.h"
#include "layout.h"
#include "outdir.h"
#include "paths.h"
#include "shown.h"
#include "snapshot.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop heap [A.hprof] FILE.hprof[.gz] --out DIR [--paths CLASS]\n"
               "                    [--layout LAYOUT] [--scc literal|none]\n"
               "                    [--count distinct|raw] [--t1 X] [--t2 X]\n"
               "  A.hprof          an older dump of the same JVM: also compare.csv, per class\n"
               "                   name the instances and shallow bytes in A and in FILE\n"
               "                   (class,instances_a,instances_b,bytes_a,bytes_b), the\n"
               "                   biggest change of bytes first; and survivors.csv: per\n"
               "                   allocation site, the objects heaptop's agent sampled that\n"
               "                   are new since A and alive in FILE (leak suspects), alive\n"
               "                   in both, or freed (two dumps the agent took of one run);\n"
               "                   the other files are FILE's\n"
               "  --out DIR        directory for histogram.csv, dominators.csv,\n"
               "                   duplicates.csv, behaviour.csv and behaviour_edges.csv\n"
               "                   (heap_sites.csv: a dump by heaptop's agent), files 0600;\n"
               "                   created if missing; it must be your own (not a symlink)\n"
               "                   and not writable by others unless sticky\n"
               "  --paths CLASS    also paths.csv: the shortest path from a GC root of up to\n"
               "                   1000 instances of CLASS (\"demo.Listener\", \"int[]\")\n"
               "  --layout LAYOUT  how the JVM laid objects out, for shallow sizes:\n"
               "                   compressed (the default flags), uncompressed\n"
               "                   (-XX:-UseCompressedOops) or compact\n"
               "                   (-XX:+UseCompactObjectHeaders); default: inferred from\n"
               "                   the dump's addresses\n"
               "  behaviour.csv ranks the object-group reference graph's nodes (a class, or\n"
               "  Cycle_N: object cycles of the same classes) by MCC = MC x (MD + MC);\n"
               "  behaviour_edges.csv has its edges (docs/behaviour.md):\n"
               "  --scc literal|none     object-level cycles collapsed into Cycle_N nodes\n"
               "                         (literal, the default) or not (none)\n"
               "  --count distinct|raw   DR from the distinct objects referenced (default)\n"
               "                         or from the references (raw, the paper's count)\n"
               "  --t1 X           forward threshold on DR, for branches, coverage and\n"
               "                   flagged (0 < X <= 1, default 0.1)\n"
               "  --t2 X           backward threshold on CR, for the top node's backward\n"
               "                   paths told on the summary line (0 < X <= 1, default 0.1)\n");
}

/* On JDK 19 and later (jdk.internal.vm.FillerObject is among the classes)
 * HotSpot writes the dead space between objects into a dump as int[] that
 * nothing refers to (its fillers: heapDumper.cpp writes every object the heap
 * walk meets, and a filler array is a type array of ints, which
 * `jcmd GC.class_histogram` names jdk.internal.vm.FillerElement[]). The
 * unreachable int[] of such a dump, counted into *n and *bytes; 0 for a dump
 * of an older JDK. In a live dump they are those fillers (with class data
 * sharing a few archived empty int[] as well); in an -all dump garbage too. */
static int filler_ints(const ht_snapshot *s, const ht_dominators *d, uint64_t *n, uint64_t *bytes)
{
    int jdk19 = 0;
    for (uint32_t c = 0; c < s->nclasses && !jdk19; c++)
        jdk19 = s->classes[c].loader == HT_NONE &&
                strcmp(s->classes[c].name, "jdk.internal.vm.FillerObject") == 0;
    *n = *bytes = 0;
    if (!jdk19) return 0;
    for (uint32_t o = 0; o < s->nobjects; o++)
        if (d->idom[o] == HT_NONE && s->kind[o] == HT_OBJ_PRIM_ARRAY &&
            s->classes[s->cls[o]].prim_type == HT_TYPE_INT) {
            (*n)++;
            *bytes += ht_snapshot_shallow(s, o);
        }
    return 1;
}

/* A threshold: a number in (0, 1], nothing after it. */
static int threshold(const char *text, double *t)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v <= 0 || v > 1) return -1;
    *t = v;
    return 0;
}

static int write_file(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    return 0;
}

/* One line for a file that could not be written (nothing is left at its
 * name: outdir.h). */
static void cannot_write(const char *path)
{
    int e = errno ? errno : EIO;
    char shown[HT_SHOWN_MAX];
    fprintf(stderr, "heaptop heap: cannot write %s: %s\n", ht_shown(path, shown, sizeof shown),
            strerror(e));
}

int ht_heap_main(int argc, char **argv)
{
    static const struct option longs[] = {{"out", required_argument, NULL, 'o'},
                                          {"paths", required_argument, NULL, 'p'},
                                          {"layout", required_argument, NULL, 'l'},
                                          {"scc", required_argument, NULL, 's'},
                                          {"count", required_argument, NULL, 'c'},
                                          {"t1", required_argument, NULL, '1'},
                                          {"t2", required_argument, NULL, '2'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *out = NULL, *paths_class = NULL;
    const ht_layout *layout = NULL;
    ht_bhv_report_opts bo = HT_BHV_REPORT_DEFAULTS;
    char shown[HT_SHOWN_MAX];
    int c;
    optind = 1;
    opterr = 0; /* its own one line, below, not getopt's */
    while ((c = getopt_long(argc, argv, "o:p:l:s:c:1:2:h", longs, NULL)) != -1) {
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
                        ht_shown(optarg, shown, sizeof shown));
                return 2;
            }
            break;
        case 's':
        case 'c': {
            const char *a = c == 's' ? "literal" : "distinct", *b = c == 's' ? "none" : "raw";
            if (strcmp(optarg, a) != 0 && strcmp(optarg, b) != 0) {
                fprintf(stderr, "heaptop heap: --%s '%s' is not one of %s, %s\n",
                        c == 's' ? "scc" : "count", ht_shown(optarg, shown, sizeof shown), a, b);
                return 2;
            }
            *(c == 's' ? &bo.o.scc_none : &bo.o.count_raw) = strcmp(optarg, b) == 0;
            break;
        }
        case '1':
        case '2':
            if (threshold(optarg, c == '1' ? &bo.t1 : &bo.t2) != 0) {
                fprintf(stderr, "heaptop heap: --t%c '%s' is not a number in (0, 1]\n", c,
                        ht_shown(optarg, shown, sizeof shown));
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            /* optopt: the option whose value is missing; 0 for an unknown long one */
            fprintf(stderr, "heaptop heap: '%s' %s (heaptop heap --help lists the options)\n",
                    ht_shown(argv[optind - 1], shown, sizeof shown),
                    optopt && strchr("oplsc12", optopt) ? "needs a value" : "is not an option");
            return 2;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        if (optind < argc) ht_shown(argv[optind + 2], shown, sizeof shown);
        fprintf(stderr, "heaptop heap: %s%s%s\n",
                optind >= argc ? "which dump? give one FILE.hprof (heaptop heap --help)"
                               : "give one dump file, or two to compare, not more: '",
                optind >= argc ? "" : shown, optind >= argc ? "" : "' is one too many");
        return 2;
    }
    if (!out) {
        fprintf(stderr, "heaptop heap: --out DIR is required (where the CSV files go)\n");
        return 2;
    }
    const char *file = argv[argc - 1], *older = argc - optind == 2 ? argv[optind] : NULL;
    /* what can be checked before the long work: the directory first (it is
     * the user's own and takes files), then the files are there and HPROF */
    char err[HT_SHOWN_MAX + 512], made[4096];
    if (ht_outdir_prepare_for(out, geteuid(), made, sizeof made, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop heap: --out: %s\n", err);
        return 2;
    }
    ht_hprof probe;
    const char *bad = older && ht_hprof_probe(&probe, older) != HT_HPROF_OK ? older
                      : ht_hprof_probe(&probe, file) != HT_HPROF_OK         ? file
                                                                            : NULL;
    if (bad) {
        fprintf(stderr, "heaptop heap: %s: %s\n", ht_shown(bad, shown, sizeof shown),
                ht_shown(probe.err, err, sizeof err));
        ht_outdir_unmake(out, made); /* a command that cannot run leaves nothing */
        return 1;
    }
    static ht_heap x;
    ht_snapshot_opts opts = {.layout = layout};
    ht_heap_figures before = {0};
    if (older && ht_heap_figures_read(&before, older, &opts, err, sizeof err) != HT_HPROF_OK) {
        char why[HT_SHOWN_MAX];
        fprintf(stderr, "heaptop heap: %s: %s\n", ht_shown(older, shown, sizeof shown),
                ht_shown(err, why, sizeof why));
        return 1;
    }
    if (ht_heap_load(&x, file, &opts) != HT_HPROF_OK) {
        fprintf(stderr, "heaptop heap: %s: %s\n", ht_shown(file, shown, sizeof shown),
                ht_shown(x.h.err, err, sizeof err));
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
           ht_shown(file, shown, sizeof shown), s->nobjects, s->total_bytes, s->nclasses, s->nroots,
           s->nrefs);
    printf("layout: %s (%s; the sizes of %" PRIu64 " of %" PRIu64 " objects sampled agree with "
           "the dump's addresses)\n",
           s->layout->name, s->layout_inferred ? "inferred" : "as given", s->layout_votes,
           s->layout_sampled);
    printf("reachable from GC roots: %" PRIu32 " objects, %" PRIu64 " bytes; unreachable: %" PRIu32
           " objects, %" PRIu64 " bytes\n",
           d->reachable, d->reachable_bytes, s->nobjects - d->reachable, d->unreachable_bytes);
    uint64_t fill_n, fill_b;
    if (filler_ints(s, d, &fill_n, &fill_b))
        printf("unreachable int[]: %" PRIu64 " objects, %" PRIu64 " bytes (counted in int[]): "
               "JDK 19 and later write the dead space between objects into a dump as int[] "
               "nothing refers to (jdk.internal.vm.FillerElement[] in jcmd GC.class_histogram); "
               "in a live dump these are those fillers, with class data sharing also a few "
               "archived empty int[]\n",
               fill_n, fill_b);
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
        cannot_write(path);
        rc = 1;
    }
    write_file(out, "dominators.csv", path, sizeof path);
    if (!rc && ht_export_dominators(s, d, 1000, path) != 0) {
        cannot_write(path);
        rc = 1;
    }
    write_file(out, "duplicates.csv", path, sizeof path);
    if (!rc && ht_export_duplicates(s, &x.dups, path) != 0) {
        cannot_write(path);
        rc = 1;
    }
    if (!rc && paths_class) {
        ht_paths_found found;
        write_file(out, "paths.csv", path, sizeof path);
        if (ht_export_paths(s, ht_heap_paths(&x, 0), d, paths_class, 1000, path, &found) != 0) {
            cannot_write(path);
            rc = 1;
        } else if (found.instances == 0) {
            fprintf(stderr, "heaptop heap: --paths %s: no instance of that class in the dump\n",
                    ht_shown(paths_class, shown, sizeof shown));
            rc = 1;
        } else {
            printf("paths: %" PRIu64 " of %" PRIu64 " instances of %s; %" PRIu64
                   " of them a GC root reaches, listed first\n",
                   found.written, found.instances, ht_shown(paths_class, shown, sizeof shown),
                   found.reached);
        }
    }
    if (!rc && x.sites.n) {
        write_file(out, "heap_sites.csv", path, sizeof path);
        if (ht_export_heap_sites(&x, &names, path) != 0) {
            cannot_write(path);
            rc = 1;
        }
    }
    ht_bhv_report_said bs = {0};
    if (!rc && ht_heap_report_behaviour(&x, &bo, out, &bs, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop heap: %s\n", err);
        rc = 1;
    } else if (!rc) {
        ht_heap_report_say(stdout, "", &bo, &bs);
    }
    ht_export_survivors_said said = {0};
    if (!rc && older) {
        char spath[4096];
        write_file(out, "compare.csv", path, sizeof path);
        write_file(out, "survivors.csv", spath, sizeof spath);
        if (ht_export_compare_with(&before, s, &names, file, path, spath, &said) != 0) {
            char shown2[HT_SHOWN_MAX];
            fprintf(stderr, "heaptop heap: cannot write %s or %s: %s\n",
                    ht_shown(path, shown, sizeof shown), ht_shown(spath, shown2, sizeof shown2),
                    strerror(errno ? errno : EIO));
            rc = 1;
        } else if (said.why) {
            printf("survivors: none joined: %s\n", said.why);
        } else {
            printf("survivors: %" PRIu64 " sampled objects allocated after %s still alive, "
                   "%" PRIu64 " alive in both, over %" PRIu32 " allocation sites\n",
                   said.fresh, ht_shown(older, shown, sizeof shown), said.kept, said.sites);
        }
    }
    if (!rc)
        printf("wrote %s/histogram.csv, dominators.csv, duplicates.csv, behaviour.csv, "
               "behaviour_edges.csv%s%s%s\n",
               ht_shown(out, shown, sizeof shown), paths_class ? ", paths.csv" : "",
               x.sites.n ? ", heap_sites.csv" : "", older ? ", compare.csv, survivors.csv" : "");
    ht_store_free(&names);
    ht_heap_figures_free(&before);
    ht_heap_free(&x);
    return rc;
}
