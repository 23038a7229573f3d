/* run.c - see run.h. */
#include "run.h"

#include "app.h"
#include "outdir.h"
#include "proc.h"
#include "source_path.h"
#include "ui.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STARTUP_MS 30000 /* a JVM under load can take seconds to reach Agent_OnLoad */

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop run [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
               "                   [--out DIR] [--log FILE] [--ascii] [--source PATH[:PATH...]]\n"
               "                   -- java ARGS...\n"
               "  starts java ARGS... with heaptop's agent and opens the TUI on it; the\n"
               "  program's stdout and stderr go to a log file and the Console screen (7).\n"
               "  A program that starts java itself (jython, catalina.sh run, a script):\n"
               "  the JVMs it starts get the agent through JAVA_TOOL_OPTIONS, and heaptop\n"
               "  watches the first of them\n"
               "  --agent PATH  the libheaptop.so to load (default: next to heaptop)\n"
               "  --interval BYTES, --agent-opts K=V,...  the agent's options, checked first\n"
               "                (-agentpath:...=help lists them)\n"
               "  --out DIR     where 'e' writes CSV exports and the log goes (default: exports\n"
               "                in ., the log in $TMPDIR)\n"
               "  --log FILE    the log file (created 0600, or emptied; not a symlink)\n"
               "  --ascii       ASCII sparklines even on a UTF-8 terminal\n"
               "  --source PATH[:PATH...]  where the Source screen (o on a frame) finds\n"
               "                files, before the JDK's src.zip (as heaptop PID --source)\n"
               "  q asks whether to stop the program or leave it running.\n");
}

int ht_run_launch(const char *prog, int argc, char **argv, ht_reach_opts *reach, const char *log,
                  const char *log_dir, int console, int timeout_ms, ht_launch *l)
{
    char err[4096];
    ht_launch_req req = {argc, argv, reach, log, log_dir, console};
    if (ht_launch_check(argc, argv, err, sizeof err) < 0 ||
        ht_launch_start(l, &req, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 2;
    }
    fprintf(stderr, "%s: started pid %d (%s); its output goes to %s\n", prog, (int)l->pid, argv[0],
            l->log);
    if (l->script)
        fprintf(stderr,
                "%s: '%s' is not java: the JVMs it starts get heaptop's agent through "
                "JAVA_TOOL_OPTIONS, and heaptop watches the first one\n",
                prog, argv[0]);
    if (ht_launch_wait_agent(l, timeout_ms, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        ht_launch_close(l);
        return 1;
    }
    if (l->script) {
        ht_proc p;
        ht_proc_look(l->jvm, &p);
        fprintf(stderr, "%s: watching pid %d (%s), %s JVM\n", prog, (int)l->jvm, ht_proc_name(&p),
                l->jvm == l->pid ? "which the script became" : "a child's");
    }
    return 0;
}

int ht_run_main(int argc, char **argv)
{
    static const struct option longs[] = {{"agent", required_argument, NULL, 'A'},
                                          {"interval", required_argument, NULL, 'A'},
                                          {"agent-opts", required_argument, NULL, 'A'},
                                          {"out", required_argument, NULL, 'o'},
                                          {"log", required_argument, NULL, 'L'},
                                          {"ascii", no_argument, NULL, 'a'},
                                          {"source", required_argument, NULL, 's'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    ht_reach_opts reach = {.timeout_ms = STARTUP_MS};
    const char *out = NULL, *log = NULL;
    int ascii = 0, which = 0, at = 1, c;
    char err[512];
    static ht_source_path source; /* --source, checked as given */
    int have_source = 0;
    optind = 1;
    opterr = 0; /* its own one line, below, not getopt's */
    /* in order, up to --: a word that is not an option (1) is the program
     * put before it */
    while ((c = getopt_long(argc, argv, "-:h", longs, &which)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'a':
            ascii = 1;
            break;
        case 'o':
            out = optarg;
            break;
        case 'L':
            log = optarg;
            break;
        case 's':
            /* each entry there and readable now, before the program starts */
            if (ht_source_path_parse(&source, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "heaptop run: %s\n", err);
                return 2;
            }
            have_source = 1;
            break;
        case 'A': { /* one of the attach options (reach.h), by its long name */
            char flag[32];
            snprintf(flag, sizeof flag, "--%s", longs[which].name);
            ht_reach_set(&reach, flag, optarg);
            break;
        }
        case 1:
            fprintf(stderr,
                    "heaptop run: put the program after --: heaptop run [options] -- %s ...\n",
                    optarg);
            return 2;
        default: /* '?' not an option, ':' its value missing: argv[at] either way */
            fprintf(stderr, "heaptop run: unknown option '%s' (heaptop run --help lists them)\n",
                    argv[at]);
            return 2;
        }
        at = optind;
    }
    if (at >= argc) { /* the words ended before any -- */
        fprintf(stderr, "heaptop run: no program: heaptop run [options] -- java ARGS...\n");
        return 2;
    }
    int i = optind; /* past -- */
    /* everything that can be checked, before the program starts */
    if (ht_launch_check(argc - i, argv + i, err, sizeof err) < 0 ||
        ht_reach_check(&reach, err, sizeof err) != 0 ||
        (out && ht_outdir_prepare(out, err, sizeof err) != 0)) {
        fprintf(stderr, "heaptop run: %s\n", err);
        return 2;
    }
    if (ht_ui_check_terminal(err, sizeof err) != 0 || ht_ui_check_tty(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop run: %s\n", err);
        return 1;
    }
    static ht_launch l;
    int rc = ht_run_launch("heaptop run", argc - i, argv + i, &reach, log, out, 1, STARTUP_MS, &l);
    if (rc != 0) return rc;
    ht_target target;
    if (ht_target_from_ipc(&target, l.base, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop run: %s\n", err);
        return 1;
    }
    ht_tui_opts o = {.target = &target,
                     .out_dir = out ? out : ".",
                     .out_given = out != NULL,
                     .ascii = ascii,
                     .launch = &l,
                     .source = have_source ? &source : NULL};
    return ht_tui_run(&o);
}
