/*
 * view_cmd.h - the interactive view's command lines: `heaptop [--ipc PATH
 * [--key FILE] | PID] [options]` (no target: the chooser) and `heaptop open
 * [A.hprof] FILE.hprof[.gz] [options]`.
 *
 * Owns: their options (getopt_long, in the order given: one line and exit 2
 * for a wrong one), the checks made before the terminal is taken, in the
 * order a user needs them said (--out, the terminal, a dump file's header,
 * the target: attached or waited for, then that keys come from a terminal),
 * keeping the export directory open for root before it becomes another
 * user's JVM's user (outdir.h), and the usage text. Then the viewer runs on
 * what was checked (ht_tui_run, app.h). Runs on the main thread, before any
 * other thread exists. It writes no file (--out's directory may be created,
 * outdir.h) and never talks to the agent itself: reaching the target is
 * reach.h's.
 */
#ifndef HEAPTOP_VIEW_CMD_H
#define HEAPTOP_VIEW_CMD_H

#include <stdio.h>

/* heaptop [options] [PID]: argv[0] is "heaptop". Exit status: the viewer's
 * (0; 1 when a dump could not be read), 1 (the terminal, the target), 2
 * (usage). */
int ht_view_main(int argc, char **argv);
/* heaptop open [A.hprof] FILE.hprof[.gz]: argv[0] is "open". */
int ht_open_main(int argc, char **argv);
/* The interactive view's options, for heaptop --help (after the commands). */
void ht_view_usage(FILE *f);

#endif
