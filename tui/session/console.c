/* console.c - see console.h. */
#include "console.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ht_console_init(ht_console *c, uint32_t cap)
{
    memset(c, 0, sizeof *c);
    c->v = calloc(cap ? cap : 1, sizeof *c->v);
    c->cap = cap ? cap : 1;
    return c->v ? 0 : -1;
}

void ht_console_free(ht_console *c)
{
    for (uint32_t i = 0; c->v && i < c->n; i++)
        free(c->v[(c->start + i) % c->cap].text);
    free(c->v);
    memset(c, 0, sizeof *c);
}

void ht_console_add(ht_console *c, char tag, const char *s, size_t n)
{
    char *t = malloc(n + 1);
    if (!t) return;
    memcpy(t, s, n);
    t[n] = '\0';
    for (size_t i = 0; i < n; i++) /* a tab or a control character would move the cursor */
        if ((unsigned char)t[i] < ' ') t[i] = t[i] == '\t' ? ' ' : '?';
    ht_console_line *slot;
    if (c->n == c->cap) { /* full: the oldest goes */
        slot = &c->v[c->start];
        free(slot->text);
        c->start = (c->start + 1) % c->cap;
    } else {
        slot = &c->v[(c->start + c->n++) % c->cap];
    }
    slot->tag = tag;
    slot->text = t;
    c->total++;
    c->generation++;
}

const ht_console_line *ht_console_at(const ht_console *c, uint32_t i)
{
    return i < c->n ? &c->v[(c->start + i) % c->cap] : NULL;
}

int ht_console_read(ht_console *c, int fd)
{
    int added = 0;
    char buf[16384];
    for (int rounds = 0; fd >= 0 && !c->eof && rounds < 64; rounds++) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break; /* EAGAIN: nothing more now */
        if (r == 0) {
            c->eof = 1;
            break;
        }
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] == '\n' || c->partn == sizeof c->part) {
                if (c->partn) {
                    ht_console_add(c, c->part[0], c->part + 1, c->partn - 1);
                    added++;
                }
                c->partn = 0;
                if (buf[i] == '\n') continue;
            }
            c->part[c->partn++] = buf[i];
        }
    }
    return added;
}
