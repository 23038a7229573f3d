/*
 * shown.h - how a path (or any text from outside: a file name, a class name
 * inside an error) is shown in a message line on the terminal.
 *
 * Owns: the one escaping rule for text heaptop echoes in its error lines:
 * control bytes (below 0x20, and 0x7f) and bytes that are not part of valid
 * UTF-8 become \xNN, so a name can neither drive the terminal (ESC
 * sequences) nor split the line; everything else, backslashes included, is
 * shown as it is. Pure: no allocation, no I/O, any thread.
 */
#ifndef HEAPTOP_SHOWN_H
#define HEAPTOP_SHOWN_H

#include <stddef.h>

/* s escaped into buf (n bytes, at least 1; cut at a whole character when it
 * does not fit, ending "..."); returns buf. s NULL shows as "". */
const char *ht_shown(const char *s, char *buf, size_t n);

/* A buffer for one shown path: 4x a PATH_MAX path fits. */
#define HT_SHOWN_MAX 4200

#endif
