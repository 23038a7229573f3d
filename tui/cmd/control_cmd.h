/*
 * control_cmd.h - `heaptop control`: one control request from the command line.
 *
 * Owns: parsing `status | pause | resume | interval BYTES` and printing the
 * agent's answer. Uses the same client session as every viewer.
 */
#ifndef HEAPTOP_CONTROL_CMD_H
#define HEAPTOP_CONTROL_CMD_H

int ht_control_main(int argc, char **argv);

#endif
