/*
 * main.c - the heaptop command: dispatches to its subcommands, and prints
 * the reference texts the docs hold (--keys, --agent-options, --columns,
 * --csv-headers: generated from the tables that decide, as the help screen
 * and the agent's =help are).
 */
#include "columns.h"
#include "control_cmd.h"
#include "export_cpu.h"
#include "export_drag.h"
#include "export_lines.h"
#include "export_views.h"
#include "heap_cmd.h"
#include "keymap.h"
#include "options.h"
#include "record.h"
#include "run.h"
#include "view_cmd.h"

#include "protocol.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: heaptop [--ipc PATH | PID] [--wait] [--ascii] [--out DIR]   interactive view "
        "(no PID: choose one of your JVMs)\n"
        "               [--source PATH[:PATH...]]   where o on a frame finds its source file\n"
        "       heaptop run [--out DIR] [--log FILE] -- java ARGS...   start a program "
        "under the agent\n"
        "       heaptop record (--ipc PATH | PID) [--seconds N] [--out DIR] [--top N] "
        "[--timeout MS]\n"
        "       heaptop record [--seconds N] [--out DIR] [--log FILE] ... -- java ARGS...\n"
        "       heaptop control (--ipc PATH | PID) status|pause|resume|interval BYTES|budget P%%|"
        "mark ...|\n"
        "                                          heapdump [--all] [--keep] [--plain]|\n"
        "                                          cpu on|off|async [--interval T]|detach\n"
        "       heaptop heap [A.hprof] FILE.hprof[.gz] --out DIR [--paths CLASS]   a heap "
        "dump's CSVs\n"
        "                                          (with A, an older dump: compare.csv too)\n"
        "       heaptop open [A.hprof] FILE.hprof[.gz] [--ascii] [--out DIR]   a heap dump "
        "in the TUI\n"
        "       heaptop --keys   the TUI's keys;  heaptop --agent-options   the agent's "
        "options\n"
        "       heaptop --columns   the lists' columns;  heaptop --csv-headers   their "
        "files' headers\n"
        "       heaptop --version\n"
        "heaptop PID and heaptop record PID load the agent into a JVM that has none "
        "(attach;\n[--agent PATH] [--interval BYTES] [--agent-opts K=V,...], which run and "
        "-- java take too);\nheaptop control does not.\n"
        "Or run a JVM with -agentpath:/path/to/libheaptop.so[=options]; "
        "-agentpath:...=help lists the agent's options.\n");
}

/* The columns --keys wraps the help to: docs/usage.md holds it. */
#define KEYS_WIDTH 100

/* The TUI's help screen as plain text: its lines at KEYS_WIDTH columns. */
static int print_keys(void)
{
    static ht_help_line lines[HT_HELP_MAX];
    int n = ht_keymap_help(lines, HT_HELP_MAX, KEYS_WIDTH);
    for (int i = 0; i < n && i < HT_HELP_MAX; i++)
        printf("%s\n", lines[i].text);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc >= 2 ? argv[1] : "";
    if (strcmp(cmd, "record") == 0) return ht_record_main(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0) return ht_run_main(argc - 1, argv + 1);
    if (strcmp(cmd, "heap") == 0) return ht_heap_main(argc - 1, argv + 1);
    if (strcmp(cmd, "control") == 0) return ht_control_main(argc - 1, argv + 1);
    if (strcmp(cmd, "open") == 0) return ht_open_main(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0) {
        printf("heaptop %s (protocol %d)\n", HEAPTOP_VERSION, HT_PROTOCOL_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--keys") == 0) return print_keys();
    if (strcmp(cmd, "--columns") == 0) {
        ht_col_reference(stdout);
        return 0;
    }
    if (strcmp(cmd, "--csv-headers") == 0) {
        ht_export_views_headers(stdout);
        ht_export_cpu_headers(stdout);   /* record's cpu.csv and threads.csv */
        ht_export_drag_headers(stdout);  /* record's drag.csv */
        ht_export_lines_headers(stdout); /* record --source's lines.csv */
        return 0;
    }
    if (strcmp(cmd, "--agent-options") == 0) {
        ht_options_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        ht_view_usage(stdout);
        return 0;
    }
    /* no argument: the TUI opens on the list of the user's JVMs */
    return ht_view_main(argc, argv);
}
