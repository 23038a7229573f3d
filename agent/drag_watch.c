/* drag_watch.c - drag mode's tracking, cost guard and messages: see drag.h
 * and drag_int.h. Collector thread only. */
#include "drag.h"
#include "drag_int.h"

#include "drag_classes.h"

#include "log.h"
#include "protocol.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define STATE_EVERY_NS  (1000ull * 1000 * 1000)
#define ROWS_EVERY_NS   (1000ull * 1000 * 1000)
#define MAX_CHAIN_DEPTH 64

static uint64_t g_state_ns, g_rows_ns;
static uint32_t g_counts[HT_DRAG_MAX_CID + 1]; /* Drag.SCANS as last read */
static int g_said_hot;

/* ---------------------------------------------------------------- tracking */

/* The cids of a class's chain (itself, then its superclasses) that this
 * turn rewrote, nearest first, at most HT_DRAG_CHAIN. */
/* The chain of a class as chain_of cached it, or -1 when not cached. */
static int cached_chain(uint32_t class_id, uint16_t *cids)
{
    uint64_t v;
    if (!ht_map_get(&ht_dg.chains, class_id, &v)) return -1;
    int n = (int)(v & 7);
    for (int k = 0; k < n; k++)
        cids[k] = (uint16_t)(v >> (4 + 15 * k) & 0x7fff);
    return n;
}

static int chain_of(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t class_id, uint16_t *cids)
{
    int n = cached_chain(class_id, cids);
    if (n >= 0) return n;
    n = 0;
    jweak w = class_id < ht_g.max_class_refs
                  ? atomic_load_explicit(&ht_g.class_refs[class_id], memory_order_acquire)
                  : NULL;
    jclass k = w ? (*jni)->NewLocalRef(jni, w) : NULL;
    if (!k) return 0; /* not known yet, or unloaded: not cached */
    for (int depth = 0; k && depth < MAX_CHAIN_DEPTH && n < HT_DRAG_CHAIN; depth++) {
        char *sig = NULL;
        if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
            size_t len = strlen(sig);
            if (sig[0] == 'L' && len > 2) {
                sig[len - 1] = '\0';
                pthread_mutex_lock(&ht_dg.lock);
                uint16_t cid = ht_drag_cid_of(sig + 1, 0);
                if (cid && ht_dg.rewritten[cid] == ht_dg.gen) cids[n++] = cid;
                pthread_mutex_unlock(&ht_dg.lock);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        }
        jclass super = (*jni)->GetSuperclass(jni, k);
        (*jni)->DeleteLocalRef(jni, k);
        k = super;
    }
    if (k) (*jni)->DeleteLocalRef(jni, k);
    uint64_t v = (uint64_t)n;
    for (int j = 0; j < n; j++)
        v |= (uint64_t)cids[j] << (4 + 15 * j);
    ht_map_put(&ht_dg.chains, class_id, v);
    return n;
}

void ht_drag_sample(jvmtiEnv *jvmti, JNIEnv *jni, const ht_event *e, uint64_t serial, double bytes,
                    uint64_t now)
{
    if (!atomic_load_explicit(&ht_dg.on, memory_order_relaxed) || !e->ref) return;
    uint16_t cids[HT_DRAG_CHAIN];
    int n = chain_of(jvmti, jni, e->class_id, cids);
    if (n == 0) return;
    uint32_t row = ht_drag_track_sample(&ht_dg.track, e->trace_id, e->class_id);
    if (row == UINT32_MAX) return;
    ht_dg.state_dirty = 1;
    for (int k = 0; k < n; k++)
        if (ht_drag_guard_is_hot(&ht_dg.guard, cids[k])) {
            /* a use in the hot class's methods would go unseen: untracked */
            ht_drag_track_take(&ht_dg.track, row, serial, now, bytes, cids, 0);
            return;
        }
    jobject obj = (*jni)->NewLocalRef(jni, (jweak)(uintptr_t)e->ref);
    if (!obj) { /* dead before it could be taken in: untracked, so the counts add up */
        ht_drag_track_take(&ht_dg.track, row, serial, now, bytes, cids, 0);
        return;
    }
    const ht_drag_obj *o = ht_drag_track_take(&ht_dg.track, row, serial, now, bytes, cids, n);
    for (int k = 0; o && k < o->n; k++) {
        (*jni)->CallStaticVoidMethod(jni, ht_dg.helper, ht_dg.reg, obj, (jint)o->cid[k],
                                     (jint)o->slot[k]);
        if (ht_jni_cleared(jni)) { /* not registered: let the object go untracked */
            for (int j = 0; j < k; j++)
                ht_drag_release_slot(jni, o->cid[j], o->slot[j]);
            ht_drag_track_forget(&ht_dg.track, serial);
            break;
        }
    }
    (*jni)->DeleteLocalRef(jni, obj);
}

void ht_drag_died(JNIEnv *jni, const ht_live_entry *e, uint64_t t_alive, uint64_t now)
{
    if (!ht_dg.track_ready) return;
    const ht_drag_obj *o = ht_drag_track_find(&ht_dg.track, e->serial);
    if (!o) return;
    uint64_t first = 0, last = 0;
    for (int k = 0; k < o->n; k++) {
        jlong f = (*jni)->CallStaticLongMethod(jni, ht_dg.helper, ht_dg.first, (jint)o->cid[k],
                                               (jint)o->slot[k]);
        if (ht_jni_cleared(jni)) f = 0;
        jlong l = (*jni)->CallStaticLongMethod(jni, ht_dg.helper, ht_dg.last, (jint)o->cid[k],
                                               (jint)o->slot[k]);
        if (ht_jni_cleared(jni)) l = 0;
        if (f > 0 && (!first || (uint64_t)f < first)) first = (uint64_t)f;
        if (l > 0 && (uint64_t)l > last) last = (uint64_t)l;
        ht_drag_release_slot(jni, o->cid[k], o->slot[k]);
    }
    ht_drag_track_died(&ht_dg.track, e->serial, first, last, t_alive, now);
    ht_dg.state_dirty = 1;
}

/* Does the chain of the object's class (cached by chain_of) hold cid? */
static int chain_has(const ht_drag_obj *o, uint16_t cid)
{
    for (int k = 0; k < o->n; k++)
        if (o->cid[k] == cid) return 1;
    uint16_t cids[HT_DRAG_CHAIN];
    int n = cached_chain(ht_dg.track.rows[o->row].class_id, cids);
    for (int k = 0; k < n; k++)
        if (cids[k] == cid) return 1;
    return 0;
}

/* Let go of the objects whose chain has a class found too hot (a slot there
 * or not: a use in its methods would go unseen): counted untracked, without
 * figures, their slots in every class freed. */
static void let_go_in(JNIEnv *jni, uint16_t cid)
{
    for (uint32_t i = 0; i < ht_dg.track.nobjs; i++) {
        const ht_drag_obj *o = &ht_dg.track.objs[i];
        if (!o->serial || !chain_has(o, cid)) continue;
        for (int k = 0; k < o->n; k++)
            ht_drag_release_slot(jni, o->cid[k], o->slot[k]);
        ht_drag_track_untrack(&ht_dg.track, o->serial);
    }
}

/* ht_dg.why while on: the classes too hot to watch, the first few named. */
static void say_hot(void)
{
    size_t at = (size_t)snprintf(ht_dg.why, sizeof ht_dg.why, "too hot to watch:");
    uint32_t named = 0;
    pthread_mutex_lock(&ht_dg.lock);
    for (uint32_t c = 1; c <= ht_dg.ncids && c <= HT_DRAG_MAX_CID; c++) {
        if (!ht_dg.guard.hot[c] || !ht_dg.name[c]) continue;
        char dot[HT_DRAG_NAME_MAX];
        ht_drag_dotted(ht_dg.name[c], dot, sizeof dot);
        if (named < 4 && at + strlen(dot) + 3 < sizeof ht_dg.why - 24) {
            at += (size_t)snprintf(ht_dg.why + at, sizeof ht_dg.why - at, "%s %s", named ? "," : "",
                                   dot);
            named++;
        }
    }
    pthread_mutex_unlock(&ht_dg.lock);
    if (ht_dg.guard.nhot > named && at < sizeof ht_dg.why)
        snprintf(ht_dg.why + at, sizeof ht_dg.why - at, " (+%u more)", ht_dg.guard.nhot - named);
}

void ht_drag_tick(JNIEnv *jni, uint64_t now)
{
    if (!atomic_load_explicit(&ht_dg.on, memory_order_relaxed) || !ht_dg.scans ||
        (ht_dg.guard.last_ns && now - ht_dg.guard.last_ns < STATE_EVERY_NS))
        return;
    pthread_mutex_lock(&ht_dg.lock);
    uint32_t n = ht_dg.ncids + 1;
    pthread_mutex_unlock(&ht_dg.lock);
    jobject arr = (*jni)->GetStaticObjectField(jni, ht_dg.helper, ht_dg.scans);
    if (!arr || ht_jni_cleared(jni)) return;
    (*jni)->GetIntArrayRegion(jni, arr, 0, (jsize)n, (jint *)g_counts);
    (*jni)->DeleteLocalRef(jni, arr);
    if (ht_jni_cleared(jni)) return;
    uint16_t hot[HT_DRAG_HOT_PER_CHECK];
    uint64_t rate[HT_DRAG_HOT_PER_CHECK];
    int k = ht_drag_guard_check(&ht_dg.guard, g_counts, n, now, hot, rate, HT_DRAG_HOT_PER_CHECK);
    for (int i = 0; i < k; i++) {
        let_go_in(jni, hot[i]);
        if (g_said_hot++ < 8) {
            char dot[HT_DRAG_NAME_MAX] = "?";
            pthread_mutex_lock(&ht_dg.lock);
            if (ht_dg.name[hot[i]]) ht_drag_dotted(ht_dg.name[hot[i]], dot, sizeof dot);
            pthread_mutex_unlock(&ht_dg.lock);
            ht_log("drag mode: class %s too hot to watch: its calls looked through its tracked "
                   "objects %" PRIu64 " times a second (drag_budget=%" PRIu64
                   " a second for all classes); its objects and its subclasses' are no longer "
                   "tracked%s",
                   dot, rate[i], ht_dg.guard.budget,
                   g_said_hot == 8 ? " (the 8th class: later ones are not named here)" : "");
        }
    }
    if (k) {
        pthread_mutex_lock(&ht_dg.lock);
        ht_dg.st.hot = ht_dg.guard.nhot;
        pthread_mutex_unlock(&ht_dg.lock);
        say_hot();
        ht_dg.state_dirty = 1;
    }
}

/* ------------------------------------------------------------------ stream */

static void emit_state(ht_sink *sink)
{
    ht_drag_state_rec s;
    char filter[HT_DRAG_FILTER_MAX + 1];
    pthread_mutex_lock(&ht_dg.lock);
    s = ht_dg.st;
    memcpy(filter, ht_dg.filter, sizeof filter);
    pthread_mutex_unlock(&ht_dg.lock);
    s.on = (uint8_t)atomic_load(&ht_dg.on);
    s.slots = HT_DRAG_SLOTS;
    if (ht_dg.track_ready) {
        s.samples = ht_dg.track.samples;
        s.tracked = ht_dg.track.tracked;
        s.untracked = ht_dg.track.untracked;
        s.tracking = ht_drag_track_count(&ht_dg.track);
    }
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_DRAG_STATE, ht_sink_next_seq(sink));
    ht_enc_drag_state(&b, &s, filter, ht_dg.why);
    ht_msg_end(&b, m);
    ht_sink_emit_buf(sink, &b);
    ht_buf_free(&b);
}

static void emit_rows(ht_sink *sink, int all)
{
    if (!ht_dg.track_ready) return;
    ht_batch b;
    ht_batch_init(&b, sink, HT_MSG_DRAG_ROWS);
    uint32_t n = all ? ht_dg.track.nrows : ht_dg.track.ndirty;
    for (uint32_t k = 0; k < n; k++) {
        ht_drag_row_rec row;
        ht_drag_track_row(&ht_dg.track, all ? k : ht_dg.track.dirty[k], &row);
        ht_batch_record(&b);
        ht_enc_drag_row(&b.buf, &row);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);
}

void ht_drag_publish(ht_sink *sink, uint64_t now)
{
    int on = atomic_load(&ht_dg.on);
    if (ht_dg.state_dirty || (on && now - g_state_ns >= STATE_EVERY_NS)) {
        if (ht_dg.state_dirty || on) emit_state(sink);
        ht_dg.state_dirty = 0;
        g_state_ns = now;
    }
    if (ht_dg.track_ready && ht_dg.track.ndirty && now - g_rows_ns >= ROWS_EVERY_NS) {
        emit_rows(sink, 0);
        ht_drag_track_clear_dirty(&ht_dg.track);
        g_rows_ns = now;
    }
}

void ht_drag_emit_all(ht_sink *sink)
{
    emit_state(sink); /* off too, never asked for: a viewer then knows it is off */
    emit_rows(sink, 1);
}

int ht_drag_mark(int op)
{
    if (!ht_dg.track_ready) return 0;
    return ht_drag_track_mark(&ht_dg.track, op);
}
