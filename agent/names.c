/* names.c - see names.h. */
#include "names.h"

#include <stdio.h>
#include <string.h>

static const char *primitive_name(char c)
{
    switch (c) {
    case 'B':
        return "byte";
    case 'C':
        return "char";
    case 'D':
        return "double";
    case 'F':
        return "float";
    case 'I':
        return "int";
    case 'J':
        return "long";
    case 'S':
        return "short";
    case 'Z':
        return "boolean";
    case 'V':
        return "void";
    default:
        return NULL;
    }
}

int ht_class_name_from_signature(const char *sig, char *out, size_t n)
{
    if (n == 0) return -1;
    out[0] = '\0';
    if (!sig) return -1;
    size_t dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *elem = sig + dims;
    size_t len = 0;
    int ok = 1;
    if (elem[0] == 'L') {
        const char *semi = strchr(elem, ';');
        if (!semi || semi[1] != '\0' || semi == elem + 1) {
            ok = 0;
        } else {
            /* JVMTI writes a hidden class as Lp/A.0x...; Class.getName() as
             * p.A/0x...: keep Java's form, a '/' before the address suffix. */
            for (const char *p = elem + 1; p < semi && len + 1 < n; p++)
                out[len++] = (*p == '/' || *p == '.') && strncmp(p + 1, "0x", 2) == 0 ? '/'
                             : *p == '/'                                              ? '.'
                                                                                      : *p;
            out[len] = '\0';
        }
    } else if (elem[0] && elem[1] == '\0' && primitive_name(elem[0])) {
        len = (size_t)snprintf(out, n, "%s", primitive_name(elem[0]));
        if (len >= n) len = n - 1;
    } else {
        ok = 0;
    }
    if (!ok) {
        snprintf(out, n, "%s", sig);
        return -1;
    }
    for (size_t d = 0; d < dims && len + 2 < n; d++) {
        out[len++] = '[';
        out[len++] = ']';
    }
    out[len] = '\0';
    return 0;
}

int ht_hidden_class_base(const char *name, char *out, size_t n)
{
    const char *addr = strstr(name, "/0x");
    if (!addr || n == 0) return 0;
    const char *end = addr + 3;
    while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f') ||
           (*end >= 'A' && *end <= 'F'))
        end++;
    if (end == addr + 3) return 0;
    size_t len = (size_t)(addr - name);
    /* a lambda's counter: "$$Lambda$<digits>" right before the address */
    static const char lambda[] = "$$Lambda$";
    size_t ll = sizeof lambda - 1;
    size_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d < len && d >= ll && memcmp(name + d - ll, lambda, ll) == 0) len = d - 1;
    snprintf(out, n, "%.*s%s", (int)len, name, end);
    return 1;
}

int32_t ht_line_for_bci(const ht_line_entry *table, size_t n, int64_t bci)
{
    int32_t line = -1;
    int64_t best = -1;
    for (size_t i = 0; i < n; i++) {
        if (table[i].start <= bci && table[i].start > best) {
            best = table[i].start;
            line = table[i].line;
        }
    }
    return line;
}
