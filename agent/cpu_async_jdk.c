/* cpu_async_jdk.c - see cpu_async_jdk.h. */
#include "cpu_async_jdk.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The first update of each JDK line with all four fixes (cpu_async_jdk.h).
 * 11 and 17: JDK-8268364's backports went in in September 2024, after the
 * October releases' ramp-down (jdk11u-dev #2935, jdk17u-dev #2839); 21:
 * JDK-8313816's backport, December 2023 (jdk21u-dev #56); 22 and later have
 * them all from the start. 12-16 and 18-20 never got JDK-8313796. */
static const struct {
    int feature, first_update;
} lines[] = {
    {11, 26}, {17, 14}, {21, 3}, {22, 0}, {23, 0}, {24, 0}, {25, 0},
};
#define NEWEST_CHECKED 25

/* A run of digits at *p (at most 9 of them), or -1. */
static int number(const char **p)
{
    if (!isdigit((unsigned char)**p)) return -1;
    int v = 0, digits = 0;
    while (isdigit((unsigned char)**p)) {
        if (++digits > 9) return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

int ht_jdk_version_parse(const char *v, int *feature, int *interim, int *update)
{
    *feature = *interim = *update = 0;
    if (!v) return -1;
    const char *p = v;
    int n[3] = {0, 0, 0};
    if ((n[0] = number(&p)) < 0) return -1;
    for (int i = 1; i < 3 && *p == '.'; i++) {
        p++;
        if ((n[i] = number(&p)) < 0) return -1;
    }
    if (n[0] == 1 && *p == '_') { /* 1.8.0_402: the update follows the underscore */
        p++;
        int u = number(&p);
        *feature = n[1];
        *update = u < 0 ? 0 : u;
        return 0;
    }
    if (n[0] == 1) { /* 1.8.0 */
        *feature = n[1];
        return 0;
    }
    *feature = n[0];
    *interim = n[1];
    *update = n[2];
    return 0;
}

int ht_cpu_async_jdk_ok(const char *vm_name, const char *vm_version, char *why, size_t n)
{
#if !defined(__linux__) || !defined(__x86_64__)
    (void)vm_name;
    (void)vm_version;
    snprintf(why, n,
             "cpu=async refused: it is built for Linux on x86_64 only (per-thread CPU timers; "
             "AsyncGetCallTrace was checked there); use cpu=on");
    return 0;
#else
    if (vm_name && (strstr(vm_name, "J9") ||
                    !(strstr(vm_name, "Server VM") || strstr(vm_name, "Client VM")))) {
        snprintf(why, n,
                 "cpu=async refused on %.80s: AsyncGetCallTrace is checked on HotSpot only; "
                 "use cpu=on",
                 vm_name);
        return 0;
    }
    int f, i, u;
    if (ht_jdk_version_parse(vm_version, &f, &i, &u) != 0) {
        snprintf(why, n,
                 "cpu=async refused: the JVM's version '%.60s' is not one heaptop knows; "
                 "use cpu=on",
                 vm_version ? vm_version : "(none)");
        return 0;
    }
    if (f > NEWEST_CHECKED) {
        snprintf(why, n,
                 "cpu=async refused on JDK %d: AsyncGetCallTrace is checked up to JDK %d only "
                 "(it is unsupported and may change or crash in a newer JDK); use cpu=on",
                 f, NEWEST_CHECKED);
        return 0;
    }
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        if (lines[k].feature != f) continue;
        if (i > 0 || u >= lines[k].first_update) return 1;
        snprintf(why, n,
                 "cpu=async refused on JDK %d.%d.%d: AsyncGetCallTrace or stale jmethodIDs can "
                 "crash it before %d.0.%d (JDK-8307549, JDK-8313796, JDK-8313816, JDK-8268364); "
                 "update the JDK or use cpu=on",
                 f, i, u, f, lines[k].first_update);
        return 0;
    }
    snprintf(why, n,
             "cpu=async refused on JDK %d: that line never got the AsyncGetCallTrace and "
             "jmethodID fixes (safe: 11.0.26+, 17.0.14+, 21.0.3+, 22-%d); use cpu=on",
             f, NEWEST_CHECKED);
    return 0;
#endif
}
