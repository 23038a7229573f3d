/* protocol_drag.c - see protocol_drag.h. */
#include "protocol_drag.h"

#include "protocol.h"

#include <stdio.h>
#include <string.h>

int ht_drag_hist_bucket(uint64_t drag_ns)
{
    uint64_t ms = drag_ns / 1000000u;
    int k = 0;
    for (uint64_t edge = HT_DRAG_HIST_BASE_MS; ms >= edge && k < HT_DRAG_HIST - 1; edge *= 2)
        k++;
    return k;
}

uint64_t ht_drag_hist_lo_ms(int bucket)
{
    if (bucket <= 0) return 0;
    if (bucket >= HT_DRAG_HIST) bucket = HT_DRAG_HIST - 1;
    return (uint64_t)HT_DRAG_HIST_BASE_MS << (bucket - 1);
}

/* The JDK's own packages: the helper's touch itself runs them (java.lang.ref,
 * java.util.concurrent.atomic), so their calls would recurse into it. */
static const char *const JDK_PREFIXES[] = {"java.", "javax.", "jdk.", "sun.", "com.sun."};

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '.' || (unsigned char)c >= 0x80;
}

/* Does a prefix of n bytes name (part of) a JDK package? "java" and "jav"
 * would match java.lang too: any prefix of a JDK prefix, or one that starts
 * with one, is refused. */
static int names_jdk(const char *p, size_t n)
{
    for (size_t i = 0; i < sizeof JDK_PREFIXES / sizeof *JDK_PREFIXES; i++) {
        size_t j = strlen(JDK_PREFIXES[i]);
        size_t m = n < j ? n : j;
        if (strncmp(p, JDK_PREFIXES[i], m) == 0) return 1;
    }
    return 0;
}

int ht_drag_filter_check(const char *filter, char *err, size_t errn)
{
    if (!filter || !*filter || strcmp(filter, "off") == 0) return 0;
    if (strlen(filter) > HT_DRAG_FILTER_MAX) {
        snprintf(err, errn, "drag filter longer than %u characters", HT_DRAG_FILTER_MAX);
        return -1;
    }
    const char *p = filter;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0) {
            snprintf(err, errn,
                     "drag filter '%s': an empty prefix (two ':' in a row, or one "
                     "at an end)",
                     filter);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if (!name_char(p[i]) || (p[i] == '.' && i == 0)) {
                snprintf(err, errn,
                         "drag filter: '%.*s' is no class-name prefix (letters, "
                         "digits, '_', '$' and '.', as org.h2. or com.example.Cache)",
                         (int)n, p);
                return -1;
            }
        if (names_jdk(p, n)) {
            snprintf(err, errn,
                     "drag filter: '%.*s' names the JDK's own classes, which drag "
                     "mode cannot instrument (its own helper runs on them)",
                     (int)n, p);
            return -1;
        }
        if (!end) return 0;
        p = end + 1;
    }
}

int ht_drag_filter_matches(const char *filter, const char *dotted_name)
{
    if (!filter || !dotted_name) return 0;
    const char *p = filter;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n && strncmp(dotted_name, p, n) == 0) return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

void ht_enc_drag_req(ht_buf *b, uint64_t seq, const char *filter)
{
    size_t m = ht_msg_begin(b, HT_MSG_DRAG_REQ, seq);
    ht_put_str(b, filter ? filter : "");
    ht_msg_end(b, m);
}

void ht_enc_drag_state(ht_buf *b, const ht_drag_state_rec *s, const char *filter, const char *why)
{
    ht_put_u8(b, s->on);
    ht_put_u32(b, s->slots);
    ht_put_u32(b, s->classes);
    ht_put_u32(b, s->methods);
    ht_put_u32(b, s->skipped_long);
    ht_put_u32(b, s->skipped_attr);
    ht_put_u32(b, s->failed);
    ht_put_u32(b, s->hot);
    ht_put_u64(b, s->t_on_ms);
    ht_put_u64(b, s->samples);
    ht_put_u64(b, s->tracked);
    ht_put_u64(b, s->untracked);
    ht_put_u64(b, s->tracking);
    ht_put_str(b, filter ? filter : "");
    ht_put_str(b, why ? why : "");
}

void ht_dec_drag_state(ht_reader *r, ht_drag_state_rec *s)
{
    s->on = ht_get_u8(r);
    s->slots = ht_get_u32(r);
    s->classes = ht_get_u32(r);
    s->methods = ht_get_u32(r);
    s->skipped_long = ht_get_u32(r);
    s->skipped_attr = ht_get_u32(r);
    s->failed = ht_get_u32(r);
    s->hot = ht_get_u32(r);
    s->t_on_ms = ht_get_u64(r);
    s->samples = ht_get_u64(r);
    s->tracked = ht_get_u64(r);
    s->untracked = ht_get_u64(r);
    s->tracking = ht_get_u64(r);
    s->filter = ht_get_str(r);
    s->why = ht_get_str(r);
}

void ht_enc_drag_row(ht_buf *b, const ht_drag_row_rec *row)
{
    ht_put_u32(b, row->trace_id);
    ht_put_u32(b, row->class_id);
    ht_put_u64(b, row->samples);
    ht_put_u64(b, row->tracked);
    ht_put_u64(b, row->dead);
    ht_put_u64(b, row->void_);
    ht_put_f64(b, row->bytes);
    ht_put_f64(b, row->drag_lo);
    ht_put_f64(b, row->drag_hi);
    ht_put_f64(b, row->lag);
    ht_put_f64(b, row->use);
    for (int k = 0; k < HT_DRAG_HIST; k++)
        ht_put_u32(b, row->hist[k]);
    ht_put_u64(b, row->diff_samples);
    ht_put_u64(b, row->diff_tracked);
    ht_put_u64(b, row->diff_dead);
    ht_put_u64(b, row->diff_void);
    ht_put_f64(b, row->diff_bytes);
    ht_put_f64(b, row->diff_drag_lo);
    ht_put_f64(b, row->diff_drag_hi);
    ht_put_f64(b, row->diff_lag);
    ht_put_f64(b, row->diff_use);
}

void ht_dec_drag_row(ht_reader *r, ht_drag_row_rec *row)
{
    row->trace_id = ht_get_u32(r);
    row->class_id = ht_get_u32(r);
    row->samples = ht_get_u64(r);
    row->tracked = ht_get_u64(r);
    row->dead = ht_get_u64(r);
    row->void_ = ht_get_u64(r);
    row->bytes = ht_get_f64(r);
    row->drag_lo = ht_get_f64(r);
    row->drag_hi = ht_get_f64(r);
    row->lag = ht_get_f64(r);
    row->use = ht_get_f64(r);
    for (int k = 0; k < HT_DRAG_HIST; k++)
        row->hist[k] = ht_get_u32(r);
    row->diff_samples = ht_get_u64(r);
    row->diff_tracked = ht_get_u64(r);
    row->diff_dead = ht_get_u64(r);
    row->diff_void = ht_get_u64(r);
    row->diff_bytes = ht_get_f64(r);
    row->diff_drag_lo = ht_get_f64(r);
    row->diff_drag_hi = ht_get_f64(r);
    row->diff_lag = ht_get_f64(r);
    row->diff_use = ht_get_f64(r);
}

/* A figure a row may carry: finite and not negative. */
static int bad_figure(double v)
{
    return !(v >= 0 && v <= 1e300);
}

void ht_drag_validate_body(int type, ht_reader *r)
{
    if (type == HT_MSG_DRAG_REQ) {
        ht_str f = ht_get_str(r);
        if (f.len > HT_DRAG_FILTER_MAX) r->failed = 1;
    } else if (type == HT_MSG_DRAG_STATE) {
        ht_drag_state_rec s;
        ht_dec_drag_state(r, &s);
        if (s.on > 1 || s.tracked > s.samples || s.filter.len > HT_DRAG_FILTER_MAX) r->failed = 1;
    } else if (type == HT_MSG_DRAG_ROWS) {
        uint32_t n = ht_get_u32(r);
        if ((uint64_t)n * HT_DRAG_ROW_WIRE_SIZE > ht_remaining(r)) r->failed = 1;
        for (uint32_t i = 0; i < n && !r->failed; i++) {
            ht_drag_row_rec row;
            ht_dec_drag_row(r, &row);
            /* counts that cannot be: more tracked than sampled, more dead than
             * tracked, more void than dead; byte-seconds negative or not finite */
            if (row.tracked > row.samples || row.dead > row.tracked || row.void_ > row.dead ||
                row.trace_id == HT_TRACE_NONE || bad_figure(row.bytes) || bad_figure(row.drag_lo) ||
                bad_figure(row.drag_hi) || row.drag_lo > row.drag_hi || bad_figure(row.lag) ||
                bad_figure(row.use) || bad_figure(row.diff_bytes) || bad_figure(row.diff_drag_lo) ||
                bad_figure(row.diff_drag_hi) || bad_figure(row.diff_lag) ||
                bad_figure(row.diff_use))
                r->failed = 1;
        }
    } else {
        r->failed = 1;
    }
}
