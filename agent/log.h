/*
 * log.h - what the agent says in the JVM's log (its stderr): one line per
 * message, each starting "heaptop: ", and JVMTI errors by name.
 *
 * Owns: the "heaptop: " prefix and the names of JVMTI's error codes. Every
 * line the agent writes goes through ht_log, as one write(2), so a line never
 * interleaves with the JVM's own output or another thread's. Any thread but
 * an application thread inside a JVMTI callback (the hot path does no I/O:
 * tests/hotpath_symbols.sh); no allocation unless a line passes 4 KiB.
 */
#ifndef HEAPTOP_LOG_H
#define HEAPTOP_LOG_H

#include <jvmti.h>
#include <stddef.h>

/* "heaptop: " + the formatted message + "\n" on stderr (fmt has no newline). */
void ht_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg past a leading "heaptop: ", for a message made elsewhere with the
 * prefix (common/options.c's, which the viewer prints as they are). */
const char *ht_log_unprefixed(const char *msg);
/* err's constant name ("JVMTI_ERROR_WRONG_PHASE") for the errors the agent's
 * calls can meet, else "JVMTI error N" written in buf (n bytes). */
const char *ht_jvmti_error_name(jvmtiError err, char *buf, size_t n);

#endif
