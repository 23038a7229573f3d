/*
 * run.h - `heaptop run [options] -- java ARGS...`: the TUI on a program that
 * heaptop starts under its agent (launch.h), and the launch step `heaptop
 * record ... -- java ...` shares with it.
 *
 * Owns: the run command's options and its order of work: everything that can
 * be checked (the options, the agent's options with the agent's own parser,
 * the command after --, the output directory, the terminal) is checked
 * before anything starts; then the program starts, its pid and log file are
 * said on stderr, and the agent's socket is waited for (a program that exits
 * first is said with the last lines of its output). Runs on the main thread,
 * before any other thread exists; it never starts the TUI on a program whose
 * agent is not listening.
 */
#ifndef HEAPTOP_RUN_H
#define HEAPTOP_RUN_H

#include "launch.h"

int ht_run_main(int argc, char **argv);
/* Check the command after -- (argc words of argv), start it under the agent
 * (reach: the checked agent options), say so as prog, and wait for its agent.
 * 0, or the exit status after one line (or the program's last lines) on
 * stderr; nothing is left running then. */
int ht_run_launch(const char *prog, int argc, char **argv, ht_reach_opts *reach, const char *log,
                  const char *log_dir, int console, int timeout_ms, ht_launch *l);

#endif
