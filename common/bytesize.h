/*
 * bytesize.h - the one parser for numbers typed by people: byte sizes
 * ("512k", "1m", "2g") and plain counts ("60").
 *
 * Owns: the accepted syntax and its overflow-safe arithmetic. A byte size is
 * decimal digits with an optional k, m or g suffix (either case, binary
 * multiples: 1k = 1024), optionally followed by b or B after the suffix
 * ("512kb"); a count is decimal digits only. No sign, no spaces, no
 * fractions. Every value is checked against a maximum the caller passes, so
 * nothing wraps. Used by the agent's option parser, `heaptop control`, the
 * TUI's interval prompt and `heaptop record`'s options. Pure functions: no
 * I/O, no allocation, any thread. A percentage ("1%", "0.25%") is digits with
 * up to two decimals and a '%' sign, kept in hundredths of a percent. The
 * other way round, ht_format_bytes writes a size for people ("28.3 MiB") and
 * ht_format_count a count ("23,600,000"). A duration ("10ms", "1s") is digits
 * and a unit, kept in microseconds.
 */
#ifndef HEAPTOP_BYTESIZE_H
#define HEAPTOP_BYTESIZE_H

#include <stddef.h>
#include <stdint.h>

enum {
    HT_NUM_OK = 0,
    HT_NUM_SYNTAX = -1, /* not a number of the expected form */
    HT_NUM_RANGE = -2,  /* well formed but larger than the maximum (or than 2^64-1) */
};

/* Parse a byte size no larger than max into *out (untouched on failure).
 * Returns HT_NUM_OK, HT_NUM_SYNTAX or HT_NUM_RANGE. When err is not NULL a
 * failure also leaves a message naming the text there, e.g.
 * "'10q' is not a byte count (expected digits with an optional k, m or g
 * suffix, such as 512k)" or "'3g' is too large (at most 2147483647 bytes, 2g-1)". */
int ht_parse_bytes(const char *s, uint64_t max, uint64_t *out, char *err, size_t errn);
/* Parse a plain count (digits only) no larger than max. Same results as above;
 * the message says "is not a whole number" or "is too large (at most N)". */
int ht_parse_count(const char *s, uint64_t max, uint64_t *out, char *err, size_t errn);
/* Parse a percentage ("1%", "0.5%", "2.25%"; the '%' is required) no larger
 * than max_x100 hundredths of a percent into *out_x100. Same results; the
 * message says "is not a percentage such as 1%" or "is too large (at most N%)". */
int ht_parse_percent(const char *s, uint32_t max_x100, uint32_t *out_x100, char *err, size_t errn);

/* Parse a duration: digits with a unit, us, ms or s ("10ms", "500us", "1s"),
 * between min_us and max_us, into *out_us. Same results; the message says
 * "is not a duration such as 10ms" or "is out of range (1ms .. 1s)". */
int ht_parse_duration_us(const char *s, uint64_t min_us, uint64_t max_us, uint64_t *out_us,
                         char *err, size_t errn);

/* v bytes for a message: "512 bytes", "28.3 MiB" (binary units, one decimal). */
void ht_format_bytes(uint64_t v, char *out, size_t n);
/* v for people, its digits grouped by threes: "23,600,000". */
void ht_format_count(uint64_t v, char *out, size_t n);

#endif
