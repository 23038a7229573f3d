/* record.c - see record.h. */
#include "record.h"

#include "client.h"
#include "export_csv.h"
#include "target.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop record (--ipc PATH | PID) [--seconds N] [--out DIR] [--top N] "
               "[--timeout MS]\n"
               "  --ipc PATH    the agent's socket base path (the agent's ipc= option)\n"
               "  PID           a JVM whose agent uses the default socket path\n"
               "  --seconds N   stop after N seconds (default: when the JVM exits)\n"
               "  --out DIR     directory for sites.csv, classes.csv, telemetry.csv "
               "(default .)\n"
               "  --top N       sites printed at the end (default 10, 0 for none)\n"
               "  --timeout MS  how long to wait for the agent to answer (default 10000)\n");
}

static void human_bytes(double v, char *out, size_t n)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(out, n, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void print_top(const ht_store *s, int top)
{
    if (top <= 0) return;
    double total = 0;
    for (uint32_t i = 0; i < s->nrows; i++)
        total += s->rows[i].est_bytes;
    char tb[32];
    human_bytes(total, tb, sizeof tb);
    printf("Top allocation sites (estimated from %u sites, %s in all):\n", s->nrows, tb);
    printf("%10s %6s %12s %10s  %-28s %s\n", "est_bytes", "%", "est_inst", "live", "class",
           "frame");
    uint32_t *idx = ht_rows_by_bytes(s);
    for (uint32_t k = 0; idx && k < s->nrows && k < (uint32_t)top; k++) {
        const ht_agg_rec *r = &s->rows[idx[k]];
        char frame[512], b[32], lb[32];
        ht_store_site_name(s, r->trace_id, frame, sizeof frame);
        human_bytes(r->est_bytes, b, sizeof b);
        human_bytes(r->live_est_bytes, lb, sizeof lb);
        printf("%10s %5.1f%% %12.0f %10s  %-28.28s %s\n", b,
               total > 0 ? 100.0 * r->est_bytes / total : 0.0, r->est_instances, lb,
               ht_store_class(s, r->class_id), frame);
    }
    free(idx);
}

static int write_all(const ht_store *s, const char *dir)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "heaptop record: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct {
        const char *name;
        int (*fn)(const ht_store *, const char *);
    } files[] = {{"sites.csv", ht_export_sites},
                 {"classes.csv", ht_export_classes},
                 {"telemetry.csv", ht_export_telemetry}};
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        if (files[i].fn(s, path) != 0) {
            fprintf(stderr, "heaptop record: cannot write %s: %s\n", path, strerror(errno));
            rc = -1;
        } else {
            fprintf(stderr, "heaptop record: wrote %s\n", path);
        }
    }
    return rc;
}

int ht_record_main(int argc, char **argv)
{
    const char *ipc = NULL, *out = ".";
    double seconds = 0;
    long top = 10, timeout_ms = 10000;
    static const struct option longopts[] = {{"ipc", required_argument, 0, 'i'},
                                             {"seconds", required_argument, 0, 's'},
                                             {"out", required_argument, 0, 'o'},
                                             {"top", required_argument, 0, 't'},
                                             {"timeout", required_argument, 0, 'T'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    optind = 1;
    int ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "i:s:o:t:T:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'i':
            ipc = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 's':
            seconds = strtod(optarg, &end);
            if (*end || seconds < 0) {
                fprintf(stderr,
                        "heaptop record: bad --seconds '%s' (expected a whole number "
                        "of seconds, 0 = until the JVM exits)\n",
                        optarg);
                return 2;
            }
            break;
        case 't':
            top = strtol(optarg, &end, 10);
            if (*end || top < 0) {
                fprintf(stderr, "heaptop record: bad --top '%s' (expected a count)\n", optarg);
                return 2;
            }
            break;
        case 'T':
            timeout_ms = strtol(optarg, &end, 10);
            if (*end || timeout_ms <= 0) {
                fprintf(stderr, "heaptop record: bad --timeout '%s' (expected milliseconds)\n",
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
    ht_target target;
    char err[512];
    if (!ipc && optind >= argc) {
        usage(stderr);
        return 2;
    }
    if ((ipc ? ht_target_from_ipc(&target, ipc, err, sizeof err)
             : ht_target_from_pid(&target, argv[optind], err, sizeof err)) != 0) {
        fprintf(stderr, "heaptop record: %s\n", err);
        return 2;
    }
    if (ht_target_resolve(&target, err, sizeof err) != HT_TARGET_READY) {
        fprintf(stderr, "heaptop record: %s\n", err);
        return 1;
    }

    ht_client c;
    if (ht_client_open(&c, target.base, (int)timeout_ms, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop record: %s\n", err);
        ht_client_close(&c);
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    uint64_t deadline = seconds > 0 ? now_ms() + (uint64_t)(seconds * 1000.0) : UINT64_MAX;
    while (!g_stop && now_ms() < deadline) {
        if (ht_client_poll(&c, 100) < 0) break;
    }
    const char *why = "time is up";
    if (c.state == HT_CONN_LIVE) {
        /* Still connected: one last sync gives the totals as of now. */
        if (ht_client_sync(&c, err, sizeof err) != 0)
            fprintf(stderr, "heaptop record: final sync failed (%s); writing what arrived\n", err);
        if (g_stop) why = "interrupted";
    } else if (c.state == HT_CONN_EXITED) {
        why = "the JVM exited";
    } else {
        why = "the JVM went away without a goodbye";
    }
    fprintf(stderr,
            "heaptop record: stopped (%s); %u sites, %u telemetry rows, %llu stream "
            "messages missed, %llu sample events received\n",
            why, c.store.nrows, c.store.ntelemetry, (unsigned long long)c.missed,
            (unsigned long long)c.store.samples_received);
    int rc = write_all(&c.store, out) == 0 ? 0 : 1;
    print_top(&c.store, (int)top);
    ht_client_close(&c);
    return rc;
}
