/* view_cmd.c - see view_cmd.h. */
#include "view_cmd.h"

#include "app.h"
#include "hprof.h"
#include "outdir.h"
#include "reach.h"
#include "source_path.h"
#include "target.h"
#include "ui.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ht_view_usage(FILE *f)
{
    fprintf(f, "the interactive view:\n"
               "       heaptop [--ipc PATH [--key FILE] | PID] [--wait] [--ascii] [--out DIR]\n"
               "               [--agent PATH] [--interval BYTES] [--agent-opts K=V,...]\n"
               "               [--source PATH[:PATH...]]\n"
               "       heaptop open [A.hprof] FILE.hprof[.gz] [--ascii] [--out DIR]\n"
               "               [--source PATH[:PATH...]]\n"
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
               "  --out DIR   where 'e' writes CSV exports (default .)\n"
               "  --source PATH[:PATH...]  where the Source screen (o on a frame) finds\n"
               "              files: directories and .jar/.zip files of sources, searched\n"
               "              in order, then the JDK's own src.zip (found by itself)\n");
}

/* What the command line said. */
typedef struct view_args {
    ht_target target;
    int have_target;
    const char *open_file, *open_before; /* heaptop open [A] FILE: A is the older */
    const char *out_dir, *key_file;
    int out_given, ascii, wait;
    ht_reach_opts reach;
    ht_source_path source; /* --source, checked as given */
} view_args;

/* heaptop's options; heaptop open takes the last three only (open_longs) */
static const struct option view_longs[] = {{"ipc", required_argument, NULL, 'i'},
                                           {"key", required_argument, NULL, 'k'},
                                           {"agent", required_argument, NULL, 'A'},
                                           {"interval", required_argument, NULL, 'A'},
                                           {"agent-opts", required_argument, NULL, 'A'},
                                           {"out", required_argument, NULL, 'o'},
                                           {"ascii", no_argument, NULL, 'a'},
                                           {"wait", no_argument, NULL, 'w'},
                                           {"source", required_argument, NULL, 's'},
                                           {NULL, 0, NULL, 0}};
static const struct option *const open_longs = view_longs + 5;

/* argv[at] is not taken: one line, 2. */
static int refused(const char *prog, int argc, char **argv, int at)
{
    fprintf(stderr, "%s: %s '%s' (heaptop --help lists the commands and options)\n", prog,
            argv[at][0] == '-'
                ? (at + 1 < argc ? "unknown option" : "unknown option, or it needs a value")
                : "one target only; not",
            argv[at]);
    return 2;
}

/* heaptop open's first word, argv[at], is an option (c: what getopt_long
 * made of it): which dump, before --out or --ascii; any other (--wait too)
 * is not an option open starts with. */
static int open_first(int c, char **argv, int at)
{
    if (c == '?' || c == 'w')
        fprintf(stderr, "heaptop open: unknown option '%s' (heaptop --help)\n", argv[at]);
    else
        fprintf(stderr, "heaptop open: which dump? give FILE.hprof before %s\n", argv[at]);
    return 2;
}

/* The words in order (getopt_long returning the others as 1): 0, or the
 * exit status after one line. */
static int parse(view_args *v, int argc, char **argv, int open)
{
    const char *prog = open ? "heaptop open" : "heaptop";
    int files = 0, options = 0, which = 0;
    char err[512];
    optind = 1;
    opterr = 0; /* its own one line, not getopt's */
    if (open && argc < 2) {
        fprintf(stderr, "heaptop open: which dump? give one FILE.hprof\n");
        return 2;
    }
    for (;;) {
        int at = optind;
        int c = getopt_long(argc, argv, "-:", open ? open_longs : view_longs, &which);
        if (c == -1 && at >= argc) break;
        if (c == -1 || (c == 1 && optarg[0] == '-')) c = '?'; /* "--" or "-": not taken */
        if (open && files == 0 && c != 1) return open_first(c, argv, at);
        int rc = 0;
        switch (c) {
        case 1: /* a word that is not an option */
            if (open && files < 2 && !options) {
                v->open_before = v->open_file; /* open A B: A is the older */
                v->open_file = optarg;
                files++;
                continue;
            }
            if (open || v->have_target) return refused(prog, argc, argv, at);
            rc = ht_target_from_pid(&v->target, optarg, err, sizeof err);
            v->have_target = 1;
            break;
        case 'i':
            if (v->have_target) return refused(prog, argc, argv, at);
            rc = ht_target_from_ipc(&v->target, optarg, err, sizeof err);
            v->have_target = 1;
            break;
        case 'k':
            v->key_file = optarg;
            break;
        case 'A': { /* one of the attach options (reach.h), by its long name */
            char flag[32];
            snprintf(flag, sizeof flag, "--%s", view_longs[which].name);
            ht_reach_set(&v->reach, flag, optarg);
            break;
        }
        case 'o':
            v->out_dir = optarg;
            v->out_given = 1;
            break;
        case 'a':
            v->ascii = 1;
            break;
        case 'w':
            v->wait = 1;
            break;
        case 's':
            /* each entry there and readable now, before any long work */
            if (ht_source_path_parse(&v->source, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", prog, err);
                return 2;
            }
            break;
        default: /* '?' not an option here, ':' its value missing */
            return refused(prog, argc, argv, at);
        }
        options++;
        if (rc != 0) {
            fprintf(stderr, "heaptop: %s\n", err);
            return 2;
        }
    }
    return 0;
}

/* Everything that can be checked, before the screen; then the viewer. */
static int view(view_args *v)
{
    char err[512];
    /* no JVM named: the chooser lists the user's JVMs */
    int choosing = !v->have_target && !v->open_file;
    if (v->have_target && ht_target_set_key(&v->target, v->key_file, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    if (!v->have_target && v->key_file) {
        fprintf(stderr, "heaptop: --key is for an agent's TCP endpoint (--ipc tcp://HOST:PORT)\n");
        return 2;
    }
    if (!v->open_file && ht_reach_check(&v->reach, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 2;
    }
    /* --out, when given, checked as record checks it (outdir.h), before the
     * screen and any attach */
    if (v->out_given && ht_outdir_prepare(v->out_dir, err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: --out: %s\n", err);
        return 2;
    }
    if (ht_ui_check_terminal(err, sizeof err) != 0) {
        fprintf(stderr, "heaptop: %s\n", err);
        return 1;
    }
    if (v->open_file) {
        /* the file is there and is HPROF: said now, before the screen */
        ht_hprof probe;
        if (v->open_before && ht_hprof_probe(&probe, v->open_before) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", v->open_before, probe.err);
            return 1;
        }
        if (ht_hprof_probe(&probe, v->open_file) != HT_HPROF_OK) {
            fprintf(stderr, "heaptop open: %s: %s\n", v->open_file, probe.err);
            return 1;
        }
    } else if (!choosing) {
        /* Root goes on as another user's JVM's user: exports stay root's,
         * through the directory kept open now (outdir.h). The default '.'
         * may not be root's own: then exports say who could not write. */
        if (v->target.owner != geteuid() && ht_outdir_keep(v->out_dir, err, sizeof err) != 0 &&
            v->out_given) {
            fprintf(stderr, "heaptop: --out: %s\n", err);
            return 2;
        }
        /* Fail early and plainly when nothing is there; attach to a JVM
         * without the agent; wait only when asked to and only for what can
         * still come. */
        ht_target_status st = ht_reach(&v->target, &v->reach, "heaptop", err, sizeof err);
        if (st == HT_TARGET_FATAL || (st == HT_TARGET_ABSENT && !v->wait)) {
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
    ht_tui_opts o = {.target = choosing || v->open_file ? NULL : &v->target,
                     .open_file = v->open_file,
                     .open_before = v->open_before,
                     .out_dir = v->out_dir,
                     .out_given = v->out_given,
                     .ascii = v->ascii,
                     .reach = &v->reach,
                     .source = &v->source};
    return ht_tui_run(&o);
}

static int view_main(int argc, char **argv, int open)
{
    static view_args v; /* the viewer keeps pointers into it until it ends */
    memset(&v, 0, sizeof v);
    v.out_dir = ".";
    v.reach.timeout_ms = 10000;
    int rc = parse(&v, argc, argv, open);
    return rc != 0 ? rc : view(&v);
}

int ht_view_main(int argc, char **argv)
{
    return view_main(argc, argv, 0);
}

int ht_open_main(int argc, char **argv)
{
    return view_main(argc, argv, 1);
}
