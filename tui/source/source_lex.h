/*
 * source_lex.h - a Java lexer for colouring source lines.
 *
 * Owns: what each byte of a line is (keyword, string, char, text block,
 * comment, number, annotation, plain), and the state one line hands the
 * next: inside a block comment or a text block, or neither. Only that
 * state crosses a line end (Java strings and chars end with their line), so
 * a view that knows the state at the start of each line (ht_lex_states, one
 * byte a line, computed once when the file is read) lexes only the lines it
 * shows. Byte-based: UTF-8 or not, NUL bytes, a line of any length, an
 * unterminated comment, string or text block all lex; every byte gets a
 * kind and nothing is read past the length given. It colours, it does not
 * parse: a Unicode escape (\u0022) is not decoded.
 *
 * Threads: any; pure functions over the caller's bytes. Never allocates.
 */
#ifndef HEAPTOP_SOURCE_LEX_H
#define HEAPTOP_SOURCE_LEX_H

#include <stddef.h>
#include <stdint.h>

typedef enum ht_lex_kind {
    HT_LEX_PLAIN = 0,
    HT_LEX_KEYWORD,    /* class, return, true, null, var ... */
    HT_LEX_STRING,     /* "..." and text blocks """...""" */
    HT_LEX_CHAR,       /* 'x' */
    HT_LEX_COMMENT,    /* // and block comments */
    HT_LEX_NUMBER,     /* 42, 0x1F, 1_000L, 3.5e-2f */
    HT_LEX_ANNOTATION, /* @Override */
    HT_LEX_KINDS
} ht_lex_kind;

/* What a line starts inside of. */
typedef enum ht_lex_state {
    HT_LEX_CODE = 0,
    HT_LEX_IN_COMMENT, /* a block comment not yet closed */
    HT_LEX_IN_TEXT,    /* a text block not yet closed */
} ht_lex_state;

/* One token of line s[0..n) starting at `at` (< n), the line having begun in
 * the state *st at its start and the tokens before `at` having been taken
 * with this function: its kind into *kind, *st updated; the offset where it
 * ends (> at, <= n). */
size_t ht_lex_next(const char *s, size_t n, size_t at, ht_lex_state *st, ht_lex_kind *kind);
/* Lex line s[0..n) begun in state st: kinds[i] the kind of byte i (kinds
 * NULL: only the state); the state the next line starts in. */
ht_lex_state ht_lex_line(const char *s, size_t n, ht_lex_state st, uint8_t *kinds);
/* The state at the start of each of n lines, line k being
 * text[start[k] .. start[k] + len[k]), into states[0..n). */
void ht_lex_states(const char *text, const uint32_t *start, const uint32_t *len, uint32_t n,
                   uint8_t *states);
/* Is s[0..n) a Java keyword (reserved, contextual, or a literal such as null)? */
int ht_lex_is_keyword(const char *s, size_t n);

#endif
