/*
 * console.h - the Console's lines: what a program started by `heaptop run`
 * printed, as its relay (launch.h) hands it over.
 *
 * Owns: the feed's format (one line per record: a tag byte, the text, '\n';
 * tags HT_CONSOLE_OUT stdout, HT_CONSOLE_ERR stderr, HT_CONSOLE_NOTE
 * heaptop's own remark) and a bounded ring of the last lines (the oldest go
 * first: the log file keeps everything). Read without blocking on the UI
 * thread, which alone touches a ring; it never waits and never writes
 * anything.
 */
#ifndef HEAPTOP_CONSOLE_H
#define HEAPTOP_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#define HT_CONSOLE_LINE_MAX 4096   /* a longer line comes as several */
#define HT_CONSOLE_LINES    10000u /* the ring's default size */

enum { HT_CONSOLE_OUT = 'O', HT_CONSOLE_ERR = 'E', HT_CONSOLE_NOTE = 'N' };

typedef struct ht_console_line {
    char tag;
    char *text;
} ht_console_line;

typedef struct ht_console {
    ht_console_line *v; /* ring of cap lines */
    uint32_t cap, start, n;
    uint64_t total;      /* lines ever received (the first shown is total - n) */
    uint64_t generation; /* changes with every line */
    int eof;             /* the relay closed the feed */
    char part[HT_CONSOLE_LINE_MAX + 2];
    size_t partn; /* a record being received */
} ht_console;

/* 0, or -1 out of memory. */
int ht_console_init(ht_console *c, uint32_t cap);
void ht_console_free(ht_console *c);
/* Take what the feed fd (non-blocking) holds now: the number of lines
 * added; at end of feed c->eof is set. */
int ht_console_read(ht_console *c, int fd);
/* Add one line (n bytes of s, no '\n'). */
void ht_console_add(ht_console *c, char tag, const char *s, size_t n);
/* Line i, 0 the oldest kept. */
const ht_console_line *ht_console_at(const ht_console *c, uint32_t i);

#endif
