/*
 * app_start.c - the interactive viewer's start: its command line, what is
 * checked before the screen, and starting again as `heaptop PID`.
 *
 * Owns: heaptop's and heaptop open's arguments (one clear line and exit 2
 * for a wrong one), the checks made before the terminal is taken, in the
 * order a user needs them said (--out, the terminal, a dump file's header,
 * the target: attached or waited for), keeping the export directory open
 * for root before it becomes another user's JVM's user (outdir.h), the
 * options remembered for restart_as, and the usage text. Root choosing
 * another user's JVM in the chooser starts heaptop again as `heaptop PID`
 * with the same options (restart_as: it must become that user before any
 * thread runs, and the viewer has job threads). Runs on the main thread,
 * before the loop (app.c) starts, or from it for the restart (the screen
 * is stopped first and taken back if exec fails). It writes no file (--out's
 * directory may be created, outdir.h) and never talks to the agent itself:
 * reaching the target is reach.h's.
 */
#include "app.h"
#include "outdir.h"

#include "hprof.h"
#include "launch.h"
#include "proc.h"
#include "reach.h"
#include "tasks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What heaptop was started with, for restart_as (ht_tui_main's). */
static const char *g_out; /* --out DIR when given */
static int g_ascii;

/* Root chose another user's JVM: heaptop becomes that user before any other
 * thread runs (reach.h), and this one has job threads, so it starts again
 * as `heaptop PID` with the same options. Returns only when it could not. */
static void restart_as(ht_app *a, pid_t pid, const char *owner)
{
    char num[16];
    snprintf(num, sizeof num, "%d", (int)pid);
    char *args[12];
    int n = 0;
    args[n++] = "heaptop";
    args[n++] = num;
    if (g_out) args[n++] = "--out", args[n++] = (char *)g_out;
    if (g_ascii) args[n++] = "--ascii";
    const ht_reach_opts *o = a->reach;
    if (o && o->agent) args[n++] = "--agent", args[n++] = (char *)o->agent;
    if (o && o->interval) args[n++] = "--interval", args[n++] = (char *)o->interval;
    if (o && o->agent_opts) args[n++] = "--agent-opts", args[n++] = (char *)o->agent_opts;
    args[n] = NULL;
    ht_ui_stop();
    fprintf(stderr, "heaptop: pid %d runs as user %s: heaptop starts again as heaptop %d\n",
            (int)pid, owner, (int)pid);
    execv("/proc/self/exe", args);
    int e = errno;
    ht_ui_start(&a->ui, g_ascii);
    ht_app_status(a, "cannot start heaptop %d: %s", (int)pid, strerror(e));
}

void ht_host_choose(ht_host *h, pid_t pid, int attach)
{
    ht_target t;
    char num[16], err[256];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&t, num, err, sizeof err) == 0 && t.owner != geteuid()) {
        char owner[64];
        ht_proc_user_name(t.owner, owner, sizeof owner);
        restart_as(h, pid, owner);
    } else if (attach) {
        ht_task_attach(h, pid);
    } else {
        ht_app_connect(h, pid, "pid");
    }
}

void ht_tui_usage(FILE *f)
{
    fprintf(f, "the interactive view:\n"
               "       heaptop [--ipc PATH [--key FILE] | PID] [--wait] [--ascii] [--out DIR]\n"
               "               [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
               "       heaptop open [A.hprof] FILE.hprof[.gz] [--ascii] [--out DIR]\n"
               "              (with A, an older dump: the Compare screen (8), A against FILE)\n"
               "  --ipc PATH  the agent's socket base path (its ipc= option), or\n"
               "              tcp://HOST:PORT for an agent started with listen=\n"
               "  --key FILE  the agent's key, for tcp:// (BASE.key beside its sockets)\n"
               "  PID         a JVM: its agent's default socket path; a JVM without the\n"
               "              agent gets it loaded (attached) first\n"
               "  --agent PATH, --interval BYTES, --agent-opts K=V,...  the agent to attach\n"
               "              (default: next to heaptop) and its options\n"
               "  (neither)   choose one of your JVMs from a list\n"
               "  --wait      wait for an agent to appear instead of exiting\n"
               "  --ascii     ASCII sparklines even on a UTF-8 terminal\n"
               "  --out DIR   where 'e' writes CSV exports (default .)\n");
}

/* heaptop open A B: the older dump, compared against the one opened */
static const char *open_before;

int ht_tui_main(int argc, char **argv)
{
    ht_target target;
    const char *out_dir = ".", *open_file = NULL, *key_file = NULL;
    int ascii = 0, wait = 0, have_target = 0, out_given = 0;
    char err[512];
    int first = 1;
    ht_reach_opts reach = {.timeout_ms = 10000};
    if (argc >= 2 && strcmp(argv[1], "open") == 0) {
        if (argc < 3 || (argv[2][0] == '-' && strcmp(argv[2], "--out") != 0 &&
                         strcmp(argv[2], "--ascii") != 0)) {
            if (argc < 3)
                fprintf(stderr, "heaptop open: which dump? give one FILE.hprof\n");
            else
                fprintf(stderr, "heaptop open: unknown option '%s' (heaptop --help)\n", argv[2]);
            return 2;
        }
        if (argv[2][0] == '-') {
            fprintf(stderr, "heaptop open: which dump? give FILE.hprof before %s\n", argv[2]);
            return 2;
        }
        open_file = argv[2];
        first = 3;
        if (argc > 3 && argv[3][0] != '-') { /* open A B: A is the older */
            open_before = open_file;
            open_file = argv[3];
            first = 4;
        }
    }
    for (int i = first; i < argc; i++) {
        int rc = 0;
        if (strcmp(argv[i], "--ipc") == 0 && i + 1 < argc && !have_target && !open_file) {
            rc = ht_target_from_ipc(&target, argv[++i], err, sizeof err);
            have_target = 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
            out_given = 1;
        } else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc && !open_file) {
            key_file = argv[++i];
        } else if (strcmp(argv[i], "--ascii") == 0) {
            ascii = 1;
        } else if (strcmp(argv[i], "--wait") == 0) {
            wait = 1;
        } else if (i + 1 < argc && !open_file && ht_reach_set(&reach, argv[i], argv[i + 1]) == 0) {
            i++;
        } else if (argv[i][0] != '-' && !have_target && !open_file) {
            rc = ht_target_from_pid(&target, argv[i], err, sizeof err);
            have_target = 1;
        } else {
            fprintf(stderr, "%s: %s '%s' (heaptop --help lists the commands and options)\n",
                    open_file ? "heaptop open" : "heaptop",
                    argv[i][0] == '-'
                        ? (i + 1 < argc ? "unknown option" : "unknown option, or it needs a value")
                        : "one target only; not",
                    argv[i]);
            return 2;
        }
        if (rc != 0) {
            fprintf(stderr, "heaptop: %s\n", err);
            return 2;
        }
    }
    /* no JVM named: the chooser lists the user's JVMs */
    int choosing = !have_target && !open_file;
    if (have_target && ht_target_set_key(&target, key_file, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    if (!have_target && key_file) {
        fprintf(stderr, "heaptop: --key is for an agent's TCP endpoint (--ipc tcp://HOST:PORT)\n");
        return 2;
    }
    if (!open_file && ht_reach_check(&reach, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    /* --out, when given, checked as record checks it (outdir.h), before the
     * screen and any attach */
    g_out = out_given ? out_dir : NULL;
    g_ascii = ascii;
    if (out_given && ht_outdir_prepare(out_dir, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: --out: %s\n", err);
        return 2;
    }
    if (ht_ui_check_terminal(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    if (open_file) {
        /* the file is there and is HPROF: said now, before the screen */
        ht_hprof probe;
        if (open_before && ht_hprof_probe(&probe, open_before) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", open_before, probe.err);
            return 1;
        }
        if (ht_hprof_probe(&probe, open_file) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", open_file, probe.err);
            return 1;
        }
    } else if (!choosing) {
        /* Root goes on as another user's JVM's user: exports stay root's,
         * through the directory kept open now (outdir.h). The default '.'
         * may not be root's own: then exports say who could not write. */
        if (target.owner != geteuid() && ht_outdir_keep(out_dir, err, sizeof err) != 0 &&
            out_given) {
            fprintf(stderr, "heaptop: --out: %s\n", err);
            return 2;
        }
        /* Fail early and plainly when nothing is there; attach to a JVM
         * without the agent; wait only when asked to and only for what can
         * still come. */
        ht_target_status st = ht_reach(&target, &reach, "heaptop", err, sizeof err);
        if (st == HT_TARGET_FATAL || (st == HT_TARGET_ABSENT && !wait)) {
            fprintf(stderr, "heaptop: %s%s\n", err,
                    st == HT_TARGET_ABSENT ? " (--wait waits for one)" : "");
            return 1;
        }
        if (st == HT_TARGET_ABSENT) fprintf(stderr, "heaptop: %s; waiting (q quits)\n", err);
    }
    /* keys come from a terminal, or the view would wait on a file's end forever;
     * asked last, so that what is wrong with the target is said first */
    if (ht_ui_check_tty(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    return ht_app_run(&target, open_file, open_before, choosing, out_dir, ascii, NULL, &reach);
}

int ht_tui_launched(ht_launch *l, const char *out_dir, int ascii)
{
    ht_target target;
    char err[512];
    if (ht_target_from_ipc(&target, l->base, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop run: %s\n", err);
        return 1;
    }
    return ht_app_run(&target, NULL, NULL, 0, out_dir, ascii, l, NULL);
}
