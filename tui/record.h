/*
 * record.h - `heaptop record`: a headless viewer that writes CSV.
 *
 * Owns: the record command's options and its loop: connect, sync, follow the
 * stream until the time is up, the JVM exits or the user interrupts, then
 * write sites.csv, classes.csv and telemetry.csv and print the top sites.
 * Whatever arrived before the JVM went away is still written.
 */
#ifndef HEAPTOP_RECORD_H
#define HEAPTOP_RECORD_H

int ht_record_main(int argc, char **argv);

#endif
