/* export_lines.c - see export_lines.h. */
#include "export_lines.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>

static const char *const LINE_COLS[] = {"file", "line", "alloc_bytes", "cpu_ms", "text", NULL};

void ht_export_lines_headers(FILE *f)
{
    fputs("lines.csv:   ", f);
    for (int i = 0; LINE_COLS[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", LINE_COLS[i]);
    fputc('\n', f);
}

int ht_export_lines_open(ht_csv *o, const char *path)
{
    if (ht_csv_open(o, path) != 0) return -1;
    ht_csv_header(o, LINE_COLS);
    return 0;
}

/* The line's bytes as one field, quoted by libcsv; a NUL as '?' (on a copy,
 * made only for a line that has one). */
static void text_field(ht_csv *o, const char *text, size_t len)
{
    char *copy = NULL;
    if (len && memchr(text, '\0', len) && (copy = malloc(len))) {
        for (size_t i = 0; i < len; i++)
            copy[i] = text[i] ? text[i] : '?';
        text = copy;
    }
    if (o->fields++) fputc(',', o->f);
    if (copy || !memchr(text, '\0', len))
        csv_fwrite(o->f, text, len);
    else
        csv_fwrite(o->f, "", 0); /* out of memory for the copy: no text rather than a NUL */
    free(copy);
}

void ht_export_lines_row(ht_csv *o, const char *file, uint32_t line, double alloc_bytes,
                         double cpu_ms, const char *text, size_t len)
{
    char b[48];
    ht_csv_field(o, file);
    ht_csv_u64(o, line);
    ht_csv_est(o, alloc_bytes);
    snprintf(b, sizeof b, "%.3f", cpu_ms < 0 ? 0.0 : cpu_ms);
    ht_csv_field(o, b);
    text_field(o, text ? text : "", text ? len : 0);
    ht_csv_end_row(o);
}
