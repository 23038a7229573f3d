/*
 * test_source.c - the source files' part (tui/source): the Java lexer (each
 * kind of token, state across lines, and input that is not Java: NUL bytes,
 * bytes that are not UTF-8, a 100 KB line, unterminated comments, strings
 * and text blocks), the line splitter, a class's file name and the names
 * refused, the source path's checks, the search in a real directory tree,
 * real jars and zips written with libzip (flat and with the JDK's
 * <module>/ layout), a file over the bound refused, the JDK's src.zip found
 * from a running process's java home and from JAVA_HOME, the margin's
 * sums (inclusive once per stack a line, self on the leaf), the margin from
 * a store fed the agent's messages (allocation rows and CPU rows, a
 * bucket's row skipped, "not sampled" until the store has CPU data) against
 * sums made here from the same stacks, and lines.csv from that store.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "check.h"
#include "source_find.h"
#include "source_lex.h"
#include "source_lines.h"
#include "source_margin.h"
#include "source_path.h"
#include "source_rows.h"
#include "source_text.h"
#include "store.h"
/* after check.h and store.h: mb_apply */
#include "proto_builder.h"

static char tmp[256];

/* The kinds of line s begun in st, as one letter a byte: k keyword, s
 * string, c char, / comment, n number, @ annotation, . plain. */
static const char *kinds_of(const char *s, ht_lex_state st, ht_lex_state *out)
{
    static char buf[512];
    uint8_t k[512];
    size_t n = strlen(s);
    ht_lex_state end = ht_lex_line(s, n, st, k);
    if (out) *out = end;
    for (size_t i = 0; i < n; i++)
        buf[i] = ".ksc/n@"[k[i]];
    buf[n] = '\0';
    return buf;
}

static void test_lex(void)
{
    ht_lex_state st;
    CHECK(strcmp(kinds_of("int x = 42;", HT_LEX_CODE, &st), "kkk.....nn.") == 0);
    CHECK(st == HT_LEX_CODE);
    CHECK(strcmp(kinds_of("s = \"a\\\"b\"; // c", HT_LEX_CODE, &st), "....ssssss..////") == 0);
    CHECK(strcmp(kinds_of("c = '\\'';", HT_LEX_CODE, &st), "....cccc.") == 0);
    CHECK(strcmp(kinds_of("@Override void", HT_LEX_CODE, &st), "@@@@@@@@@.kkkk") == 0);
    CHECK(strcmp(kinds_of("x = 0x1F + 1_000L + 3.5e-2f", HT_LEX_CODE, &st),
                 "....nnnn...nnnnnn...nnnnnnn") == 0);
    CHECK(strcmp(kinds_of("return null;", HT_LEX_CODE, &st), "kkkkkk.kkkk.") == 0);
    CHECK(strcmp(kinds_of("classy", HT_LEX_CODE, &st), "......") == 0); /* not a keyword */
    /* a block comment over lines: the state crosses the line end */
    CHECK(strcmp(kinds_of("a /* b", HT_LEX_CODE, &st), "..////") == 0);
    CHECK(st == HT_LEX_IN_COMMENT);
    CHECK(strcmp(kinds_of("still", st, &st), "/////") == 0 && st == HT_LEX_IN_COMMENT);
    CHECK(strcmp(kinds_of("end */ if", st, &st), "//////.kk") == 0 && st == HT_LEX_CODE);
    /* a text block over lines */
    CHECK(strcmp(kinds_of("s = \"\"\"", HT_LEX_CODE, &st), "....sss") == 0 && st == HT_LEX_IN_TEXT);
    CHECK(strcmp(kinds_of("  a \" b", st, &st), "sssssss") == 0 && st == HT_LEX_IN_TEXT);
    CHECK(strcmp(kinds_of("  \"\"\";", st, &st), "sssss.") == 0 && st == HT_LEX_CODE);
    /* an unterminated string ends with its line; the next line is code */
    CHECK(strcmp(kinds_of("x = \"open", HT_LEX_CODE, &st), "....sssss") == 0 && st == HT_LEX_CODE);
    /* an unterminated comment to the file's end */
    CHECK(strcmp(kinds_of("/* open", HT_LEX_CODE, &st), "///////") == 0 && st == HT_LEX_IN_COMMENT);
    /* a lone quote, slash, at-sign, backslash at the line's end */
    kinds_of("'", HT_LEX_CODE, &st);
    kinds_of("/", HT_LEX_CODE, &st);
    kinds_of("@", HT_LEX_CODE, &st);
    CHECK(st == HT_LEX_CODE);
    kinds_of("\"\"\"\\", HT_LEX_CODE, &st);
    CHECK(st == HT_LEX_IN_TEXT);
    /* NUL bytes, bytes that are not UTF-8: every byte gets a kind */
    const char odd[] = "int\0x\xff\xfe = \"\x80\0\"; // \xc3";
    uint8_t k[sizeof odd];
    memset(k, 0xEE, sizeof k);
    st = ht_lex_line(odd, sizeof odd - 1, HT_LEX_CODE, k);
    int all = 1;
    for (size_t i = 0; i < sizeof odd - 1; i++)
        all &= k[i] < HT_LEX_KINDS;
    CHECK(all && k[0] == HT_LEX_KEYWORD && k[sizeof odd - 2] == HT_LEX_COMMENT);
    CHECK(k[sizeof odd - 1] == 0xEE); /* nothing written past the length */
    /* a 100 KB line: a string that never ends, then one of identifiers */
    size_t big = 100 * 1024;
    char *line = malloc(big);
    uint8_t *kk = malloc(big);
    memset(line, 'a', big);
    line[10] = '"';
    st = ht_lex_line(line, big, HT_LEX_CODE, kk);
    CHECK(st == HT_LEX_CODE && kk[big - 1] == HT_LEX_STRING && kk[0] == HT_LEX_PLAIN);
    memset(line, '/', big);
    line[0] = ' ', line[1] = '/', line[2] = '*';
    st = ht_lex_line(line, big, HT_LEX_CODE, kk);
    CHECK(kk[big - 1] == HT_LEX_COMMENT); /* "*" + "/" never meet: open */
    free(line);
    free(kk);
}

static void test_split(void)
{
    uint32_t start[8], len[8];
    const char *t = "a\r\nbc\n\nlast";
    CHECK(ht_source_split(t, strlen(t), start, len) == 4);
    CHECK(start[0] == 0 && len[0] == 1 && start[1] == 3 && len[1] == 2 && len[2] == 0);
    CHECK(start[3] == 7 && len[3] == 4);
    CHECK(ht_source_split("", 0, NULL, NULL) == 0);
    CHECK(ht_source_split("x\n", 2, NULL, NULL) == 1);
    /* the lexer's state at each line's start */
    ht_source_text tx;
    const char *src = "a /* b\nc\nd */ e\n\"\"\"\nx\n\"\"\"\n";
    char *bytes = malloc(strlen(src) + 1);
    memcpy(bytes, src, strlen(src));
    CHECK(ht_source_text_take(&tx, bytes, strlen(src)) == 0);
    CHECK(tx.nlines == 6);
    CHECK(tx.state[0] == HT_LEX_CODE && tx.state[1] == HT_LEX_IN_COMMENT &&
          tx.state[2] == HT_LEX_IN_COMMENT && tx.state[3] == HT_LEX_CODE &&
          tx.state[4] == HT_LEX_IN_TEXT && tx.state[5] == HT_LEX_IN_TEXT);
    ht_source_text_free(&tx);
}

static void test_rel(void)
{
    char out[256], err[256];
    CHECK(ht_source_rel("pkg.sub.Outer$Inner", "Outer.java", out, sizeof out, err, sizeof err) ==
              0 &&
          strcmp(out, "pkg/sub/Outer.java") == 0);
    CHECK(ht_source_rel("pkg.Outer$Inner$1", NULL, out, sizeof out, err, sizeof err) == 0 &&
          strcmp(out, "pkg/Outer.java") == 0);
    CHECK(ht_source_rel("Top", "Top.kt", out, sizeof out, err, sizeof err) == 0 &&
          strcmp(out, "Top.kt") == 0);
    CHECK(ht_source_rel("p.Foo$$Lambda/0x0000000800c01234", NULL, out, sizeof out, err,
                        sizeof err) == 0 &&
          strcmp(out, "p/Foo.java") == 0);
    /* names that would leave the entry are refused */
    CHECK(ht_source_rel("pkg.Outer", "../../etc/passwd", out, sizeof out, err, sizeof err) != 0);
    CHECK(strstr(err, "not a plain file name") != NULL);
    CHECK(ht_source_rel("pkg.Outer", "..", out, sizeof out, err, sizeof err) != 0);
    CHECK(ht_source_rel("a..b.C", NULL, out, sizeof out, err, sizeof err) != 0);
    CHECK(ht_source_rel(".C", NULL, out, sizeof out, err, sizeof err) != 0);
    CHECK(ht_source_rel("", NULL, out, sizeof out, err, sizeof err) != 0);
    CHECK(ht_source_same_file("pkg.Outer$Inner", "Outer.java", "pkg/Outer.java"));
    CHECK(!ht_source_same_file("pkg.Other", "Other.java", "pkg/Outer.java"));
    CHECK(!ht_source_same_file("other.Outer", "Outer.java", "pkg/Outer.java"));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

/* A zip at path holding names[i] with texts[i], written by libzip. */
static void write_zip(const char *path, const char *const *names, const char *const *texts, int n)
{
    int ze;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    CHECK(z != NULL);
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, texts[i], strlen(texts[i]), 0);
        CHECK(zip_file_add(z, names[i], s, ZIP_FL_ENC_UTF_8) >= 0);
    }
    CHECK(zip_close(z) == 0);
}

static void test_path_and_find(void)
{
    char p[512], q[600], err[4800];
    snprintf(p, sizeof p, "%s/dir/pkg", tmp);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/dir", tmp);
    mkdir(dir, 0700);
    mkdir(p, 0700);
    snprintf(q, sizeof q, "%s/Outer.java", p);
    write_file(q, "package pkg;\nclass Outer {}\n");
    char jar[512], mod[512], notzip[512], missing[512];
    snprintf(jar, sizeof jar, "%s/src.jar", tmp);
    snprintf(mod, sizeof mod, "%s/mods.zip", tmp);
    snprintf(notzip, sizeof notzip, "%s/plain.txt", tmp);
    snprintf(missing, sizeof missing, "%s/nothing", tmp);
    const char *jn[] = {"pkg/Outer.java", "pkg/Jarred.java"};
    const char *jt[] = {"// the jar's Outer\n", "class Jarred {}\n"};
    write_zip(jar, jn, jt, 2);
    const char *mn[] = {"java.base/java/util/Listy.java", "other/x/Y.java"};
    const char *mt[] = {"package java.util;\n\xff\xfe not UTF-8\n", "y"};
    write_zip(mod, mn, mt, 2);
    write_file(notzip, "just text");

    ht_source_path sp;
    ht_source_path_init(&sp);
    char spec[2048];
    /* a missing entry: one line naming it, before anything is searched */
    snprintf(spec, sizeof spec, "%s:%s", dir, missing);
    CHECK(ht_source_path_parse(&sp, spec, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, missing) && strstr(err, "No such file"), "missing entry: %s", err);
    ht_source_path_free(&sp);
    CHECK(ht_source_path_parse(&sp, notzip, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "not a directory, .jar or .zip"), "not a zip: %s", err);
    ht_source_path_free(&sp);
    snprintf(spec, sizeof spec, "%s::%s", dir, jar);
    CHECK(ht_source_path_parse(&sp, spec, err, sizeof err) != 0 && strstr(err, "empty entry"));
    ht_source_path_free(&sp);

    /* the directory first, then the jar, then the module-laid zip */
    snprintf(spec, sizeof spec, "%s:%s:%s", dir, jar, mod);
    CHECK(ht_source_path_parse(&sp, spec, err, sizeof err) == 0 && sp.n == 3);
    CHECK(sp.e[0].kind == HT_SOURCE_DIR && sp.e[1].kind == HT_SOURCE_ZIP);
    ht_source_found f;
    CHECK(ht_source_find(&sp, "pkg.Outer$Inner", "Outer.java", &f, err, sizeof err) == 0);
    CHECK(strcmp(f.where, q) == 0 && f.text.nlines == 2);
    ht_source_found_free(&f);
    CHECK(ht_source_find(&sp, "pkg.Jarred", NULL, &f, err, sizeof err) == 0);
    char where[1024];
    snprintf(where, sizeof where, "%s!pkg/Jarred.java", jar);
    CHECK_MSG(strcmp(f.where, where) == 0, "jar: %s", f.where);
    ht_source_found_free(&f);
    CHECK(ht_source_find(&sp, "java.util.Listy", "Listy.java", &f, err, sizeof err) == 0);
    snprintf(where, sizeof where, "%s!java.base/java/util/Listy.java", mod);
    CHECK_MSG(strcmp(f.where, where) == 0, "module layout: %s", f.where);
    CHECK(f.text.nlines == 2 && memcmp(f.text.bytes + f.text.start[1], "\xff\xfe", 2) == 0);
    ht_source_found_free(&f);
    /* not found: the paths searched, in order */
    CHECK(ht_source_find(&sp, "no.Such", NULL, &f, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "no/Such.java not found") && strstr(err, dir) && strstr(err, jar) &&
                  strstr(err, mod),
              "not found: %s", err);
    /* a name from the JVM that is not a file name is not looked for */
    CHECK(ht_source_find(&sp, "pkg.Outer", "../Outer.java", &f, err, sizeof err) != 0);

    /* over the bound: a directory's file and a zip's entry, each refused */
    snprintf(q, sizeof q, "%s/Big.java", p);
    int fd = open(q, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)HT_SOURCE_MAX_BYTES + 1) == 0);
    close(fd);
    CHECK(ht_source_find(&sp, "pkg.Big", NULL, &f, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "is 16777217 bytes: larger than the 16 MiB"), "big file: %s", err);
    char bigzip[512];
    snprintf(bigzip, sizeof bigzip, "%s/big.zip", tmp);
    char *zeros = calloc(1, HT_SOURCE_MAX_BYTES + 2);
    memset(zeros, ' ', HT_SOURCE_MAX_BYTES + 1);
    const char *bn[] = {"q/Huge.java"};
    const char *bt[] = {zeros};
    write_zip(bigzip, bn, bt, 1);
    free(zeros);
    ht_source_path_free(&sp);
    CHECK(ht_source_path_parse(&sp, bigzip, err, sizeof err) == 0);
    CHECK(ht_source_find(&sp, "q.Huge", NULL, &f, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "Huge.java is 16777217 bytes: larger than"), "big entry: %s", err);
    ht_source_path_free(&sp);
}

/* A java home at home: bin/java (a copy of sleep, so a process can run
 * it), lib/src.zip, and a release file of version v. */
static void make_home(const char *home, const char *v)
{
    char p[600];
    mkdir(home, 0700);
    snprintf(p, sizeof p, "%s/bin", home);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/lib", home);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "cp /bin/sleep '%s/bin/java'", home);
    CHECK(system(p) == 0);
    snprintf(p, sizeof p, "%s/lib/src.zip", home);
    const char *n[] = {"java.base/java/lang/Obj.java"};
    const char *t[] = {"x"};
    write_zip(p, n, t, 1);
    snprintf(p, sizeof p, "%s/release", home);
    char rel[64];
    snprintf(rel, sizeof rel, "JAVA_VERSION=\"%s\"\n", v);
    write_file(p, rel);
}

static void test_jdk(void)
{
    CHECK(ht_source_jdk_feature("17.0.9+9-Debian") == 17);
    CHECK(ht_source_jdk_feature("1.8.0_392") == 8);
    CHECK(ht_source_jdk_feature("25+36-LTS") == 25);
    CHECK(ht_source_jdk_feature("?") == 0 && ht_source_jdk_feature(NULL) == 0);
    char home[512], want[600], out[4200], why[1200];
    snprintf(home, sizeof home, "%s/jdkA", tmp);
    make_home(home, "97.0.1");
    /* the java home of a running process's executable */
    char exe[600];
    snprintf(exe, sizeof exe, "%s/bin/java", home);
    pid_t pid = fork();
    if (pid == 0) {
        execl(exe, "java", "30", (char *)NULL);
        _exit(127);
    }
    char link[64], got[600] = "";
    snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
    for (int i = 0; i < 200 && !strstr(got, "/bin/java"); i++) { /* until it has exec'd */
        ssize_t n = readlink(link, got, sizeof got - 1);
        got[n > 0 ? n : 0] = '\0';
        usleep(10000);
    }
    snprintf(want, sizeof want, "%s/lib/src.zip", home);
    CHECK(ht_source_jdk_zip((uint32_t)pid, "97.0.1", out, sizeof out, why, sizeof why) == 0);
    CHECK_MSG(strcmp(out, want) == 0, "from /proc/PID/exe: %s", out);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    /* JAVA_HOME, only for the JVM's feature version */
    snprintf(home, sizeof home, "%s/jdkB", tmp);
    make_home(home, "96.0.2");
    setenv("JAVA_HOME", home, 1);
    snprintf(want, sizeof want, "%s/lib/src.zip", home);
    CHECK(ht_source_jdk_zip(0, "96+3", out, sizeof out, why, sizeof why) == 0 &&
          strcmp(out, want) == 0);
    CHECK(ht_source_jdk_zip(0, "95+3", out, sizeof out, why, sizeof why) != 0);
    CHECK_MSG(strstr(why, "JDK 95") && strstr(why, "openjdk-95-source"), "why: %s", why);
    unsetenv("JAVA_HOME");
}

/* --- the margin --- */

typedef struct stacks_ctx {
    const ht_stack *s;
    int n, at;
} stacks_ctx;

static int next_stack(void *ctx, ht_stack *out)
{
    stacks_ctx *c = ctx;
    if (c->at >= c->n) return 0;
    *out = c->s[c->at++];
    return 1;
}

static int asked;
static int in_file(void *ctx, uint32_t id)
{
    (void)ctx;
    asked++;
    return id == 1 || id == 2;
}

static void test_margin(void)
{
    ht_margin m;
    CHECK(ht_margin_init(&m, 30) == 0);
    /* recursion through line 10 twice: counted once; method 3 is elsewhere */
    ht_frame_rec a[] = {{1, 10}, {2, 20}, {1, 10}, {3, 5}};
    ht_frame_rec b[] = {{3, 7}, {2, 20}};
    ht_frame_rec c[] = {{2, 99}, {1, -2}, {2, 0}, {1, 30}}; /* past the end, native, 0 */
    ht_stack s[] = {{a, 4, 100}, {b, 2, 50}, {c, 4, 7}};
    stacks_ctx ctx = {s, 3, 0};
    ht_stacks it = {next_stack, &ctx};
    CHECK(ht_margin_add(&m, HT_MARGIN_ALLOC, &it, in_file, NULL) == 0);
    CHECK(m.lines[9].incl[HT_MARGIN_ALLOC] == 100 && m.lines[9].self[HT_MARGIN_ALLOC] == 100);
    CHECK(m.lines[19].incl[HT_MARGIN_ALLOC] == 150 && m.lines[19].self[HT_MARGIN_ALLOC] == 0);
    CHECK(m.lines[4].incl[HT_MARGIN_ALLOC] == 0 && m.lines[6].incl[HT_MARGIN_ALLOC] == 0);
    CHECK(m.lines[29].incl[HT_MARGIN_ALLOC] == 7 && m.lines[29].self[HT_MARGIN_ALLOC] == 0);
    CHECK(m.total[HT_MARGIN_ALLOC] == 157);
    CHECK(m.has[HT_MARGIN_ALLOC] && !m.has[HT_MARGIN_CPU]);
    CHECK(asked == 3); /* once per method */
    /* a second column from another source: CPU */
    ctx.at = 0;
    ctx.n = 1;
    CHECK(ht_margin_add(&m, HT_MARGIN_CPU, &it, in_file, NULL) == 0);
    CHECK(m.lines[9].incl[HT_MARGIN_CPU] == 100 && m.lines[9].incl[HT_MARGIN_ALLOC] == 100);
    ht_margin_clear(&m);
    CHECK(m.lines[9].incl[HT_MARGIN_ALLOC] == 0 && !m.has[HT_MARGIN_CPU]);
    ht_margin_free(&m);
}

/* --- the margin from a store --- */

/* The store's dictionaries as the test writes them, to sum from. */
typedef struct tframe {
    uint32_t method;
    int32_t line;
} tframe;
static const char *const T_CLS[] = {NULL, "demo.Hot", "demo.Hot", "demo.Hot$Inner", "demo.Other"};
static const char *const T_SRC[] = {NULL, "Hot.java", "Hot.java", "Hot.java", "Other.java"};
#define T_DEPTH 4
static const tframe T_TRACES[][T_DEPTH] = {
    /* trace 10 + i, leaf first; {0, 0} ends a shorter one */
    {{1, 12}, {2, 30}, {4, 5}, {0, 0}},
    {{3, 40}, {2, 30}, {2, 31}, {0, 0}}, /* the inner class: the same file */
    {{4, 7}, {1, 12}, {1, 12}, {2, 33}}, /* recursion on line 12: once a stack */
    {{1, HT_LINE_NATIVE}, {2, 33}, {0, 0}},
    {{2, 9000}, {1, 12}, {0, 0}}, /* a line past the file's end */
};
#define T_NTRACES 5

static void t_stack_sum(double *incl, double *self, uint32_t nlines, int trace, double w)
{
    int seen[64] = {0};
    for (int k = 0; k < T_DEPTH && T_TRACES[trace][k].method; k++) {
        tframe f = T_TRACES[trace][k];
        if (strcmp(T_SRC[f.method], "Hot.java") != 0 || f.line < 1 || (uint32_t)f.line > nlines)
            continue;
        if (k == 0) self[f.line - 1] += w;
        if (seen[f.line - 1]++) continue;
        incl[f.line - 1] += w;
    }
}

static void t_feed_names(ht_store *s, ht_buf *b)
{
    mb m = mb_list(b, HT_MSG_CLASSES, 1);
    mb_class(&m, 1, "byte[]");
    mb_apply(&m, s);
    m = mb_list(b, HT_MSG_METHODS, 2);
    for (uint32_t id = 1; id <= 4; id++)
        mb_method(&m, id, T_CLS[id], "m", T_SRC[id]);
    mb_apply(&m, s);
    m = mb_list(b, HT_MSG_TRACES, 3);
    for (int t = 0; t < T_NTRACES; t++) {
        uint16_t depth = 0;
        while (depth < T_DEPTH && T_TRACES[t][depth].method)
            depth++;
        mb_trace(&m, 10 + (uint32_t)t, depth);
        for (int k = 0; k < depth; k++)
            mb_frame(&m, T_TRACES[t][k].method, T_TRACES[t][k].line);
    }
    mb_apply(&m, s);
}

static void test_store_margin(void)
{
    ht_store s;
    ht_store_init(&s);
    ht_buf b;
    ht_buf_init(&b);
    t_feed_names(&s, &b);
    const double alloc[] = {1000, 500, 250, 0, 64};
    mb m = mb_list(&b, HT_MSG_AGGS, 4);
    for (int t = 0; t < T_NTRACES; t++) {
        ht_agg_rec a = MB_ROW(10 + (uint32_t)t, 1, 1, 0, alloc[t], 1, 0, 0);
        if (alloc[t] > 0) mb_agg(&m, &a);
    }
    mb_apply(&m, &s);

    enum { N = 50 };
    ht_margin g;
    CHECK(ht_margin_init(&g, N) == 0);
    /* no CPU data yet (cpu=off, no rows): the column is not sampled */
    CHECK(ht_margin_from_store(&g, &s, "demo/Hot.java") == 0);
    CHECK(g.has[HT_MARGIN_ALLOC] && !g.has[HT_MARGIN_CPU]);
    double incl[N] = {0}, self[N] = {0};
    for (int t = 0; t < T_NTRACES; t++)
        t_stack_sum(incl, self, N, t, alloc[t]);
    for (int k = 0; k < N; k++)
        CHECK(g.lines[k].incl[HT_MARGIN_ALLOC] == incl[k] &&
              g.lines[k].self[HT_MARGIN_ALLOC] == self[k]);
    CHECK(incl[11] == 1000 + 250 + 64 && incl[29] == 1500); /* the sums are not all zero */

    /* the CPU sampler on, no rows yet: sampled, nothing there */
    ht_hello h = {.pid = 7, .cpu_mode = HT_CPU_ON, .cpu_interval_us = 10000};
    mb_hello(&b, 5, &h, "demo.Main", "17", "", "");
    ht_msg msg;
    CHECK(ht_msg_open(b.data, b.len, &msg) == HT_OK && ht_store_apply(&s, &msg) == HT_OK);
    ht_buf_reset(&b);
    CHECK(ht_margin_from_store(&g, &s, "demo/Hot.java") == 0);
    CHECK(g.has[HT_MARGIN_CPU] && g.total[HT_MARGIN_CPU] == 0);

    /* CPU rows: two threads on trace 10, one each on the others, and a
     * bucket (no stack) that lands on no line */
    m = mb_list(&b, HT_MSG_CPU_THREADS, 6);
    ht_cpu_thread_rec t1 = {.id = 1, .state = HT_THREAD_RUNNABLE, .cpu_ns = 1};
    ht_cpu_thread_rec t2 = {.id = 2, .state = HT_THREAD_RUNNABLE, .cpu_ns = 1};
    mb_cpu_thread(&m, &t1, "main");
    mb_cpu_thread(&m, &t2, "worker");
    mb_apply(&m, &s);
    const ht_cpu_row_rec rows[] = {
        {.thread_id = 1, .trace_id = 10, .samples = 7, .cpu_ns = 7000000},
        {.thread_id = 2, .trace_id = 10, .samples = 3, .cpu_ns = 3500000},
        {.thread_id = 1, .trace_id = 11, .samples = 2, .cpu_ns = 2000000},
        {.thread_id = 2, .trace_id = 12, .samples = 1, .cpu_ns = 1250000},
        {.thread_id = 1, .trace_id = 13, .samples = 1, .cpu_ns = 333333},
        {.thread_id = 1, .trace_id = 14, .samples = 1, .cpu_ns = 10000000},
        {.thread_id = 1,
         .trace_id = HT_TRACE_NONE,
         .bucket = HT_CPUB_WALK_FAILED,
         .samples = 9,
         .cpu_ns = 9000000},
    };
    const size_t nrows = sizeof rows / sizeof rows[0];
    m = mb_list(&b, HT_MSG_CPU_ROWS, 7);
    for (size_t i = 0; i < nrows; i++)
        mb_cpu_row(&m, &rows[i]);
    mb_apply(&m, &s);
    CHECK(s.ncpu_rows == nrows);
    double cincl[N] = {0}, cself[N] = {0}, stacked = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].bucket != HT_CPUB_NONE) continue;
        t_stack_sum(cincl, cself, N, (int)rows[i].trace_id - 10, (double)rows[i].cpu_ns / 1e6);
        stacked += (double)rows[i].cpu_ns / 1e6;
    }
    CHECK(ht_margin_from_store(&g, &s, "demo/Hot.java") == 0);
    CHECK(g.has[HT_MARGIN_CPU]);
    for (int k = 0; k < N; k++) {
        CHECK(fabs(g.lines[k].incl[HT_MARGIN_CPU] - cincl[k]) < 1e-9 &&
              fabs(g.lines[k].self[HT_MARGIN_CPU] - cself[k]) < 1e-9);
        /* the allocation column is as it was */
        CHECK(g.lines[k].incl[HT_MARGIN_ALLOC] == incl[k]);
    }
    CHECK(fabs(cincl[11] - (7 + 3.5 + 1.25 + 10)) < 1e-9); /* line 12: not the bucket's 9 */
    CHECK(fabs(cincl[29] - 12.5) < 1e-9 && fabs(cself[39] - 2) < 1e-9);
    CHECK(fabs(g.total[HT_MARGIN_CPU] - stacked) < 1e-9); /* the bucket weighs nothing */
    /* another file of the same store: only its own lines */
    CHECK(ht_margin_from_store(&g, &s, "demo/Other.java") == 0);
    CHECK(g.lines[4].incl[HT_MARGIN_CPU] == 10.5 && g.lines[6].self[HT_MARGIN_CPU] == 1.25);
    CHECK(g.lines[11].incl[HT_MARGIN_CPU] == 0);
    ht_margin_free(&g);

    /* lines.csv from the same store: Hot.java found in a directory, Other.java
     * nowhere (its lines with no text) */
    char dir[300], path[400], out[300];
    snprintf(dir, sizeof dir, "%s/lines-src", tmp);
    snprintf(path, sizeof path, "%s/demo", dir);
    CHECK(mkdir(dir, 0700) == 0 && mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/demo/Hot.java", dir);
    char text[4096] = "";
    for (int k = 1; k <= 45; k++) /* line k says its number; quotes on 30 */
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d\n",
                 k == 30 ? "say(\"x\") // " : "int a", k);
    write_file(path, text);
    snprintf(out, sizeof out, "%s/lines-out", tmp);
    CHECK(mkdir(out, 0700) == 0);
    ht_source_path sp;
    ht_source_path_init(&sp);
    char err[600], say[3000];
    CHECK(ht_source_path_parse(&sp, dir, err, sizeof err) == 0);
    CHECK(ht_source_lines_write(&s, &sp, 0, out, say, sizeof say) == 0);
    CHECK(strstr(say, "lines.csv") && strstr(say, "demo/Other.java"));
    snprintf(path, sizeof path, "%s/lines.csv", out);
    char *csv = check_slurp(path);
    CHECK(csv != NULL);
    if (csv) {
        char row[300];
        CHECK(strncmp(csv, "\"file\",\"line\",\"alloc_bytes\",\"cpu_ms\",\"text\"\r\n", 44) == 0);
        snprintf(row, sizeof row, "\"demo/Hot.java\",\"12\",\"%.0f\",\"%.3f\",\"int a12\"\r\n",
                 incl[11], cincl[11]);
        CHECK(strstr(csv, row) != NULL);
        snprintf(row, sizeof row,
                 "\"demo/Hot.java\",\"30\",\"%.0f\",\"%.3f\",\"say(\"\"x\"\") // 30\"\r\n",
                 incl[29], cincl[29]);
        CHECK(strstr(csv, row) != NULL);
        /* past the file's end: the figures, no text */
        snprintf(row, sizeof row, "\"demo/Hot.java\",\"9000\",\"64\",\"10.000\",\"\"\r\n");
        CHECK(strstr(csv, row) != NULL);
        CHECK(strstr(csv, "\"demo/Other.java\",\"7\",\"250\",\"1.250\",\"\"\r\n") != NULL);
        CHECK(strstr(csv, "\"demo/Hot.java\",\"1\",") == NULL); /* no figures: no row */
        CHECK(strstr(csv, "\"demo/Hot.java\",\"40\"") < strstr(csv, "\"demo/Other.java\""));
    }
    /* an output directory that is not there: one line, nothing written */
    snprintf(out, sizeof out, "%s/no-such-dir", tmp);
    CHECK(ht_source_lines_write(&s, &sp, 0, out, say, sizeof say) != 0 && say[0]);
    ht_source_path_free(&sp);
    ht_buf_free(&b);
    ht_store_free(&s);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/heaptop-test-source-XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    test_lex();
    test_split();
    test_rel();
    test_path_and_find();
    test_jdk();
    test_margin();
    test_store_margin();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0);
    return check_summary();
}
