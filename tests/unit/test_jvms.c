/*
 * test_jvms.c - the perf data parser (tui/attach/perfdata.c) on hand-built
 * files in both byte orders and on every kind of damage, then discovery
 * (tui/attach/jvms.c) on real JVMs: one with perf data, one with
 * -XX:-UsePerfData (found through /proc), one with attach switched off, and
 * the perf files those JVMs write, read as the chooser reads them. The JVMs
 * come from $JAVA (and $JAVA25 when set) running $HEAPTOP_JAR's LeakWorkload;
 * without HEAPTOP_JAR the real-JVM part is skipped and says so.
 */
#include "check.h"
#include "jvms.h"
#include "perf_builder.h"
#include "perfdata.h"

#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int parses(const uint8_t *b, size_t n, ht_perf_summary *s, char *err)
{
    return ht_perf_summarize(b, n, s, err, 256) == 0;
}

static void test_good(int big)
{
    pb p;
    size_t n = pb_g1(&p, big);
    ht_perf_summary s;
    char err[256] = "";
    CHECK_MSG(parses(p.b, n, &s, err), "big=%d: %s", big, err);
    CHECK(strcmp(s.command, "demo.Main --port 8080") == 0);
    CHECK(strcmp(s.java_version, "17.0.15") == 0);
    CHECK(s.heap_known && s.heap_used == 5320); /* not metaspace, not a capacity */
    CHECK(s.heap_capacity == 24000);            /* generations' capacity, not a space's */
    CHECK(s.gc_count == 3);
    CHECK(s.attach == 1);
    /* the JVM rewrites the file while we read: a copy longer than used is fine */
    CHECK(parses(p.b, n + 100, &s, err));
}

static void test_text_and_flags(void)
{
    pb p;
    pb_init(&p, 0);
    pb_string(&p, "sun.rt.javaCommand", "evil\033[2J\x07name");
    pb_string(&p, "sun.rt.jvmCapabilities", "0100");
    /* ZGC before its first collection: zeros, nothing ran */
    pb_long(&p, "sun.gc.generation.0.space.0.used", 0);
    pb_long(&p, "sun.gc.collector.2.invocations", 0);
    /* names that only look like the counters summed */
    pb_long(&p, "sun.gc.generation.x.space.0.used", 5);
    pb_long(&p, "sun.gc.generation.1.space.0.usedX", 5);
    size_t n = pb_finish(&p);
    ht_perf_summary s;
    char err[256];
    CHECK(parses(p.b, n, &s, err));
    CHECK_MSG(strcmp(s.command, "evil?[2J?name") == 0, "command '%s'", s.command);
    CHECK(s.attach == 0);
    CHECK(!s.heap_known && s.heap_used == 0);
    CHECK(s.java_version[0] == '\0');
}

/* Damage one good file: each must fail with a message, never crash (the
 * asan build reads every byte it touches). */
static void test_damaged(void)
{
    pb good;
    size_t n = pb_g1(&good, 0);
    ht_perf_summary s;
    char err[256];
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *b = malloc(cut ? cut : 1); /* exactly cut bytes: asan sees any overread */
        memcpy(b, good.b, cut);
        int ok = parses(b, cut, &s, err);
        CHECK_MSG(!ok && err[0], "a copy cut at %zu of %zu parsed", cut, n);
        free(b);
    }
    struct {
        size_t at;
        int width; /* 1: a byte, 4: a u32 */
        uint32_t v;
        const char *says;
    } bad[] = {
        {0, 1, 0x00, "no CAFEC0C0"},
        {4, 1, 7, "byte order"},
        {5, 1, 1, "version 1.0"},
        {7, 1, 0, "not accessible"},
        {24, 4, 8, "first entry at 8"},
        {24, 4, 0x7fffffff, "first entry at"},
        {28, 4, 0xffffffffu, "not believable"},
        {28, 4, 1000, "runs past the end"},
        {32, 4, 0, "has length 0"},
        {32, 4, 19, "has length 19"},
        {32, 4, 0x7ffffff0, "has length"},
        {36, 4, 3, "name is not inside"},
        {36, 4, 56, "name is not inside"},
        {40, 4, 0xffffffffu, "data outside"},
        {44, 1, 'Q', "data outside"},
        {48, 4, 0xfffffff8u, "data outside"},
        {48, 4, 60, "data outside"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb p = good;
        if (bad[i].width == 1)
            p.b[bad[i].at] = (uint8_t)bad[i].v;
        else
            pb_put32(&p, bad[i].at, bad[i].v);
        err[0] = '\0';
        int ok = parses(p.b, n, &s, err);
        CHECK_MSG(!ok && strstr(err, bad[i].says), "damage %zu: ok=%d err '%s' (want '%s')", i, ok,
                  err, bad[i].says);
    }
    /* the name's NUL is the last byte of the entry; none at all */
    pb p;
    pb_init(&p, 0);
    pb_long(&p, "sun.x", 1);
    size_t m = pb_finish(&p);
    memset(p.b + 52, 'a', m - 52);
    CHECK(!parses(p.b, m, &s, err) && strstr(err, "name is not inside"));
}

/* --- real JVMs --- */

static pid_t spawn_java(const char *java, const char *jar, const char *flag, const char *main)
{
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)java;
    if (flag) argv[k++] = (char *)flag;
    argv[k++] = "-Xmx64m";
    argv[k++] = "-cp";
    argv[k++] = (char *)jar;
    argv[k++] = (char *)main;
    argv[k++] = "60";
    argv[k] = NULL;
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    int rc = posix_spawn(&pid, java, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

static const ht_jvm *find(const ht_jvm_list *l, pid_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].pid == pid) return &l->v[i];
    return NULL;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_real(const char *java, const char *jar)
{
    printf("real JVMs of %s\n", java);
    pid_t plain = spawn_java(java, jar, NULL, "LeakWorkload");
    pid_t noperf = spawn_java(java, jar, "-XX:-UsePerfData", "HeaptopDemo");
    pid_t noattach = spawn_java(java, jar, "-XX:+DisableAttachMechanism", "LeakWorkload");
    CHECK(plain > 0 && noperf > 0 && noattach > 0);
    ht_jvm_list l = {0};
    char err[256];
    const ht_jvm *a = NULL, *b = NULL, *c = NULL;
    /* a JVM takes a moment to map libjvm.so and write its perf data, and
     * reports heap use only after its first collection on some collectors */
    for (int i = 0; i < 200; i++) {
        ht_jvms_free(&l);
        CHECK(ht_jvms_list(&l, NULL, NULL, NULL, err, sizeof err) == 0);
        a = find(&l, plain), b = find(&l, noperf), c = find(&l, noattach);
        if (a && b && c && a->from_perf && c->from_perf && a->uptime_s >= 1 &&
            a->agent == HT_JVM_ATTACHABLE && b->agent == HT_JVM_ATTACHABLE && a->heap_known)
            break;
        sleep_ms(100);
    }
    CHECK_MSG(a && b && c, "listed: plain %d noperf %d noattach %d", !!a, !!b, !!c);
    if (a && b && c) {
        CHECK_MSG(strcmp(a->main, "LeakWorkload") == 0, "main '%s'", a->main);
        CHECK(a->from_perf && a->heap_known && a->heap_used > 0 && a->heap_used < (64u << 20));
        CHECK(a->java_version[0] != '\0');
        CHECK(a->uptime_s >= 1 && a->uptime_s < 60);
        CHECK_MSG(a->agent == HT_JVM_ATTACHABLE, "plain: agent %d %s", a->agent, a->reason);
        /* found without perf data: what /proc says */
        CHECK_MSG(strcmp(b->main, "HeaptopDemo") == 0, "main '%s'", b->main);
        CHECK(!b->from_perf && !b->heap_known);
        CHECK_MSG(b->agent == HT_JVM_ATTACHABLE, "noperf: agent %d %s", b->agent, b->reason);
        CHECK_MSG(c->agent == HT_JVM_NOT_ATTACHABLE && strstr(c->reason, "DisableAttach"),
                  "noattach: agent %d '%s'", c->agent, c->reason);
        char text[256];
        ht_jvm_agent_text(c, text, sizeof text);
        CHECK(strncmp(text, "not attachable: ", 16) == 0);
        CHECK(strcmp(l.user, "") != 0);
        /* the OWNER column: the JVM's user, here the one who asked */
        CHECK_MSG(a->uid == geteuid() && strcmp(a->owner, l.user) == 0, "owner '%s' of '%s'",
                  a->owner, l.user);
        CHECK(l.all_users == (geteuid() == 0));
    }
    /* the file itself, as HotSpot wrote it */
    char path[300];
    snprintf(path, sizeof path, "/tmp/hsperfdata_%s/%d", l.user, (int)plain);
    uint8_t *buf;
    size_t n;
    ht_perf_summary s;
    CHECK_MSG(ht_jvms_read_perf_file(path, geteuid(), &buf, &n, err, sizeof err) == 0, "%s", err);
    if (n) {
        CHECK_MSG(ht_perf_summarize(buf, n, &s, err, sizeof err) == 0, "%s", err);
        CHECK(strncmp(s.command, "LeakWorkload 60", 15) == 0 && s.attach == 1);
        CHECK(s.heap_capacity > 0 && s.heap_capacity <= (64u << 20) + (1u << 20));
        /* every prefix of a real file is refused or parsed, never overread */
        for (size_t cut = 0; cut < n; cut += 7) {
            uint8_t *b2 = malloc(cut ? cut : 1);
            memcpy(b2, buf, cut);
            (void)ht_perf_summarize(b2, cut, &s, err, sizeof err);
            free(b2);
        }
        free(buf);
    }
    /* a perf file that is not a regular file, or not ours, is not read */
    CHECK(ht_jvms_read_perf_file("/proc/self", geteuid(), &buf, &n, err, sizeof err) != 0);
    CHECK(ht_jvms_read_perf_file(path, geteuid() + 1, &buf, &n, err, sizeof err) != 0 &&
          strstr(err, "another user"));
    pid_t all[3] = {plain, noperf, noattach};
    for (int i = 0; i < 3; i++)
        if (all[i] > 0) {
            kill(all[i], SIGKILL);
            waitpid(all[i], NULL, 0);
        }
    /* gone: no longer listed, though a killed JVM leaves its perf file */
    ht_jvms_free(&l);
    CHECK(ht_jvms_list(&l, NULL, NULL, NULL, err, sizeof err) == 0);
    CHECK(!find(&l, plain) && !find(&l, noperf) && !find(&l, noattach));
    ht_jvms_free(&l);
    unlink(path);
}

int main(void)
{
    test_good(0);
    test_good(1);
    test_text_and_flags();
    test_damaged();
    const char *jar = getenv("HEAPTOP_JAR"), *java = getenv("JAVA"), *java25 = getenv("JAVA25");
    if (jar && java) {
        test_real(java, jar);
        if (java25 && java25[0]) test_real(java25, jar);
    } else {
        printf("skipped the real JVMs: HEAPTOP_JAR and JAVA are not set\n");
    }
    return check_summary();
}
