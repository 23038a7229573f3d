/* source_text.c - see source_text.h. */
#include "source_text.h"

#include "source_lex.h"

#include <stdlib.h>
#include <string.h>

uint32_t ht_source_split(const char *p, size_t n, uint32_t *start, uint32_t *length)
{
    uint32_t k = 0;
    size_t at = 0;
    while (at < n) {
        const char *nl = memchr(p + at, '\n', n - at);
        size_t end = nl ? (size_t)(nl - p) : n, len = end - at;
        if (len && p[end - 1] == '\r') len--;
        if (start) start[k] = (uint32_t)at, length[k] = (uint32_t)len;
        k++;
        at = nl ? end + 1 : n;
    }
    return k;
}

int ht_source_text_take(ht_source_text *t, char *bytes, size_t len)
{
    memset(t, 0, sizeof *t);
    if (len > HT_SOURCE_MAX_BYTES) {
        free(bytes);
        return -1;
    }
    bytes[len] = '\0';
    t->bytes = bytes;
    t->len = len;
    uint32_t n = ht_source_split(bytes, len, NULL, NULL);
    size_t cap = n ? n : 1;
    t->start = malloc(cap * sizeof *t->start);
    t->length = malloc(cap * sizeof *t->length);
    t->state = malloc(cap);
    if (!t->start || !t->length || !t->state) {
        ht_source_text_free(t);
        return -1;
    }
    t->nlines = ht_source_split(bytes, len, t->start, t->length);
    ht_lex_states(bytes, t->start, t->length, t->nlines, t->state);
    return 0;
}

void ht_source_text_free(ht_source_text *t)
{
    free(t->bytes);
    free(t->start);
    free(t->length);
    free(t->state);
    memset(t, 0, sizeof *t);
}
