/* Unit tests of the command line's helpers: the one number parser
 * (common/bytesize.c). */
#include "check.h"

#include "bytesize.h"
#include "protocol.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
    CHECK(ht_parse_count("1.5", 100, &v, err, sizeof err) == HT_NUM_SYNTAX &&
          strstr(err, "'1.5'") && strstr(err, "not a whole number"));
    CHECK(ht_parse_count("1k", 100000, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count("-1", 100, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count("", 100, &v, NULL, 0) == HT_NUM_SYNTAX);
    CHECK(ht_parse_count(NULL, 100, &v, NULL, 0) == HT_NUM_SYNTAX);
}

int main(void)
{
    test_bytes();
    return check_summary();
}
