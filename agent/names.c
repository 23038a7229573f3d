/* names.c - see names.h. A signature's Java name is written by
 * common/java_name.h's ht_java_type_name, the one converter (the heap reader's
 * too); what is here is the grammar of JVMTI's signatures. */
#include "names.h"

#include "java_name.h"

#include <stdio.h>
#include <string.h>

int ht_class_name_from_signature(const char *sig, char *out, size_t n)
{
    if (n == 0) return -1;
    out[0] = '\0';
    if (!sig) return -1;
    size_t dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *elem = sig + dims;
    const char *semi = elem[0] == 'L' ? strchr(elem, ';') : NULL;
    const char *prim = elem[0] && elem[1] == '\0' ? ht_java_primitive_name(elem[0]) : NULL;
    if (semi && semi[1] == '\0' && semi != elem + 1) /* "L" name ";", its separators '/' */
        ht_java_type_name(elem + 1, (size_t)(semi - elem - 1), dims, 1, out, n);
    else if (prim)
        ht_java_type_name(prim, strlen(prim), dims, 0, out, n);
    else {
        snprintf(out, n, "%s", sig);
        return -1;
    }
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
