/* bytesize.c - see bytesize.h. */
#include "bytesize.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Leading decimal digits of s into *v; *end after them. 0 = no digits,
 * 1 = digits that fit, 2 = digits that do not fit in 64 bits. */
static int digits(const char *s, uint64_t *v, const char **end)
{
    uint64_t acc = 0;
    int over = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (acc > (UINT64_MAX - d) / 10)
            over = 1;
        else
            acc = acc * 10 + d;
    }
    *end = p;
    *v = acc;
    return p == s ? 0 : over ? 2 : 1;
}

/* "2147483647 bytes, 2g-1" style text for a maximum. */
static void describe_max(uint64_t max, char *out, size_t n)
{
    static const struct {
        char suffix;
        uint64_t mul;
    } units[] = {{'g', 1ull << 30}, {'m', 1ull << 20}, {'k', 1ull << 10}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        uint64_t m = units[i].mul;
        if (max >= m && max % m == 0) {
            snprintf(out, n, "%llu bytes, %llu%c", (unsigned long long)max,
                     (unsigned long long)(max / m), units[i].suffix);
            return;
        }
        if (max < UINT64_MAX && max + 1 >= m && (max + 1) % m == 0) {
            snprintf(out, n, "%llu bytes, %llu%c-1", (unsigned long long)max,
                     (unsigned long long)((max + 1) / m), units[i].suffix);
            return;
        }
    }
    snprintf(out, n, "%llu bytes", (unsigned long long)max);
}

int ht_parse_bytes(const char *s, uint64_t max, uint64_t *out, char *err, size_t errn)
{
    uint64_t v = 0, mul = 1;
    const char *end = s;
    int d = s ? digits(s, &v, &end) : 0;
    int ok = d != 0;
    if (ok) {
        switch (*end) {
        case '\0':
            break;
        case 'k':
        case 'K':
            mul = 1ull << 10;
            break;
        case 'm':
        case 'M':
            mul = 1ull << 20;
            break;
        case 'g':
        case 'G':
            mul = 1ull << 30;
            break;
        default:
            ok = 0;
        }
        if (ok && *end) {
            end++;
            if (*end == 'b' || *end == 'B') end++;
            if (*end) ok = 0;
        }
    }
    if (!ok) {
        if (err)
            snprintf(err, errn,
                     "'%s' is not a byte count (expected digits with an optional k, m or g "
                     "suffix, such as 512k)",
                     s ? s : "");
        return HT_NUM_SYNTAX;
    }
    if (d == 2 || v > max / mul) {
        if (err) {
            char m[64];
            describe_max(max, m, sizeof m);
            snprintf(err, errn, "'%s' is too large (at most %s)", s, m);
        }
        return HT_NUM_RANGE;
    }
    *out = v * mul;
    return HT_NUM_OK;
}

int ht_parse_count(const char *s, uint64_t max, uint64_t *out, char *err, size_t errn)
{
    uint64_t v = 0;
    const char *end = s;
    int d = s ? digits(s, &v, &end) : 0;
    if (d == 0 || *end) {
        if (err) snprintf(err, errn, "'%s' is not a whole number", s ? s : "");
        return HT_NUM_SYNTAX;
    }
    if (d == 2 || v > max) {
        if (err)
            snprintf(err, errn, "'%s' is too large (at most %llu)", s, (unsigned long long)max);
        return HT_NUM_RANGE;
    }
    *out = v;
    return HT_NUM_OK;
}

/* A bound as typed: 1s, 10ms or 500us. */
static void format_us(uint64_t us, char *out, size_t n)
{
    if (us && us % 1000000 == 0)
        snprintf(out, n, "%llus", (unsigned long long)(us / 1000000));
    else if (us && us % 1000 == 0)
        snprintf(out, n, "%llums", (unsigned long long)(us / 1000));
    else
        snprintf(out, n, "%lluus", (unsigned long long)us);
}

int ht_parse_duration_us(const char *s, uint64_t min_us, uint64_t max_us, uint64_t *out_us,
                         char *err, size_t errn)
{
    uint64_t v = 0, mul = 0;
    const char *end = s;
    int d = s ? digits(s, &v, &end) : 0;
    if (d != 0) {
        if (strcmp(end, "us") == 0)
            mul = 1;
        else if (strcmp(end, "ms") == 0)
            mul = 1000;
        else if (strcmp(end, "s") == 0)
            mul = 1000000;
    }
    if (!mul) {
        if (err)
            snprintf(err, errn, "'%s' is not a duration such as 10ms, 500us or 1s", s ? s : "");
        return HT_NUM_SYNTAX;
    }
    if (d == 2 || v > max_us / mul || v * mul < min_us) {
        if (err) {
            char lo[32], hi[32];
            format_us(min_us, lo, sizeof lo);
            format_us(max_us, hi, sizeof hi);
            snprintf(err, errn, "'%s' is out of range (%s .. %s)", s, lo, hi);
        }
        return HT_NUM_RANGE;
    }
    *out_us = v * mul;
    return HT_NUM_OK;
}

int ht_parse_percent(const char *s, uint32_t max_x100, uint32_t *out_x100, char *err, size_t errn)
{
    uint64_t whole = 0, frac = 0;
    const char *end = s;
    int d = s ? digits(s, &whole, &end) : 0;
    int fd = 0;
    if (d != 0 && *end == '.') {
        const char *p = end + 1;
        while (*p >= '0' && *p <= '9' && fd < 3) {
            frac = frac * 10 + (uint64_t)(*p - '0');
            fd++;
            p++;
        }
        end = p;
        if (fd == 0 || fd > 2) d = 0; /* "1." or more than two decimals */
    }
    if (d == 0 || end[0] != '%' || end[1]) {
        if (err) snprintf(err, errn, "'%s' is not a percentage such as 1%% or 0.5%%", s ? s : "");
        return HT_NUM_SYNTAX;
    }
    if (fd == 1) frac *= 10;
    if (d == 2 || whole > max_x100 / 100 || whole * 100 + frac > max_x100) {
        if (err)
            snprintf(err, errn, "'%s' is too large (at most %u.%02u%%)", s, max_x100 / 100,
                     max_x100 % 100);
        return HT_NUM_RANGE;
    }
    *out_x100 = (uint32_t)(whole * 100 + frac);
    return HT_NUM_OK;
}

void ht_format_bytes(uint64_t v, char *out, size_t n)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        u++;
    }
    snprintf(out, n, u ? "%.1f %s" : "%.0f %s", d, units[u]);
}

void ht_format_count(uint64_t v, char *out, size_t n)
{
    if (!n) return;
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, v), k = 0;
    for (int i = 0; i < len && (size_t)k + 2 < n; i++) {
        if (i && (len - i) % 3 == 0) out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
}
