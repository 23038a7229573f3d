/* control_cmd.c - see control_cmd.h. */
#include "control_cmd.h"

#include "bytesize.h"
#include "client.h"
#include "export_cpu.h"
#include "reach.h"
#include "request.h"
#include "shown.h"
#include "target.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: heaptop control (--ipc PATH [--key FILE] | PID)\n"
            "                       status|pause|resume|interval BYTES|budget P%%|off|\n"
            "                       mark begin|end|continue|heapdump [--all] [--keep] [--plain]|\n"
            "                       cpu on|off|async [--interval T]|drag PREFIX[:PREFIX...]|off|\n"
            "                       detach\n"
            "  --key FILE      the agent's key, for --ipc tcp://HOST:PORT (an agent started\n"
            "                  with listen=: BASE.key beside its sockets, or its key=@FILE)\n"
            "  status          print the agent's settings and state (and whether it listens\n"
            "                  on TCP, and why not)\n"
            "  pause, resume   stop or restart sampling (live tracking goes on)\n"
            "  interval BYTES  set the mean sampling interval (k/m/g; 0 = every allocation);\n"
            "                  with a budget, the floor it raises the interval from\n"
            "  budget P%%|off   the share of CPU sampling may cost (e.g. 1%%): past it the\n"
            "                  interval goes up, and back down when the load falls\n"
            "  cpu on|off|async [--interval T]\n"
            "                  CPU sampling: on (each thread whose CPU time advanced gets a\n"
            "                  stack every tick, taken at safepoints), async (CPU timers and\n"
            "                  AsyncGetCallTrace, on JDKs where that is safe; refused\n"
            "                  elsewhere, with the reason) or off; --interval sets the tick,\n"
            "                  1ms..1s, as 10ms or 500us (default: the agent's, 10ms)\n"
            "  drag PREFIX[:PREFIX...]|off\n"
            "                  drag mode: the classes whose names start with a prefix\n"
            "                  (org.h2.:com.example.Cache) are instrumented and their sampled\n"
            "                  objects tracked for last use (JDK 17+, live tracking on); the\n"
            "                  first time retransforms once. off puts the classes back\n"
            "  mark begin      zero the diff columns and count from now (every viewer sees it)\n"
            "  mark end        freeze them; mark continue adds the next phase to them\n"
            "  heapdump [--all] [--keep] [--plain]\n"
            "                  the JVM writes an HPROF heap dump of its live objects (after a\n"
            "                  full GC; --all: every object) into the agent's private\n"
            "                  directory (0600 file, 0700 directory); prints its path, size\n"
            "                  and how long the JVM took. The agent removes it when the JVM\n"
            "                  exits, unless --keep. Its live sampled objects are marked\n"
            "                  for heaptop's views (allocation sites of heap objects);\n"
            "                  --plain leaves them out, for other tools\n"
            "  detach          the agent stops sampling, lets go of what it tracks and closes\n"
            "                  its sockets; the JVM runs on as it was (the library stays\n"
            "                  loaded: attaching again starts the agent afresh)\n");
}

static void dump_progress(void *ctx, const ht_dump_info *d)
{
    (void)ctx;
    fprintf(stderr, "heaptop control: heap dump %" PRIu64 " being written, %.1f s\n", d->id,
            (double)d->elapsed_ms / 1000.0);
}

/* The words after `heapdump` (argv[0]) as flags: 0, or 2 after one line. */
static int dump_flags(int argc, char **argv, unsigned *out)
{
    static const struct option longs[] = {{"all", no_argument, NULL, HT_DUMP_ALL},
                                          {"keep", no_argument, NULL, HT_DUMP_KEEP},
                                          {"plain", no_argument, NULL, HT_DUMP_PLAIN},
                                          {NULL, 0, NULL, 0}};
    unsigned flags = 0;
    optind = 1;
    for (;;) {
        int at = optind, c = getopt_long(argc, argv, "+:", longs, NULL);
        if (c == -1 && at >= argc) break;
        if (c == -1 || c == '?' || c == ':') { /* a word, "--", or another option */
            char shown[HT_SHOWN_MAX];
            fprintf(stderr, "heaptop control: heapdump takes --all, --keep and --plain, not '%s'\n",
                    ht_shown(argv[at], shown, sizeof shown));
            return 2;
        }
        flags |= (unsigned)c;
    }
    *out = flags;
    return 0;
}

/* `heapdump [--all] [--keep] [--plain]`: 0, or 1 when the agent refused or
 * the dump failed. */
static int heap_dump(const ht_target *target, unsigned flags)
{
    char err[4096];
    ht_client c;
    if (ht_client_open(&c, target, 5000, HT_CLIENT_STREAM, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", err);
        ht_client_close(&c);
        return 1;
    }
    ht_dump_info d;
    int rc = 0;
    if (ht_client_heap_dump(&c, flags, &d, dump_progress, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", err);
        rc = 1;
    } else {
        char size[32];
        ht_format_bytes(d.bytes, size, sizeof size);
        printf("heap dump %" PRIu64 " written: %s\n", d.id, d.path);
        /* the file's size, not the objects': ids, class records, names and
         * stack traces take their share (heaptop heap FILE counts the objects) */
        printf("a dump of %s; file size %s (%" PRIu64 " bytes), more than the objects take "
               "(heaptop heap FILE counts them); the JVM took %" PRIu64
               " ms (it stops for the dump)\n",
               flags & HT_DUMP_ALL ? "every object" : "the live objects", size, d.bytes,
               d.elapsed_ms);
        if (d.marked)
            printf("%" PRIu64 " sampled objects marked in it, with their allocation sites\n",
                   d.marked);
        printf(flags & HT_DUMP_KEEP ? "kept after the JVM exits: remove it when done (it holds "
                                      "the heap's contents)\n"
                                    : "the agent removes it when the JVM exits (--keep keeps "
                                      "it)\n");
    }
    ht_client_close(&c);
    return rc;
}

/* `cpu MODE [--interval T]` (argv[0] is "cpu"): the CPU_REQ's argument
 * (request.h) and how many words after "cpu" it took; 0, or 2 after one
 * line. */
static int cpu_words(int argc, char **argv, uint64_t *arg, int *words)
{
    char err[256], shown[HT_SHOWN_MAX];
    int mode = argc > 1 ? ht_cpu_mode_parse(argv[1]) : -1;
    if (mode < 0) {
        fprintf(stderr,
                "heaptop control: bad CPU mode '%s' (expected cpu on, cpu off or cpu "
                "async)\n",
                ht_shown(argc > 1 ? argv[1] : "", shown, sizeof shown));
        return 2;
    }
    uint64_t us = 0;
    *words = 1;
    if (argc > 2 && strcmp(argv[2], "--interval") == 0) {
        if (argc < 4) {
            fprintf(stderr, "heaptop control: --interval needs a value (a tick such as 10ms)\n");
            return 2;
        }
        if (ht_parse_duration_us(argv[3], HT_CPU_INTERVAL_MIN_US, HT_CPU_INTERVAL_MAX_US, &us, err,
                                 sizeof err) != 0) {
            fprintf(stderr, "heaptop control: bad CPU interval: %s\n",
                    ht_shown(err, shown, sizeof shown));
            return 2;
        }
        *words = 3;
    }
    *arg = ht_request_cpu_arg(mode, (uint32_t)us);
    return 0;
}

/* A tick for people: "10 ms", "0.5 ms", "1 s". */
static void tick_text(uint32_t us, char *out, size_t n)
{
    if (us >= 1000000 && us % 1000000 == 0)
        snprintf(out, n, "%u s", us / 1000000);
    else
        snprintf(out, n, "%g ms", us / 1000.0);
}

/* What the ACK of CPU_REQ says: the mode now in force, and the tick asked
 * for (0: the agent's, as of the sync before the command). */
static void print_cpu_ack(const ht_store_info *in, uint64_t mode, uint32_t asked_us)
{
    const char *name = ht_cpu_mode_name((int)mode);
    char tick[32];
    tick_text(asked_us ? asked_us : in->cpu_interval_us, tick, sizeof tick);
    if (!name)
        printf("CPU sampling: the agent answered mode %" PRIu64 ", which this heaptop does not "
               "know\n",
               mode);
    else if (mode == HT_CPU_OFF)
        printf("CPU sampling off%s%s\n", asked_us ? "; tick set to " : "", asked_us ? tick : "");
    else
        printf("CPU sampling %s, every %s; frames taken %s\n", name, tick,
               ht_cpu_attribution((int)mode));
}

/* status's CPU lines: the mode and tick in force, the samples (those
 * without a stack), and the CPU sampler's cost beside the agent's. */
static void print_cpu_status(const ht_store *s, const ht_telemetry_rec *t)
{
    const ht_store_info *in = &s->info; /* the state as of the sync (its HELLO) */
    int mode = in->cpu_mode;
    const char *name = ht_cpu_mode_name(mode);
    char tick[32], conf[32];
    tick_text(t ? t->cpu_interval_us : in->cpu_interval_us, tick, sizeof tick);
    tick_text(in->cpu_configured_us, conf, sizeof conf);
    int lengthened = t && in->cpu_configured_us && t->cpu_interval_us != in->cpu_configured_us;
    if (mode == HT_CPU_OFF)
        printf("CPU sampling off (tick %s when on)\n", tick);
    else
        printf("CPU sampling %s, every %s%s%s%s; frames taken %s\n", name ? name : "?", tick,
               lengthened ? " (configured " : "", lengthened ? conf : "",
               lengthened ? ", lengthened by the budget)" : "", ht_cpu_attribution(mode));
    if (!t) return;
    char taken[32], failed[32];
    ht_format_count(t->cpu_samples, taken, sizeof taken);
    ht_format_count(t->cpu_failed, failed, sizeof failed);
    printf("CPU samples %s (%s failed: no stack, counted in [buckets]), %u threads, %u stacks; "
           "the CPU sampler used %.2f ms of CPU in the last second (%.2f ms of it in JVMTI's "
           "GetStackTrace), of the agent's %.2f ms\n",
           taken, failed, s->ncpu_threads, s->ncpu_rows, t->cpu_sampler_ms_per_s,
           t->cpu_floor_ms_per_s, t->agent_cpu_ms_per_s);
}

/* status's drag line, from the last DRAG_STATE (none: never turned on). */
static void print_drag_status(const ht_store *s)
{
    const ht_store_drag *d = &s->drag;
    char f[HT_DRAG_FILTER_MAX + 64], why[600];
    if (!d->known || !d->rec.on) {
        if (d->known && d->why && d->why[0])
            printf("drag mode off: %s\n", ht_shown(d->why, why, sizeof why));
        else
            printf("drag mode off\n");
        return;
    }
    const ht_drag_state_rec *r = &d->rec;
    printf("drag mode on: filter %s, %u classes, %u methods instrumented, skipped %u (64 KB "
           "limit) %u (attributes), %u classes failed; samples %" PRIu64 " tracked %" PRIu64
           " untracked %" PRIu64 ", %" PRIu64 " tracked now; %u class%s too hot to watch\n",
           ht_shown(d->filter ? d->filter : "", f, sizeof f), r->classes, r->methods,
           r->skipped_long, r->skipped_attr, r->failed, r->samples, r->tracked, r->untracked,
           r->tracking, r->hot, r->hot == 1 ? "" : "es");
    if (d->why && d->why[0]) printf("  %s\n", ht_shown(d->why, why, sizeof why));
}

/* The command's words end at argv[end]: one line naming the first surplus
 * word, 2; else 0. */
static int surplus(int argc, char **argv, int end)
{
    if (end >= argc) return 0;
    char shown[HT_SHOWN_MAX];
    fprintf(stderr, "heaptop control: unexpected argument '%s' after '%s'\n",
            ht_shown(argv[end], shown, sizeof shown), argv[end - 1]);
    return 2;
}

/* word is not an option here: one line naming it, 2. After the target, a
 * word is taken for the command. */
static int refused(int have_target, const char *word)
{
    char shown[HT_SHOWN_MAX];
    fprintf(stderr, "heaptop control: unknown %s '%s' (heaptop control --help)\n",
            have_target ? "command" : "option", ht_shown(word, shown, sizeof shown));
    return 2;
}

int ht_control_main(int argc, char **argv)
{
    static const struct option longs[] = {{"ipc", required_argument, NULL, 'i'},
                                          {"key", required_argument, NULL, 'k'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    ht_target target;
    char err[512], shown[HT_SHOWN_MAX];
    const char *key = NULL; /* --key FILE: the key of a TCP endpoint (auth.h) */
    int have_target = 0;
    optind = 1;
    opterr = 0; /* its own one line, not getopt's */
    /* the target (--ipc PATH or PID) and --key, up to the command: the first
     * word after the target */
    for (;;) {
        int at = optind;
        int ch = getopt_long(argc, argv, "+:h", longs, NULL), bad;
        if (ch == -1 && at >= argc) break;
        if (ch == -1 && argv[at][0] == '-') return refused(have_target, argv[at]); /* --, - */
        if (ch == -1 && have_target) break;                                        /* the command */
        if (ch == -1) { /* a word: the PID */
            bad = ht_target_from_pid(&target, argv[optind++], err, sizeof err);
        } else if (ch == 'i' && !have_target) {
            bad = ht_target_from_ipc(&target, optarg, err, sizeof err);
        } else if (ch == 'k') {
            key = optarg;
            continue;
        } else if (ch == 'h' && !have_target) {
            usage(stdout);
            return 0;
        } else { /* not an option, its value missing, or a second target */
            return refused(have_target, argv[at]);
        }
        if (bad != 0) {
            fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
            return 2;
        }
        have_target = 1;
    }
    if (!have_target) {
        fprintf(stderr, "heaptop control: which JVM? give PID or --ipc PATH (heaptop control "
                        "--help)\n");
        return 2;
    }
    if (ht_target_set_key(&target, key, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
        return 2;
    }
    int i = optind;
    if (i >= argc) {
        fprintf(stderr, "heaptop control: which command? status, pause, resume, interval BYTES, "
                        "budget P%%|off, mark begin|end|continue, heapdump, cpu on|off|async, "
                        "drag PREFIX|off or detach\n");
        return 2;
    }
    const char *verb = argv[i];
    uint16_t type;
    uint64_t arg = 0;
    int words = 0; /* the words after the verb the command took (cpu's) */
    if (strcmp(verb, "pause") == 0) {
        type = HT_MSG_PAUSE_REQ;
    } else if (strcmp(verb, "resume") == 0) {
        type = HT_MSG_RESUME_REQ;
    } else if (strcmp(verb, "interval") == 0) {
        if (i + 1 >= argc) {
            fprintf(stderr, "heaptop control: interval needs a value (bytes such as 512k, 1m "
                            "or 0)\n");
            return 2;
        }
        if (ht_parse_bytes(argv[i + 1], HT_MAX_INTERVAL, &arg, err, sizeof err) != 0) {
            fprintf(stderr, "heaptop control: bad interval: %s\n", err);
            return 2;
        }
        type = HT_MSG_SET_INTERVAL_REQ;
    } else if (strcmp(verb, "budget") == 0) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        uint32_t pct = 0;
        if (strcmp(v, "off") != 0 &&
            (ht_parse_percent(v, HT_BUDGET_MAX_X100, &pct, err, sizeof err) != 0 || !pct)) {
            fprintf(stderr,
                    "heaptop control: bad budget '%s' (expected a share of CPU such as 1%% "
                    "or 0.5%%, at most 50%%, or off)\n",
                    v);
            return 2;
        }
        arg = pct;
        type = HT_MSG_BUDGET_REQ;
    } else if (strcmp(verb, "mark") == 0) {
        const char *op = i + 1 < argc ? argv[i + 1] : "";
        arg = strcmp(op, "begin") == 0      ? HT_MARK_BEGIN
              : strcmp(op, "end") == 0      ? HT_MARK_END
              : strcmp(op, "continue") == 0 ? HT_MARK_CONTINUE
                                            : 0;
        if (!arg) {
            fprintf(stderr, "heaptop control: bad mark '%s' (expected begin, end or continue)\n",
                    op);
            return 2;
        }
        type = HT_MSG_MARK_REQ;
    } else if (strcmp(verb, "cpu") == 0) {
        if (cpu_words(argc - i, argv + i, &arg, &words) != 0) return 2;
        type = HT_MSG_CPU_REQ;
    } else if (strcmp(verb, "drag") == 0) {
        const char *f = i + 1 < argc ? argv[i + 1] : "";
        if (!*f || ht_drag_filter_check(f, err, sizeof err) != 0) {
            if (!*f)
                snprintf(err, sizeof err,
                         "drag needs class-name prefixes separated by ':' (as org.h2.:"
                         "com.example.Cache) or off");
            fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
            return 2;
        }
        arg = ht_request_drag_arg(strcmp(f, "off") == 0 ? "" : f);
        type = HT_MSG_DRAG_REQ;
    } else if (strcmp(verb, "detach") == 0) {
        type = HT_MSG_DETACH_REQ;
    } else if (strcmp(verb, "status") == 0) {
        type = 0;
    } else if (strcmp(verb, "heapdump") == 0) {
        unsigned flags;
        if (dump_flags(argc - i, argv + i, &flags) != 0) return 2;
        if (ht_reach_existing(&target, "heaptop control", err, sizeof err) != 0 ||
            ht_target_resolve(&target, err, sizeof err) != HT_TARGET_READY) {
            fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
            return 1;
        }
        return heap_dump(&target, flags);
    } else {
        fprintf(stderr, "heaptop control: unknown command '%s' (heaptop control --help)\n",
                ht_shown(verb, shown, sizeof shown));
        return 2;
    }
    /* the words the command takes, and nothing more */
    int with_value = type == HT_MSG_SET_INTERVAL_REQ || type == HT_MSG_BUDGET_REQ ||
                     type == HT_MSG_MARK_REQ || type == HT_MSG_DRAG_REQ;
    if (surplus(argc, argv, i + 1 + with_value + words)) return 2;
    if (ht_reach_existing(&target, "heaptop control", err, sizeof err) != 0 ||
        ht_target_resolve(&target, err, sizeof err) != HT_TARGET_READY) {
        fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
        return 1;
    }
    ht_client c;
    if (ht_client_open(&c, &target, 5000, 0, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", err);
        ht_client_close(&c);
        return 1;
    }
    int rc = 0;
    uint64_t value = 0;
    if (type && ht_client_command(&c, type, arg, &value, err, sizeof err) != 0) {
        /* one line: an ERROR's text is the agent's, outside input */
        fprintf(stderr, "heaptop control: %s\n", ht_shown(err, shown, sizeof shown));
        rc = type == HT_MSG_DRAG_REQ ? 2 : 1; /* drag: the agent refused the filter or the mode */
    } else if (type == HT_MSG_CPU_REQ) {
        print_cpu_ack(&c.store.info, value, (uint32_t)(arg >> 8));
    } else if (type == HT_MSG_SET_INTERVAL_REQ) {
        printf("interval set to %" PRIu64 " bytes\n", value);
    } else if (type == HT_MSG_BUDGET_REQ) {
        if (value)
            printf("budget %" PRIu64 ".%02" PRIu64 "%%\n", value / 100, value % 100);
        else
            printf("budget off: the interval is fixed\n");
    } else if (type == HT_MSG_MARK_REQ) {
        printf("mark %s\n", value == HT_MARK_RUNNING ? "running" : "ended");
    } else if (type == HT_MSG_DRAG_REQ) {
        const char *f = (const char *)(uintptr_t)arg;
        if (*f)
            printf("drag mode on: %" PRIu64 " classes instrumented (filter %s)\n", value, f);
        else
            printf("drag mode off: the classes are back to their own bytes\n");
    } else if (type == HT_MSG_DETACH_REQ) {
        printf("agent detached from pid %u: sampling off, sockets closed\n", c.store.info.pid);
    } else if (type) {
        printf("sampling %s\n", value ? "resumed" : "paused");
    } else {
        const ht_store_info *in = &c.store.info;
        const ht_telemetry_rec *t = ht_store_last_telemetry(&c.store);
        printf("pid %u, main %s, JVM %s, %u viewers\noptions %s\ninterval %" PRIu64
               " bytes, sampling %s, live tracking %s\n",
               in->pid, in->main_class ? in->main_class : "?",
               in->jdk_version ? in->jdk_version : "?", in->viewers, in->options ? in->options : "",
               in->interval, in->paused ? "paused" : "on", in->live ? "on" : "off");
        if (in->tcp) printf("TCP: %s\n", in->tcp); /* listen= asked: listening, or why not */
        /* the share beside its absolute figure: 26% of an idle process is a
         * fraction of a millisecond (the budget ignores under 1 ms a second) */
        if (t && t->budget_x100)
            printf("budget %u.%02u%% of CPU: interval raised from %" PRIu64
                   " bytes as needed; the agent used %.2f ms of CPU in the last second, "
                   "%.2f%% of the process's\n",
                   t->budget_x100 / 100, t->budget_x100 % 100, t->base_interval,
                   t->agent_cpu_ms_per_s, t->agent_cpu_pct);
        else if (t)
            printf("budget off (fixed interval); the agent used %.2f ms of CPU in the last "
                   "second, %.2f%% of the process's\n",
                   t->agent_cpu_ms_per_s, t->agent_cpu_pct);
        print_cpu_status(&c.store, t);
        if (t)
            printf("samples %" PRIu64 ", dropped %" PRIu64 ", %u sites, stream message %" PRIu64
                   "\n",
                   t->samples, t->dropped, c.store.nrows, c.last_seq);
        if (t)
            printf("heap used %" PRIu64 " bytes, committed %" PRIu64 ", max %" PRIu64
                   " (at %.1f s)\n",
                   t->heap_used, t->heap_committed, t->heap_max, (double)t->t_ms / 1000.0);
        /* totals over every site, as of the sync the connection just made */
        double live = 0, young = 0;
        uint64_t live_n = 0, young_n = 0;
        for (uint32_t r = 0; r < c.store.nrows; r++) {
            live += c.store.rows[r].live_est_bytes;
            young += c.store.rows[r].young_est_bytes;
            live_n += c.store.rows[r].live_samples;
            young_n += c.store.rows[r].young_samples;
        }
        if (in->live && t)
            printf("live %.0f bytes in %" PRIu64 " samples, young %.0f bytes in %" PRIu64
                   " samples, as of GC pause %" PRIu64 " of %" PRIu64 "\n",
                   live, live_n, young, young_n, t->live_as_of, t->gc_count);
        print_drag_status(&c.store);
        const ht_mark_rec *mk = &c.store.mark;
        if (mk->state == HT_MARK_NONE)
            printf("no mark\n");
        else
            printf("mark %s, %.1f s counted\n", mk->state == HT_MARK_RUNNING ? "running" : "ended",
                   (double)mk->length_ms / 1000.0);
        const ht_dump_info *last = NULL;
        for (uint32_t k = 0; k < c.ndumps; k++)
            if (c.dumps[k].state != HT_DUMP_RUNNING && (!last || c.dumps[k].id > last->id))
                last = &c.dumps[k];
        const ht_dump_info *run = ht_client_dump_running(&c);
        if (run)
            printf("heap dump %" PRIu64 " being written for %.1f s: %s\n", run->id,
                   (double)run->elapsed_ms / 1000.0, run->path);
        if (last && last->state == HT_DUMP_DONE)
            printf("last heap dump %" PRIu64 ": %s, %" PRIu64 " bytes in %" PRIu64 " ms\n",
                   last->id, last->path, last->bytes, last->elapsed_ms);
        else if (last)
            printf("last heap dump %" PRIu64 " failed: %s\n", last->id, last->error);
    }
    ht_client_close(&c);
    return rc;
}
