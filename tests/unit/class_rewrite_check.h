/*
 * class_rewrite_check.h - test_class_rewrite.c's checking helpers: a rewrite
 * run with its output parsed again (agent/class_file.c), a method, its Code
 * and a Code attribute found by name, two methods' bytes compared, and the
 * class of one method "m" with a given StackMapTable.
 */
#ifndef HEAPTOP_CLASS_REWRITE_CHECK_H
#define HEAPTOP_CLASS_REWRITE_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "class_builder.h"
#include "class_file.h"
#include "class_rewrite.h"

/* A rewrite's result: rc, the output, its parse, the stats. */
typedef struct res {
    int rc;
    uint8_t *out;
    size_t len;
    ht_class_file cf;
    ht_rewrite_stats st;
    char err[200];
} res;

static inline res run(const uint8_t *in, size_t len, uint16_t cid)
{
    res r = {0};
    r.rc = ht_class_rewrite(in, len, cid, &r.out, &r.len, &r.st, r.err, sizeof r.err);
    if (r.rc == 0) {
        char e[200];
        int p = ht_cf_parse(&r.cf, r.out, r.len, e, sizeof e);
        CHECK_MSG(p == 0, "output does not parse: %s", e);
    }
    return r;
}

static inline void res_free(res *r)
{
    ht_cf_free(&r->cf);
    free(r->out);
}

/* The method named name in cf, and its Code when it has one. */
static inline const ht_cf_method *method(const ht_class_file *cf, const char *name,
                                         ht_cf_code *code)
{
    for (uint32_t i = 0; i < cf->nmethods; i++) {
        if (!ht_cf_utf8_is(cf, cf->methods[i].name, name)) continue;
        if (code && cf->methods[i].code) CHECK(ht_cf_code_at(cf, cf->methods[i].code, code) == 0);
        return &cf->methods[i];
    }
    return NULL;
}

/* The body of the Code attribute named name, *n its length; NULL: none. */
static inline const uint8_t *code_attr(const ht_class_file *cf, const ht_cf_code *c,
                                       const char *name, uint32_t *n)
{
    const uint8_t *p = cf->p + c->attrs_at;
    for (uint32_t i = 0; i < c->nattrs; i++) {
        uint32_t l = ht_cf_u4(p + 2);
        if (ht_cf_utf8_is(cf, ht_cf_u2(p), name)) {
            *n = l;
            return p + 6;
        }
        p += 6 + l;
    }
    return NULL;
}

/* A method's bytes in two files are the same. */
static inline int same_method(const ht_class_file *a, const ht_class_file *b, const char *name)
{
    const ht_cf_method *x = method(a, name, NULL), *y = method(b, name, NULL);
    return x && y && x->end - x->start == y->end - y->start &&
           memcmp(a->p + x->start, b->p + y->start, x->end - x->start) == 0;
}

/* A method "m" of code_len bytes of nops and a return, with the frames. */
static inline uint8_t *frames_class(const cb *frames, uint32_t code_len, size_t *len)
{
    klass k;
    k_init(&k, "t/Frames", 52, 0x0021);
    uint8_t *code = calloc(code_len, 1);
    code[code_len - 1] = 0xb1;
    cb attrs = {0};
    k_attr(&k, &attrs, "StackMapTable", frames);
    k_method(&k, 0x0001, "m", "()V", 1, code, code_len, NULL, &attrs, 1);
    cb_free(&attrs);
    free(code);
    return k_finish(&k, len);
}

#endif
