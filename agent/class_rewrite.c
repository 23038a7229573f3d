/*
 * class_rewrite.c - drag mode's bytecode rewriter (class_rewrite.h).
 *
 * The output is the input with its constant pool grown by six entries at its
 * end (no index moves) and each injected method's Code attribute rebuilt;
 * every other byte is copied. It is written into one buffer sized for the
 * worst case (the input, the entries, 10 bytes a method: the prologue and a
 * promoted frame), and a method found not to be rewritable is written again
 * as it was, from where it started.
 */
#include "class_rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_file.h"

/* The output: a buffer that never grows (bad latches past cap). */
typedef struct wr {
    uint8_t *p;
    size_t cap, pos;
    int bad;
} wr;

static void w_bytes(wr *w, const uint8_t *p, size_t n)
{
    if (w->bad || w->cap - w->pos < n) {
        w->bad = 1;
        return;
    }
    memcpy(w->p + w->pos, p, n);
    w->pos += n;
}

static void w_u1(wr *w, uint8_t v)
{
    w_bytes(w, &v, 1);
}

static void w_u2(wr *w, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    w_bytes(w, b, 2);
}

static void w_u4(wr *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    w_bytes(w, b, 4);
}

static void w_utf8(wr *w, const char *s)
{
    w_u1(w, HT_CP_UTF8);
    w_u2(w, (uint32_t)strlen(s));
    w_bytes(w, (const uint8_t *)s, strlen(s));
}

static void w_patch_u4(wr *w, size_t at, uint32_t v)
{
    if (w->bad) return;
    w->p[at] = (uint8_t)(v >> 24);
    w->p[at + 1] = (uint8_t)(v >> 16);
    w->p[at + 2] = (uint8_t)(v >> 8);
    w->p[at + 3] = (uint8_t)v;
}

/* What one method's rewrite needs to know. */
typedef struct job {
    const ht_class_file *cf;
    uint16_t cid, mref; /* the Methodref appended */
    uint32_t code_len;  /* the original's */
    uint32_t index;     /* the method's, for messages */
    char *err;
    size_t errn;
} job;

/* A verification_type_info (JVMS 4.7.4), Uninitialized's offset moved. */
static int copy_vti(const job *j, ht_cf_cur *c, wr *w)
{
    uint8_t tag = ht_cf_u1(c);
    w_u1(w, tag);
    if (tag == 7) {
        w_u2(w, ht_cf_r2(c));
    } else if (tag == 8) {
        uint16_t off = ht_cf_r2(c);
        if (off >= j->code_len) c->bad = 1;
        w_u2(w, off + HT_DRAG_PROLOGUE);
    } else if (tag > 8) {
        c->bad = 1;
    }
    return c->bad ? -1 : 0;
}

/* StackMapTable's body (after the attribute's header) from c to w: the first
 * frame 8 further on, Uninitialized offsets 8 further on. */
static int copy_stackmap(const job *j, ht_cf_cur *c, wr *w)
{
    uint16_t n = ht_cf_r2(c);
    w_u2(w, n);
    uint32_t pc = 0;
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint8_t tag = ht_cf_u1(c);
        uint32_t delta, nvti = 0;
        if (tag <= 63) {
            delta = tag;
        } else if (tag <= 127) {
            delta = tag - 64u;
            nvti = 1;
        } else if (tag < 247) {
            return -1;
        } else {
            delta = ht_cf_r2(c);
            nvti = tag == 247 ? 1 : tag >= 252 && tag <= 254 ? tag - 251u : 0;
        }
        pc += delta + (i > 0);
        if (c->bad || pc >= j->code_len) return -1;
        uint32_t d = i == 0 ? delta + HT_DRAG_PROLOGUE : delta;
        /* the frame's kind, promoted when its delta no longer fits the tag */
        if (tag <= 63 && d <= 63) {
            w_u1(w, (uint8_t)d);
        } else if (tag <= 63) {
            w_u1(w, 251);
            w_u2(w, d);
        } else if (tag <= 127 && d <= 63) {
            w_u1(w, (uint8_t)(64 + d));
        } else if (tag <= 127) {
            w_u1(w, 247);
            w_u2(w, d);
        } else {
            w_u1(w, tag);
            w_u2(w, d);
        }
        if (tag == 255) {
            for (int part = 0; part < 2 && !c->bad; part++) {
                uint16_t k = ht_cf_r2(c);
                w_u2(w, k);
                for (uint32_t v = 0; v < k; v++)
                    if (copy_vti(j, c, w) < 0) return -1;
            }
        }
        for (uint32_t v = 0; v < nvti; v++)
            if (copy_vti(j, c, w) < 0) return -1;
    }
    return c->bad ? -1 : 0;
}

/* LineNumberTable (entry 4 bytes) or LocalVariable(Type)Table (10 bytes). */
static int copy_table(const job *j, ht_cf_cur *c, wr *w, int lvt)
{
    uint16_t n = ht_cf_r2(c);
    w_u2(w, n);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint16_t start = ht_cf_r2(c);
        if (start >= j->code_len) return -1;
        if (!lvt) {
            w_u2(w, start ? start + HT_DRAG_PROLOGUE : 0);
            w_u2(w, ht_cf_r2(c));
            continue;
        }
        uint16_t length = ht_cf_r2(c);
        if ((uint32_t)start + length > j->code_len) return -1;
        w_u2(w, start ? start + HT_DRAG_PROLOGUE : 0);
        w_u2(w, start ? length : length + HT_DRAG_PROLOGUE);
        for (int k = 0; k < 3; k++)
            w_u2(w, ht_cf_r2(c));
    }
    return c->bad ? -1 : 0;
}

enum { ATTR_OTHER, ATTR_LINES, ATTR_LOCALS, ATTR_STACKMAP };

static int attr_kind(const ht_class_file *cf, uint16_t name)
{
    if (ht_cf_utf8_is(cf, name, "LineNumberTable")) return ATTR_LINES;
    if (ht_cf_utf8_is(cf, name, "LocalVariableTable") ||
        ht_cf_utf8_is(cf, name, "LocalVariableTypeTable"))
        return ATTR_LOCALS;
    if (ht_cf_utf8_is(cf, name, "StackMapTable")) return ATTR_STACKMAP;
    return ATTR_OTHER;
}

/* The Code attribute at code_at, rewritten into w. 0: written; 1: left alone
 * (counted, nothing written); -1: malformed. */
static int rewrite_code(job *j, uint32_t code_at, wr *w, ht_rewrite_stats *st)
{
    const ht_class_file *cf = j->cf;
    ht_cf_code code;
    if (ht_cf_code_at(cf, code_at, &code) < 0)
        return ht_cf_fail(j->err, j->errn, "class file: method %u: malformed Code", j->index);
    if (code.code_len + HT_DRAG_PROLOGUE > 65535) {
        st->skipped_long++;
        return 1;
    }
    ht_cf_cur c = {.p = cf->p, .len = code.end, .pos = code.attrs_at};
    for (uint32_t i = 0; i < code.nattrs; i++) {
        uint16_t name = ht_cf_r2(&c);
        uint32_t alen = ht_cf_r4(&c);
        ht_cf_skip(&c, alen);
        if (attr_kind(cf, name) == ATTR_OTHER) {
            st->skipped_attr++;
            return 1;
        }
    }
    j->code_len = code.code_len;
    w_u2(w, ht_cf_u2(cf->p + code_at));
    size_t len_at = w->pos;
    w_u4(w, 0);
    size_t body = w->pos;
    w_u2(w, code.max_stack < 2 ? 2 : code.max_stack);
    w_u2(w, code.max_locals);
    w_u4(w, code.code_len + HT_DRAG_PROLOGUE);
    const uint8_t prologue[HT_DRAG_PROLOGUE] = {
        0x2a,                                            /* aload_0 */
        0x11, (uint8_t)(j->cid >> 8),  (uint8_t)j->cid,  /* sipush cid */
        0xb8, (uint8_t)(j->mref >> 8), (uint8_t)j->mref, /* invokestatic */
        0x00,                                            /* nop */
    };
    w_bytes(w, prologue, sizeof prologue);
    w_bytes(w, cf->p + code.code_at, code.code_len);
    w_u2(w, code.nexc);
    for (uint32_t i = 0; i < code.nexc; i++) {
        const uint8_t *e = cf->p + code.exc_at + 8 * i;
        uint16_t start = ht_cf_u2(e), end = ht_cf_u2(e + 2), handler = ht_cf_u2(e + 4);
        if (start >= end || end > code.code_len || handler >= code.code_len)
            return ht_cf_fail(j->err, j->errn,
                              "class file: method %u: exception entry %u out of its code", j->index,
                              i);
        w_u2(w, start + HT_DRAG_PROLOGUE);
        w_u2(w, end + HT_DRAG_PROLOGUE);
        w_u2(w, handler + HT_DRAG_PROLOGUE);
        w_bytes(w, e + 6, 2);
    }
    w_u2(w, code.nattrs);
    c = (ht_cf_cur){.p = cf->p, .len = code.end, .pos = code.attrs_at};
    for (uint32_t i = 0; i < code.nattrs; i++) {
        uint16_t name = ht_cf_r2(&c);
        uint32_t alen = ht_cf_r4(&c);
        int kind = attr_kind(cf, name);
        ht_cf_cur a = {.p = cf->p, .len = c.pos + alen, .pos = c.pos};
        w_u2(w, name);
        size_t alen_at = w->pos;
        w_u4(w, 0);
        size_t abody = w->pos;
        int rc = kind == ATTR_STACKMAP ? copy_stackmap(j, &a, w)
                                       : copy_table(j, &a, w, kind == ATTR_LOCALS);
        if (rc < 0 || a.pos != a.len)
            return ht_cf_fail(j->err, j->errn, "class file: method %u: malformed %s", j->index,
                              kind == ATTR_STACKMAP ? "StackMapTable"
                              : kind == ATTR_LINES  ? "LineNumberTable"
                                                    : "LocalVariable(Type)Table");
        w_patch_u4(w, alen_at, (uint32_t)(w->pos - abody));
        ht_cf_skip(&c, alen);
    }
    w_patch_u4(w, len_at, (uint32_t)(w->pos - body));
    return 0;
}

/* Whether method m gets the prologue: an instance method with code, not a
 * constructor or class initialiser, and not finalize()V: the VM makes every
 * instance of a class whose finalize() is more than a return finalizable
 * (Jython's PyObject declares an empty one: with the prologue in it, every
 * Python object went through java.lang.ref.Finalizer, 3.7x slower), and a
 * finalizer runs after its object became unreachable, which is no use. */
static int eligible(const ht_class_file *cf, const ht_cf_method *m)
{
    if (m->access & (HT_CF_ACC_STATIC | HT_CF_ACC_ABSTRACT | HT_CF_ACC_NATIVE) || !m->code)
        return 0;
    if (ht_cf_utf8_is(cf, m->name, "finalize") && ht_cf_utf8_is(cf, m->desc, "()V")) return 0;
    return !ht_cf_utf8_is(cf, m->name, "<init>") && !ht_cf_utf8_is(cf, m->name, "<clinit>");
}

/* Method m into w: its attributes copied, its Code rewritten. 0, 1 (left
 * alone: copied as it was), -1. */
static int rewrite_method(job *j, const ht_cf_method *m, wr *w, ht_rewrite_stats *st)
{
    const ht_class_file *cf = j->cf;
    size_t start = w->pos;
    w_bytes(w, cf->p + m->start, 8); /* access, name, descriptor, attributes_count */
    ht_cf_cur c = {.p = cf->p, .len = m->end, .pos = m->start + 6};
    uint16_t n = ht_cf_r2(&c);
    int rc = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = (uint32_t)c.pos;
        ht_cf_r2(&c);
        uint32_t alen = ht_cf_r4(&c);
        ht_cf_skip(&c, alen);
        if (at != m->code) {
            w_bytes(w, cf->p + at, c.pos - at);
            continue;
        }
        rc = rewrite_code(j, at, w, st);
        if (rc != 0) break;
    }
    if (rc == 1) { /* as it was */
        w->pos = start;
        w_bytes(w, cf->p + m->start, m->end - m->start);
    }
    return rc;
}

int ht_class_rewrite(const uint8_t *in, size_t len, uint16_t cid, uint8_t **out, size_t *out_len,
                     ht_rewrite_stats *st, char *err, size_t errn)
{
    *out = NULL;
    *out_len = 0;
    if (err && errn) err[0] = 0;
    if (cid < 1 || cid > 32767)
        return ht_cf_fail(err, errn, "class rewrite: class id %u not 1..32767", cid);
    if (len > UINT32_MAX) return ht_cf_fail(err, errn, "class file of %zu bytes: too big", len);
    ht_class_file cf;
    if (ht_cf_parse(&cf, in, len, err, errn) < 0) return -1;
    uint16_t this_name = 0;
    if (ht_cf_tag(&cf, cf.this_class) == HT_CP_CLASS)
        this_name = ht_cf_u2(in + cf.cp[cf.this_class] + 1);
    if (cf.access & (HT_CF_ACC_INTERFACE | HT_CF_ACC_MODULE) ||
        ht_cf_utf8_is(&cf, this_name, HT_DRAG_HELPER_CLASS)) {
        ht_cf_free(&cf);
        return 1;
    }
    uint32_t base = cf.cp_count;
    if (base + 6 > 65535) {
        ht_cf_free(&cf);
        return ht_cf_fail(err, errn, "class file: constant pool full (%u entries, 6 more needed)",
                          base - 1);
    }
    wr w = {.cap = len + 80 + (size_t)cf.nmethods * 10};
    w.p = malloc(w.cap);
    if (!w.p) {
        ht_cf_free(&cf);
        return ht_cf_fail(err, errn, "class rewrite: out of memory");
    }
    w_bytes(&w, in, 8); /* magic, version */
    w_u2(&w, base + 6);
    w_bytes(&w, in + 10, cf.cp_end - 10);
    w_utf8(&w, HT_DRAG_HELPER_CLASS); /* base */
    w_u1(&w, HT_CP_CLASS);
    w_u2(&w, base);
    w_utf8(&w, HT_DRAG_HELPER_METHOD); /* base + 2 */
    w_utf8(&w, HT_DRAG_HELPER_DESC);   /* base + 3 */
    w_u1(&w, HT_CP_NAME_AND_TYPE);     /* base + 4 */
    w_u2(&w, base + 2);
    w_u2(&w, base + 3);
    w_u1(&w, HT_CP_METHODREF); /* base + 5 */
    w_u2(&w, base + 1);
    w_u2(&w, base + 4);
    w_bytes(&w, in + cf.cp_end, cf.methods_at + 2 - cf.cp_end);
    job j = {.cf = &cf, .cid = cid, .mref = (uint16_t)(base + 5), .err = err, .errn = errn};
    uint32_t injected = 0;
    int rc = 0;
    for (uint32_t i = 0; i < cf.nmethods && rc >= 0; i++) {
        const ht_cf_method *m = &cf.methods[i];
        if (!eligible(&cf, m)) {
            w_bytes(&w, in + m->start, m->end - m->start);
            continue;
        }
        st->methods++;
        j.index = i;
        rc = rewrite_method(&j, m, &w, st);
        if (rc == 0) injected++;
    }
    w_bytes(&w, in + cf.methods_end, len - cf.methods_end);
    ht_cf_free(&cf);
    if (rc >= 0 && w.bad) rc = ht_cf_fail(err, errn, "class rewrite: output past its bound");
    if (rc < 0 || injected == 0) {
        free(w.p);
        return rc < 0 ? -1 : 1;
    }
    st->injected += injected;
    *out = w.p;
    *out_len = w.pos;
    return 0;
}
