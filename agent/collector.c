/* collector.c - see collector.h and collector_int.h. */
#include "collector_int.h"

#include "agent_state.h"
#include "cpu_sampler.h"
#include "drag.h"
#include "log.h"
#include "sampler.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PUBLISH_EVERY_NS   (100ull * 1000 * 1000)
#define TELEMETRY_EVERY_NS (1000ull * 1000 * 1000)
#define DRAIN_BUDGET       65536u  /* events per step, so requests are not starved */
#define MAX_WAIT_MS        100     /* longest sleep between steps: a publication's */
#define MAX_LIVE           1000000 /* tracked live samples before tracking pauses */
#define MAX_CPU_THREADS    8192    /* threads the CPU table keeps apart; later ones together */
/* A sweep follows GC pauses, at most every SWEEP_MIN_GAP_NS (and never more
 * than a twentieth of the collector's time, however many objects are
 * tracked), and runs at least every SWEEP_MAX_GAP_NS. With 1 M tracked
 * objects a sweep takes ~12 ms, so LIVE reflects a finished pause within
 * ~0.3 s: the guarantee (docs/usage.md, LIVE and YOUNG) is 1 s. */
#define SWEEP_MIN_GAP_NS (100ull * 1000 * 1000)
#define SWEEP_MAX_GAP_NS (10000ull * 1000 * 1000)
#define YOUNG_MAX_GAP_NS (1000ull * 1000 * 1000)

static ht_collector g_col;
static pthread_mutex_t g_done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done_cond = PTHREAD_COND_INITIALIZER;
static void (*g_open_sockets)(void); /* ht_collector_start's; the thread calls it */
static int g_done;                   /* collector thread has flushed and closed */
static int g_started;                /* collector thread was started */

static void stream_emit(void *ctx, const uint8_t *msg, size_t len)
{
    ht_transport_publish(ctx, msg, len);
}

int ht_collector_open(char *err, size_t errn)
{
    ht_collector *c = &g_col;
    /* After a detach the names stay: the trace table and the class tags they
     * describe outlive it, and a class already tagged is never announced again. */
    static int have_syms;
    ht_symbols syms = c->syms;
    ht_cpu_profile *cpu = c->cpu; /* kept, emptied: the sampler of a detach may still write */
    memset(c, 0, sizeof *c);
    c->cpu = cpu;
    if (cpu) ht_cpu_profile_reset(cpu);
    pthread_mutex_lock(&g_done_lock);
    g_done = g_started = 0;
    pthread_mutex_unlock(&g_done_lock);
    if (have_syms) c->syms = syms;
    if (ht_transport_open(&c->tr, ht_g.base, (int)ht_g.opt.viewer_queue, err, errn) != 0) return -1;
    if ((!have_syms && ht_symbols_init(&c->syms) != 0) ||
        ht_aggs_init(&c->aggs, ht_g.opt.max_traces * 2u, MAX_LIVE) != 0) {
        snprintf(err, errn, "out of memory");
        ht_transport_close(&c->tr);
        return -1;
    }
    have_syms = 1;
    if (!c->cpu) c->cpu = ht_cpu_profile_create(MAX_CPU_THREADS, ht_g.opt.max_traces);
    if (!c->cpu) {
        snprintf(err, errn, "out of memory");
        ht_aggs_destroy(&c->aggs);
        ht_transport_close(&c->tr);
        return -1;
    }
    c->stream.emit = stream_emit;
    c->stream.ctx = &c->tr;
    c->stream.seq = &c->stream_seq;
    ht_mark_init(&c->mark);
    ht_budget_init(&c->budget, ht_g.opt.budget_x100, ht_g.opt.interval);
    ht_budget_meter_init(&c->meter);
    return 0;
}

/* Live tracking with JNI weak refs: a cleared ref is a dead object. */
static int ref_is_dead(void *ctx, uint64_t ref)
{
    const ht_collector *c = ctx;
    return (*c->jni)->IsSameObject(c->jni, (jweak)(uintptr_t)ref, NULL) == JNI_TRUE;
}

static void ref_release(JNIEnv *jni, uint64_t ref)
{
    (*jni)->DeleteWeakGlobalRef(jni, (jweak)(uintptr_t)ref);
}

static void tracked_died(void *ctx, const ht_live_entry *e, int was_young)
{
    ht_collector *c = ctx;
    /* drag mode's last use, before the reference goes: alive at the list's
     * previous sweep, found dead now */
    ht_drag_died(c->jni, e, was_young ? c->sweep.young_gc_ns : c->sweep.live_gc_ns,
                 c->sweep.now_ns);
    ht_aggs_tracked_died(&c->aggs, e, was_young);
    ref_release(c->jni, e->ref);
}

static void tracked_proven(void *ctx, const ht_live_entry *e)
{
    ht_collector *c = ctx;
    ht_aggs_tracked_proven(&c->aggs, e);
}

static uint64_t sweep_gap_ns(const ht_collector *c)
{
    uint64_t gap = c->sweep.cost_ns * 20;
    return gap > SWEEP_MIN_GAP_NS ? gap : SWEEP_MIN_GAP_NS;
}

/* After GC pauses: the young list at once (it holds what was sampled since
 * the last pause, so YOUNG stays close to what is in eden), the live list as
 * often as sweep_gap_ns allows; both now and then without pauses (collectors
 * that free objects between pauses), and both when forced (at the end). */
static void sweep_live(ht_collector *c, uint64_t now, int force)
{
    if (!ht_g.opt.live || !c->jni || c->dumps.running) return;
    uint64_t pauses = atomic_load_explicit(&ht_g.gc_pauses, memory_order_acquire);
    int young_due =
        pauses != c->sweep.proof.swept_pauses || now - c->sweep.young_ns >= YOUNG_MAX_GAP_NS;
    int live_unswept = pauses != c->sweep.live_pauses;
    if (live_unswept && !c->sweep.unswept_since_ns) c->sweep.unswept_since_ns = now;
    int live_due = (live_unswept && now - c->sweep.live_ns >= sweep_gap_ns(c)) ||
                   now - c->sweep.live_ns >= SWEEP_MAX_GAP_NS;
    if (!force && !young_due && !live_due) return;
    live_due |= force;
    /* pauses first, then the collections: see ht_gc_proof */
    _Static_assert(HT_GC_KINDS >= HT_TELEMETRY_GC_BEANS, "a count for every GC bean");
    uint64_t counts[HT_GC_KINDS];
    int kinds = ht_telemetry_collections(&c->tel, c->jni, counts);
    uint32_t proven_before = ht_gc_proof_update(&c->sweep.proof, pauses, counts, kinds);
    ht_live_ops ops = {
        .is_dead = ref_is_dead, .dead = tracked_died, .proven = tracked_proven, .ctx = c};
    c->sweep.now_ns = now;
    uint64_t gc = atomic_load_explicit(&ht_g.gc_last_start_ns, memory_order_relaxed);
    ht_live_sweep(&c->aggs.live, &ops, proven_before, live_due);
    uint64_t done = ht_now_ns();
    c->sweep.young_ns = done;
    c->sweep.young_gc_ns = gc;
    if (live_due) {
        c->sweep.live_gc_ns = gc;
        c->sweep.cost_ns = done - now;
        c->sweep.live_ns = done;
        c->sweep.live_pauses = pauses;
        c->sweep.unswept_since_ns = 0;
    }
}

void ht_collector_step(ht_collector *c)
{
    /* Events first, names second: a class, thread or trace is queued before any
     * event that uses it, so after this order every drained id has a name. */
    /* the step's cost in this thread's CPU, not in wall time: on a busy
     * machine a step the scheduler preempted took 20 ms of wall time for a
     * fraction of that in CPU, and an idle JVM's budget raised its interval
     * for a cost that was other processes' */
    uint64_t t0 = ht_thread_cpu_ns();
    c->ndrained = 0;
    if (c->dumps.running) return; /* naming needs JVMTI: the events wait in the ring */
    if (!c->drained) {
        c->drained = malloc(DRAIN_BUDGET * sizeof *c->drained);
        if (!c->drained) return;
    }
    while (c->ndrained < DRAIN_BUDGET && ht_ring_pop(ht_g.events, &c->drained[c->ndrained]))
        c->ndrained++;
    ht_symbols_drain(&c->syms, c->jvmti, c->jni);

    int live_full = 0;
    uint64_t drained_ns = ht_now_ns();
    for (size_t i = 0; i < c->ndrained; i++) {
        const ht_event *e = &c->drained[i];
        int tracked = e->ref != 0;
        if (ht_aggs_add(&c->aggs, e->trace_id, e->class_id, e->size, e->interval, e->ref,
                        e->epoch) != 0 &&
            e->ref) {
            live_full = 1;
            tracked = 0;
            if (c->jni) ref_release(c->jni, e->ref);
        }
        if (ht_g.opt.live && !tracked) c->untracked++;
        if (tracked && c->jni) { /* drag mode: the entry just added (drag.h) */
            const ht_live_list *y = &c->aggs.live.young;
            if (y->n && y->v[y->n - 1].serial == c->aggs.samples)
                ht_drag_sample(c->jvmti, c->jni, e, c->aggs.samples, y->v[y->n - 1].bytes,
                               drained_ns);
        }
    }
    c->events_seen += c->ndrained;
    sweep_live(c, ht_now_ns(), 0);
    /* what the samples cost this thread (budget.h): draining, naming,
     * aggregating and sweeping all grow with the sample rate */
    ht_budget_meter_step(&c->meter, ht_thread_cpu_ns() - t0, c->ndrained > 0);

    /* Past the cap on tracked objects, stop tracking until deaths make room. */
    if (ht_g.opt.live) {
        size_t live = ht_live_count(&c->aggs.live);
        if (live_full || live >= MAX_LIVE)
            atomic_store(&ht_g.tracking, 0);
        else if (live < MAX_LIVE * 9 / 10)
            atomic_store(&ht_g.tracking, 1);
    }
}

void ht_collector_emit_rows(ht_collector *c, ht_sink *sink, int dirty_only)
{
    ht_batch b;
    ht_batch_init(&b, sink, HT_MSG_AGGS);
    uint32_t n = dirty_only ? c->aggs.ndirty : c->aggs.n;
    for (uint32_t k = 0; k < n; k++) {
        ht_agg_rec row;
        ht_mark_row(&c->mark, &c->aggs, dirty_only ? c->aggs.dirty[k] : k, &row);
        ht_batch_record(&b);
        ht_enc_agg(&b.buf, &row);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);
}

void ht_collector_emit_mark(ht_collector *c, ht_sink *sink)
{
    ht_mark_rec m;
    uint64_t now_ms = ht_agent_ms();
    m.state = (uint8_t)c->mark.state;
    m.length_ms = ht_mark_length_ms(&c->mark, now_ms);
    m.t_ms = now_ms;
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_mark(&b, ht_sink_next_seq(sink), &m);
    ht_sink_emit_buf(sink, &b);
    ht_buf_free(&b);
}

/* Drops per site: when samples were lost since the last look, put each
 * trace's count in one row, that of the class of its first drop (a site
 * allocating several classes must not count its drops in each). A walk
 * over the resolved traces, only when drops happened. */
static void fold_drops(ht_collector *c)
{
    uint64_t dropped = atomic_load_explicit(&ht_g.dropped, memory_order_acquire);
    if (dropped == c->drops_folded) return;
    c->drops_folded = dropped;
    for (uint32_t k = 0; k < c->syms.ntraces; k++) {
        const ht_trace *t = ht_trace_get(ht_g.traces, c->syms.traces[k].id);
        uint64_t d = t ? atomic_load_explicit(&t->dropped, memory_order_relaxed) : 0;
        if (!d) continue;
        uint32_t cls = atomic_load_explicit(&t->drop_class, memory_order_relaxed);
        if (cls)
            ht_aggs_set_dropped(&c->aggs, t->id, cls, d);
        else
            c->drops_folded = 0; /* its class is not visible yet: fold again next time */
    }
}

void ht_collector_emit_cpu(ht_collector *c, ht_sink *sink, int all)
{
    if (!c->cpu || c->dumps.running) return; /* naming needs JVMTI */
    ht_cpu_batch b;
    if (ht_cpu_profile_take(c->cpu, all, &b) != 0) return;
    /* the stacks of these rows were interned before they were charged: name
     * them now, so a viewer knows every stack a row uses */
    if (b.nrows) {
        ht_symbols_drain(&c->syms, c->jvmti, c->jni);
        ht_symbols_emit(&c->syms, &c->stream, 1);
        ht_symbols_clear_new(&c->syms);
    }
    ht_cpu_batch_emit(&b, sink);
    ht_cpu_batch_free(&b);
}

void ht_collector_publish(ht_collector *c)
{
    fold_drops(c);
    ht_symbols_emit(&c->syms, &c->stream, 1);
    ht_symbols_clear_new(&c->syms);
    ht_collector_emit_rows(c, &c->stream, 1);
    ht_aggs_clear_dirty(&c->aggs);
    ht_collector_emit_cpu(c, &c->stream, 0);
    if (!c->dumps.running) {
        ht_drag_tick(c->jni, ht_now_ns());
        ht_drag_publish(&c->stream, ht_now_ns());
    }
}

/* Put the interval in force in the JVM: the one place that calls
 * SetHeapSamplingInterval. */
int ht_collector_apply_interval(ht_collector *c, uint64_t bytes)
{
    if (bytes == atomic_load(&ht_g.interval)) return 0;
    if ((*c->jvmti)->SetHeapSamplingInterval(c->jvmti, (jint)bytes) != JVMTI_ERROR_NONE) return -1;
    atomic_store(&ht_g.interval, bytes);
    return 0;
}

/* Once a second: what did sampling cost (the meter, budget.h), and which
 * interval keeps it inside the budget? */
static void budget_tick(ht_collector *c)
{
    ht_budget_meter *m = &c->meter;
    ht_budget_reading r = {
        .samples = c->events_seen + atomic_load(&ht_g.dropped),
        .timed_ns = atomic_load_explicit(&ht_g.timed_ns, memory_order_relaxed),
        .timed_n = atomic_load_explicit(&ht_g.timed_samples, memory_order_relaxed),
        .process_ns = ht_process_cpu_ns(),
        .self_ns = ht_thread_cpu_ns(),
        .wall_ns = ht_now_ns(),
        .cpu_sampler_ns = ht_cpu_sampler_cost_ns(),
        .cpu_floor_ns = ht_cpu_sampler_floor_ns(),
        .cpu_stacks_ns = ht_cpu_sampler_stacks_ns(),
    };
    ht_cpu_sampler_budget(c->budget.budget_x100);
    if (!ht_budget_meter_tick(m, &r)) return;
    atomic_store(&ht_g.time_mask, m->time_mask);
    if (c->paused) return;
    uint64_t want = ht_budget_tick(&c->budget, m->sampling_ns, m->process_ns, m->wall_ns);
    if (ht_collector_apply_interval(c, want) != 0) c->budget.interval = atomic_load(&ht_g.interval);
}

static void fill_agent_fields(ht_collector *c, ht_telemetry_rec *r, uint64_t now)
{
    uint64_t dropped = atomic_load(&ht_g.dropped);
    r->t_ms = now > ht_g.start_ns ? (now - ht_g.start_ns) / 1000000ull : 0;
    r->samples = c->events_seen + dropped;
    r->dropped = dropped;
    r->interval = atomic_load(&ht_g.interval);
    r->paused = (uint8_t)c->paused;
    r->live_lag_ms = c->sweep.unswept_since_ns && now > c->sweep.unswept_since_ns
                         ? (now - c->sweep.unswept_since_ns) / 1000000ull
                         : 0;
    r->live_as_of = c->sweep.live_pauses;
    r->untracked = c->untracked;
    ht_budget_fill_telemetry(&c->budget, &c->meter, r);
    r->cpu_mode = (uint8_t)ht_cpu_sampler_mode();
    r->cpu_interval_us = ht_cpu_sampler_interval_us();
    if (c->cpu) ht_cpu_profile_counts(c->cpu, &r->cpu_samples, &r->cpu_failed);
    uint64_t dt = r->t_ms - c->last_tel_t_ms;
    uint64_t dgc = r->gc_time_ms >= c->last_gc_ms ? r->gc_time_ms - c->last_gc_ms : 0;
    r->gc_pct = dt ? 100.0 * (double)dgc / (double)dt : 0.0;
    if (r->gc_pct > 100.0) r->gc_pct = 100.0;
    c->last_tel_t_ms = r->t_ms;
    c->last_gc_ms = r->gc_time_ms;
}

static void take_telemetry(ht_collector *c, uint64_t now)
{
    if (c->dumps.running) return; /* the VM cannot be asked while it writes the dump */
    ht_telemetry_rec r;
    memset(&r, 0, sizeof r);
    ht_telemetry_read(&c->tel, c->jni, &r);
    budget_tick(c);
    fill_agent_fields(c, &r, now);
    ht_telemetry_push(&c->tel, &r);
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_TELEMETRY, ht_sink_next_seq(&c->stream));
    size_t at = ht_list_begin(&b);
    ht_enc_telemetry(&b, &r);
    ht_list_end(&b, at, 1);
    ht_msg_end(&b, m);
    ht_sink_emit_buf(&c->stream, &b);
    ht_buf_free(&b);
}

static void read_vm_identity(ht_collector *c)
{
    char *v = NULL;
    snprintf(c->main_class, sizeof c->main_class, "?");
    if ((*c->jvmti)->GetSystemProperty(c->jvmti, "sun.java.command", &v) == JVMTI_ERROR_NONE && v) {
        /* the main class or jar is the first word of the command */
        size_t n = strcspn(v, " ");
        snprintf(c->main_class, sizeof c->main_class, "%.*s", (int)n, v);
        (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)v);
    }
    snprintf(c->jdk_version, sizeof c->jdk_version, "?");
    if ((*c->jvmti)->GetSystemProperty(c->jvmti, "java.vm.version", &v) == JVMTI_ERROR_NONE && v) {
        snprintf(c->jdk_version, sizeof c->jdk_version, "%s", v);
        (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)v);
    }
}

static void say_goodbye(ht_collector *c, const char *why)
{
    ht_collector_step(c);
    sweep_live(c, ht_now_ns(), 1); /* the last word on what is live */
    ht_collector_publish(c);
    /* A last reading, so a short run still ends with the VM's final totals. */
    take_telemetry(c, ht_now_ns());
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_bye(&b, ht_sink_next_seq(&c->stream), why);
    ht_sink_emit_buf(&c->stream, &b);
    ht_buf_free(&b);
    /* Give nng a moment to hand the last messages to connected viewers. */
    if (atomic_load(&c->tr.viewers) > 0) {
        struct timespec ts = {.tv_nsec = 150 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    ht_transport_close(&c->tr);
}

/* How long the loop may sleep. Each wake-up costs a context switch (measured:
 * most of an idle collector's CPU, ~110 us a wake-up on this guest), so sleep
 * as long as the sampler's ring can take: at once when the last step hit its
 * budget, briefly when the ring was filling fast, else until the next
 * publication, but no longer than the last second's sample rate takes to
 * fill a sixteenth of the ring (a rate that jumps meanwhile is caught by the
 * eighth rule at the next step). Requests wake the poll at once whatever the
 * timeout. */
static int next_wait_ms(const ht_collector *c, uint64_t now)
{
    size_t cap = ht_ring_capacity(ht_g.events);
    if (c->ndrained == DRAIN_BUDGET) return 0;
    if (c->ndrained > cap / 8) return 2;
    uint64_t next = c->last_publish_ns + PUBLISH_EVERY_NS;
    if (c->sweep.unswept_since_ns) { /* a sweep is due: wake for it */
        uint64_t sweep_at = c->sweep.live_ns + sweep_gap_ns(c);
        if (sweep_at < next) next = sweep_at;
    }
    uint64_t ms = next > now ? (next - now) / 1000000u + 1 : 1;
    uint64_t most = MAX_WAIT_MS;
    if (c->meter.rate > 0 && (uint64_t)cap / 16 * 1000 / c->meter.rate < most)
        most = (uint64_t)cap / 16 * 1000 / c->meter.rate;
    if (most < 2) most = 2;
    return (int)(ms < most ? ms : most);
}

/* A detach: with the events off (ht_agent_quiesce), fold in what the
 * callbacks queued, then let go of every weak reference and the figures. The
 * names stay (ht_collector_open). */
static int ref_let_go(void *ctx, uint64_t ref)
{
    (void)ctx;
    (void)ref;
    return 1;
}

static void release_held(ht_collector *c)
{
    do
        ht_collector_step(c);
    while (c->ndrained > 0);
    ht_live_ops let_go = {
        .is_dead = ref_let_go, .dead = tracked_died, .proven = tracked_proven, .ctx = c};
    ht_live_sweep(&c->aggs.live, &let_go, 0, 1);
    ht_aggs_destroy(&c->aggs);
    ht_telemetry_destroy(&c->tel, c->jni);
    ht_mark_free(&c->mark);
    free(c->drained);
    c->drained = NULL;
}

/* A heap dump ended: say so on the stream and in the JVM's log. */
static void dump_ended(ht_collector *c)
{
    ht_dumps_emit_last(&c->dumps, &c->stream);
    const ht_dump_entry *e = &c->dumps.ended[c->dumps.nended - 1];
    if (e->rec.state == HT_DUMP_DONE && e->marked)
        ht_log("heap dump %llu written: %s, %llu bytes in %llu ms; %zu sampled objects marked",
               (unsigned long long)e->rec.id, e->path, (unsigned long long)e->rec.bytes,
               (unsigned long long)e->rec.elapsed_ms, e->marked);
    else if (e->rec.state == HT_DUMP_DONE)
        ht_log("heap dump %llu written: %s, %llu bytes in %llu ms; %s",
               (unsigned long long)e->rec.id, e->path, (unsigned long long)e->rec.bytes,
               (unsigned long long)e->rec.elapsed_ms, e->mark_note);
    else
        ht_log("heap dump %llu failed after %llu ms: %s", (unsigned long long)e->rec.id,
               (unsigned long long)e->rec.elapsed_ms, e->error);
}

static void JNICALL collector_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    ht_collector *c = &g_col;
    ht_sampler_mark_agent_thread();
    ht_cpu_sampler_mark_agent_thread(jvmti);
    c->jvmti = jvmti;
    c->jni = jni;
    read_vm_identity(c);
    ht_telemetry_init(&c->tel, jni);
    {
        uint64_t counts[HT_GC_KINDS];
        int kinds = ht_telemetry_collections(&c->tel, jni, counts);
        ht_gc_proof_init(&c->sweep.proof, c->tel.concurrent_cycles, c->tel.late_cycles, counts,
                         kinds);
    }
    uint64_t now = ht_now_ns();
    take_telemetry(c, now);
    c->last_telemetry_ns = c->last_publish_ns = now;
    /* ready: the sockets appear now (ht_collector_start) */
    if (g_open_sockets && atomic_load(&ht_g.phase) == HT_PHASE_RUNNING) g_open_sockets();
    c->watchdog = ht_watchdog_start(c->tr.ctl_file, c->tr.events_file);
    if (c->cpu) ht_cpu_sampler_start(jvmti, jni, c->cpu, ht_g.opt.cpu, ht_g.opt.cpu_interval_us);
    ht_drag_start(jvmti, jni); /* drag= */

    while (atomic_load(&ht_g.phase) == HT_PHASE_RUNNING && !c->detaching) {
        struct pollfd pfd = {.fd = c->tr.ctl_fd, .events = POLLIN};
        poll(&pfd, 1, next_wait_ms(c, ht_now_ns()));
        ht_collector_step(c);
        /* Ask nng only when its notification fd says a request is waiting: each
         * empty non-blocking receive costs it an aio and a getrandom call. */
        nng_msg *req;
        if (c->tr.ctl_fd < 0 || (pfd.revents & POLLIN))
            while (ht_transport_next_request(&c->tr, &req)) {
                ht_control_handle(&c->control, c, req);
                nng_msg_free(req);
            }
        if (ht_dumps_poll(&c->dumps)) dump_ended(c);
        now = ht_now_ns();
        if (now - c->last_publish_ns >= PUBLISH_EVERY_NS) {
            ht_collector_publish(c);
            c->last_publish_ns = now;
        }
        if (now - c->last_telemetry_ns >= TELEMETRY_EVERY_NS) {
            /* while a dump runs the VM cannot be read: its progress goes out instead */
            if (c->dumps.running)
                ht_dumps_emit_current(&c->dumps, &c->stream);
            else
                take_telemetry(c, now);
            c->last_telemetry_ns = now;
        }
        ht_watchdog_turn(c->watchdog);
        int deaf = ht_watchdog_take_alarm(c->watchdog);
        if (deaf >= 0) ht_transport_restart_listener(&c->tr, deaf);
    }
    ht_watchdog_stop(c->watchdog);
    ht_cpu_sampler_stop();
    int detached = 0;
    if (c->detaching) {
        ht_drag_stop(jvmti, jni); /* classes back to their bytes, slots released */
        ht_agent_quiesce(jvmti);
        /* the DETACH reply went out without waiting (transport.c): give it a
         * moment on the wire before the sockets close */
        struct timespec ts = {.tv_nsec = 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        say_goodbye(c, "agent detached");
        release_held(c);
        detached = 1;
    } else {
        say_goodbye(c, "JVM exited");
    }
    /* Done and DETACHED together: a new Agent_OnAttach (restart) must not
     * open a new collector before this one has finished, and a VM death that
     * came meanwhile (DYING) is never overwritten. */
    pthread_mutex_lock(&g_done_lock);
    int running = HT_PHASE_RUNNING;
    if (detached) atomic_compare_exchange_strong(&ht_g.phase, &running, HT_PHASE_DETACHED);
    g_done = 1;
    pthread_cond_broadcast(&g_done_cond);
    pthread_mutex_unlock(&g_done_lock);
    if (detached)
        ht_log("agent detached: sampling is off, its sockets are closed and what it tracked "
               "is released; attaching again restarts it");
}

int ht_collector_start(jvmtiEnv *jvmti, JNIEnv *jni, void (*open_sockets)(void))
{
    g_open_sockets = open_sockets;
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring name = (*jni)->NewStringUTF(jni, "heaptop-collector");
    jobject thread = (ctor && name) ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    if (!thread) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    if ((*jvmti)->RunAgentThread(jvmti, thread, collector_main, NULL, JVMTI_THREAD_NORM_PRIORITY) !=
        JVMTI_ERROR_NONE)
        return -1;
    g_started = 1;
    return 0;
}

void ht_collector_abandon(void)
{
    if (g_started) return; /* a running collector closes its own */
    ht_transport_close(&g_col.tr);
    ht_aggs_destroy(&g_col.aggs);
}

void ht_collector_stop(void)
{
    if (!g_started) {
        ht_transport_close(&g_col.tr);
        return;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 2;
    pthread_mutex_lock(&g_done_lock);
    while (!g_done)
        if (pthread_cond_timedwait(&g_done_cond, &g_done_lock, &deadline) != 0) break;
    pthread_mutex_unlock(&g_done_lock);
}
