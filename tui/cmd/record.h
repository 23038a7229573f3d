/*
 * record.h - `heaptop record`: a headless viewer that writes CSV.
 *
 * Owns: the record command's options and its loop: check the options (one
 * target, nothing surplus), the target and the output directory (created if
 * missing, owned by the user the files are written as, proven writable:
 * outdir.h) before anything touches the JVM (an attach); connect, sync,
 * follow the stream until the time is up, the JVM exits or the user
 * interrupts; then report the samples the agent
 * dropped (a warning when any were: every est_* undercounts by that share),
 * write sites.csv, classes.csv, telemetry.csv and summary.csv, and print the
 * top sites. Whatever arrived before the JVM went away is still written; if
 * the output directory fails at the end, everything goes to a private
 * fallback directory instead and the command says where. With --heap, the
 * JVM then writes a heap dump of its live objects, which is analysed into
 * histogram.csv, dominators.csv and duplicates.csv beside the other files
 * (heap_report.h) and removed unless --keep. Runs on the main thread;
 * SIGINT/SIGTERM only set a flag (a second Ctrl-C stops waiting for the
 * dump).
 */
#ifndef HEAPTOP_RECORD_H
#define HEAPTOP_RECORD_H

int ht_record_main(int argc, char **argv);

#endif
