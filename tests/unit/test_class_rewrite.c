/*
 * test_class_rewrite.c - drag mode's bytecode rewriter (agent/class_rewrite.c)
 * on class files built byte by byte (class_builder.h). Each output is parsed
 * again (agent/class_file.c) and its offsets and tables compared with what
 * the test computes from the input: the prologue, the constant pool entries,
 * every StackMapTable frame kind and its promotion past 63, switches at every
 * padding, exception, line and local-variable tables, the methods left alone
 * and why, and malformed input (every truncation, bad tags) refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "class_builder.h"
#include "class_file.h"
#include "class_rewrite.h"
#include "class_rewrite_check.h"

static const uint8_t RET[] = {0xb1};

static void test_basic(void)
{
    klass k;
    k_init(&k, "t/Basic", 61, 0x0021);
    k_method(&k, 0x0001, "m", "()V", 0, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0001, "big", "()V", 5, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0009, "s", "()V", 0, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0101, "n", "()V", 0, NULL, 0, NULL, NULL, 0);
    k_method(&k, 0x0401, "a", "()V", 0, NULL, 0, NULL, NULL, 0);
    k_method(&k, 0x0001, "<init>", "()V", 0, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0008, "<clinit>", "()V", 0, RET, 1, NULL, NULL, 0);
    /* an empty finalize(): with a call in it every instance would become
     * finalizable (Jython's PyObject: 3.7x slower) */
    k_method(&k, 0x0004, "finalize", "()V", 0, RET, 1, NULL, NULL, 0);
    size_t len;
    uint8_t *in = k_finish(&k, &len);
    ht_class_file icf;
    CHECK(ht_cf_parse(&icf, in, len, NULL, 0) == 0);
    res r = run(in, len, 0x1234);
    CHECK_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    CHECK(r.st.methods == 2 && r.st.injected == 2 && !r.st.skipped_long && !r.st.skipped_attr);
    CHECK(r.cf.cp_count == icf.cp_count + 6);
    ht_cf_code c;
    CHECK(method(&r.cf, "m", &c) != NULL);
    const uint8_t *code = r.out + c.code_at;
    CHECK(c.code_len == 9 && c.max_stack == 2);
    CHECK(code[0] == 0x2a && code[1] == 0x11 && code[2] == 0x12 && code[3] == 0x34);
    CHECK(code[4] == 0xb8 && code[7] == 0x00 && code[8] == 0xb1);
    /* the Methodref names heaptop/Drag.touch(Ljava/lang/Object;I)V */
    uint16_t mref = ht_cf_u2(code + 5);
    CHECK(mref == icf.cp_count + 5 && ht_cf_tag(&r.cf, mref) == HT_CP_METHODREF);
    const uint8_t *e = r.out + r.cf.cp[mref];
    uint16_t cls = ht_cf_u2(e + 1), nat = ht_cf_u2(e + 3);
    CHECK(ht_cf_tag(&r.cf, cls) == HT_CP_CLASS && ht_cf_tag(&r.cf, nat) == HT_CP_NAME_AND_TYPE);
    CHECK(ht_cf_utf8_is(&r.cf, ht_cf_u2(r.out + r.cf.cp[cls] + 1), HT_DRAG_HELPER_CLASS));
    CHECK(ht_cf_utf8_is(&r.cf, ht_cf_u2(r.out + r.cf.cp[nat] + 1), HT_DRAG_HELPER_METHOD));
    CHECK(ht_cf_utf8_is(&r.cf, ht_cf_u2(r.out + r.cf.cp[nat] + 3), HT_DRAG_HELPER_DESC));
    CHECK(method(&r.cf, "big", &c) && c.max_stack == 5 && c.code_len == 9);
    const char *alone[] = {"s", "n", "a", "<init>", "<clinit>", "finalize"};
    for (int i = 0; i < 6; i++)
        CHECK_MSG(same_method(&icf, &r.cf, alone[i]), "%s was changed", alone[i]);
    /* the class's attributes after the methods are copied */
    CHECK(memcmp(in + icf.methods_end, r.out + r.cf.methods_end, len - icf.methods_end) == 0);
    res_free(&r);
    /* class ids outside 1..32767 */
    r = run(in, len, 0);
    CHECK(r.rc == -1 && strstr(r.err, "class id"));
    r = run(in, len, 32768);
    CHECK(r.rc == -1 && r.out == NULL);
    r = run(in, len, 32767);
    CHECK(r.rc == 0);
    res_free(&r);
    ht_cf_free(&icf);
    free(in);
}

/* A decoded frame: its kind (tag), absolute offset, verification types
 * (tag << 16 | value). */
typedef struct frame {
    uint8_t tag;
    uint32_t pc, nv, v[8];
} frame;

static uint32_t decode_frames(const uint8_t *p, uint32_t len, frame *f, uint32_t max)
{
    ht_cf_cur c = {.p = p, .len = len};
    uint32_t n = ht_cf_r2(&c), pc = 0;
    for (uint32_t i = 0; i < n && i < max; i++) {
        f[i] = (frame){.tag = ht_cf_u1(&c)};
        uint32_t t = f[i].tag, d = t <= 63 ? t : t <= 127 ? t - 64 : ht_cf_r2(&c);
        pc = i ? pc + d + 1 : d;
        f[i].pc = pc;
        uint32_t nv = t >= 64 && t <= 127 ? 1 : t == 247 ? 1 : t >= 252 && t <= 254 ? t - 251 : 0;
        for (int part = 0; part < (t == 255 ? 2 : 1); part++) {
            if (t == 255) nv = ht_cf_r2(&c);
            for (uint32_t k = 0; k < nv; k++) {
                uint32_t vt = ht_cf_u1(&c), val = vt == 7 || vt == 8 ? ht_cf_r2(&c) : 0;
                if (f[i].nv < 8) f[i].v[f[i].nv++] = vt << 16 | val;
            }
        }
    }
    CHECK(!c.bad && c.pos == len);
    return n;
}

/* A frame's kind: its tag, but for the two kinds whose tag holds the delta. */
static uint32_t kind(uint8_t tag)
{
    return tag <= 63 ? 0 : tag <= 127 ? 64 : tag;
}

static void test_stackmap_kinds(void)
{
    cb f = {0};
    cb_2(&f, 9);
    cb_1(&f, 3);                           /* same_frame at 3 */
    cb_1(&f, 64 + 5), cb_1(&f, 7);         /* same_locals_1_stack_item at 9: Object */
    cb_2(&f, 1);                           /*   its class index (any u2) */
    cb_1(&f, 247), cb_2(&f, 20);           /* same_locals_1_stack_item_extended at 30 */
    cb_1(&f, 8), cb_2(&f, 12);             /*   Uninitialized(12) */
    cb_1(&f, 249), cb_2(&f, 2);            /* chop 2 at 33 */
    cb_1(&f, 251), cb_2(&f, 3);            /* same_frame_extended at 37 */
    cb_1(&f, 253), cb_2(&f, 1);            /* append 2 at 39 */
    cb_1(&f, 1), cb_1(&f, 8), cb_2(&f, 0); /* Integer, Uninitialized(0) */
    cb_1(&f, 255), cb_2(&f, 4);            /* full_frame at 44 */
    cb_2(&f, 3), cb_1(&f, 7), cb_2(&f, 2), cb_1(&f, 8), cb_2(&f, 20), cb_1(&f, 2);
    cb_2(&f, 2), cb_1(&f, 8), cb_2(&f, 30), cb_1(&f, 4);
    cb_1(&f, 64 + 0), cb_1(&f, 8), cb_2(&f, 40); /* same_locals_1 at 45: Uninitialized(40) */
    cb_1(&f, 254), cb_2(&f, 9);                  /* append 3 at 55 */
    cb_1(&f, 6), cb_1(&f, 5), cb_1(&f, 0);
    size_t len;
    uint8_t *in = frames_class(&f, 60, &len);
    res r = run(in, len, 7);
    CHECK_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    frame want[16], got[16];
    uint32_t n = decode_frames(f.p, (uint32_t)f.len, want, 16);
    ht_cf_code c;
    method(&r.cf, "m", &c);
    uint32_t alen = 0;
    const uint8_t *sm = code_attr(&r.cf, &c, "StackMapTable", &alen);
    CHECK(sm != NULL && alen == f.len);
    CHECK(sm && decode_frames(sm, alen, got, 16) == n);
    for (uint32_t i = 0; sm && i < n; i++) {
        CHECK_MSG(kind(got[i].tag) == kind(want[i].tag), "frame %u kind %u, want %u", i, got[i].tag,
                  want[i].tag);
        CHECK_MSG(got[i].pc == want[i].pc + 8, "frame %u at %u, want %u", i, got[i].pc,
                  want[i].pc + 8);
        CHECK(got[i].nv == want[i].nv);
        for (uint32_t v = 0; v < want[i].nv; v++) {
            uint32_t w = want[i].v[v];
            if (w >> 16 == 8) w += 8; /* Uninitialized(offset) moves */
            CHECK_MSG(got[i].v[v] == w, "frame %u type %u: %x, want %x", i, v, got[i].v[v], w);
        }
    }
    res_free(&r);
    free(in);
    cb_free(&f);
}

/* The first frame's kind at delta d: tag, then its bytes in the output. */
static void check_first_frame(uint8_t tag, uint32_t d, const uint8_t *want, size_t wn)
{
    cb f = {0};
    cb_2(&f, 2);
    if (tag <= 127) {
        cb_1(&f, tag + d);
    } else {
        cb_1(&f, tag), cb_2(&f, d);
    }
    if (tag == 64 || tag == 247) cb_1(&f, 1); /* Integer */
    cb_1(&f, 0);                              /* same_frame one further */
    size_t len;
    uint8_t *in = frames_class(&f, 200, &len);
    res r = run(in, len, 7);
    CHECK(r.rc == 0);
    ht_cf_code c;
    uint32_t alen = 0;
    const uint8_t *sm = method(&r.cf, "m", &c) ? code_attr(&r.cf, &c, "StackMapTable", &alen) : 0;
    CHECK_MSG(sm && alen == 2 + wn + (tag == 64 || tag == 247) + 1 && !memcmp(sm + 2, want, wn),
              "first frame of kind %u at %u: %u bytes", tag, d, alen);
    res_free(&r);
    free(in);
    cb_free(&f);
}

static void test_stackmap_promotion(void)
{
    check_first_frame(0, 55, (const uint8_t[]){63}, 1);
    check_first_frame(0, 56, (const uint8_t[]){251, 0, 64}, 3);
    check_first_frame(64, 55, (const uint8_t[]){127}, 1);
    check_first_frame(64, 56, (const uint8_t[]){247, 0, 64}, 3);
    check_first_frame(251, 0, (const uint8_t[]){251, 0, 8}, 3); /* never demoted */
    check_first_frame(247, 100, (const uint8_t[]){247, 0, 108}, 3);
    check_first_frame(250, 150, (const uint8_t[]){250, 0, 158}, 3);
}

/* The absolute targets of the switch at pc (padding from pc, as the JVM
 * reads it): default first. */
static uint32_t switch_targets(const uint8_t *code, uint32_t pc, uint32_t *t)
{
    uint32_t p = (pc + 4) & ~3u, n = 0;
    t[n++] = pc + ht_cf_u4(code + p);
    if (code[pc] == 0xaa) {
        uint32_t lo = ht_cf_u4(code + p + 4), hi = ht_cf_u4(code + p + 8);
        for (uint32_t i = 0; i <= hi - lo; i++)
            t[n++] = pc + ht_cf_u4(code + p + 12 + 4 * i);
    } else {
        uint32_t np = ht_cf_u4(code + p + 4);
        for (uint32_t i = 0; i < np; i++)
            t[n++] = pc + ht_cf_u4(code + p + 12 + 8 * i);
    }
    return n;
}

static void test_switches(void)
{
    for (uint32_t pad = 0; pad < 4; pad++) {
        for (int op = 0; op < 2; op++) {
            cb code = {0};
            for (uint32_t i = 0; i < pad; i++)
                cb_1(&code, 0); /* nop */
            cb_1(&code, 0x03);  /* iconst_0 */
            uint32_t pc = (uint32_t)code.len, end = 40;
            cb_1(&code, op ? 0xab : 0xaa);
            while (code.len % 4)
                cb_1(&code, 0);
            cb_4(&code, end - pc);
            if (!op) {
                cb_4(&code, 0), cb_4(&code, 2);
                for (int i = 0; i < 3; i++)
                    cb_4(&code, end + 1 + i - pc);
            } else {
                cb_4(&code, 2);
                cb_4(&code, 5), cb_4(&code, end + 1 - pc), cb_4(&code, 9),
                    cb_4(&code, end + 2 - pc);
            }
            while (code.len < end + 4)
                cb_1(&code, 0xb1);
            klass k;
            k_init(&k, "t/Switch", 52, 0x0021);
            k_method(&k, 0x0001, "m", "()V", 1, code.p, (uint32_t)code.len, NULL, NULL, 0);
            size_t len;
            uint8_t *in = k_finish(&k, &len);
            res r = run(in, len, 3);
            ht_cf_code c;
            CHECK(r.rc == 0 && method(&r.cf, "m", &c));
            const uint8_t *out = r.out + c.code_at;
            CHECK(c.code_len == code.len + 8 && !memcmp(out + 8, code.p, code.len));
            uint32_t want[8], got[8];
            uint32_t n = switch_targets(code.p, pc, want);
            CHECK_MSG(switch_targets(out, pc + 8, got) == n, "pad %u op %d", pad, op);
            for (uint32_t i = 0; i < n; i++)
                CHECK_MSG(got[i] == want[i] + 8, "pad %u op %d target %u: %u, want %u", pad, op, i,
                          got[i], want[i] + 8);
            res_free(&r);
            free(in);
            cb_free(&code);
        }
    }
}

static void test_tables(void)
{
    klass k;
    k_init(&k, "t/Tables", 52, 0x0021);
    uint16_t ex = k_ref1(&k, 7, k_utf8(&k, "java/lang/Exception"));
    uint16_t nm = k_utf8(&k, "this"), ds = k_utf8(&k, "Lt/Tables;");
    uint8_t code[20];
    memset(code, 0, sizeof code);
    code[19] = 0xb1;
    cb exc = {0};
    uint16_t e[][4] = {{0, 10, 12, ex}, {4, 8, 15, 0}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            cb_2(&exc, e[i][j]);
    cb lnt = {0}, lvt = {0}, attrs = {0};
    uint16_t lines[][2] = {{0, 10}, {5, 11}, {12, 13}};
    cb_2(&lnt, 3);
    for (int i = 0; i < 3; i++)
        cb_2(&lnt, lines[i][0]), cb_2(&lnt, lines[i][1]);
    uint16_t vars[][2] = {{0, 20}, {4, 6}, {0, 3}};
    cb_2(&lvt, 3);
    for (int i = 0; i < 3; i++)
        cb_2(&lvt, vars[i][0]), cb_2(&lvt, vars[i][1]), cb_2(&lvt, nm), cb_2(&lvt, ds),
            cb_2(&lvt, (uint32_t)i);
    k_attr(&k, &attrs, "LineNumberTable", &lnt);
    k_attr(&k, &attrs, "LocalVariableTable", &lvt);
    k_attr(&k, &attrs, "LocalVariableTypeTable", &lvt);
    k_method(&k, 0x0001, "m", "()V", 1, code, 20, &exc, &attrs, 3);
    size_t len;
    uint8_t *in = k_finish(&k, &len);
    res r = run(in, len, 9);
    ht_cf_code c;
    CHECK(r.rc == 0 && method(&r.cf, "m", &c));
    CHECK(c.nexc == 2 && c.code_len == 28);
    for (int i = 0; i < 2 && c.nexc == 2; i++) {
        const uint8_t *o = r.out + c.exc_at + 8 * i;
        for (int j = 0; j < 3; j++)
            CHECK_MSG(ht_cf_u2(o + 2 * j) == e[i][j] + 8, "exception %d field %d", i, j);
        CHECK(ht_cf_u2(o + 6) == e[i][3]);
    }
    uint32_t n = 0;
    const uint8_t *t = code_attr(&r.cf, &c, "LineNumberTable", &n);
    CHECK(t && n == 14 && ht_cf_u2(t) == 3);
    for (int i = 0; t && i < 3; i++) {
        CHECK(ht_cf_u2(t + 2 + 4 * i) == (lines[i][0] ? lines[i][0] + 8 : 0));
        CHECK(ht_cf_u2(t + 4 + 4 * i) == lines[i][1]);
    }
    const char *names[] = {"LocalVariableTable", "LocalVariableTypeTable"};
    for (int a = 0; a < 2; a++) {
        t = code_attr(&r.cf, &c, names[a], &n);
        CHECK(t && n == 32 && ht_cf_u2(t) == 3);
        for (int i = 0; t && i < 3; i++) {
            const uint8_t *v = t + 2 + 10 * i;
            uint32_t s = vars[i][0], l = vars[i][1];
            CHECK_MSG(ht_cf_u2(v) == (s ? s + 8 : 0) && ht_cf_u2(v + 2) == (s ? l : l + 8),
                      "%s %d: %u+%u", names[a], i, ht_cf_u2(v), ht_cf_u2(v + 2));
            CHECK(ht_cf_u2(v + 4) == nm && ht_cf_u2(v + 6) == ds && ht_cf_u2(v + 8) == i);
        }
    }
    res_free(&r);
    free(in);
    cb_free(&exc), cb_free(&lnt), cb_free(&lvt), cb_free(&attrs);
}

/* A class with "ok" (one return) and "m" of code_len bytes with the given
 * Code attribute (NULL: none); its bytes. */
static uint8_t *two_methods(uint32_t code_len, const char *attr, size_t *len, uint16_t access)
{
    klass k;
    k_init(&k, "t/Alone", 52, access);
    uint8_t *code = calloc(code_len, 1);
    code[code_len - 1] = 0xb1;
    cb body = {0}, attrs = {0};
    cb_1(&body, 0); /* type annotations: 0 of them; an unknown attribute's bytes */
    cb_1(&body, 0);
    if (attr) k_attr(&k, &attrs, attr, &body);
    k_method(&k, 0x0001, "ok", "()V", 0, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0001, "m", "()V", 0, code, code_len, NULL, &attrs, attr ? 1 : 0);
    free(code);
    cb_free(&body), cb_free(&attrs);
    return k_finish(&k, len);
}

static void test_left_alone(void)
{
    size_t len;
    /* 65527 + 8 = 65535: injected; 65528: left alone, counted */
    uint8_t *in = two_methods(65527, NULL, &len, 0x0021);
    res r = run(in, len, 1);
    ht_cf_code c;
    CHECK(r.rc == 0 && r.st.injected == 2 && !r.st.skipped_long);
    CHECK(method(&r.cf, "m", &c) && c.code_len == 65535);
    res_free(&r);
    free(in);
    ht_class_file icf;
    in = two_methods(65528, NULL, &len, 0x0021);
    CHECK(ht_cf_parse(&icf, in, len, NULL, 0) == 0);
    r = run(in, len, 1);
    CHECK(r.rc == 0 && r.st.methods == 2 && r.st.injected == 1 && r.st.skipped_long == 1);
    CHECK(same_method(&icf, &r.cf, "m") && !same_method(&icf, &r.cf, "ok"));
    res_free(&r);
    ht_cf_free(&icf);
    free(in);
    const char *attrs[] = {"RuntimeVisibleTypeAnnotations", "RuntimeInvisibleTypeAnnotations",
                           "SomethingElse"};
    for (int a = 0; a < 3; a++) {
        in = two_methods(10, attrs[a], &len, 0x0021);
        CHECK(ht_cf_parse(&icf, in, len, NULL, 0) == 0);
        r = run(in, len, 1);
        CHECK(r.rc == 0 && r.st.injected == 1 && r.st.skipped_attr == 1 && !r.st.skipped_long);
        CHECK_MSG(same_method(&icf, &r.cf, "m"), "a method with %s was changed", attrs[a]);
        res_free(&r);
        ht_cf_free(&icf);
        free(in);
    }
    /* nothing to inject: 1, no output */
    uint16_t flags[] = {0x0601 /* interface */, 0x8000 /* module-info */};
    for (int i = 0; i < 2; i++) {
        in = two_methods(10, NULL, &len, flags[i]);
        r = run(in, len, 1);
        CHECK(r.rc == 1 && r.out == NULL && r.st.injected == 0);
        free(in);
    }
    klass k;
    k_init(&k, "t/Static", 52, 0x0021);
    k_method(&k, 0x0009, "s", "()V", 0, RET, 1, NULL, NULL, 0);
    k_method(&k, 0x0001, "<init>", "()V", 0, RET, 1, NULL, NULL, 0);
    in = k_finish(&k, &len);
    r = run(in, len, 1);
    CHECK(r.rc == 1 && r.out == NULL && r.st.methods == 0);
    free(in);
    k_init(&k, HT_DRAG_HELPER_CLASS, 52, 0x0031); /* the helper itself */
    k_method(&k, 0x0001, "m", "()V", 0, RET, 1, NULL, NULL, 0);
    in = k_finish(&k, &len);
    r = run(in, len, 1);
    CHECK(r.rc == 1);
    free(in);
}

/* The class of test_stackmap_kinds's shape with one frame's bytes given. */
static int rewrite_frames(const uint8_t *fr, size_t n, char *err)
{
    cb f = {0};
    cb_2(&f, 1);
    cb_n(&f, fr, n);
    size_t len;
    uint8_t *in = frames_class(&f, 60, &len);
    res r = run(in, len, 1);
    snprintf(err, 200, "%s", r.err);
    res_free(&r);
    free(in);
    cb_free(&f);
    return r.rc;
}

static void test_refused(void)
{
    char err[200];
    CHECK(rewrite_frames((const uint8_t[]){128}, 1, err) == -1 && strstr(err, "StackMapTable"));
    CHECK(rewrite_frames((const uint8_t[]){64, 9}, 2, err) == -1);        /* no such type */
    CHECK(rewrite_frames((const uint8_t[]){64, 8, 0, 60}, 4, err) == -1); /* Uninitialized past */
    CHECK(rewrite_frames((const uint8_t[]){251, 0, 60}, 3, err) == -1);   /* frame past the code */
    CHECK(rewrite_frames((const uint8_t[]){64, 8, 0, 59}, 4, err) == 0);
    CHECK(rewrite_frames((const uint8_t[]){0, 0}, 2, err) == -1); /* a byte too many */
    /* versions */
    uint16_t versions[] = {44, 45, 69, 70};
    for (int i = 0; i < 4; i++) {
        klass k;
        k_init(&k, "t/V", versions[i], 0x0021);
        k_method(&k, 0x0001, "m", "()V", 0, RET, 1, NULL, NULL, 0);
        size_t len;
        uint8_t *in = k_finish(&k, &len);
        res r = run(in, len, 1);
        int ok = versions[i] >= 45 && versions[i] <= 69;
        CHECK_MSG(r.rc == (ok ? 0 : -1), "version %u: %d", versions[i], r.rc);
        if (!ok) CHECK(strstr(r.err, "version") != NULL);
        res_free(&r);
        /* one byte more at the end */
        uint8_t *more = malloc(len + 1);
        memcpy(more, in, len);
        more[len] = 0;
        r = run(more, len + 1, 1);
        CHECK(r.rc == -1);
        free(more);
        free(in);
    }
    /* out-of-range tables */
    for (int t = 0; t < 3; t++) {
        klass k;
        k_init(&k, "t/Bad", 52, 0x0021);
        cb exc = {0}, body = {0}, attrs = {0};
        if (t == 0) cb_2(&exc, 0), cb_2(&exc, 5), cb_2(&exc, 0), cb_2(&exc, 0); /* end > 4 */
        if (t == 1) cb_2(&body, 1), cb_2(&body, 4), cb_2(&body, 1);             /* pc 4 of 4 */
        if (t == 2) cb_2(&body, 1), cb_2(&body, 2), cb_2(&body, 3), cb_4(&body, 0), cb_2(&body, 0);
        if (t) k_attr(&k, &attrs, t == 1 ? "LineNumberTable" : "LocalVariableTable", &body);
        const uint8_t code[4] = {0, 0, 0, 0xb1};
        k_method(&k, 0x0001, "m", "()V", 0, code, 4, t == 0 ? &exc : NULL, &attrs, t ? 1 : 0);
        size_t len;
        uint8_t *in = k_finish(&k, &len);
        res r = run(in, len, 1);
        CHECK_MSG(r.rc == -1 && strlen(r.err) > 0, "bad table %d: %d", t, r.rc);
        free(in);
        cb_free(&exc), cb_free(&body), cb_free(&attrs);
    }
}

static void test_constant_pool(void)
{
    klass k;
    k_init(&k, "t/Pool", 69, 0x0021);
    uint16_t u = k_utf8(&k, "x");
    k_int(&k, 1);
    k_long(&k, 5, 0x0102030405060708ull);
    k_long(&k, 6, 0);
    cb_1(&k.cp, 4), cb_4(&k.cp, 0), k.ncp++; /* Float */
    k_ref1(&k, 8, u);
    uint16_t nat = k_ref2(&k, 12, u, u);
    k_ref2(&k, 9, k.this_class, nat);
    uint16_t mr = k_ref2(&k, 10, k.this_class, nat);
    k_ref2(&k, 11, k.this_class, nat);
    cb_1(&k.cp, 15), cb_1(&k.cp, 6), cb_2(&k.cp, mr), k.ncp++; /* MethodHandle */
    k_ref1(&k, 16, u);
    k_ref2(&k, 17, 0, nat);
    k_ref2(&k, 18, 0, nat);
    k_ref1(&k, 19, u);
    k_ref1(&k, 20, u);
    k_method(&k, 0x0001, "m", "()V", 0, RET, 1, NULL, NULL, 0);
    size_t len;
    uint8_t *in = k_finish(&k, &len);
    res r = run(in, len, 1);
    CHECK_MSG(r.rc == 0, "every tag: %s", r.err);
    /* the second slots of the Long and the Double */
    CHECK(r.rc != 0 || (ht_cf_tag(&r.cf, 6) == 0 && ht_cf_tag(&r.cf, 7) == HT_CP_DOUBLE &&
                        ht_cf_tag(&r.cf, 8) == 0));
    res_free(&r);
    /* a bad tag (2), a bad MethodHandle kind (0) */
    size_t at = 10 + 9 + 3 + 4; /* the Integer's tag: after "t/Pool", its Class, "x" */
    in[at] = 2;
    r = run(in, len, 1);
    CHECK(r.rc == -1 && strstr(r.err, "tag"));
    free(in);
    /* near full: a count of 65529 + 6 fits (65535), 65530 does not */
    for (uint32_t count = 65528; count <= 65530; count++) {
        k_init(&k, "t/Full", 52, 0x0021);
        k_method(&k, 0x0001, "m", "()V", 0, RET, 1, NULL, NULL, 0);
        while (k.ncp < count - 4) /* k_finish adds 4 */
            k_int(&k, k.ncp);
        size_t n;
        in = k_finish(&k, &n);
        CHECK(ht_cf_u2(in + 8) == count);
        r = run(in, n, 1);
        int fits = count + 6 <= 65535;
        CHECK_MSG(r.rc == (fits ? 0 : -1), "pool count %u: %d %s", count, r.rc, r.err);
        if (!fits) CHECK(strstr(r.err, "constant pool full") != NULL);
        if (fits) CHECK(r.cf.cp_count == count + 6);
        res_free(&r);
        free(in);
    }
}

/* Every truncation refused; every byte changed to 0 or 0xff: no crash, and
 * an output that parses. */
static void test_truncations(void)
{
    cb f = {0};
    cb_2(&f, 2);
    cb_1(&f, 255), cb_2(&f, 1), cb_2(&f, 1), cb_1(&f, 8), cb_2(&f, 0), cb_2(&f, 1), cb_1(&f, 1);
    cb_1(&f, 64 + 3), cb_1(&f, 8), cb_2(&f, 2);
    size_t len;
    uint8_t *in = frames_class(&f, 12, &len);
    int refused = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1); /* exact size: ASan sees a read past it */
        memcpy(cut, in, n);
        res r = run(cut, n, 1);
        refused += r.rc == -1 && r.err[0];
        res_free(&r);
        free(cut);
    }
    CHECK_MSG(refused == (int)len, "%d of %zu truncations refused", refused, len);
    int outcomes[3] = {0};
    for (size_t i = 0; i < len; i++) {
        for (int v = 0; v < 2; v++) {
            uint8_t *m = malloc(len);
            memcpy(m, in, len);
            m[i] = v ? 0xff : 0;
            res r = run(m, len, 1);
            CHECK(r.rc >= -1 && r.rc <= 1);
            outcomes[r.rc + 1]++;
            res_free(&r);
            free(m);
        }
    }
    CHECK(outcomes[0] > 0 && outcomes[1] > 0);
    free(in);
    cb_free(&f);
}

int main(void)
{
    test_basic();
    test_stackmap_kinds();
    test_stackmap_promotion();
    test_switches();
    test_tables();
    test_left_alone();
    test_refused();
    test_constant_pool();
    test_truncations();
    return check_summary();
}
