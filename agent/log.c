/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "heaptop: "

/* The line whole in one buffer, so stdio hands it to the kernel in one write. */
void ht_log(const char *fmt, ...)
{
    char line[4096];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    size_t at = sizeof PREFIX - 1;
    memcpy(line, PREFIX, at);
    int n = vsnprintf(line + at, sizeof line - at - 1, fmt, ap);
    va_end(ap);
    char *big = NULL, *out = line;
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof line - at - 1 && (big = malloc(at + (size_t)n + 2)) != NULL) {
        memcpy(big, PREFIX, at);
        vsnprintf(big + at, (size_t)n + 1, fmt, again);
        out = big;
    } else if ((size_t)n >= sizeof line - at - 1) {
        n = (int)(sizeof line - at - 2); /* no memory: the line cut short */
    }
    va_end(again);
    out[at + (size_t)n] = '\n';
    fwrite(out, 1, at + (size_t)n + 1, stderr);
    free(big);
}

const char *ht_log_unprefixed(const char *msg)
{
    return strncmp(msg, PREFIX, sizeof PREFIX - 1) == 0 ? msg + sizeof PREFIX - 1 : msg;
}

/* The errors the agent's calls (capabilities, events, the sampling interval,
 * stacks, tags, properties, threads) can return. */
#define HT_JVMTI_ERRORS(X)                                                                         \
    X(NONE)                                                                                        \
    X(INVALID_THREAD)                                                                              \
    X(THREAD_NOT_ALIVE)                                                                            \
    X(INVALID_OBJECT)                                                                              \
    X(INVALID_CLASS)                                                                               \
    X(CLASS_NOT_PREPARED)                                                                          \
    X(INVALID_METHODID)                                                                            \
    X(INVALID_LOCATION)                                                                            \
    X(NO_MORE_FRAMES)                                                                              \
    X(NOT_FOUND)                                                                                   \
    X(NOT_AVAILABLE)                                                                               \
    X(MUST_POSSESS_CAPABILITY)                                                                     \
    X(NULL_POINTER)                                                                                \
    X(ABSENT_INFORMATION)                                                                          \
    X(INVALID_EVENT_TYPE)                                                                          \
    X(ILLEGAL_ARGUMENT)                                                                            \
    X(NATIVE_METHOD)                                                                               \
    X(OUT_OF_MEMORY)                                                                               \
    X(ACCESS_DENIED)                                                                               \
    X(WRONG_PHASE)                                                                                 \
    X(INTERNAL)                                                                                    \
    X(UNATTACHED_THREAD)                                                                           \
    X(INVALID_ENVIRONMENT)

const char *ht_jvmti_error_name(jvmtiError err, char *buf, size_t n)
{
    switch (err) {
#define NAME(e)                                                                                    \
    case JVMTI_ERROR_##e:                                                                          \
        return "JVMTI_ERROR_" #e;
        HT_JVMTI_ERRORS(NAME)
#undef NAME
    default:
        snprintf(buf, n, "JVMTI error %d", (int)err);
        return buf;
    }
}
