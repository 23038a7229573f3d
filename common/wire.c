/* wire.c - see wire.h. */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

void ht_buf_init(ht_buf *b)
{
    memset(b, 0, sizeof *b);
}

void ht_buf_free(ht_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void ht_buf_reset(ht_buf *b)
{
    b->len = 0;
    b->failed = 0;
}

int ht_buf_reserve(ht_buf *b, size_t extra)
{
    if (b->failed) return -1;
    if (extra > SIZE_MAX - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void ht_put_bytes(ht_buf *b, const void *p, size_t n)
{
    if (n == 0 || ht_buf_reserve(b, n) != 0) return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_le(ht_buf *b, uint64_t v, int n)
{
    uint8_t tmp[8];
    for (int i = 0; i < n; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    ht_put_bytes(b, tmp, (size_t)n);
}

void ht_put_u8(ht_buf *b, uint8_t v)
{
    put_le(b, v, 1);
}
void ht_put_u16(ht_buf *b, uint16_t v)
{
    put_le(b, v, 2);
}
void ht_put_u32(ht_buf *b, uint32_t v)
{
    put_le(b, v, 4);
}
void ht_put_u64(ht_buf *b, uint64_t v)
{
    put_le(b, v, 8);
}
void ht_put_i32(ht_buf *b, int32_t v)
{
    put_le(b, (uint32_t)v, 4);
}

void ht_put_f64(ht_buf *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_le(b, bits, 8);
}

void ht_put_strn(ht_buf *b, const char *s, size_t n)
{
    if (!s) n = 0;
    if (n > UINT32_MAX) n = UINT32_MAX;
    ht_put_u32(b, (uint32_t)n);
    ht_put_bytes(b, s, n);
}

void ht_put_str(ht_buf *b, const char *s)
{
    ht_put_strn(b, s, s ? strlen(s) : 0);
}

void ht_patch_u32(ht_buf *b, size_t offset, uint32_t v)
{
    if (b->failed || offset + 4 > b->len) return;
    for (int i = 0; i < 4; i++)
        b->data[offset + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void ht_reader_init(ht_reader *r, const void *p, size_t len)
{
    r->p = p;
    r->len = p ? len : 0;
    r->pos = 0;
    r->failed = 0;
}

size_t ht_remaining(const ht_reader *r)
{
    return r->failed ? 0 : r->len - r->pos;
}

const uint8_t *ht_get_bytes(ht_reader *r, size_t n)
{
    if (r->failed || n > r->len - r->pos) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

static uint64_t get_le(ht_reader *r, int n)
{
    const uint8_t *p = ht_get_bytes(r, (size_t)n);
    if (!p) return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t ht_get_u8(ht_reader *r)
{
    return (uint8_t)get_le(r, 1);
}
uint16_t ht_get_u16(ht_reader *r)
{
    return (uint16_t)get_le(r, 2);
}
uint32_t ht_get_u32(ht_reader *r)
{
    return (uint32_t)get_le(r, 4);
}
uint64_t ht_get_u64(ht_reader *r)
{
    return get_le(r, 8);
}
int32_t ht_get_i32(ht_reader *r)
{
    return (int32_t)(uint32_t)get_le(r, 4);
}

double ht_get_f64(ht_reader *r)
{
    uint64_t bits = get_le(r, 8);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

ht_str ht_get_str(ht_reader *r)
{
    ht_str s = {"", 0};
    uint32_t n = ht_get_u32(r);
    const uint8_t *p = ht_get_bytes(r, n);
    if (p) {
        s.s = (const char *)p;
        s.len = n;
    }
    return s;
}

char *ht_str_dup(ht_str s)
{
    char *out = malloc((size_t)s.len + 1);
    if (!out) return NULL;
    if (s.len) memcpy(out, s.s, s.len);
    out[s.len] = '\0';
    return out;
}
