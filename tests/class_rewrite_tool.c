/*
 * class_rewrite_tool.c - drag mode's rewriter (agent/class_rewrite.c) on a
 * directory of class files, for the checks on real programs that a unit test
 * cannot make (tests/e2e/test_class_rewrite_programs.py, tests/bench/
 * drag_rewrite_programs.sh): every .class under DIR rewritten in place, each
 * class with a class id of its own (1, 2, ... wrapping past 32767), as the
 * agent would with every class in the filter.
 *
 * Usage: class_rewrite_tool DIR
 * Prints one line of counts (classes, rewritten, unchanged, refused, methods,
 * injected, skipped_long, skipped_attr) and, on stderr, one line per class
 * refused. Exit 0 when every file was read and written (a class refused is
 * left as it was and counted, not an error), 1 otherwise, 2 on bad usage.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_rewrite.h"

/* A class file bigger than this is not read (the largest in the JDK: ~200 KB). */
#define MAX_CLASS (16u << 20)

static struct {
    uint32_t classes, rewritten, unchanged, refused, io_errors;
    uint16_t next_cid;
    ht_rewrite_stats st;
} g = {.next_cid = 1};

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = malloc(MAX_CLASS);
    size_t n = p ? fread(p, 1, MAX_CLASS, f) : 0;
    int too_big = n == MAX_CLASS || ferror(f);
    fclose(f);
    if (!p || too_big) {
        free(p);
        return NULL;
    }
    *len = n;
    return p;
}

static int one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".class") != 0) return 0;
    g.classes++;
    size_t len;
    uint8_t *in = slurp(path, &len);
    if (!in) {
        fprintf(stderr, "class_rewrite_tool: cannot read %s (or larger than 16 MiB)\n", path);
        g.io_errors++;
        return 0;
    }
    uint8_t *out = NULL;
    size_t out_len = 0;
    char err[256];
    int rc = ht_class_rewrite(in, len, g.next_cid, &out, &out_len, &g.st, err, sizeof err);
    g.next_cid = g.next_cid == 32767 ? 1 : g.next_cid + 1;
    if (rc < 0) {
        fprintf(stderr, "class_rewrite_tool: %s refused: %s\n", path, err);
        g.refused++;
    } else if (rc == 1) {
        g.unchanged++;
    } else {
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(out, 1, out_len, f) == out_len;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok) {
            fprintf(stderr, "class_rewrite_tool: cannot write %s\n", path);
            g.io_errors++;
        }
        g.rewritten++;
    }
    free(out);
    free(in);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: class_rewrite_tool DIR\n");
        return 2;
    }
    if (nftw(argv[1], one, 32, FTW_PHYS) != 0) {
        perror(argv[1]);
        return 1;
    }
    printf("classes %u rewritten %u unchanged %u refused %u methods %u injected %u "
           "skipped_long %u skipped_attr %u\n",
           g.classes, g.rewritten, g.unchanged, g.refused, g.st.methods, g.st.injected,
           g.st.skipped_long, g.st.skipped_attr);
    return g.io_errors ? 1 : 0;
}
