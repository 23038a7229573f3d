/* shown.c - see shown.h. */
#include "shown.h"

#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1-4), or 0 when the bytes
 * there are not one (overlong forms, surrogates, past U+10FFFF, cut short). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t len;
    unsigned min, cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0; /* a NUL ends it here too */
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

const char *ht_shown(const char *s, char *buf, size_t n)
{
    if (!n) return buf;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t k = 0;
    while (*p) {
        char piece[8];
        size_t len = utf8_len(p), w;
        if (len == 1 && (*p < 0x20 || *p == 0x7f)) len = 0;
        if (len) {
            memcpy(piece, p, len);
            w = len;
            p += len;
        } else {
            w = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *p);
            p++;
        }
        if (k + w + (*p ? 3 : 0) >= n) { /* room for "..." when more follows */
            if (k + 3 < n) memcpy(buf + k, "...", 3), k += 3;
            break;
        }
        memcpy(buf + k, piece, w);
        k += w;
    }
    buf[k] = '\0';
    return buf;
}
