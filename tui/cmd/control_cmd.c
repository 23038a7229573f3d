/* control_cmd.c - see control_cmd.h. */
#include "control_cmd.h"

#include "bytesize.h"
#include "client.h"
#include "target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop control (--ipc PATH | PID) status|pause|resume|interval BYTES|\n"
               "                                          budget P%%|off|mark begin|end|continue\n"
               "  status          print the agent's settings and state\n"
               "  pause, resume   stop or restart sampling (live tracking goes on)\n"
               "  interval BYTES  set the mean sampling interval (k/m/g; 0 = every allocation);\n"
               "                  with a budget, the floor it raises the interval from\n"
               "  budget P%%|off   the share of CPU sampling may cost (e.g. 1%%): past it the\n"
               "                  interval goes up, and back down when the load falls\n"
               "  mark begin      zero the diff columns and count from now (every viewer sees it)\n"
               "  mark end        freeze them; mark continue adds the next phase to them\n");
}

int ht_control_main(int argc, char **argv)
{
    ht_target target;
    char err[512];
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--ipc") == 0) {
        if (ht_target_from_ipc(&target, argv[i + 1], err, sizeof err) != 0) {
            fprintf(stderr, "heaptop control: %s\n", err);
            return 2;
        }
        i += 2;
    } else if (i < argc && argv[i][0] != '-') {
        if (ht_target_from_pid(&target, argv[i], err, sizeof err) != 0) {
            fprintf(stderr, "heaptop control: %s\n", err);
            return 2;
        }
        i++;
    } else {
        usage(stderr);
        return 2;
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    const char *verb = argv[i];
    uint16_t type;
    uint64_t arg = 0;
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
    } else if (strcmp(verb, "status") == 0) {
        type = 0;
    } else {
        fprintf(stderr, "heaptop control: unknown command '%s'\n", verb);
        usage(stderr);
        return 2;
    }
    if (ht_target_resolve(&target, err, sizeof err) != HT_TARGET_READY) {
        fprintf(stderr, "heaptop control: %s\n", err);
        return 1;
    }
    ht_client c;
    if (ht_client_open(&c, target.base, 5000, 0, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", err);
        ht_client_close(&c);
        return 1;
    }
    int rc = 0;
    uint64_t value = 0;
    if (type && ht_client_command(&c, type, arg, &value, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop control: %s\n", err);
        rc = 1;
    } else if (type == HT_MSG_SET_INTERVAL_REQ) {
        printf("interval set to %" PRIu64 " bytes\n", value);
    } else if (type == HT_MSG_BUDGET_REQ) {
        if (value)
            printf("budget %" PRIu64 ".%02" PRIu64 "%%\n", value / 100, value % 100);
        else
            printf("budget off: the interval is fixed\n");
    } else if (type == HT_MSG_MARK_REQ) {
        printf("mark %s\n", value == HT_MARK_RUNNING ? "running" : "ended");
    } else if (type) {
        printf("sampling %s\n", value ? "resumed" : "paused");
    } else {
        const ht_store_info *in = &c.store.info;
        const ht_telemetry_rec *t = ht_store_last_telemetry(&c.store);
        printf("pid %u, main %s, JVM %s, %u viewers\noptions %s\ninterval %" PRIu64
               " bytes, sampling %s, live tracking %s\n",
               in->pid, in->main_class ? in->main_class : "?",
               in->jdk_version ? in->jdk_version : "?", in->viewers, in->options ? in->options : "",
               t ? t->interval : in->interval, (t ? t->paused : in->paused) ? "paused" : "on",
               in->live ? "on" : "off");
        if (t && t->budget_x100)
            printf("budget %u.%02u%% of CPU: interval raised from %" PRIu64
                   " bytes as needed; the agent used %.2f%% of the process's CPU in the last "
                   "second\n",
                   t->budget_x100 / 100, t->budget_x100 % 100, t->base_interval, t->agent_cpu_pct);
        else if (t)
            printf("budget off (fixed interval); the agent used %.2f%% of the process's CPU in "
                   "the last second\n",
                   t->agent_cpu_pct);
        if (t)
            printf("samples %" PRIu64 ", dropped %" PRIu64 ", %u sites, stream message %" PRIu64
                   "\n",
                   t->samples, t->dropped, c.store.nrows, c.last_seq);
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
        const ht_mark_rec *mk = &c.store.mark;
        if (mk->state == HT_MARK_NONE)
            printf("no mark\n");
        else
            printf("mark %s, %.1f s counted\n", mk->state == HT_MARK_RUNNING ? "running" : "ended",
                   (double)mk->length_ms / 1000.0);
    }
    ht_client_close(&c);
    return rc;
}
