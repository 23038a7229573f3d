/*
 * wire.h - little-endian byte buffers for the heaptop protocol.
 *
 * Owns: a growable output buffer (ht_buf) and a bounds-checked input cursor
 * (ht_reader). Every read checks the remaining length first and latches an
 * error instead of reading past the end, so a decoder built on it can be fed
 * arbitrary bytes (it is fuzzed). Never aborts; allocation failure latches too.
 * Not thread-safe: one buffer, one owner.
 */
#ifndef HEAPTOP_WIRE_H
#define HEAPTOP_WIRE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ht_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed; /* latched: an allocation failed, contents are incomplete */
} ht_buf;

void ht_buf_init(ht_buf *b);
void ht_buf_free(ht_buf *b);
void ht_buf_reset(ht_buf *b); /* keeps the allocation */
int ht_buf_reserve(ht_buf *b, size_t extra);
void ht_put_bytes(ht_buf *b, const void *p, size_t n);
void ht_put_u8(ht_buf *b, uint8_t v);
void ht_put_u16(ht_buf *b, uint16_t v);
void ht_put_u32(ht_buf *b, uint32_t v);
void ht_put_u64(ht_buf *b, uint64_t v);
void ht_put_i32(ht_buf *b, int32_t v);
void ht_put_f64(ht_buf *b, double v);
/* u32 length then bytes; NULL is written as the empty string. */
void ht_put_str(ht_buf *b, const char *s);
void ht_put_strn(ht_buf *b, const char *s, size_t n);
/* Overwrite a u32 already written at offset (for back-patched lengths/counts). */
void ht_patch_u32(ht_buf *b, size_t offset, uint32_t v);

/* A string inside a received message: not NUL-terminated. */
typedef struct ht_str {
    const char *s;
    uint32_t len;
} ht_str;

typedef struct ht_reader {
    const uint8_t *p;
    size_t len;
    size_t pos;
    int failed; /* latched: a read ran past the end or a value was invalid */
} ht_reader;

void ht_reader_init(ht_reader *r, const void *p, size_t len);
size_t ht_remaining(const ht_reader *r);
uint8_t ht_get_u8(ht_reader *r);
uint16_t ht_get_u16(ht_reader *r);
uint32_t ht_get_u32(ht_reader *r);
uint64_t ht_get_u64(ht_reader *r);
int32_t ht_get_i32(ht_reader *r);
double ht_get_f64(ht_reader *r);
ht_str ht_get_str(ht_reader *r);
const uint8_t *ht_get_bytes(ht_reader *r, size_t n);
/* Copy a wire string into a fresh NUL-terminated heap string (NULL on OOM). */
char *ht_str_dup(ht_str s);

#endif
