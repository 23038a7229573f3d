/* protocol_cpu.c - see protocol_cpu.h. */
#include "protocol_cpu.h"

#include "protocol.h"

#include <string.h>

static const char *const MODE_NAMES[HT_CPU_MODES] = {
    [HT_CPU_OFF] = "off",
    [HT_CPU_ON] = "on",
    [HT_CPU_ASYNC] = "async",
};

const char *ht_cpu_mode_name(int mode)
{
    return mode >= 0 && mode < HT_CPU_MODES ? MODE_NAMES[mode] : NULL;
}

int ht_cpu_mode_parse(const char *s)
{
    for (int m = 0; s && m < HT_CPU_MODES; m++)
        if (strcmp(s, MODE_NAMES[m]) == 0) return m;
    return -1;
}

static const char *const STATE_NAMES[HT_THREAD_STATES] = {
    [HT_THREAD_NEW] = "NEW",
    [HT_THREAD_RUNNABLE] = "RUNNABLE",
    [HT_THREAD_NATIVE] = "NATIVE",
    [HT_THREAD_BLOCKED] = "BLOCKED",
    [HT_THREAD_WAITING] = "WAITING",
    [HT_THREAD_TIMED_WAITING] = "TIMED_WAITING",
    [HT_THREAD_TERMINATED] = "TERMINATED",
};

const char *ht_thread_state_name(int state)
{
    return state >= 0 && state < HT_THREAD_STATES ? STATE_NAMES[state] : "?";
}

/* AsyncGetCallTrace's error codes, by -code (forte.cpp). */
static const char *const ASGCT_NAMES[16] = {
    [1] = "no_class_load",    [2] = "GC_active",
    [3] = "unknown_not_Java", [4] = "not_walkable_not_Java",
    [5] = "unknown_Java",     [6] = "not_walkable_Java",
    [7] = "unknown_state",    [8] = "thread_exit",
    [9] = "deoptimization",   [10] = "safepoint",
};

const char *ht_cpu_bucket_name(int bucket)
{
    switch (bucket) {
    case HT_CPUB_NO_JAVA_FRAMES:
        return "no_Java_frames";
    case HT_CPUB_WALK_FAILED:
        return "walk_failed";
    case HT_CPUB_THREAD_ENDED:
        return "thread_ended";
    case HT_CPUB_LOST:
        return "lost";
    case HT_CPUB_NOT_REGISTERED:
        return "thread_not_registered";
    case HT_CPUB_OVERFLOW:
        return "too_many_stacks";
    default:
        break;
    }
    if (bucket > HT_CPUB_ASGCT && bucket <= HT_CPUB_MAX) {
        const char *n = ASGCT_NAMES[bucket - HT_CPUB_ASGCT];
        return n ? n : "ASGCT_error";
    }
    return NULL;
}

void ht_enc_cpu_thread(ht_buf *b, const ht_cpu_thread_rec *t, const char *name)
{
    ht_put_u32(b, t->id);
    ht_put_u8(b, t->state);
    ht_put_u8(b, t->daemon);
    ht_put_u64(b, t->cpu_ns);
    ht_put_u64(b, t->recent_ns);
    ht_put_u64(b, t->samples);
    ht_put_u64(b, t->diff_cpu_ns);
    ht_put_u64(b, t->diff_samples);
    ht_put_str(b, name);
}

void ht_dec_cpu_thread(ht_reader *r, ht_cpu_thread_rec *t)
{
    t->id = ht_get_u32(r);
    t->state = ht_get_u8(r);
    t->daemon = ht_get_u8(r);
    t->cpu_ns = ht_get_u64(r);
    t->recent_ns = ht_get_u64(r);
    t->samples = ht_get_u64(r);
    t->diff_cpu_ns = ht_get_u64(r);
    t->diff_samples = ht_get_u64(r);
    t->name = ht_get_str(r);
}

void ht_enc_cpu_row(ht_buf *b, const ht_cpu_row_rec *row)
{
    ht_put_u32(b, row->thread_id);
    ht_put_u32(b, row->trace_id);
    ht_put_u8(b, row->bucket);
    ht_put_u64(b, row->samples);
    ht_put_u64(b, row->cpu_ns);
    ht_put_u64(b, row->diff_samples);
    ht_put_u64(b, row->diff_cpu_ns);
}

void ht_dec_cpu_row(ht_reader *r, ht_cpu_row_rec *row)
{
    row->thread_id = ht_get_u32(r);
    row->trace_id = ht_get_u32(r);
    row->bucket = ht_get_u8(r);
    row->samples = ht_get_u64(r);
    row->cpu_ns = ht_get_u64(r);
    row->diff_samples = ht_get_u64(r);
    row->diff_cpu_ns = ht_get_u64(r);
}

void ht_cpu_validate_body(int type, ht_reader *r)
{
    uint32_t n = ht_get_u32(r);
    if (type == HT_MSG_CPU_THREADS) {
        /* a thread is at least 46 bytes: a plausible count first */
        if ((uint64_t)n * 46u > ht_remaining(r)) r->failed = 1;
        for (uint32_t i = 0; i < n && !r->failed; i++) {
            ht_cpu_thread_rec t;
            ht_dec_cpu_thread(r, &t);
            if (t.state >= HT_THREAD_STATES || t.daemon > 1) r->failed = 1;
        }
    } else if (type == HT_MSG_CPU_ROWS) {
        if ((uint64_t)n * HT_CPU_ROW_WIRE_SIZE > ht_remaining(r)) r->failed = 1;
        for (uint32_t i = 0; i < n && !r->failed; i++) {
            ht_cpu_row_rec row;
            ht_dec_cpu_row(r, &row);
            /* a stack has no bucket; a bucket has no stack and a name */
            if (row.bucket ? row.trace_id != HT_TRACE_NONE || !ht_cpu_bucket_name(row.bucket)
                           : row.trace_id == HT_TRACE_NONE)
                r->failed = 1;
        }
    } else {
        r->failed = 1;
    }
}
