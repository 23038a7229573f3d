/*
 * class_file.h - a bounded reader of Java class files (JVMS chapter 4), for
 * the drag rewriter (class_rewrite.c) and its tests.
 *
 * Owns: the parse of one class file held in memory into offsets into its
 * bytes: the constant pool (every tag of versions 45..69, Long and Double
 * taking two slots), the methods and their Code attributes. Fields and
 * attributes are checked for their lengths only. Never reads past the bytes
 * it was given and allocates at most a few bytes per byte of input, whatever
 * the input; a malformed file gets one line naming what was wrong. Pure: any
 * thread, no globals, no JVMTI.
 */
#ifndef HEAPTOP_CLASS_FILE_H
#define HEAPTOP_CLASS_FILE_H

#include <stddef.h>
#include <stdint.h>

#define HT_CF_ACC_STATIC    0x0008u
#define HT_CF_ACC_NATIVE    0x0100u
#define HT_CF_ACC_INTERFACE 0x0200u
#define HT_CF_ACC_ABSTRACT  0x0400u
#define HT_CF_ACC_MODULE    0x8000u

/* Constant pool tags (JVMS 4.4). */
enum {
    HT_CP_UTF8 = 1,
    HT_CP_INTEGER = 3,
    HT_CP_FLOAT = 4,
    HT_CP_LONG = 5,
    HT_CP_DOUBLE = 6,
    HT_CP_CLASS = 7,
    HT_CP_STRING = 8,
    HT_CP_FIELDREF = 9,
    HT_CP_METHODREF = 10,
    HT_CP_IMETHODREF = 11,
    HT_CP_NAME_AND_TYPE = 12,
    HT_CP_METHOD_HANDLE = 15,
    HT_CP_METHOD_TYPE = 16,
    HT_CP_DYNAMIC = 17,
    HT_CP_INVOKE_DYNAMIC = 18,
    HT_CP_MODULE = 19,
    HT_CP_PACKAGE = 20,
};

typedef struct ht_cf_method {
    uint16_t access, name, desc; /* name, desc: constant pool indexes of Utf8s */
    uint32_t start, end;         /* the method_info's bytes */
    uint32_t code;               /* offset of its Code attribute's header, 0: none */
} ht_cf_method;

typedef struct ht_class_file {
    const uint8_t *p;
    size_t len;
    uint16_t minor, major;
    uint16_t cp_count; /* as in the file: entries + 1 */
    uint32_t *cp;      /* [cp_count]: offset of entry i's tag; 0 for 0 and Long/Double's 2nd slot */
    uint32_t cp_end;   /* offset of access_flags */
    uint16_t access, this_class;
    uint32_t methods_at;  /* offset of methods_count */
    uint32_t methods_end; /* offset of the class's attributes_count */
    uint16_t nmethods;
    ht_cf_method *methods;
} ht_class_file;

/* A Code attribute (JVMS 4.7.3), as offsets into the class file's bytes. */
typedef struct ht_cf_code {
    uint16_t max_stack, max_locals;
    uint32_t code_at, code_len; /* the bytecode */
    uint32_t exc_at;            /* the first exception_table entry (8 bytes each) */
    uint16_t nexc;
    uint32_t attrs_at; /* the first of its attributes (after attributes_count) */
    uint16_t nattrs;
    uint32_t end; /* just past the attribute */
} ht_cf_code;

/* Parses p[0..len) into *cf (which borrows p). 0, or -1 with one line in err
 * (and *cf freed). Checks the magic, the version (45..69), every constant
 * pool entry, the lengths of every field, method and attribute, the Code
 * attributes' own layout, and that nothing follows the last attribute. */
/* One line into err (printf-style), for the parser and the rewrite alike;
 * returns -1. */
int ht_cf_fail(char *err, size_t errn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ht_cf_parse(ht_class_file *cf, const uint8_t *p, size_t len, char *err, size_t errn);
void ht_cf_free(ht_class_file *cf);

/* The tag of constant pool entry i, 0 when i is not an entry. */
uint8_t ht_cf_tag(const ht_class_file *cf, uint32_t i);
/* 1 when entry i is a Utf8 whose bytes are s exactly. */
int ht_cf_utf8_is(const ht_class_file *cf, uint32_t i, const char *s);
/* The Code attribute whose header (name index) is at offset at. 0 or -1. */
int ht_cf_code_at(const ht_class_file *cf, uint32_t at, ht_cf_code *c);

/* A cursor over bytes: every read checks the bytes left first and latches
 * bad instead of reading past len (a bad read gives 0). */
typedef struct ht_cf_cur {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} ht_cf_cur;

/* Big-endian reads, for callers that have checked the bounds. */
static inline uint16_t ht_cf_u2(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t ht_cf_u4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline int ht_cf_need(ht_cf_cur *c, size_t n)
{
    if (c->bad || c->len - c->pos < n) {
        c->bad = 1;
        return 0;
    }
    return 1;
}
static inline uint8_t ht_cf_u1(ht_cf_cur *c)
{
    return ht_cf_need(c, 1) ? c->p[c->pos++] : 0;
}
static inline uint16_t ht_cf_r2(ht_cf_cur *c)
{
    if (!ht_cf_need(c, 2)) return 0;
    c->pos += 2;
    return ht_cf_u2(c->p + c->pos - 2);
}
static inline uint32_t ht_cf_r4(ht_cf_cur *c)
{
    if (!ht_cf_need(c, 4)) return 0;
    c->pos += 4;
    return ht_cf_u4(c->p + c->pos - 4);
}
static inline void ht_cf_skip(ht_cf_cur *c, size_t n)
{
    if (ht_cf_need(c, n)) c->pos += n;
}

#endif
