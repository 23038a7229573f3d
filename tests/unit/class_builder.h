/*
 * class_builder.h - class files built byte by byte for the rewriter's tests
 * (test_class_rewrite.c) and the fuzz target's seeds: a constant pool, methods
 * with Code (exception table, any attributes given as bytes), flags. The
 * builder checks nothing: tests build broken files on purpose.
 */
#ifndef HEAPTOP_CLASS_BUILDER_H
#define HEAPTOP_CLASS_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A growable big-endian byte buffer (aborts when out of memory: tests only). */
typedef struct cb {
    uint8_t *p;
    size_t len, cap;
} cb;

static inline void cb_n(cb *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}
static inline void cb_1(cb *b, uint32_t v)
{
    uint8_t x = (uint8_t)v;
    cb_n(b, &x, 1);
}
static inline void cb_2(cb *b, uint32_t v)
{
    cb_1(b, v >> 8);
    cb_1(b, v);
}
static inline void cb_4(cb *b, uint32_t v)
{
    cb_2(b, v >> 16);
    cb_2(b, v);
}
static inline void cb_free(cb *b)
{
    free(b->p);
    *b = (cb){0};
}

typedef struct klass {
    uint16_t major, access, this_class, ncp, nmethods;
    cb cp, methods;
} klass;

static inline uint16_t k_utf8(klass *k, const char *s)
{
    cb_1(&k->cp, 1);
    cb_2(&k->cp, (uint32_t)strlen(s));
    cb_n(&k->cp, s, strlen(s));
    return k->ncp++;
}
/* An entry of tag with a u2 (Class, String, MethodType, Module, Package) */
static inline uint16_t k_ref1(klass *k, uint8_t tag, uint16_t a)
{
    cb_1(&k->cp, tag);
    cb_2(&k->cp, a);
    return k->ncp++;
}
/* An entry of tag with two u2 (the refs, NameAndType, (Invoke)Dynamic). */
static inline uint16_t k_ref2(klass *k, uint8_t tag, uint16_t a, uint16_t b)
{
    cb_1(&k->cp, tag);
    cb_2(&k->cp, a);
    cb_2(&k->cp, b);
    return k->ncp++;
}
static inline uint16_t k_int(klass *k, uint32_t v)
{
    cb_1(&k->cp, 3);
    cb_4(&k->cp, v);
    return k->ncp++;
}
static inline uint16_t k_long(klass *k, uint8_t tag, uint64_t v)
{
    cb_1(&k->cp, tag);
    cb_4(&k->cp, (uint32_t)(v >> 32));
    cb_4(&k->cp, (uint32_t)v);
    uint16_t i = k->ncp;
    k->ncp += 2;
    return i;
}

/* A class named name, version major, with Object as its super class. */
static inline void k_init(klass *k, const char *name, uint16_t major, uint16_t access)
{
    *k = (klass){.major = major, .access = access, .ncp = 1};
    k->this_class = k_ref1(k, 7, k_utf8(k, name));
}

/* An attribute: name, then the bytes of body. */
static inline void k_attr(klass *k, cb *to, const char *name, const cb *body)
{
    cb_2(to, k_utf8(k, name));
    cb_4(to, (uint32_t)body->len);
    cb_n(to, body->p, body->len);
}

/* A method with no Code attribute (abstract, native) when code is NULL;
 * exc holds exception entries as written (8 bytes each), attrs the Code's
 * attributes as written (k_attr), nattrs of them. */
static inline void k_method(klass *k, uint16_t access, const char *name, const char *desc,
                            uint16_t max_stack, const uint8_t *code, uint32_t code_len,
                            const cb *exc, const cb *attrs, uint16_t nattrs)
{
    uint16_t n = k_utf8(k, name), d = k_utf8(k, desc);
    cb_2(&k->methods, access);
    cb_2(&k->methods, n);
    cb_2(&k->methods, d);
    cb_2(&k->methods, code ? 1 : 0);
    k->nmethods++;
    if (!code) return;
    cb body = {0};
    cb_2(&body, max_stack);
    cb_2(&body, 4); /* max_locals */
    cb_4(&body, code_len);
    cb_n(&body, code, code_len);
    cb_2(&body, exc ? (uint32_t)(exc->len / 8) : 0);
    if (exc) cb_n(&body, exc->p, exc->len);
    cb_2(&body, nattrs);
    if (attrs) cb_n(&body, attrs->p, attrs->len);
    k_attr(k, &k->methods, "Code", &body);
    cb_free(&body);
}

/* The class file's bytes (malloc'd), *len set; k is freed. */
static inline uint8_t *k_finish(klass *k, size_t *len)
{
    uint16_t object = k_ref1(k, 7, k_utf8(k, "java/lang/Object"));
    uint16_t source = k_utf8(k, "SourceFile"), file = k_utf8(k, "T.java");
    cb out = {0};
    cb_4(&out, 0xCAFEBABEu);
    cb_2(&out, 0);
    cb_2(&out, k->major);
    cb_2(&out, k->ncp);
    cb_n(&out, k->cp.p, k->cp.len);
    cb_2(&out, k->access);
    cb_2(&out, k->this_class);
    cb_2(&out, object);
    cb_2(&out, 0); /* interfaces */
    cb_2(&out, 0); /* fields */
    cb_2(&out, k->nmethods);
    cb_n(&out, k->methods.p, k->methods.len);
    cb_2(&out, 1); /* SourceFile */
    cb_2(&out, source);
    cb_4(&out, 2);
    cb_2(&out, file);
    cb_free(&k->cp);
    cb_free(&k->methods);
    *len = out.len;
    return out.p;
}

#endif
