/*
 * fuzz_classfile.c - libFuzzer target for drag mode's rewriter
 * (agent/class_rewrite.c) and its class-file reader (agent/class_file.c):
 * any bytes as a class file, never a crash, a read past the input or a leak
 * (ASan, UBSan). When the rewrite succeeds, its output must parse with the
 * same reader, have the six entries appended, and rewrite again without
 * being found malformed (its tables are consistent); only a full constant
 * pool may refuse the second rewrite. Seeds: the workloads' class files and
 * the unit test's built ones (make_class_seeds.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_file.h"
#include "class_rewrite.h"

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_classfile: %s: %s\n", what, err);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *out = NULL;
    size_t n = 0;
    ht_rewrite_stats st = {0};
    char err[256];
    int rc = ht_class_rewrite(data, size, 1 + (size % 32767), &out, &n, &st, err, sizeof err);
    if (rc < -1 || rc > 1) fail("bad return", "");
    if (rc == -1 && !err[0]) fail("refused without a reason", "");
    if (rc != 0) {
        if (out) fail("an output with nothing rewritten", "");
        return 0;
    }
    if (st.injected == 0 || st.injected > st.methods) fail("stats", "injected");
    ht_class_file in, cf;
    if (ht_cf_parse(&in, data, size, err, sizeof err) < 0) fail("input parsed, then not", err);
    if (ht_cf_parse(&cf, out, n, err, sizeof err) < 0) fail("output does not parse", err);
    if (cf.cp_count != in.cp_count + 6 || cf.nmethods != in.nmethods)
        fail("output", "constant pool or methods changed count");
    for (uint32_t i = 0; i < in.nmethods; i++) {
        ht_cf_code a, b;
        if (!in.methods[i].code != !cf.methods[i].code) fail("output", "a Code appeared");
        if (!in.methods[i].code) continue;
        if (ht_cf_code_at(&in, in.methods[i].code, &a) < 0 ||
            ht_cf_code_at(&cf, cf.methods[i].code, &b) < 0)
            fail("output", "a Code does not parse");
        if (b.code_len != a.code_len && b.code_len != a.code_len + HT_DRAG_PROLOGUE)
            fail("output", "a code length moved by other than the prologue");
    }
    ht_cf_free(&in);
    ht_cf_free(&cf);
    uint8_t *again = NULL;
    size_t n2 = 0;
    ht_rewrite_stats st2 = {0};
    rc = ht_class_rewrite(out, n, 1, &again, &n2, &st2, err, sizeof err);
    if (rc == -1 && !strstr(err, "constant pool full")) fail("output refused", err);
    free(again);
    free(out);
    return 0;
}
