/*
 * libFuzzer target: arbitrary bytes as a HotSpot perf data file
 * (hsperfdata) through the chooser's parser (tui/attach/perfdata.c): the walk
 * over every entry, the readers of longs and strings, and the summary. Any
 * out-of-bounds read, undefined behaviour, a failure without a message, or
 * text with a control character in it (it goes to a terminal) is a finding.
 */
#include "perfdata.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void clean_or_abort(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) abort();
}

static int visit(void *ctx, const ht_perf_entry *e)
{
    size_t *seen = ctx;
    int64_t v;
    char text[64];
    if (ht_perf_long(e, &v) && e->data_len != 8) abort();
    if (ht_perf_string(e, text, sizeof text)) clean_or_abort(text);
    if (strlen(e->name) == 0 && e->name[0] != '\0') abort();
    (*seen)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "";
    size_t seen = 0;
    if (ht_perf_walk(data, size, visit, &seen, err, sizeof err) != 0 && !err[0]) abort();
    ht_perf_summary s;
    err[0] = '\0';
    if (ht_perf_summarize(data, size, &s, err, sizeof err) != 0) {
        if (!err[0]) abort();
        return 0;
    }
    clean_or_abort(s.command);
    clean_or_abort(s.java_version);
    if (s.attach < -1 || s.attach > 1) abort();
    return 0;
}
