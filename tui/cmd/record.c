/* record.c - see record.h. */
#include "record.h"

#include "bytesize.h"
#include "client.h"
#include "clock.h"
#include "export_cpu.h"
#include "export_drag.h"
#include "export_csv.h"
#include "heap_report.h"
#include "outdir.h"
#include "proc.h"
#include "reach.h"
#include "record_report.h"
#include "run.h"
#include "shown.h"
#include "source_lines.h"
#include "target.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* Bounds of the numeric options. */
#define MAX_SECONDS    (365u * 24 * 3600) /* a year */
#define MAX_TOP        100000u
#define MAX_TIMEOUT_MS (3600u * 1000) /* an hour */

/* Now, in ms since the agent started (its hello gave the wall-clock start). */
static uint64_t agent_ms(const ht_store *s)
{
    uint64_t wall = ht_clock_ns(CLOCK_REALTIME) / 1000000u;
    return wall > s->info.start_epoch_ms ? wall - s->info.start_epoch_ms : 0;
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: heaptop record (--ipc PATH [--key FILE] | PID) [--seconds N] [--out DIR] [--top N] "
        "[--timeout MS] [--heap [--keep]]\n"
        "               [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
        "               [--source PATH[:PATH...]]\n"
        "       heaptop record [options] [--log FILE] -- java ARGS...\n"
        "  -- java ARGS  start the program under the agent and record it until it\n"
        "                exits (--seconds or Ctrl-C stop it); its stdout and stderr\n"
        "                go to --log FILE (default: a new file in --out); a script\n"
        "                that starts java (jython, catalina.sh run): its first JVM,\n"
        "                given the agent through JAVA_TOOL_OPTIONS\n"
        "  --ipc PATH    the agent's socket base path (the agent's ipc= option), or\n"
        "                tcp://HOST:PORT for an agent started with listen=\n"
        "  --key FILE    the agent's key, for tcp:// (BASE.key beside its sockets)\n"
        "  PID           a JVM whose agent uses the default socket path; a JVM without\n"
        "                heaptop's agent gets it loaded first (attached)\n"
        "  --agent PATH  the libheaptop.so to attach (default: next to heaptop)\n"
        "  --interval BYTES, --agent-opts K=V,...  the attached agent's options\n"
        "                (-agentpath:...=help lists them); checked before attaching\n"
        "  --seconds N   stop after N whole seconds, at most a year (default 0: when\n"
        "                the JVM exits or on Ctrl-C)\n"
        "  --out DIR     directory for sites.csv, classes.csv, telemetry.csv,\n"
        "                cpu.csv, threads.csv, summary.csv and, when drag mode saw\n"
        "                sites, drag.csv (files 0600), created if missing (default .);\n"
        "                it must be your own (not a symlink), and not writable by\n"
        "                others unless sticky\n"
        "  --top N       sites printed at the end (default 10, 0 for none)\n"
        "  --timeout MS  how long to wait for the agent to answer (default 10000)\n"
        "  --mark-begin-after S  Begin a mark S whole seconds into the recording\n"
        "  --mark-end-after S    End it S seconds in (after the Begin; without\n"
        "                --mark-begin-after the mark begins at once): the diff\n"
        "                columns then hold exactly that phase\n"
        "  --heap        at the end, have the JVM write a heap dump of its live objects\n"
        "                and analyse it into histogram.csv, dominators.csv,\n"
        "                duplicates.csv, behaviour.csv and behaviour_edges.csv\n"
        "                beside sites.csv; the dump (it holds the heap's contents)\n"
        "                is then removed\n"
        "  --keep        with --heap: keep the dump, and say where it is\n"
        "  --source PATH[:PATH...]  also write lines.csv: each source line the\n"
        "                samples' stacks pass through, its allocation bytes, CPU ms\n"
        "                and text, the files found in these directories and\n"
        "                .jar/.zip files of sources, then in the JDK's src.zip\n");
}

/* A numeric option: a whole number in [min, max], or one line naming it and -1. */
static int parse_option(const char *name, const char *text, uint64_t min, uint64_t max,
                        const char *meaning, uint64_t *out)
{
    uint64_t v;
    int rc = ht_parse_count(text, max, &v, NULL, 0);
    if (rc == HT_NUM_OK && v >= min) {
        *out = v;
        return 0;
    }
    fprintf(stderr, "heaptop record: bad %s '%s': %s (expected %s, %" PRIu64 "..%" PRIu64 ")\n",
            name, text, rc == HT_NUM_SYNTAX ? "not a whole number" : "out of range", meaning, min,
            max);
    return -1;
}

/* Every file into dir; 0, or -1 after saying what failed (a file that
 * failed is not written at all: outdir.h). */
static int write_set(const ht_store *s, const ht_summary_span *span, const char *dir)
{
    char err[HT_SHOWN_MAX + 512], shown[HT_SHOWN_MAX];
    if (ht_outdir_prepare(dir, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: %s\n", err);
        return -1;
    }
    static const char *const names[] = {"sites.csv",   "classes.csv", "telemetry.csv", "cpu.csv",
                                        "threads.csv", "summary.csv", "drag.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (i == 6 && !s->ndrag_rows) break; /* drag.csv only when drag mode saw sites */
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        errno = 0;
        int rc = i == 0   ? ht_export_sites(s, path)
                 : i == 1 ? ht_export_classes(s, path)
                 : i == 2 ? ht_export_telemetry(s, path, NULL)
                 : i == 3 ? ht_export_cpu(s, path, NULL, NULL)
                 : i == 4 ? ht_export_cpu_threads(s, path, 0, NULL)
                 : i == 5 ? ht_export_summary(s, span, path)
                          : ht_export_drag(s, path, NULL, NULL);
        ht_shown(path, shown, sizeof shown);
        if (rc != 0) {
            ht_outdir_why(dir, errno ? errno : EIO, err, sizeof err);
            fprintf(stderr, "heaptop record: %s (%s)\n", err, names[i]);
            return -1;
        }
        fprintf(stderr, "heaptop record: wrote %s\n", shown);
    }
    return 0;
}

/* Write to dir; when that fails, everything goes to a private fallback
 * directory so nothing recorded is lost. 0 only when dir got every file;
 * `used` is where the files went ("" when nowhere). */
static int write_all(const ht_store *s, const ht_summary_span *span, const char *dir, char *used,
                     size_t usedn)
{
    snprintf(used, usedn, "%s", dir);
    if (write_set(s, span, dir) == 0) return 0;
    char fallback[4096], err[HT_SHOWN_MAX + 512] = "", shown[HT_SHOWN_MAX];
    if (ht_outdir_fallback(fallback, sizeof fallback, "record", (int)s->info.pid, err,
                           sizeof err) != 0 ||
        write_set(s, span, fallback) != 0) {
        fprintf(stderr, "heaptop record: the recording could not be saved anywhere (%s)\n", err);
        used[0] = '\0';
        return -1;
    }
    fprintf(stderr, "heaptop record: could not write to %s; saved the recording in %s instead\n",
            ht_shown(dir, shown, sizeof shown), fallback);
    snprintf(used, usedn, "%s", fallback);
    return -1;
}

static void dump_progress(void *ctx, const ht_dump_info *d)
{
    (void)ctx;
    fprintf(stderr, "heaptop record: heap dump %" PRIu64 " being written, %.1f s\n", d->id,
            (double)d->elapsed_ms / 1000.0);
}

/* Why the stream ended, in the agent's own words when it said goodbye: "the
 * JVM exited", "the agent detached" (client.h). */
static const char *ended_why(const ht_client *c, char *buf, size_t n)
{
    const char *bye = ht_client_goodbye(c);
    if (c->state != HT_CONN_EXITED) return "the JVM went away without a goodbye";
    snprintf(buf, n, "the %s", bye ? bye : "JVM exited");
    return buf;
}

/* --heap: a dump of the live objects now, analysed into dir, then removed
 * unless kept. 0, or -1 after saying what failed. */
static int take_heap(ht_client *c, const char *dir, int keep)
{
    char err[4096];
    if (c->state != HT_CONN_LIVE) {
        char buf[128];
        fprintf(stderr, "heaptop record: no heap dump: %s\n", ended_why(c, buf, sizeof buf));
        return -1;
    }
    fprintf(stderr, "heaptop record: asking the JVM for a heap dump of its live objects "
                    "(Ctrl-C stops waiting)\n");
    g_stop = 0; /* a Ctrl-C that ended the recording; the next one stops the wait */
    ht_dump_info d;
    if (ht_client_heap_dump(c, keep ? HT_DUMP_KEEP : 0, &d, dump_progress, NULL, &g_stop, err,
                            sizeof err) != 0) {
        fprintf(stderr, "heaptop record: no heap dump: %s\n", err);
        return -1;
    }
    fprintf(stderr,
            "heaptop record: heap dump %" PRIu64 " written: %s, %" PRIu64 " bytes; the JVM "
            "took %" PRIu64 " ms (it stops for the dump)\n",
            d.id, d.path, d.bytes, d.elapsed_ms);
    /* read only a file proven to be the dump asked for (dump_file.h) */
    ht_dump_file f;
    if (ht_client_dump_file(c, &d, &f, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: %s\n", err);
        return -1;
    }
    int rc = 0;
    uint32_t sites = 0;
    ht_bhv_report_said said = {0};
    if (ht_heap_report(f.path, dir, &sites, &said, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: cannot analyse the heap dump: %s\n", err);
        rc = -1;
    } else {
        fprintf(stderr, "heaptop record: wrote %s/histogram.csv\n", dir);
        fprintf(stderr, "heaptop record: wrote %s/dominators.csv\n", dir);
        if (sites)
            fprintf(stderr,
                    "heaptop record: wrote %s/heap_sites.csv (%" PRIu32 " allocation sites of "
                    "the %" PRIu64 " sampled objects marked in the dump)\n",
                    dir, sites, d.marked);
        else
            fprintf(stderr, "heaptop record: no sampled object was marked in the dump, so no "
                            "heap_sites.csv (live=off, or none sampled yet)\n");
        fprintf(stderr, "heaptop record: wrote %s/duplicates.csv\n", dir);
        fprintf(stderr, "heaptop record: wrote %s/behaviour.csv\n", dir);
        fprintf(stderr, "heaptop record: wrote %s/behaviour_edges.csv\n", dir);
        ht_bhv_report_opts bo = HT_BHV_REPORT_DEFAULTS; /* as heaptop heap says them */
        ht_heap_report_say(stderr, "heaptop record: ", &bo, &said);
    }
    if (keep)
        fprintf(stderr, "heaptop record: kept the heap dump %s (it holds the heap's contents)\n",
                f.shown);
    else if (rc != 0) /* removed only once read */
        fprintf(stderr,
                "heaptop record: left the heap dump %s (the agent removes it when the JVM "
                "exits)\n",
                f.shown);
    else if (ht_dump_file_remove(&f, err, sizeof err) == 0)
        fprintf(stderr, "heaptop record: removed the heap dump %s\n", f.shown);
    else
        fprintf(stderr, "heaptop record: %s (the agent removes it when the JVM exits)\n", err);
    ht_dump_file_close(&f);
    return rc;
}

int ht_record_main(int argc, char **argv)
{
    const char *ipc = NULL, *out = ".", *log = NULL, *key = NULL;
    uint64_t seconds = 0, top = 10, timeout_ms = 10000;
    uint64_t mark_begin = UINT64_MAX, mark_end = UINT64_MAX; /* seconds in; MAX = none */
    int heap = 0, keep = 0;
    static ht_source_path source; /* --source: checked as given, before recording */
    static const struct option longopts[] = {{"ipc", required_argument, 0, 'i'},
                                             {"seconds", required_argument, 0, 's'},
                                             {"out", required_argument, 0, 'o'},
                                             {"top", required_argument, 0, 't'},
                                             {"timeout", required_argument, 0, 'T'},
                                             {"mark-begin-after", required_argument, 0, 'B'},
                                             {"mark-end-after", required_argument, 0, 'E'},
                                             {"heap", no_argument, 0, 'H'},
                                             {"keep", no_argument, 0, 'K'},
                                             {"help", no_argument, 0, 'h'},
                                             {"agent", required_argument, 0, 'A'},
                                             {"interval", required_argument, 0, 'A'},
                                             {"agent-opts", required_argument, 0, 'A'},
                                             {"log", required_argument, 0, 'L'},
                                             {"key", required_argument, 0, 'k'},
                                             {"source", required_argument, 0, 'S'},
                                             {0, 0, 0, 0}};
    ht_reach_opts reach = {0};
    int which = 0;
    optind = 1;
    opterr = 0; /* its own one line, below, not getopt's */
    int ch;
    while ((ch = getopt_long(argc, argv, "i:s:o:t:T:B:E:h", longopts, &which)) != -1) {
        int rc = 0;
        switch (ch) {
        case 'A': { /* one of the attach options (reach.h), by its long name */
            char flag[32];
            snprintf(flag, sizeof flag, "--%s", longopts[which].name);
            ht_reach_set(&reach, flag, optarg);
            break;
        }
        case 'i':
            ipc = optarg;
            break;
        case 'L':
            log = optarg;
            break;
        case 'k':
            key = optarg;
            break;
        case 'S': {
            char why[HT_SHOWN_MAX + 512], shown[HT_SHOWN_MAX];
            rc = ht_source_path_parse(&source, optarg, why, sizeof why);
            if (rc != 0)
                fprintf(stderr, "heaptop record: %s\n", ht_shown(why, shown, sizeof shown));
            break;
        }
        case 'o':
            out = optarg;
            break;
        case 's':
            rc = parse_option("--seconds", optarg, 0, MAX_SECONDS,
                              "whole seconds, 0 = until the JVM exits", &seconds);
            break;
        case 't':
            rc = parse_option("--top", optarg, 0, MAX_TOP, "a number of sites", &top);
            break;
        case 'T':
            rc = parse_option("--timeout", optarg, 1, MAX_TIMEOUT_MS, "milliseconds", &timeout_ms);
            break;
        case 'B':
            rc = parse_option("--mark-begin-after", optarg, 0, MAX_SECONDS, "whole seconds",
                              &mark_begin);
            break;
        case 'E':
            rc = parse_option("--mark-end-after", optarg, 1, MAX_SECONDS, "whole seconds",
                              &mark_end);
            break;
        case 'H':
            heap = 1;
            break;
        case 'K':
            keep = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            /* optopt: the option whose value is missing (a long one's val
             * too); 0 for an unknown long option */
            fprintf(stderr, "heaptop record: '%s' %s (heaptop record --help lists the options)\n",
                    argv[optind - 1],
                    optopt && strchr("isotTBEALS", optopt) ? "needs a value" : "is not an option");
            return 2;
        }
        if (rc != 0) return 2;
    }
    /* Everything that can be checked is checked before connecting. */
    if (keep && !heap) {
        fprintf(stderr, "heaptop record: --keep keeps the heap dump of --heap: give --heap too\n");
        return 2;
    }
    if (mark_end != UINT64_MAX && mark_begin == UINT64_MAX) mark_begin = 0;
    if (mark_begin != UINT64_MAX && mark_end != UINT64_MAX && mark_end <= mark_begin) {
        fprintf(stderr,
                "heaptop record: --mark-end-after %" PRIu64 " is not after --mark-begin-after "
                "%" PRIu64 "\n",
                mark_end, mark_begin);
        return 2;
    }
    uint64_t last_mark = mark_end != UINT64_MAX ? mark_end : mark_begin;
    if (seconds && last_mark != UINT64_MAX && last_mark >= seconds) {
        fprintf(stderr,
                "heaptop record: the mark (at %" PRIu64 " s) would come after the recording "
                "ends (--seconds %" PRIu64 ")\n",
                last_mark, seconds);
        return 2;
    }
    ht_target target;
    char err[HT_SHOWN_MAX + 512], shown[HT_SHOWN_MAX];
    /* -- java ARGS: heaptop starts the program (run.h) */
    int launching = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
    /* one target: a PID, or none after --ipc; anything more is refused */
    int surplus = optind + (ipc ? 0 : 1);
    if (!launching && surplus < argc) {
        fprintf(stderr,
                "heaptop record: unexpected argument '%s': give one target (PID or --ipc "
                "PATH), then options\n",
                ht_shown(argv[surplus], shown, sizeof shown));
        return 2;
    }
    static ht_launch launch;
    if ((launching && ipc) || (log && !launching)) {
        fprintf(stderr, "heaptop record: %s\n",
                ipc ? "--ipc names an agent that runs, -- java ... starts one: give one of them"
                    : "--log is the log of a program heaptop starts: give -- java ARGS...");
        return 2;
    }
    if (!launching && !ipc && optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (!launching && ((ipc ? ht_target_from_ipc(&target, ipc, err, sizeof err)
                            : ht_target_from_pid(&target, argv[optind], err, sizeof err)) != 0 ||
                       ht_target_set_key(&target, key, err, sizeof err) != 0)) {
        fprintf(stderr, "heaptop record: %s\n", ht_shown(err, shown, sizeof shown));
        return 2;
    }
    reach.timeout_ms = (int)timeout_ms;
    if ((launching && ht_launch_check(argc - optind, argv + optind, err, sizeof err) < 0) ||
        ht_reach_check(&reach, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: %s\n", ht_shown(err, shown, sizeof shown));
        return 2;
    }
    /* --out before anything touches the JVM: a directory of the user who
     * runs heaptop (one made here goes again if the command cannot run).
     * Root recording another user's JVM goes on as that user (reach.h), and
     * the files are still root's: the directory is kept open from now
     * (outdir.h). */
    char made[4096];
    if (ht_outdir_prepare_for(out, geteuid(), made, sizeof made, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: --out: %s\n", err);
        return 2;
    }
    if (!launching && target.owner != geteuid() && ht_outdir_keep(out, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: --out: %s\n", err);
        ht_outdir_unmake(out, made);
        return 2;
    }
    if (!launching &&
        ht_reach(&target, &reach, "heaptop record", err, sizeof err) != HT_TARGET_READY) {
        fprintf(stderr, "heaptop record: %s\n", ht_shown(err, shown, sizeof shown));
        ht_outdir_unmake(out, made);
        return 1;
    }
    if (launching) {
        int rc = ht_run_launch("heaptop record", argc - optind, argv + optind, &reach, log, out, 0,
                               timeout_ms > 30000 ? (int)timeout_ms : 30000, &launch);
        if (rc != 0) {
            ht_outdir_unmake(out, made); /* removed only while empty: not with the log in it */
            return rc;
        }
        ht_target_from_ipc(&target, launch.base, err, sizeof err);
    }

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    ht_client c;
    if (ht_client_open(&c, &target, (int)timeout_ms, HT_CLIENT_STREAM, err, sizeof err) != 0) {
        ht_client_close(&c);
        if (launching) { /* the program ended as heaptop connected: say how */
            for (int i = 0; i < 250 && !ht_launch_poll(&launch); i++) {
                struct timespec nap = {0, 20 * 1000000L};
                nanosleep(&nap, NULL);
            }
            if (ht_launch_poll(&launch)) {
                ht_launch_say_end(&launch, "heaptop record", 0, stderr);
                ht_launch_close(&launch);
                return 0;
            }
        }
        fprintf(stderr, "heaptop record: %s\n", ht_shown(err, shown, sizeof shown));
        ht_outdir_unmake(out, made);
        return 1;
    }
    ht_summary_span span = {.start_ms = agent_ms(&c.store)};
    char until[64] = "until the JVM exits";
    if (seconds) snprintf(until, sizeof until, "for %" PRIu64 " s", seconds);
    fprintf(stderr, "heaptop record: recording pid %u (%s) into %s %s; Ctrl-C stops\n",
            c.store.info.pid, c.store.info.main_class ? c.store.info.main_class : "?",
            ht_shown(out, shown, sizeof shown), until);
    uint64_t started = ht_mono_ms();
    uint64_t deadline = seconds > 0 ? started + seconds * 1000u : UINT64_MAX;
    while (!g_stop && ht_mono_ms() < deadline) {
        /* scripted marks, at whole seconds into the recording */
        uint64_t in_s = (ht_mono_ms() - started) / 1000u;
        int op = mark_begin != UINT64_MAX && in_s >= mark_begin ? HT_MARK_BEGIN
                 : mark_begin == UINT64_MAX && mark_end != UINT64_MAX && in_s >= mark_end
                     ? HT_MARK_END
                     : 0;
        if (op && c.state == HT_CONN_LIVE) {
            uint64_t state = 0;
            if (ht_client_command(&c, HT_MSG_MARK_REQ, (uint64_t)op, &state, err, sizeof err) != 0)
                fprintf(stderr, "heaptop record: the mark failed: %s\n", err);
            else
                fprintf(stderr, "heaptop record: mark %s at %" PRIu64 " s\n",
                        op == HT_MARK_BEGIN ? "begun" : "ended", in_s);
            if (op == HT_MARK_BEGIN)
                mark_begin = UINT64_MAX; /* done; the End (if any) is next */
            else
                mark_end = UINT64_MAX;
        }
        if (ht_client_poll(&c, 100) < 0) break;
    }
    const char *why = "time is up";
    char ended[128];
    if (c.state == HT_CONN_LIVE) {
        /* Still connected: one last sync gives the totals as of now. */
        if (ht_client_sync(&c, err, sizeof err) != 0)
            fprintf(stderr, "heaptop record: final sync failed (%s); writing what arrived\n", err);
        if (g_stop) why = "interrupted";
    } else {
        why = ended_why(&c, ended, sizeof ended);
    }
    span.end_ms = agent_ms(&c.store);
    span.missed = c.missed;
    fprintf(stderr,
            "heaptop record: stopped (%s); %u sites, %u telemetry rows, %llu stream "
            "messages received, %llu stream messages missed, %llu resyncs\n",
            why, c.store.nrows, c.store.ntelemetry, (unsigned long long)c.received,
            (unsigned long long)c.missed, (unsigned long long)c.resyncs);
    ht_record_report_drops(&c.store);
    ht_record_report_cpu(&c.store);
    ht_record_report_drag(&c.store);
    char used[4096];
    int rc = write_all(&c.store, &span, out, used, sizeof used) == 0 ? 0 : 1;
    ht_record_print_top(&c.store, (int)top);
    if (heap && used[0] && take_heap(&c, used, keep) != 0) rc = 1;
    if (source.n && used[0]) { /* lines.csv, beside the other files */
        int lines =
            ht_source_lines_write(&c.store, &source, c.state == HT_CONN_LIVE ? c.store.info.pid : 0,
                                  used, err, sizeof err);
        fprintf(stderr, "heaptop record: %s\n", err);
        if (lines != 0) rc = 1;
    }
    if (launching) { /* the program heaptop started: stopped unless it ended by itself */
        /* after the agent's goodbye the JVM is on its way out: give it 5 s */
        for (int i = 0; c.state == HT_CONN_EXITED && i < 250 && !ht_launch_poll(&launch); i++)
            nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
        int stopped = !ht_launch_poll(&launch);
        if (stopped) {
            fprintf(stderr, "heaptop record: stopping pid %d (SIGTERM, SIGKILL after 5 s)\n",
                    (int)launch.pid);
            ht_launch_stop(&launch, 5000);
        }
        ht_launch_say_end(&launch, "heaptop record", stopped, stderr);
        ht_launch_close(&launch);
    }
    ht_client_close(&c);
    return rc;
}
