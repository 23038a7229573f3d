/* marks.c - see marks.h. */
#include "marks.h"

#include "hash.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_of(const ht_agg_rec *r)
{
    return ht_row_key(r->trace_id, r->class_id);
}

static uint32_t slot_hash(uint64_t k)
{
    return (uint32_t)ht_mix64(k);
}

void ht_marks_init(ht_marks *m)
{
    memset(m, 0, sizeof *m);
}

void ht_marks_free(ht_marks *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static ht_mark_entry *find(const ht_marks *m, uint64_t key)
{
    if (!m->slots) return NULL;
    uint32_t i = slot_hash(key) & m->mask;
    while (m->slots[i].key) {
        if (m->slots[i].key == key) return &m->slots[i];
        i = (i + 1) & m->mask;
    }
    return NULL;
}

/* Replace the table with one entry per store row, value from fn. */
static int rebuild(ht_marks *m, const ht_store *s,
                   void (*fn)(const ht_marks *old, const ht_agg_rec *r, double *b, double *i))
{
    uint32_t cap = 1024;
    while (cap < 2u * s->nrows + 2)
        cap *= 2;
    ht_mark_entry *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (uint32_t r = 0; r < s->nrows; r++) {
        uint64_t key = key_of(&s->rows[r]);
        uint32_t i = slot_hash(key) & (cap - 1);
        while (slots[i].key)
            i = (i + 1) & (cap - 1);
        slots[i].key = key;
        fn(m, &s->rows[r], &slots[i].bytes, &slots[i].instances);
    }
    free(m->slots);
    m->slots = slots;
    m->mask = cap - 1;
    m->count = s->nrows;
    return 0;
}

static void baseline_now(const ht_marks *m, const ht_agg_rec *r, double *b, double *i)
{
    (void)m;
    *b = r->est_bytes;
    *i = r->est_instances;
}

static void freeze(const ht_marks *m, const ht_agg_rec *r, double *b, double *i)
{
    ht_marks_diff(m, r, b, i); /* m is still running: diff = current - baseline */
}

static void resume(const ht_marks *m, const ht_agg_rec *r, double *b, double *i)
{
    double fb, fi;
    ht_marks_diff(m, r, &fb, &fi); /* m is stopped: the frozen diff */
    *b = r->est_bytes - fb;
    *i = r->est_instances - fi;
}

int ht_marks_begin(ht_marks *m, const ht_store *s, uint64_t now_ms)
{
    if (rebuild(m, s, baseline_now) != 0) return -1;
    m->state = HT_MARK_RUNNING;
    m->counted_ms = 0;
    m->run_start_ms = now_ms;
    return 0;
}

int ht_marks_end(ht_marks *m, const ht_store *s, uint64_t now_ms)
{
    if (m->state != HT_MARK_RUNNING) return 0;
    if (rebuild(m, s, freeze) != 0) return -1;
    m->state = HT_MARK_STOPPED;
    m->counted_ms += now_ms - m->run_start_ms;
    return 0;
}

int ht_marks_continue(ht_marks *m, const ht_store *s, uint64_t now_ms)
{
    if (m->state == HT_MARK_NONE) return ht_marks_begin(m, s, now_ms);
    if (m->state == HT_MARK_RUNNING) return 0;
    if (rebuild(m, s, resume) != 0) return -1;
    m->state = HT_MARK_RUNNING;
    m->run_start_ms = now_ms;
    return 0;
}

void ht_marks_diff(const ht_marks *m, const ht_agg_rec *row, double *bytes, double *instances)
{
    const ht_mark_entry *e = m->state == HT_MARK_NONE ? NULL : find(m, key_of(row));
    switch (m->state) {
    case HT_MARK_RUNNING: /* a row born during the mark has baseline 0 */
        *bytes = row->est_bytes - (e ? e->bytes : 0);
        *instances = row->est_instances - (e ? e->instances : 0);
        return;
    case HT_MARK_STOPPED: /* a row born after End has no diff */
        *bytes = e ? e->bytes : 0;
        *instances = e ? e->instances : 0;
        return;
    case HT_MARK_NONE:
    default:
        break;
    }
    *bytes = row->est_bytes;
    *instances = row->est_instances;
}

uint64_t ht_marks_length_ms(const ht_marks *m, uint64_t now_ms)
{
    if (m->state == HT_MARK_RUNNING) return m->counted_ms + (now_ms - m->run_start_ms);
    return m->counted_ms;
}
