/*
 * libFuzzer target: arbitrary bytes as a source file (tui/source): split
 * into lines, the lexer's state at each line's start, every line lexed token
 * by token; and the bytes as a class name and a source file name from the
 * JVM, made into a relative path. A finding: any out-of-bounds access or
 * undefined behaviour, a token that does not move forward or ends past its
 * line, a kind or state out of range, lines that do not cover the bytes,
 * kinds that disagree with the token walk, or a relative path that could
 * leave its directory (a leading '/', a ".." part).
 */
#include "source_find.h"
#include "source_lex.h"
#include "source_text.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void lex_line(const char *s, size_t n, ht_lex_state st, uint8_t *kinds)
{
    ht_lex_state walk = st;
    ht_lex_state whole = ht_lex_line(s, n, st, kinds);
    for (size_t at = 0; at < n;) {
        ht_lex_kind k;
        size_t end = ht_lex_next(s, n, at, &walk, &k);
        if (end <= at || end > n || k >= HT_LEX_KINDS || walk > HT_LEX_IN_TEXT) abort();
        for (size_t i = at; i < end; i++)
            if (kinds[i] != k) abort();
        at = end;
    }
    if (walk != whole) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > HT_SOURCE_MAX_BYTES) return 0;
    char *bytes = malloc(size + 1);
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    ht_source_text t;
    if (ht_source_text_take(&t, bytes, size) != 0) return 0;
    uint8_t *kinds = malloc(size ? size : 1);
    size_t covered = 0;
    for (uint32_t k = 0; kinds && k < t.nlines; k++) {
        if (t.start[k] < covered || (size_t)t.start[k] + t.length[k] > size) abort();
        covered = (size_t)t.start[k] + t.length[k];
        if (t.state[k] > HT_LEX_IN_TEXT) abort();
        lex_line(t.bytes + t.start[k], t.length[k], (ht_lex_state)t.state[k], kinds);
    }
    if (t.nlines && covered + 2 < size) abort(); /* only a line end may follow the last line */
    free(kinds);
    /* the first line as a class name, the rest as its source file name */
    char *cls = t.nlines ? strndup(t.bytes + t.start[0], t.length[0]) : NULL;
    const char *src = t.nlines > 1 ? t.bytes + t.start[1] : NULL;
    char *src_copy = src ? strndup(src, t.length[1]) : NULL;
    char rel[HT_SOURCE_REL_MAX], err[700];
    if (cls && ht_source_rel(cls, src_copy, rel, sizeof rel, err, sizeof err) == 0) {
        if (rel[0] == '/' || strstr(rel, "//") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
            (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/..")))
            abort();
    } else if (cls && !err[0]) {
        abort();
    }
    free(cls);
    free(src_copy);
    ht_source_text_free(&t);
    return 0;
}
