/*
 * control_cmd.h - `heaptop control`: one control request from the command line.
 *
 * Owns: parsing `status | pause | resume | interval BYTES | budget | mark |
 * heapdump [--all] [--keep] [--plain] | detach` (each with exactly its words:
 * a surplus one is refused before the agent is reached) and printing the
 * agent's answer. Uses the same
 * client session as every viewer; `heapdump` follows the stream too, since
 * the dump's outcome comes there, and waits as long as the agent reports on
 * it (once a second). Runs on the main thread.
 */
#ifndef HEAPTOP_CONTROL_CMD_H
#define HEAPTOP_CONTROL_CMD_H

int ht_control_main(int argc, char **argv);

#endif
