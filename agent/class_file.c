/*
 * class_file.c - a bounded reader of Java class files (class_file.h).
 *
 * Every read goes through a cursor (ht_cf_cur), which checks the remaining length first; a
 * count read from the file is checked against the bytes left (each item takes
 * at least a few bytes) before anything is allocated for it.
 */
#include "class_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ht_cf_fail(char *err, size_t errn, const char *fmt, ...)
{
    if (err && errn) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errn, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The bytes each constant pool tag takes after the tag, 0: not a tag. */
static size_t cp_size(uint8_t tag)
{
    switch (tag) {
    case HT_CP_CLASS:
    case HT_CP_STRING:
    case HT_CP_METHOD_TYPE:
    case HT_CP_MODULE:
    case HT_CP_PACKAGE:
        return 2;
    case HT_CP_METHOD_HANDLE:
        return 3;
    case HT_CP_INTEGER:
    case HT_CP_FLOAT:
    case HT_CP_FIELDREF:
    case HT_CP_METHODREF:
    case HT_CP_IMETHODREF:
    case HT_CP_NAME_AND_TYPE:
    case HT_CP_DYNAMIC:
    case HT_CP_INVOKE_DYNAMIC:
        return 4;
    case HT_CP_LONG:
    case HT_CP_DOUBLE:
        return 8;
    default:
        return 0;
    }
}

static int parse_cp(ht_class_file *cf, ht_cf_cur *c, char *err, size_t errn)
{
    cf->cp_count = ht_cf_r2(c);
    if (c->bad) return ht_cf_fail(err, errn, "class file truncated before its constant pool");
    if (cf->cp_count == 0) return ht_cf_fail(err, errn, "class file: constant pool count 0");
    /* every entry takes at least 3 bytes */
    if ((size_t)(cf->cp_count - 1) * 3 > c->len - c->pos)
        return ht_cf_fail(err, errn, "class file: constant pool count %u exceeds the file",
                          cf->cp_count);
    cf->cp = calloc(cf->cp_count, sizeof *cf->cp);
    if (!cf->cp) return ht_cf_fail(err, errn, "class file: out of memory");
    for (uint32_t i = 1; i < cf->cp_count; i++) {
        uint32_t at = (uint32_t)c->pos;
        uint8_t tag = ht_cf_u1(c);
        if (c->bad)
            return ht_cf_fail(err, errn, "class file truncated in constant pool entry %u", i);
        cf->cp[i] = at;
        if (tag == HT_CP_UTF8) {
            uint16_t n = ht_cf_r2(c);
            ht_cf_skip(c, n);
        } else {
            size_t n = cp_size(tag);
            if (!n)
                return ht_cf_fail(err, errn, "class file: constant pool entry %u has bad tag %u", i,
                                  tag);
            if (tag == HT_CP_METHOD_HANDLE && c->pos < c->len &&
                (c->p[c->pos] < 1 || c->p[c->pos] > 9))
                return ht_cf_fail(err, errn,
                                  "class file: constant pool entry %u: bad MethodHandle kind", i);
            ht_cf_skip(c, n);
            if (tag == HT_CP_LONG || tag == HT_CP_DOUBLE) {
                if (i + 1 >= cf->cp_count)
                    return ht_cf_fail(err, errn,
                                      "class file: Long/Double entry %u is the last slot", i);
                i++; /* the second slot stays 0 */
            }
        }
        if (c->bad)
            return ht_cf_fail(err, errn, "class file truncated in constant pool entry %u", i);
    }
    cf->cp_end = (uint32_t)c->pos;
    return 0;
}

uint8_t ht_cf_tag(const ht_class_file *cf, uint32_t i)
{
    if (i == 0 || i >= cf->cp_count || cf->cp[i] == 0) return 0;
    return cf->p[cf->cp[i]];
}

int ht_cf_utf8_is(const ht_class_file *cf, uint32_t i, const char *s)
{
    if (ht_cf_tag(cf, i) != HT_CP_UTF8) return 0;
    const uint8_t *e = cf->p + cf->cp[i];
    size_t n = ht_cf_u2(e + 1), sl = strlen(s);
    return n == sl && memcmp(e + 3, s, n) == 0;
}

/* attributes_count then the attributes: skips them, checking their lengths
 * and that each name is a Utf8. With code_of, the offset of the one named
 * "Code" goes there (a second one is an error). */
static int skip_attrs(const ht_class_file *cf, ht_cf_cur *c, uint32_t *code_of, const char *what,
                      char *err, size_t errn)
{
    uint16_t n = ht_cf_r2(c);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint32_t at = (uint32_t)c->pos;
        uint16_t name = ht_cf_r2(c);
        uint32_t alen = ht_cf_r4(c);
        if (c->bad) break;
        if (ht_cf_tag(cf, name) != HT_CP_UTF8)
            return ht_cf_fail(err, errn, "class file: %s has an attribute whose name is not a Utf8",
                              what);
        if (alen > c->len - c->pos) {
            c->bad = 1;
            break;
        }
        if (code_of && ht_cf_utf8_is(cf, name, "Code")) {
            if (*code_of)
                return ht_cf_fail(err, errn, "class file: %s has two Code attributes", what);
            *code_of = at;
        }
        ht_cf_skip(c, alen);
    }
    if (c->bad) return ht_cf_fail(err, errn, "class file truncated in the attributes of %s", what);
    return 0;
}

int ht_cf_code_at(const ht_class_file *cf, uint32_t at, ht_cf_code *code)
{
    ht_cf_cur c = {.p = cf->p, .len = cf->len, .pos = at};
    ht_cf_r2(&c);
    uint32_t alen = ht_cf_r4(&c);
    if (c.bad || alen > c.len - c.pos) return -1;
    c.len = c.pos + alen; /* the Code attribute's own bytes */
    *code = (ht_cf_code){0};
    code->max_stack = ht_cf_r2(&c);
    code->max_locals = ht_cf_r2(&c);
    code->code_len = ht_cf_r4(&c);
    code->code_at = (uint32_t)c.pos;
    if (c.bad || code->code_len == 0 || code->code_len > 65535) return -1;
    ht_cf_skip(&c, code->code_len);
    code->nexc = ht_cf_r2(&c);
    code->exc_at = (uint32_t)c.pos;
    ht_cf_skip(&c, (size_t)code->nexc * 8);
    code->nattrs = ht_cf_r2(&c);
    code->attrs_at = (uint32_t)c.pos;
    for (uint32_t i = 0; i < code->nattrs && !c.bad; i++) {
        uint16_t name = ht_cf_r2(&c);
        uint32_t l = ht_cf_r4(&c);
        if (!c.bad && ht_cf_tag(cf, name) != HT_CP_UTF8) return -1;
        ht_cf_skip(&c, l);
    }
    if (c.bad || c.pos != c.len) return -1;
    code->end = (uint32_t)c.pos;
    return 0;
}

static int parse_members(ht_class_file *cf, ht_cf_cur *c, int methods, char *err, size_t errn)
{
    const char *what = methods ? "a method" : "a field";
    uint32_t at = (uint32_t)c->pos;
    uint16_t n = ht_cf_r2(c);
    if (c->bad) return ht_cf_fail(err, errn, "class file truncated before its %s", what);
    if ((size_t)n * 8 > c->len - c->pos)
        return ht_cf_fail(err, errn, "class file: %u members exceed the file", n);
    if (methods) {
        cf->methods_at = at;
        cf->nmethods = n;
        cf->methods = calloc(n ? n : 1, sizeof *cf->methods);
        if (!cf->methods) return ht_cf_fail(err, errn, "class file: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        ht_cf_method m = {.start = (uint32_t)c->pos};
        m.access = ht_cf_r2(c);
        m.name = ht_cf_r2(c);
        m.desc = ht_cf_r2(c);
        if (c->bad) return ht_cf_fail(err, errn, "class file truncated in %s", what);
        if (ht_cf_tag(cf, m.name) != HT_CP_UTF8 || ht_cf_tag(cf, m.desc) != HT_CP_UTF8)
            return ht_cf_fail(err, errn, "class file: %s's name or descriptor is not a Utf8", what);
        if (skip_attrs(cf, c, methods ? &m.code : NULL, what, err, errn) < 0) return -1;
        m.end = (uint32_t)c->pos;
        if (methods) {
            ht_cf_code code;
            if (m.code && ht_cf_code_at(cf, m.code, &code) < 0)
                return ht_cf_fail(err, errn, "class file: method %u has a malformed Code attribute",
                                  i);
            cf->methods[i] = m;
        }
    }
    if (methods) cf->methods_end = (uint32_t)c->pos;
    return 0;
}

int ht_cf_parse(ht_class_file *cf, const uint8_t *p, size_t len, char *err, size_t errn)
{
    *cf = (ht_class_file){.p = p, .len = len};
    ht_cf_cur c = {.p = p, .len = len};
    uint32_t magic = ht_cf_r4(&c);
    cf->minor = ht_cf_r2(&c);
    cf->major = ht_cf_r2(&c);
    int rc = -1;
    if (c.bad) {
        ht_cf_fail(err, errn, "class file truncated in its header (%zu bytes)", len);
        goto out;
    }
    if (magic != 0xCAFEBABEu) {
        ht_cf_fail(err, errn, "not a class file: magic %08x", magic);
        goto out;
    }
    if (cf->major < 45 || cf->major > 69) {
        ht_cf_fail(err, errn, "class file version %u.%u is not 45..69", cf->major, cf->minor);
        goto out;
    }
    if (parse_cp(cf, &c, err, errn) < 0) goto out;
    cf->access = ht_cf_r2(&c);
    cf->this_class = ht_cf_r2(&c);
    ht_cf_r2(&c); /* super_class */
    uint16_t nif = ht_cf_r2(&c);
    ht_cf_skip(&c, (size_t)nif * 2);
    if (c.bad) {
        ht_cf_fail(err, errn, "class file truncated in its interfaces");
        goto out;
    }
    if (ht_cf_tag(cf, cf->this_class) != HT_CP_CLASS) {
        ht_cf_fail(err, errn, "class file: this_class %u is not a Class entry", cf->this_class);
        goto out;
    }
    if (parse_members(cf, &c, 0, err, errn) < 0 || parse_members(cf, &c, 1, err, errn) < 0 ||
        skip_attrs(cf, &c, NULL, "the class", err, errn) < 0)
        goto out;
    if (c.pos != len) {
        ht_cf_fail(err, errn, "class file: %zu bytes after its last attribute", len - c.pos);
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) ht_cf_free(cf);
    return rc;
}

void ht_cf_free(ht_class_file *cf)
{
    free(cf->cp);
    free(cf->methods);
    cf->cp = NULL;
    cf->methods = NULL;
    cf->nmethods = 0;
    cf->cp_count = 0;
}
