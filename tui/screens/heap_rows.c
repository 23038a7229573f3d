/* heap_rows.c - see heap_rows.h. */
#include "heap_rows.h"

#include "paths.h"
#include "values.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void ht_heaprow_object_text(const ht_heap *x, uint32_t n, char *buf, size_t cap)
{
    char label[256], preview[160];
    ht_object_label(&x->s, n, label, sizeof label);
    ht_object_preview(&x->s, n, preview, sizeof preview);
    snprintf(buf, cap, "%s @0x%" PRIx64 "%s%s", label, x->s.ids[n], preview[0] ? " " : "", preview);
}

void ht_heaprow_loader_text(const ht_heap *x, uint32_t c, char *buf, size_t cap)
{
    ht_loader_label(&x->s, c, buf, cap);
}

void ht_heaprow_bytes(const ht_draw_ctx *d, uint64_t v, int width, char *buf, size_t cap)
{
    char t[32];
    ht_ui_bytes((double)v, d->unit, t, sizeof t);
    snprintf(buf, cap, "%*s", width, t);
}

void ht_heaprow_none(const ht_draw_ctx *d)
{
    ht_ui_put(stdscr, d->top + 1, 0, d->ui->cols, ht_ui_attr(d->ui, HT_C_DIM),
              "  no heap snapshot: press H to take one from the JVM, or run heaptop open "
              "FILE.hprof",
              1);
}

void ht_heaprow_row(const ht_draw_ctx *d, int r, int selected, const char *text)
{
    int attr = r == 0 ? ht_ui_attr(d->ui, HT_C_TITLE)
                      : ht_ui_attr(d->ui, selected ? HT_C_SELECTED : HT_C_NORMAL);
    ht_ui_put(stdscr, d->top + r, 0, d->ui->cols, attr, text, 1);
}

int ht_heaprow_same_run(const ht_store *st, const ht_heap *x)
{
    const ht_sampled *m = &x->s.sampled;
    return m->marked && m->run_pid && st->info.pid == m->run_pid &&
           st->info.start_epoch_ms == m->run_start_ms;
}
