/* options.c - see options.h. */
#include "options.h"

#include "bytesize.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ht_options_defaults(ht_options *o)
{
    memset(o, 0, sizeof *o);
    o->interval = HT_DEFAULT_INTERVAL;
    o->depth = HT_DEFAULT_DEPTH;
    o->max_traces = HT_DEFAULT_MAX_TRACES;
    o->buffer = HT_DEFAULT_BUFFER;
    o->viewer_queue = HT_DEFAULT_VIEWER_QUEUE;
    o->live = 1;
    o->budget_x100 = HT_BUDGET_DEFAULT;
    o->cpu = HT_CPU_ON;
    o->cpu_interval_us = HT_CPU_INTERVAL_DEFAULT_US;
    o->drag_budget = HT_DRAG_BUDGET_DEFAULT;
}

#define VALID_KEYS                                                                                 \
    "interval, budget, depth, ipc, listen, key, live, cpu, cpu_interval, traces, buffer, "         \
    "viewer_queue, drag, drag_budget, help"

int ht_options_parse(const char *s, ht_options *o, char *err, size_t errn)
{
    ht_options_defaults(o);
    if (!s || !*s) return 0;
    char *copy = strdup(s);
    if (!copy) {
        snprintf(err, errn, "heaptop: out of memory parsing options");
        return -1;
    }
    int rc = 0, interval_set = 0, budget_set = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *val = eq ? eq + 1 : NULL;
        if (eq) *eq = '\0';
        uint64_t v;
        if (strcmp(tok, "help") == 0) {
            o->help = 1;
        } else if (strcmp(tok, "interval") == 0) {
            if (ht_parse_bytes(val, HT_MAX_INTERVAL, &v, NULL, 0) != 0) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'interval': '%s' (expected bytes "
                         "between samples such as 512k, 1m or 0 for every allocation, at "
                         "most 2g-1)",
                         val ? val : "");
                rc = -1;
            } else {
                o->interval = v;
                interval_set = 1;
            }
        } else if (strcmp(tok, "budget") == 0) {
            uint32_t pct;
            if (val && strcmp(val, "off") == 0) {
                o->budget_x100 = 0;
                budget_set = 1;
            } else if (ht_parse_percent(val, HT_BUDGET_MAX_X100, &pct, NULL, 0) != 0 || !pct) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'budget': '%s' (expected the share of "
                         "CPU sampling may cost, such as 1%% or 0.5%%, at most 50%%, or off)",
                         val ? val : "");
                rc = -1;
            } else {
                o->budget_x100 = pct;
                budget_set = 1;
            }
        } else if (strcmp(tok, "depth") == 0) {
            if (ht_parse_count(val, HT_MAX_DEPTH, &v, NULL, 0) != 0 || v == 0) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'depth': '%s' (expected frames per "
                         "stack, 1..%u)",
                         val ? val : "", HT_MAX_DEPTH);
                rc = -1;
            } else {
                o->depth = (uint32_t)v;
            }
        } else if (strcmp(tok, "traces") == 0) {
            if (ht_parse_count(val, HT_MAX_MAX_TRACES, &v, NULL, 0) != 0 || v < 16) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'traces': '%s' (expected the number "
                         "of distinct stacks to keep, 16..%u)",
                         val ? val : "", HT_MAX_MAX_TRACES);
                rc = -1;
            } else {
                o->max_traces = (uint32_t)v;
            }
        } else if (strcmp(tok, "buffer") == 0) {
            if (ht_parse_count(val, HT_MAX_BUFFER, &v, NULL, 0) != 0 || v < HT_MIN_BUFFER) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'buffer': '%s' (expected the number of "
                         "sample events queued, %u..%u)",
                         val ? val : "", HT_MIN_BUFFER, HT_MAX_BUFFER);
                rc = -1;
            } else {
                o->buffer = (uint32_t)v;
            }
        } else if (strcmp(tok, "viewer_queue") == 0) {
            if (ht_parse_count(val, HT_MAX_VIEWER_QUEUE, &v, NULL, 0) != 0 ||
                v < HT_MIN_VIEWER_QUEUE) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'viewer_queue': '%s' (expected the "
                         "stream messages a slow viewer may lag behind, %u..%u)",
                         val ? val : "", HT_MIN_VIEWER_QUEUE, HT_MAX_VIEWER_QUEUE);
                rc = -1;
            } else {
                o->viewer_queue = (uint32_t)v;
            }
        } else if (strcmp(tok, "live") == 0) {
            if (val &&
                (strcmp(val, "on") == 0 || strcmp(val, "1") == 0 || strcmp(val, "true") == 0)) {
                o->live = 1;
            } else if (val && (strcmp(val, "off") == 0 || strcmp(val, "0") == 0 ||
                               strcmp(val, "false") == 0)) {
                o->live = 0;
            } else {
                snprintf(err, errn,
                         "heaptop: bad value for option 'live': '%s' (expected live=on or "
                         "live=off)",
                         val ? val : "");
                rc = -1;
            }
        } else if (strcmp(tok, "cpu") == 0) {
            int mode = ht_cpu_mode_parse(val);
            if (mode < 0) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'cpu': '%s' (expected cpu=on, cpu=off "
                         "or cpu=async)",
                         val ? val : "");
                rc = -1;
            } else {
                o->cpu = mode;
            }
        } else if (strcmp(tok, "cpu_interval") == 0) {
            char why[128];
            if (ht_parse_duration_us(val, HT_CPU_INTERVAL_MIN_US, HT_CPU_INTERVAL_MAX_US, &v, why,
                                     sizeof why) != 0) {
                snprintf(err, errn, "heaptop: bad value for option 'cpu_interval': %s", why);
                rc = -1;
            } else {
                o->cpu_interval_us = (uint32_t)v;
            }
        } else if (strcmp(tok, "drag_budget") == 0) {
            char why[160] = "";
            if (val && strcmp(val, "off") == 0) {
                o->drag_budget = 0;
            } else if (ht_parse_count(val, HT_DRAG_BUDGET_MAX, &v, why, sizeof why) != 0 || !v) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'drag_budget': %s (expected how many "
                         "times a second calls may look through drag mode's tracked objects, "
                         "all classes together, such as 10000000, or off)",
                         why[0] ? why : "'0'");
                rc = -1;
            } else {
                o->drag_budget = v;
            }
        } else if (strcmp(tok, "drag") == 0) {
            char why[256];
            if (!val || !*val || strlen(val) > HT_DRAG_FILTER_MAX ||
                ht_drag_filter_check(val, why, sizeof why) != 0) {
                if (!val || !*val || strlen(val) > HT_DRAG_FILTER_MAX)
                    snprintf(why, sizeof why,
                             "expected class-name prefixes separated by ':', at most %u "
                             "characters, e.g. drag=org.h2.:com.example.Cache",
                             HT_DRAG_FILTER_MAX);
                snprintf(err, errn, "heaptop: bad value for option 'drag': %s", why);
                rc = -1;
            } else if (strcmp(val, "off") == 0) {
                o->drag[0] = '\0';
            } else {
                snprintf(o->drag, sizeof o->drag, "%s", val);
            }
        } else if (strcmp(tok, "ipc") == 0) {
            if (!val || !*val || strlen(val) + 8 > sizeof o->ipc) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'ipc': '%s' (expected a socket base "
                         "path of at most %zu bytes, e.g. ipc=/tmp/heaptop-1000/app)",
                         val ? val : "", sizeof o->ipc - 8);
                rc = -1;
            } else {
                snprintf(o->ipc, sizeof o->ipc, "%s", val);
            }
        } else if (strcmp(tok, "listen") == 0) {
            char why[256];
            if (ht_tcp_parse(val, o->listen_host, sizeof o->listen_host, &o->listen_port, why,
                             sizeof why) != 0) {
                snprintf(err, errn, "heaptop: bad value for option 'listen': %s", why);
                rc = -1;
            }
        } else if (strcmp(tok, "key") == 0) {
            /* a file, never the key itself: an option string shows in ps */
            if (!val || val[0] != '@' || val[1] != '/' || strlen(val + 1) >= sizeof o->key) {
                snprintf(err, errn,
                         "heaptop: bad value for option 'key': '%s' (expected key=@FILE, the "
                         "absolute path of a file holding the key, at most %zu bytes)",
                         val ? val : "", sizeof o->key - 1);
                rc = -1;
            } else {
                snprintf(o->key, sizeof o->key, "%s", val + 1);
            }
        } else {
            snprintf(err, errn,
                     "heaptop: unknown option '%s' (valid options: " VALID_KEYS
                     "; use -agentpath:libheaptop.so=help)",
                     tok);
            rc = -1;
        }
    }
    free(copy);
    if (rc == 0 && o->key[0] && !o->listen_host[0]) {
        snprintf(err, errn, "heaptop: option 'key' is the key of listen=, which was not given");
        rc = -1;
    }
    if (rc == 0 && o->drag[0] && !o->live) {
        snprintf(err, errn,
                 "heaptop: option 'drag' needs live=on (an object's death comes from live "
                 "tracking)");
        rc = -1;
    }
    /* an explicit interval is a fixed interval, unless a budget is asked too */
    if (rc == 0 && interval_set && !budget_set) o->budget_x100 = 0;
    return rc;
}

void ht_options_format(const ht_options *o, char *out, size_t n)
{
    char budget[16] = "off";
    if (o->budget_x100)
        snprintf(budget, sizeof budget, "%u.%02u%%", o->budget_x100 / 100, o->budget_x100 % 100);
    char listen[400] = "", dbudget[48] = ",drag_budget=off";
    if (o->drag_budget) snprintf(dbudget, sizeof dbudget, ",drag_budget=%" PRIu64, o->drag_budget);
    if (o->listen_host[0])
        snprintf(listen, sizeof listen, ",listen=%s:%u%s%s", o->listen_host, o->listen_port,
                 o->key[0] ? ",key=@" : "", o->key);
    snprintf(out, n,
             "interval=%" PRIu64 ",budget=%s,depth=%u,traces=%u,buffer=%u,viewer_queue=%u,"
             "live=%s,cpu=%s,cpu_interval=%uus%s%s%s%s%s%s",
             o->interval, budget, o->depth, o->max_traces, o->buffer, o->viewer_queue,
             o->live ? "on" : "off", ht_cpu_mode_name(o->cpu), o->cpu_interval_us,
             o->ipc[0] ? ",ipc=" : "", o->ipc, listen, o->drag[0] ? ",drag=" : "", o->drag,
             dbudget);
}

void ht_options_help(FILE *f)
{
    fprintf(f,
            "heaptop agent options (-agentpath:/path/libheaptop.so=key=value,...):\n"
            "  interval=BYTES  mean bytes allocated between samples, k/m/g suffixes\n"
            "                  (default 512k; 0 samples every allocation); the floor\n"
            "                  when a budget raises it\n"
            "  budget=P%%|off   the share of the process's CPU sampling may cost: past it\n"
            "                  the interval is raised, and lowered back when the load\n"
            "                  falls (default 1%%; an explicit interval= alone means off)\n"
            "  depth=N         stack frames kept per sample, 1..%u (default %u)\n"
            "  ipc=PATH        socket base path: PATH.events and PATH.ctl, in a private\n"
            "                  (0700) directory (default $XDG_RUNTIME_DIR/heaptop/<pid>\n"
            "                  or /tmp/heaptop-<uid>/<pid>)\n"
            "  listen=[HOST:]PORT\n"
            "                  also listen on TCP (control on PORT, stream on PORT+1; HOST\n"
            "                  127.0.0.1 unless given), for viewers that prove they hold\n"
            "                  the key (heaptop --key FILE); the stream and replies go out\n"
            "                  sealed with it (default: no TCP)\n"
            "  key=@FILE       the key for listen=: a file of 64 hex digits, 0600, of this\n"
            "                  user (default: a new key in BASE.key beside the sockets)\n"
            "  live=on|off     track which sampled objects are still alive (default on)\n"
            "  cpu=on|off|async\n"
            "                  CPU sampling: on, stacks of the threads that used CPU, taken\n"
            "                  at safepoints; async, per-thread CPU timers and\n"
            "                  AsyncGetCallTrace, on the JDKs where that is known safe;\n"
            "                  off (default on)\n"
            "  cpu_interval=T  the CPU sampler's tick, 1ms..1s, as 10ms or 500us (default\n"
            "                  10ms)\n"
            "  traces=N        distinct stacks kept before an overflow bucket (default %u)\n"
            "  buffer=N        sample events queued for the collector; when full, samples\n"
            "                  are dropped and counted (default %u)\n"
            "  viewer_queue=N  stream messages a slow viewer may lag behind before its\n"
            "                  oldest are dropped (it then resyncs), %u..%u (default %u)\n"
            "  drag=PREFIX[:PREFIX...]\n"
            "                  drag mode from the start: the classes whose names start\n"
            "                  with a prefix (org.h2.:com.example.Cache) are instrumented\n"
            "                  and their sampled objects tracked for last use (needs\n"
            "                  live=on; default off: heaptop control PID drag turns it on)\n"
            "  drag_budget=N|off\n"
            "                  drag mode's cost guard: while the calls into instrumented\n"
            "                  classes look through their tracked objects more than N\n"
            "                  times a second, the hottest class is no longer watched\n"
            "                  (default 10000000, about a tenth of a core; off: never)\n"
            "  help            print this list\n",
            HT_MAX_DEPTH, HT_DEFAULT_DEPTH, HT_DEFAULT_MAX_TRACES, HT_DEFAULT_BUFFER,
            HT_MIN_VIEWER_QUEUE, HT_MAX_VIEWER_QUEUE, HT_DEFAULT_VIEWER_QUEUE);
}
