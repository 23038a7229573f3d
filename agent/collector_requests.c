/* collector_requests.c - what control.c asks of the collector (collector_int.h).
 * Collector thread only, between the loop's steps. */
#include "collector_int.h"

#include "agent_state.h"
#include "cpu_sampler.h"
#include "drag.h"

#include <string.h>
#include <unistd.h>

void ht_collector_identity(const ht_collector *c, ht_hello *h, const char **main_class,
                           const char **jdk, const char **options, const char **tcp)
{
    memset(h, 0, sizeof *h);
    h->pid = (uint32_t)getpid();
    h->start_epoch_ms = ht_g.start_epoch_ms;
    h->interval = atomic_load(&ht_g.interval);
    h->depth = ht_g.opt.depth;
    h->live = (uint8_t)ht_g.opt.live;
    h->paused = (uint8_t)c->paused;
    h->max_traces = ht_g.opt.max_traces;
    h->cpu_mode = (uint8_t)ht_cpu_sampler_mode();
    h->cpu_interval_us = ht_cpu_sampler_configured_us();
    int viewers = atomic_load(&c->tr.viewers);
    h->viewers = viewers > 0 ? (uint32_t)viewers : 0;
    *main_class = c->main_class;
    *jdk = c->jdk_version;
    *options = ht_g.options_text;
    *tcp = c->tr.tcp_status;
}

int ht_collector_request_is_tcp(const ht_collector *c)
{
    return ht_transport_request_is_tcp(&c->tr);
}

uint64_t ht_collector_sync_state(ht_collector *c, ht_sink *sink)
{
    ht_collector_step(c);
    ht_collector_publish(c);
    /* every CPU record: their stacks are named first (on the stream too) */
    ht_cpu_batch cpu;
    int have_cpu = c->cpu && !c->dumps.running && ht_cpu_profile_take(c->cpu, 1, &cpu) == 0;
    if (have_cpu && cpu.nrows) {
        ht_symbols_drain(&c->syms, c->jvmti, c->jni);
        ht_symbols_emit(&c->syms, &c->stream, 1);
        ht_symbols_clear_new(&c->syms);
    }
    ht_symbols_emit(&c->syms, sink, 0);
    ht_collector_emit_rows(c, sink, 0);
    if (have_cpu) {
        ht_cpu_batch_emit(&cpu, sink);
        ht_cpu_batch_free(&cpu);
    }
    if (!c->dumps.running) ht_drag_emit_all(sink);
    ht_collector_emit_mark(c, sink);
    ht_dumps_emit_all(&c->dumps, sink);
    ht_batch tel;
    ht_batch_init(&tel, sink, HT_MSG_TELEMETRY);
    for (uint32_t i = 0; i < c->tel.nhistory; i++) {
        ht_batch_record(&tel);
        ht_enc_telemetry(&tel.buf, ht_telemetry_at(&c->tel, i));
        ht_batch_done(&tel);
    }
    ht_batch_finish(&tel);
    return c->stream_seq;
}

int ht_collector_set_interval(ht_collector *c, uint64_t bytes)
{
    /* the new floor; the budget takes it from there at its next tick */
    if (ht_collector_apply_interval(c, bytes) != 0) return -1;
    ht_budget_init(&c->budget, c->budget.budget_x100, bytes);
    return 0;
}

int ht_collector_set_budget(ht_collector *c, uint32_t budget_x100)
{
    uint64_t base = c->budget.base;
    if (ht_collector_apply_interval(c, base) != 0) return -1;
    ht_budget_init(&c->budget, budget_x100, base);
    return 0;
}

void ht_collector_set_sampling(ht_collector *c, int on)
{
    jvmtiEnv *j = c->jvmti;
    (*j)->SetEventNotificationMode(j, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                   JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    atomic_store(&ht_g.sampling, on);
    ht_cpu_sampler_pause(!on); /* paused means no samples of either kind */
    c->paused = !on;
}

int ht_collector_mark(ht_collector *c, ht_mark_op op, uint8_t *state)
{
    /* fold in what is queued, so the mark starts or stops at this moment */
    ht_collector_step(c);
    if (ht_mark_apply(&c->mark, &c->aggs, op, ht_agent_ms()) != 0) return -1;
    if (c->cpu) ht_cpu_profile_mark(c->cpu, op);
    (void)ht_drag_mark((int)op); /* out of memory: the drag rows show no diff */
    /* the new diffs go out before the mark, so a viewer sees them together */
    ht_collector_publish(c);
    ht_collector_emit_mark(c, &c->stream);
    *state = (uint8_t)c->mark.state;
    return 0;
}

int ht_collector_heap_dump(ht_collector *c, uint8_t flags, const uint8_t *session, size_t len,
                           uint64_t *id, char *err, size_t errn)
{
    /* the heap's used bytes as of the last reading (at most a second old) */
    const ht_telemetry_rec *t =
        c->tel.nhistory ? ht_telemetry_at(&c->tel, c->tel.nhistory - 1) : NULL;
    uint64_t used = t ? t->heap_used : 0, max = t ? t->heap_max : 0;
    int rc = ht_dumps_start(&c->dumps, c->jvmti, c->jni, ht_g.base, flags, used, max, &c->aggs,
                            session, len, id, err, errn);
    if (rc == HT_OK) ht_dumps_emit_current(&c->dumps, &c->stream);
    return rc;
}

int ht_collector_set_cpu(ht_collector *c, int mode, uint32_t interval_us, char *err, size_t errn)
{
    return ht_cpu_sampler_set(c->jvmti, c->jni, mode, interval_us, err, errn);
}

void ht_collector_detach(ht_collector *c)
{
    c->detaching = 1;
}

int ht_collector_dumping(const ht_collector *c)
{
    return c->dumps.running;
}

void ht_collector_reply(ht_collector *c, const void *data, size_t len)
{
    ht_transport_reply(&c->tr, data, len);
}
