/* Unit tests of the command line's helpers: the one number parser
 * (common/bytesize.c) and the one target resolver (tui/target.c), the latter
 * against real files, sockets and processes in a scratch directory. */
#include "check.h"

#include "bytesize.h"
#include "protocol.h"
#include "target.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int bytes_ok(const char *s, uint64_t max, uint64_t want)
{
    uint64_t v = 12345;
    char err[256] = "";
    return ht_parse_bytes(s, max, &v, err, sizeof err) == HT_NUM_OK && v == want && !err[0];
}

static int bytes_rc(const char *s, uint64_t max)
{
    uint64_t v = 777;
    int rc = ht_parse_bytes(s, max, &v, NULL, 0);
    return rc != HT_NUM_OK && v != 777 ? 99 : rc; /* a failure must leave *out alone */
}

static void test_bytes(void)
{
    CHECK(bytes_ok("0", UINT64_MAX, 0));
    CHECK(bytes_ok("512", UINT64_MAX, 512));
    CHECK(bytes_ok("512k", UINT64_MAX, 524288));
    CHECK(bytes_ok("512K", UINT64_MAX, 524288));
    CHECK(bytes_ok("512kb", UINT64_MAX, 524288));
    CHECK(bytes_ok("512KB", UINT64_MAX, 524288));
    CHECK(bytes_ok("1m", UINT64_MAX, 1048576));
    CHECK(bytes_ok("1M", UINT64_MAX, 1048576));
    CHECK(bytes_ok("1g", UINT64_MAX, 1073741824));
    CHECK(bytes_ok("1Gb", UINT64_MAX, 1073741824));
    CHECK(bytes_ok("007k", UINT64_MAX, 7168));
    CHECK(bytes_ok("16777216g", UINT64_MAX, 1ull << 54));
    CHECK(bytes_ok("18446744073709551615", UINT64_MAX, UINT64_MAX));
    CHECK(bytes_ok("2147483647", HT_MAX_INTERVAL, 2147483647u));
    CHECK(bytes_ok("1g", HT_MAX_INTERVAL, 1073741824));

    /* too large: the maximum, and anything that would wrap 64 bits */
    CHECK(bytes_rc("2g", HT_MAX_INTERVAL) == HT_NUM_RANGE);
    CHECK(bytes_rc("2147483648", HT_MAX_INTERVAL) == HT_NUM_RANGE);
    CHECK(bytes_rc("2097152k", HT_MAX_INTERVAL) == HT_NUM_RANGE);
    CHECK(bytes_rc("18014398509481984k", HT_MAX_INTERVAL) == HT_NUM_RANGE); /* 2^64: was 0 */
    CHECK(bytes_rc("18014398509481984k", UINT64_MAX) == HT_NUM_RANGE);
    CHECK(bytes_rc("17179869184g", UINT64_MAX) == HT_NUM_RANGE);
    CHECK(bytes_rc("17592186044416m", UINT64_MAX) == HT_NUM_RANGE);
    CHECK(bytes_rc("18446744073709551616", UINT64_MAX) == HT_NUM_RANGE);
    CHECK(bytes_rc("99999999999999999999", UINT64_MAX) == HT_NUM_RANGE);
    CHECK(bytes_rc("99999999999999999999999999999999k", UINT64_MAX) == HT_NUM_RANGE);

    /* not a byte count */
    const char *bad[] = {"",     "k",  "-1",   "+1",  " 1",  "1 ",  "1.5k", "10q", "1kk",
                         "1kbb", "1b", "0x10", "1e3", "1k ", "1 k", "m",    "abc", "1-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = bytes_rc(bad[i], UINT64_MAX);
        CHECK(rc == HT_NUM_SYNTAX);
        if (rc != HT_NUM_SYNTAX) fprintf(stderr, "  accepted '%s' (%d)\n", bad[i], rc);
    }
    uint64_t v;
    CHECK(ht_parse_bytes(NULL, UINT64_MAX, &v, NULL, 0) == HT_NUM_SYNTAX);
    /* syntax wins over size: a huge number with a bad suffix is a syntax error */
    CHECK(bytes_rc("99999999999999999999q", UINT64_MAX) == HT_NUM_SYNTAX);

    /* messages name the text and the limit */
    char err[256];
    CHECK(ht_parse_bytes("10q", HT_MAX_INTERVAL, &v, err, sizeof err) == HT_NUM_SYNTAX &&
          strstr(err, "'10q'") && strstr(err, "not a byte count") && strstr(err, "512k"));
    CHECK(ht_parse_bytes("18014398509481984k", HT_MAX_INTERVAL, &v, err, sizeof err) ==
              HT_NUM_RANGE &&
          strstr(err, "'18014398509481984k'") && strstr(err, "too large") &&
          strstr(err, "2147483647 bytes, 2g-1"));
    CHECK(ht_parse_bytes("3m", 1u << 20, &v, err, sizeof err) == HT_NUM_RANGE &&
          strstr(err, "1048576 bytes, 1m"));

    /* counts */
    CHECK(ht_parse_count("0", 10, &v, NULL, 0) == HT_NUM_OK && v == 0);
    CHECK(ht_parse_count("31536000", 31536000, &v, NULL, 0) == HT_NUM_OK && v == 31536000);
    CHECK(ht_parse_count("31536001", 31536000, &v, err, sizeof err) == HT_NUM_RANGE &&
          strstr(err, "'31536001'") && strstr(err, "at most 31536000"));
    CHECK(ht_parse_count("99999999999999999999", UINT64_MAX, &v, NULL, 0) == HT_NUM_RANGE);
    /* percentages, in hundredths of a percent */
    uint32_t pct = 0;
    CHECK(ht_parse_percent("1%", 5000, &pct, NULL, 0) == HT_NUM_OK && pct == 100);
    {
        uint64_t us = 0;
        char why[128];
        CHECK(ht_parse_duration_us("10ms", 1000, 1000000, &us, NULL, 0) == HT_NUM_OK &&
              us == 10000);
        CHECK(ht_parse_duration_us("500us", 100, 1000000, &us, NULL, 0) == HT_NUM_OK && us == 500);
        CHECK(ht_parse_duration_us("1s", 1000, 1000000, &us, NULL, 0) == HT_NUM_OK &&
              us == 1000000);
        CHECK(ht_parse_duration_us("10", 1000, 1000000, &us, why, sizeof why) == HT_NUM_SYNTAX &&
              strstr(why, "'10' is not a duration"));
        CHECK(ht_parse_duration_us("10m", 1000, 1000000, &us, NULL, 0) == HT_NUM_SYNTAX);
        CHECK(ht_parse_duration_us("2s", 1000, 1000000, &us, why, sizeof why) == HT_NUM_RANGE &&
              strstr(why, "'2s' is out of range (1ms .. 1s)"));
        CHECK(ht_parse_duration_us("99999999999999999999s", 0, UINT64_MAX, &us, NULL, 0) ==
              HT_NUM_RANGE);
        CHECK(ht_parse_duration_us("18446744073709551s", 0, UINT64_MAX, &us, NULL, 0) ==
              HT_NUM_RANGE);
    }
    CHECK(ht_parse_percent("0.5%", 5000, &pct, NULL, 0) == HT_NUM_OK && pct == 50);
    CHECK(ht_parse_percent("2.25%", 5000, &pct, NULL, 0) == HT_NUM_OK && pct == 225);
    CHECK(ht_parse_percent("50%", 5000, &pct, NULL, 0) == HT_NUM_OK && pct == 5000);
    CHECK(ht_parse_percent("50.01%", 5000, &pct, err, sizeof err) == HT_NUM_RANGE &&
          strstr(err, "at most 50.00%"));
    CHECK(ht_parse_percent("99999999999999999999%", 5000, &pct, NULL, 0) == HT_NUM_RANGE);
    CHECK(ht_parse_percent("1", 5000, &pct, err, sizeof err) == HT_NUM_SYNTAX &&
          strstr(err, "not a percentage"));
    CHECK(ht_parse_percent("1.%", 5000, &pct, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_percent("0.125%", 5000, &pct, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_percent("-1%", 5000, &pct, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_percent("1%%", 5000, &pct, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_percent(NULL, 5000, &pct, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count("1.5", 100, &v, err, sizeof err) == HT_NUM_SYNTAX &&
          strstr(err, "'1.5'") && strstr(err, "not a whole number"));
    CHECK(ht_parse_count("1k", 100000, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count("-1", 100, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count("", 100, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count(NULL, 100, &v, NULL, 0) == HT_NUM_SYNTAX);
}

/* --- the resolver --- */

static char scratch[256];

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", scratch, name);
}

/* A unix socket bound at path; listening or not. Returns the fd. */
static int bound_socket(const char *path, int listening)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror(path);
        return -1;
    }
    if (listening) listen(fd, 4);
    return fd;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A pid that ran and has been reaped (so no process has it, barring reuse). */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0) _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

static ht_target_status resolve_text(const ht_target *t, char *err, size_t n)
{
    err[0] = '\0';
    return ht_target_resolve(t, err, n);
}

/* The one count and byte formatter (bytesize.h), for people. */
static void test_format(void)
{
    char b[32];
    const struct {
        uint64_t v;
        const char *want;
    } counts[] = {{0, "0"},
                  {999, "999"},
                  {1000, "1,000"},
                  {23600, "23,600"},
                  {23600000, "23,600,000"},
                  {UINT64_MAX, "18,446,744,073,709,551,615"}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        ht_format_count(counts[i].v, b, sizeof b);
        CHECK_MSG(strcmp(b, counts[i].want) == 0, "count %s, not %s", b, counts[i].want);
    }
    ht_format_count(1234567, b, 6); /* cut, never overrun */
    CHECK(strlen(b) < 6);
    ht_format_bytes(812, b, sizeof b);
    CHECK(strcmp(b, "812 bytes") == 0);
    ht_format_bytes(29674700, b, sizeof b);
    CHECK(strcmp(b, "28.3 MiB") == 0);
}

static void test_target_syntax(void)
{
    ht_target t;
    char err[512];
    CHECK(ht_target_from_ipc(&t, "/x/jvm.ctl", err, sizeof err) == 0 &&
          strcmp(t.base, "/x/jvm") == 0 && t.pid == 0);
    CHECK(ht_target_from_ipc(&t, "/x/jvm.events", err, sizeof err) == 0 &&
          strcmp(t.base, "/x/jvm") == 0);
    CHECK(ht_target_from_ipc(&t, "/x/jvm", err, sizeof err) == 0 && strcmp(t.base, "/x/jvm") == 0);
    CHECK(ht_target_from_ipc(&t, "rel", err, sizeof err) == 0 && strcmp(t.base, "rel") == 0);
    CHECK(ht_target_from_ipc(&t, ".ctl", err, sizeof err) != 0);
    CHECK(ht_target_from_ipc(&t, "", err, sizeof err) != 0);
    char longp[200];
    memset(longp, 'a', sizeof longp);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    CHECK(ht_target_from_ipc(&t, longp, err, sizeof err) != 0 && strstr(err, "too long"));

    const char *bad[] = {"12ab", "99999999999999999999", "0",   "-5", "+5",
                         "",     "2147483648",           "1.0", " 7", "7 ",
                         "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "'%s' is not a process id", bad[i]);
        int rc = ht_target_from_pid(&t, bad[i], err, sizeof err);
        CHECK(rc != 0 && strcmp(err, want) == 0);
        if (rc == 0) fprintf(stderr, "  accepted pid '%s' as %d\n", bad[i], (int)t.pid);
    }
    char want[300];
    snprintf(want, sizeof want, "%s/heaptop/42", scratch);
    CHECK(ht_target_from_pid(&t, "42", err, sizeof err) == 0 && t.pid == 42 &&
          strcmp(t.base, want) == 0);
    CHECK(ht_target_from_pid(&t, "2147483647", err, sizeof err) == 0 && t.pid == 2147483647);
}

static void test_target_files(void)
{
    ht_target t;
    char err[1024], path[300], file[300];

    /* nothing there yet: an agent may still come */
    path_in(path, sizeof path, "none");
    ht_target_from_ipc(&t, path, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_ABSENT &&
          strstr(err, "no heaptop agent at") && strstr(err, "-agentpath:"));

    /* --ipc at a regular file, or a regular file where the .ctl socket should be */
    path_in(path, sizeof path, "plain");
    fclose(fopen(path, "w"));
    ht_target_from_ipc(&t, path, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "not a socket") &&
          strstr(err, "regular file"));
    path_in(file, sizeof file, "reg.ctl");
    fclose(fopen(file, "w"));
    ht_target_from_ipc(&t, file, err, sizeof err); /* PATH.ctl means PATH */
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "reg.ctl is") &&
          strstr(err, "not a socket"));
    CHECK(exists(file)); /* never removed */
    ht_target_from_ipc(&t, scratch, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "directory"));

    /* a listener: ready, given as PATH, PATH.ctl or PATH.events */
    path_in(file, sizeof file, "live.ctl");
    int fd = bound_socket(file, 1);
    path_in(path, sizeof path, "live");
    ht_target_from_ipc(&t, path, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_READY);
    CHECK(!ht_target_nobody_listening(file));
    path_in(path, sizeof path, "live.events");
    ht_target_from_ipc(&t, path, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_READY);
    close(fd);
    unlink(file);

    /* a listener bound by a relative path (its cwd unknown) is never called stale */
    char cwd[512];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(scratch) == 0);
    fd = bound_socket("rel.ctl", 1);
    CHECK(chdir(cwd) == 0);
    path_in(file, sizeof file, "rel.ctl");
    CHECK(!ht_target_nobody_listening(file));
    close(fd);
    unlink(file);

    /* a fresh socket nobody listens on: maybe an agent starting; not removed */
    path_in(file, sizeof file, "fresh.ctl");
    fd = bound_socket(file, 0);
    close(fd);
    CHECK(ht_target_nobody_listening(file));
    path_in(path, sizeof path, "fresh");
    ht_target_from_ipc(&t, path, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_ABSENT && strstr(err, "nobody listens"));
    CHECK(exists(file));
    unlink(file);
}

static void test_target_pids(void)
{
    ht_target t;
    char err[1024], text[32], ctl[300], ev[300];

    /* no such process */
    pid_t gone = dead_pid();
    snprintf(text, sizeof text, "%d", (int)gone);
    ht_target_from_pid(&t, text, err, sizeof err);
    char want[128];
    snprintf(want, sizeof want, "no process with pid %d", (int)gone);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strcmp(err, want) == 0);

    /* a zombie is no process either */
    pid_t z = fork();
    if (z == 0) _exit(0);
    snprintf(text, sizeof text, "%d", (int)z);
    ht_target_from_pid(&t, text, err, sizeof err);
    for (int i = 0; i < 2000; i++) { /* until the child has exited (a zombie) */
        char st[64], buf[256] = "";
        snprintf(st, sizeof st, "/proc/%d/stat", (int)z);
        FILE *f = fopen(st, "r");
        if (f) {
            if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
            fclose(f);
        }
        const char *rp = strrchr(buf, ')');
        if (rp && rp[2] == 'Z') break;
        usleep(1000);
    }
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "no process"));
    waitpid(z, NULL, 0);

    /* this test is not a JVM */
    snprintf(text, sizeof text, "%d", (int)getpid());
    ht_target_from_pid(&t, text, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "is not a Java VM") &&
          strstr(err, "test_cli"));

    /* socket files left at the default path of a pid that no longer runs */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/heaptop", scratch);
    mkdir(dir, 0700);
    gone = dead_pid();
    snprintf(text, sizeof text, "%d", (int)gone);
    ht_target_from_pid(&t, text, err, sizeof err);
    snprintf(ctl, sizeof ctl, "%s.ctl", t.base);
    snprintf(ev, sizeof ev, "%s.events", t.base);
    close(bound_socket(ctl, 0));
    close(bound_socket(ev, 0));
    snprintf(want, sizeof want, "removed stale socket files left by pid %d, which no longer runs",
             (int)gone);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strcmp(err, want) == 0);
    CHECK(!exists(ctl) && !exists(ev));

    /* the same through --ipc <default dir>/<pid>: removed, and a new agent may come */
    close(bound_socket(ctl, 0));
    ht_target_from_ipc(&t, ctl, err, sizeof err);
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_ABSENT && strcmp(err, want) == 0);
    CHECK(!exists(ctl));

    /* a regular file at a pid's .ctl path is reported, never removed */
    snprintf(text, sizeof text, "%d", (int)getpid());
    ht_target_from_pid(&t, text, err, sizeof err);
    snprintf(ctl, sizeof ctl, "%s.ctl", t.base);
    fclose(fopen(ctl, "w"));
    CHECK(resolve_text(&t, err, sizeof err) == HT_TARGET_FATAL && strstr(err, "not a socket"));
    CHECK(exists(ctl));
    unlink(ctl);
}

int main(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/heaptop-test-cli-XXXXXX");
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("XDG_RUNTIME_DIR", scratch, 1); /* default socket paths inside the scratch dir */
    test_bytes();
    test_format();
    test_target_syntax();
    test_target_files();
    test_target_pids();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", scratch);
    return check_summary();
}
