/*
 * app_host.c - what a screen may ask of the loop, and the app's small
 * accessors.
 *
 * Owns: ht_host, the loop as screen.h lets a screen see it (the store, the
 * lens, the status line, a rebuild, drilling into a class, a class filter
 * or an object and back (one step: a new drill ends the one before), the
 * heap snapshot and the reference browser, another screen, the marks'
 * snapshots, the page height), the status line's text and time, and which
 * screen is in front (ht_app_show: a modal one remembers where it returns).
 * UI thread only; nothing here waits, draws or talks to the agent: it sets
 * what the loop (app.c) rebuilds and draws next.
 */
#include "clock.h"
#include "app.h"

#include "screen_refs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const ht_store *ht_app_store(const ht_app *a)
{
    return a->conn.cli ? &a->conn.cli->store : &a->conn.empty;
}

const ht_screen *ht_app_front(const ht_app *a)
{
    return ht_screens[a->front];
}

void *ht_app_state(const ht_app *a, const ht_screen *s)
{
    int i = ht_screen_index(s);
    return i >= 0 ? a->state[i] : NULL;
}

static void vstatus(ht_app *a, const char *fmt, va_list ap)
{
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    a->status_ms = ht_mono_ms();
    a->need_draw = 1;
}

void ht_app_status(ht_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(a, fmt, ap);
    va_end(ap);
}

void ht_app_show(ht_app *a, int i, int drilled)
{
    if (i < 0 || i >= ht_nscreens || (i == a->front && !drilled)) return;
    const ht_screen *s = ht_screens[i];
    if (s->modal) a->back = a->front;
    a->front = i;
    if (s->enter) s->enter(a->state[i], drilled);
    if (!s->modal) a->need_build = 1; /* only the screen in front is kept up to date */
    a->need_draw = 1;
}

/* --- what a screen may ask (screen.h) --- */

const ht_store *ht_host_store(const ht_host *h)
{
    return ht_app_store(h);
}

const ht_lens *ht_host_lens(const ht_host *h)
{
    return &h->lens;
}

void ht_host_status(ht_host *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(h, fmt, ap);
    va_end(ap);
}

void ht_host_rebuild(ht_host *h)
{
    h->need_build = 1;
}

/* A new drill ends the one before it (the way back is one step). */
static void end_drill(ht_host *h)
{
    if (h->drill_from >= 0) h->lens.only_class = 0;
    h->drill_from = h->drill_to = -1;
    h->drill_filter[0] = '\0';
}

static void start_drill(ht_host *h, int to)
{
    end_drill(h);
    h->drill_from = h->front;
    h->drill_to = to;
}

void ht_host_open_class(ht_host *h, const ht_screen *to, uint32_t class_id)
{
    int i = ht_screen_index(to);
    if (i < 0) return;
    start_drill(h, i);
    h->lens.only_class = class_id;
    ht_app_show(h, i, 1);
}

void ht_host_open_next(ht_host *h, const ht_screen *to)
{
    int i = ht_screen_index(to);
    if (i >= 0) start_drill(h, i);
}

int ht_host_back(ht_host *h)
{
    int from = h->drill_from;
    if (from < 0 || h->front != h->drill_to) return 0;
    if (h->drill_filter[0] && strcmp(h->lens.class_filter.text, h->drill_filter) == 0) {
        char err[128]; /* it parsed when it was set */
        ht_filter_parse(&h->lens.class_filter, h->drill_filter_was, err, sizeof err);
    }
    end_drill(h);
    h->need_build = 1;
    ht_app_show(h, from, 0);
    return 1;
}

struct ht_heap *ht_host_heap(ht_host *h)
{
    return h->heap;
}

void ht_host_browse(ht_host *h, uint32_t n)
{
    int i = ht_screen_index(&ht_screen_refs);
    if (i < 0 || !h->heap) return;
    ht_screen_refs_open(h->state[i], h->heap, &h->heap_gen, n);
    if (h->front != i) start_drill(h, i); /* Esc on its first object comes back */
    ht_app_show(h, i, 1);
}

int ht_host_filter_classes(ht_host *h, const char *text, const ht_screen *to)
{
    ht_filter f;
    char err[128];
    int i = ht_screen_index(to);
    if (i < 0) return -1;
    if (ht_filter_parse(&f, text, err, sizeof err) != 0) {
        ht_app_status(h, "%s", err);
        return -1;
    }
    char was[HT_FILTER_MAX_TEXT];
    snprintf(was, sizeof was, "%s", h->lens.class_filter.text);
    start_drill(h, i);
    snprintf(h->drill_filter, sizeof h->drill_filter, "%s", f.text);
    snprintf(h->drill_filter_was, sizeof h->drill_filter_was, "%s", was);
    ht_filter_parse(&h->lens.class_filter, text, err, sizeof err); /* its terms point into it */
    h->need_build = 1;
    ht_app_show(h, i, 0);
    return 0;
}

void ht_host_show(ht_host *h, const ht_screen *to)
{
    ht_app_show(h, ht_screen_index(to), 0);
}

int ht_host_toggle_mark_snapshots(ht_host *h)
{
    if (h->conn.no_jvm) {
        ht_app_status(h, "no JVM here: this is a dump file (heaptop PID takes snapshots)");
        return -1;
    }
    h->dump.mark_snapshots = !h->dump.mark_snapshots;
    ht_app_status(h, "%s",
                  h->dump.mark_snapshots
                      ? "marks take heap snapshots: b and E each take one (a full GC, the JVM "
                        "stops while it writes), then E's is compared with b's"
                      : "marks take no heap snapshots");
    return h->dump.mark_snapshots;
}

int ht_host_page(const ht_host *h)
{
    return h->ui.rows - 3 - 2 - 1; /* header, title, status + key bar */
}
