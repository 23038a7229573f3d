/*
 * source_text.h - a source file's bytes as lines, ready to draw.
 *
 * Owns: the bytes read (up to HT_SOURCE_MAX_BYTES, checked by whoever read
 * them: source_find.c), split into lines at '\n' (a '\r' before it is not
 * part of the line; a last line without '\n' is a line), and the lexer's
 * state at the start of each line (source_lex.h), so a view lexes only what
 * it shows. Any bytes: NUL, not UTF-8, a line of megabytes. Made on a job's
 * thread, then handed whole to the UI thread, which only reads it.
 */
#ifndef HEAPTOP_SOURCE_TEXT_H
#define HEAPTOP_SOURCE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The largest source file read: a larger one is refused with a line that
 * says so (a generated file of that size is not something to scroll). */
#define HT_SOURCE_MAX_BYTES (16u << 20)

typedef struct ht_source_text {
    char *bytes; /* len bytes, and a NUL after them */
    size_t len;
    uint32_t nlines;
    uint32_t *start, *length; /* line k (0-based): bytes[start[k] .. start[k] + length[k]) */
    uint8_t *state;           /* the lexer's state at the start of line k (ht_lex_state) */
} ht_source_text;

/* Take over bytes[0..len) (malloc'd, with room for one more byte) and split
 * it into lines: 0, or -1 out of memory (bytes freed, t empty). len must not
 * exceed HT_SOURCE_MAX_BYTES. */
int ht_source_text_take(ht_source_text *t, char *bytes, size_t len);
/* Split only: the number of lines of p[0..n), and when start and length are
 * not NULL each line's start and length (room for that many). */
uint32_t ht_source_split(const char *p, size_t n, uint32_t *start, uint32_t *length);
void ht_source_text_free(ht_source_text *t);

#endif
