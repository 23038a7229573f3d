/*
 * libFuzzer target: arbitrary bytes as an HPROF file through the reader's
 * header and first pass (tui/heap/hprof.c). Any out-of-bounds read, leak,
 * undefined behaviour, hang or a failure without a message is a finding.
 */
#include "hprof.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ht_hprof h;
    if (ht_hprof_open_mem(&h, data, size) != HT_HPROF_OK) {
        if (strncmp(h.err, "hprof: ", 7) != 0) abort();
        return 0;
    }
    ht_hprof_summary s;
    int rc = ht_hprof_scan(&h, &s);
    if (rc != HT_HPROF_OK && strncmp(h.err, "hprof: ", 7) != 0) abort();
    uint64_t total = 0;
    for (uint32_t i = 0; i < s.nclasses; i++)
        total += s.classes[i].instances + strlen(s.classes[i].name);
    (void)total;
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    return 0;
}
