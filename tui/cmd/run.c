/* run.c - see run.h. */
#include "run.h"

#include "app.h"
#include "outdir.h"
#include "proc.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STARTUP_MS 30000 /* a JVM under load can take seconds to reach Agent_OnLoad */

static void usage(FILE *f)
{
    fprintf(f, "usage: heaptop run [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
               "                   [--out DIR] [--log FILE] [--ascii] -- java ARGS...\n"
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
    ht_reach_opts reach = {.timeout_ms = STARTUP_MS};
    const char *out = NULL, *log = NULL;
    int ascii = 0, i = 1;
    char err[512];
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--ascii") == 0) {
            ascii = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "--out") == 0) {
            out = argv[++i];
        } else if (i + 1 < argc && strcmp(argv[i], "--log") == 0) {
            log = argv[++i];
        } else if (i + 1 < argc && ht_reach_set(&reach, argv[i], argv[i + 1]) == 0) {
            i++;
        } else if (argv[i][0] != '-') {
            fprintf(stderr,
                    "heaptop run: put the program after --: heaptop run [options] -- %s ...\n",
                    argv[i]);
            return 2;
        } else {
            fprintf(stderr, "heaptop run: unknown option '%s' (heaptop run --help lists them)\n",
                    argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "heaptop run: no program: heaptop run [options] -- java ARGS...\n");
        return 2;
    }
    i++; /* past -- */
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
    return ht_tui_launched(&l, out ? out : ".", ascii);
}
