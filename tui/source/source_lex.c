/* source_lex.c - see source_lex.h. */
#include "source_lex.h"

#include <string.h>

static int is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static int is_ident(unsigned char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

int ht_lex_is_keyword(const char *s, size_t n)
{
    static const char *const WORDS[] = {
        "abstract",   "assert",     "boolean",  "break",     "byte",     "case",
        "catch",      "char",       "class",    "const",     "continue", "default",
        "do",         "double",     "else",     "enum",      "extends",  "final",
        "finally",    "float",      "for",      "goto",      "if",       "implements",
        "import",     "instanceof", "int",      "interface", "long",     "native",
        "new",        "package",    "private",  "protected", "public",   "return",
        "short",      "static",     "strictfp", "super",     "switch",   "synchronized",
        "this",       "throw",      "throws",   "transient", "try",      "void",
        "volatile",   "while",      "true",     "false",     "null",     "var",
        "record",     "yield",      "sealed",   "permits",   "module",   "requires",
        "exports",    "opens",      "uses",     "provides",  "with",     "to",
        "transitive", "open",
    };
    if (n < 2 || n > 12) return 0;
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (strlen(WORDS[i]) == n && memcmp(WORDS[i], s, n) == 0) return 1;
    return 0;
}

/* The end of a block comment's text from at: past its closing, or n. */
static size_t comment_end(const char *s, size_t n, size_t at, ht_lex_state *st)
{
    for (size_t i = at; i + 1 < n; i++)
        if (s[i] == '*' && s[i + 1] == '/') {
            *st = HT_LEX_CODE;
            return i + 2;
        }
    *st = HT_LEX_IN_COMMENT;
    return n;
}

/* The end of a text block's text from at: past its closing """, or n. */
static size_t text_end(const char *s, size_t n, size_t at, ht_lex_state *st)
{
    for (size_t i = at; i < n; i++) {
        if (s[i] == '\\') {
            i++; /* the escaped byte (a line's last backslash escapes the line end) */
            continue;
        }
        if (s[i] == '"' && i + 2 < n && s[i + 1] == '"' && s[i + 2] == '"') {
            *st = HT_LEX_CODE;
            return i + 3;
        }
    }
    *st = HT_LEX_IN_TEXT;
    return n;
}

/* A string or char literal from its quote at `at`: past the closing quote,
 * or the line's end when it has none. */
static size_t quoted_end(const char *s, size_t n, size_t at, char q)
{
    for (size_t i = at + 1; i < n; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] == q) return i + 1;
    }
    return n;
}

/* A number from at: digits, letters (0x, L, f, e), '_' and '.', and a sign
 * right after an exponent's e or p. */
static size_t number_end(const char *s, size_t n, size_t at)
{
    size_t i = at;
    int hex = i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (is_ident(c) && c < 0x80 && c != '$') {
            i++;
            int exp = hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E');
            if (exp && i < n && (s[i] == '+' || s[i] == '-')) i++;
        } else if (c == '.') {
            i++;
        } else {
            break;
        }
    }
    return i;
}

size_t ht_lex_next(const char *s, size_t n, size_t at, ht_lex_state *st, ht_lex_kind *kind)
{
    if (*st == HT_LEX_IN_COMMENT) {
        *kind = HT_LEX_COMMENT;
        return comment_end(s, n, at, st);
    }
    if (*st == HT_LEX_IN_TEXT) {
        *kind = HT_LEX_STRING;
        return text_end(s, n, at, st);
    }
    unsigned char c = (unsigned char)s[at];
    unsigned char d = at + 1 < n ? (unsigned char)s[at + 1] : 0;
    if (c == '/' && d == '/') {
        *kind = HT_LEX_COMMENT;
        return n;
    }
    if (c == '/' && d == '*') {
        *kind = HT_LEX_COMMENT;
        return comment_end(s, n, at + 2, st);
    }
    if (c == '"' && d == '"' && at + 2 < n && s[at + 2] == '"') {
        *kind = HT_LEX_STRING;
        return text_end(s, n, at + 3, st);
    }
    if (c == '"' || c == '\'') {
        *kind = c == '"' ? HT_LEX_STRING : HT_LEX_CHAR;
        return quoted_end(s, n, at, (char)c);
    }
    if (is_digit(c) || (c == '.' && is_digit(d))) {
        *kind = HT_LEX_NUMBER;
        return number_end(s, n, at);
    }
    if (c == '@' && is_ident_start(d)) {
        size_t i = at + 1;
        while (i < n && (is_ident((unsigned char)s[i]) || s[i] == '.'))
            i++;
        *kind = ht_lex_is_keyword(s + at + 1, i - at - 1) ? HT_LEX_KEYWORD : HT_LEX_ANNOTATION;
        return i;
    }
    if (is_ident_start(c)) {
        size_t i = at + 1;
        while (i < n && is_ident((unsigned char)s[i]))
            i++;
        *kind = ht_lex_is_keyword(s + at, i - at) ? HT_LEX_KEYWORD : HT_LEX_PLAIN;
        return i;
    }
    /* anything else: a run of bytes that start nothing above */
    size_t i = at + 1;
    while (i < n) {
        unsigned char e = (unsigned char)s[i];
        if (is_ident_start(e) || is_digit(e) || e == '"' || e == '\'' || e == '/' || e == '@' ||
            e == '.')
            break;
        i++;
    }
    *kind = HT_LEX_PLAIN;
    return i;
}

ht_lex_state ht_lex_line(const char *s, size_t n, ht_lex_state st, uint8_t *kinds)
{
    for (size_t at = 0; at < n;) {
        ht_lex_kind k;
        size_t end = ht_lex_next(s, n, at, &st, &k);
        if (end <= at) end = at + 1; /* never: but never loop forever either */
        if (kinds) memset(kinds + at, (int)k, end - at);
        at = end;
    }
    return st;
}

void ht_lex_states(const char *text, const uint32_t *start, const uint32_t *len, uint32_t n,
                   uint8_t *states)
{
    ht_lex_state st = HT_LEX_CODE;
    for (uint32_t k = 0; k < n; k++) {
        states[k] = (uint8_t)st;
        st = ht_lex_line(text + start[k], len[k], st, NULL);
    }
}
