/* drag.c - see drag.h. */
#include "drag.h"

#include "class_rewrite.h"
#include "drag_classes.h"
#include "drag_guard.h"
#include "drag_loaders.h"
#include "drag_originals.h"
#include "drag_track.h"
#include "log.h"
#include "protocol.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char heaptop_drag_class[]; /* drag_class.c, made at build time */
extern const unsigned long heaptop_drag_class_len;

#define MAX_ROWS        65536u /* sites with a drag row of their own */
#define STATE_EVERY_NS  (1000ull * 1000 * 1000)
#define ROWS_EVERY_NS   (1000ull * 1000 * 1000)
#define MAX_CHAIN_DEPTH 64
#define ORIG_MAX_BYTES  (64u << 20) /* original class bytes kept, compressed */
#define ORIG_MAX_TEXT   "64 MiB"

/* --- shared with the hook (any thread): under g_lock */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_on;        /* the hook rewrites while 1 */
static atomic_int g_restoring; /* drag off: the hook hands back the originals while 1 */
static atomic_int g_said_full;
static ht_orig_store g_orig = {.max_bytes = ORIG_MAX_BYTES}; /* the classes' original bytes */
static char g_filter[HT_DRAG_FILTER_MAX + 1];
static uint32_t g_gen;                    /* drag mode's turns on; a class rewritten in this one */
static ht_map g_names;                    /* hash of a class's internal name -> cid */
static char *g_name[HT_DRAG_MAX_CID + 1]; /* cid -> internal name */
static uint32_t g_rewritten[HT_DRAG_MAX_CID + 1]; /* cid -> g_gen it was last rewritten in */
static uint32_t g_methods_of[HT_DRAG_MAX_CID + 1];
static uint32_t g_ncids;
static ht_drag_state_rec g_st; /* classes, methods, skipped_*, failed: this turn's */

/* --- our own RetransformClasses: the hook rewrites from the kept original
 * only on that call's thread, while it runs */
static atomic_int g_ours;
static pthread_t g_ours_thread;

/* --- collector thread only */
static jclass g_helper; /* global ref to heaptop/Drag, once defined */
static jmethodID g_register, g_first, g_last, g_release;
static int g_track_ready;
static ht_drag_track g_track;
static ht_map g_chains; /* agent class id -> its chain of cids, packed (this turn) */
static char g_why[512];
static int g_state_dirty;
static uint64_t g_state_ns, g_rows_ns;
static jfieldID g_scans;                       /* Drag.SCANS */
static ht_drag_guard g_guard;                  /* reset at each turn on */
static uint32_t g_counts[HT_DRAG_MAX_CID + 1]; /* Drag.SCANS as last read */
static int g_said_hot;

/* ------------------------------------------------------------------ names */

/* The cid of an internal class name, given one if new. 0 when the table is
 * full or out of memory. Under g_lock. */
static uint16_t cid_of(const char *name, int add)
{
    size_t n = strlen(name);
    uint64_t h = ht_hash_bytes(name, n), v;
    for (uint32_t salt = 0; salt < 8; salt++) {
        uint64_t key = ht_map_salt(h, salt);
        if (!ht_map_get(&g_names, key, &v)) {
            if (!add || g_ncids >= HT_DRAG_MAX_CID) return 0;
            char *copy = strdup(name);
            if (!copy) return 0;
            uint16_t cid = (uint16_t)(g_ncids + 1);
            if (ht_map_put(&g_names, key, cid) != 0) {
                free(copy);
                return 0;
            }
            g_ncids++;
            g_name[cid] = copy;
            return cid;
        }
        if (strcmp(g_name[v], name) == 0) return (uint16_t)v;
    }
    return 0;
}

/* ------------------------------------------------------------------- hook */

static uint8_t *heap_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}

/* Once per agent: a line for what happens to many classes at once. */
static void log_once(atomic_int *said, const char *what, const char *dot)
{
    if (!atomic_exchange(said, 1)) ht_log("drag mode: %s (%s the first; said once)", what, dot);
}

/* Drag off: hand back a class's original bytes, kept when it was first
 * rewritten; a class without them keeps the JVM's copy. */
static void restore(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *name, jint *new_len,
                    unsigned char **new_data)
{
    uint8_t *mem = NULL;
    size_t n = 0;
    pthread_mutex_lock(&g_lock);
    uint16_t cid = cid_of(name, 0);
    int r = cid ? ht_orig_get(&g_orig, cid, loader, ht_drag_same_loader, jni, ht_drag_jvmti_alloc,
                              jvmti, &mem, &n)
                : 0;
    pthread_mutex_unlock(&g_lock);
    if (r == 1) {
        *new_data = mem;
        *new_len = (jint)n;
    }
}

/* Is this call the collector's own RetransformClasses? */
static int ours_now(void)
{
    return atomic_load_explicit(&g_ours, memory_order_acquire) &&
           pthread_equal(g_ours_thread, pthread_self());
}

/* Do the bytes name the helper (the JVM's copy rebuilt from a class this
 * mode rewrote)? */
static int names_helper(const unsigned char *data, size_t len)
{
    static const char h[] = HT_DRAG_HELPER_CLASS;
    size_t n = sizeof h - 1;
    for (size_t i = 0; i + n <= len; i++)
        if (data[i] == (unsigned char)h[0] && memcmp(data + i, h, n) == 0) return 1;
    return 0;
}

void JNICALL ht_drag_on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined,
                                        jobject loader, const char *name, jobject domain, jint len,
                                        const unsigned char *data, jint *new_len,
                                        unsigned char **new_data)
{
    (void)domain;
    int on = atomic_load_explicit(&g_on, memory_order_acquire);
    int restoring = atomic_load_explicit(&g_restoring, memory_order_acquire);
    if ((!on && !restoring) || !name || !data || len <= 0) return;
    if (strlen(name) >= HT_DRAG_NAME_MAX || strcmp(name, HT_DRAG_HELPER_CLASS) == 0) return;
    int ours = being_redefined && ours_now();
    if (restoring) { /* someone else's redefinition meanwhile: theirs stands */
        if (ours) restore(jvmti, jni, loader, name, new_len, new_data);
        return;
    }
    char dot[HT_DRAG_NAME_MAX];
    ht_drag_dotted(name, dot, sizeof dot);
    pthread_mutex_lock(&g_lock);
    uint32_t gen = g_gen;
    int match = atomic_load(&g_on) && ht_drag_filter_matches(g_filter, dot);
    pthread_mutex_unlock(&g_lock);
    if (!match) return;
    if (!ht_drag_loaders_sees(jni, loader)) { /* the injected call would not link */
        pthread_mutex_lock(&g_lock);
        if (gen == g_gen) g_st.failed++;
        pthread_mutex_unlock(&g_lock);
        ht_drag_loaders_say(jvmti, jni, loader, dot);
        return;
    }
    uint16_t cid = 0;
    uint8_t *orig = NULL;
    size_t orig_len = 0;
    int saved = 0, replace = 0;
    pthread_mutex_lock(&g_lock);
    if ((cid = cid_of(name, 1)) != 0) {
        saved = ht_orig_has(&g_orig, cid, loader, ht_drag_same_loader, jni);
        /* someone else's redefinition (a HotSwap): its bytes are the class's
         * new original, unless they are the JVM's copy of our rewrite */
        replace = saved && !ours && !names_helper(data, (size_t)len);
        /* our retransform: from the bytes kept, not the JVM's copy */
        if (saved && !replace &&
            ht_orig_get(&g_orig, cid, loader, ht_drag_same_loader, jni, heap_alloc, NULL, &orig,
                        &orig_len) != 1)
            cid = 0;
    }
    if (!cid && gen == g_gen) g_st.failed++;
    pthread_mutex_unlock(&g_lock);
    if (!cid) return;

    const uint8_t *src = orig ? orig : data;
    size_t src_len = orig ? orig_len : (size_t)len;
    uint8_t *out = NULL;
    size_t out_len = 0;
    ht_rewrite_stats st = {0};
    char err[256] = "";
    int rc = ht_class_rewrite(src, src_len, cid, &out, &out_len, &st, err, sizeof err);
    free(orig);
    int full = 0;
    if (rc == 0 && replace) {
        pthread_mutex_lock(&g_lock);
        int put =
            ht_orig_replace(&g_orig, cid, loader, data, (size_t)len, ht_drag_same_loader, jni);
        pthread_mutex_unlock(&g_lock);
        if (put != 1) { /* drag off could not give their bytes back: theirs stand, unchanged */
            rc = -1;
            full = 1;
        }
    }
    if (rc == 0 && !saved) { /* first seen: these bytes are its original */
        jweak w = loader && jni ? (*jni)->NewWeakGlobalRef(jni, loader) : NULL;
        int put = -1;
        if (!loader || w) {
            pthread_mutex_lock(&g_lock);
            put = ht_orig_put(&g_orig, cid, w, data, (size_t)len, ht_drag_same_loader, jni);
            pthread_mutex_unlock(&g_lock);
        }
        if (put != 1 && w) (*jni)->DeleteWeakGlobalRef(jni, w);
        if (put < 0) { /* no way back to its bytes: not rewritten */
            rc = -1;
            full = 1;
        }
    }
    unsigned char *mem = NULL;
    if (rc == 0 && (mem = ht_drag_jvmti_alloc(jvmti, out_len)) != NULL) {
        memcpy(mem, out, out_len);
        *new_data = mem;
        *new_len = (jint)out_len;
    } else if (rc == 0) {
        rc = -1;
        snprintf(err, sizeof err, "out of memory");
    }
    free(out);

    pthread_mutex_lock(&g_lock);
    if (gen == g_gen) {
        g_st.skipped_long += st.skipped_long;
        g_st.skipped_attr += st.skipped_attr;
        if (rc == 0) {
            if (g_rewritten[cid] != gen) {
                g_st.classes++;
                g_methods_of[cid] = 0;
            }
            g_st.methods += st.injected - g_methods_of[cid];
            g_methods_of[cid] = st.injected;
            g_rewritten[cid] = gen;
        } else if (rc < 0) {
            g_st.failed++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (full)
        log_once(&g_said_full,
                 "the original bytes kept reached " ORIG_MAX_TEXT
                 " (or memory ran out): further classes are left alone",
                 dot);
    else if (rc < 0)
        ht_log("drag mode: class %s left alone: %s", dot, err);
}

/* ------------------------------------------------------------ capabilities */

void ht_drag_onload(jvmtiEnv *jvmti)
{
    char err[256];
    if (!ht_g.opt.drag[0] || ht_drag_take_caps(jvmti, err, sizeof err) == 0) return;
    ht_log("drag mode stays off: %s", err);
}

/* ------------------------------------------------------------------ helper */

static int cleared(JNIEnv *jni)
{
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return 1;
    }
    return 0;
}

static int define_helper(JNIEnv *jni, char *err, size_t errn)
{
    if (g_helper) return 0;
    jclass cls =
        (*jni)->DefineClass(jni, HT_DRAG_HELPER_CLASS, NULL, (const jbyte *)heaptop_drag_class,
                            (jsize)heaptop_drag_class_len);
    if (!cls || cleared(jni)) {
        snprintf(err, errn, "the JVM refused to define drag mode's helper class %s",
                 HT_DRAG_HELPER_CLASS);
        return -1;
    }
    jmethodID reg = (*jni)->GetStaticMethodID(jni, cls, "register", "(Ljava/lang/Object;II)V");
    jmethodID first = reg ? (*jni)->GetStaticMethodID(jni, cls, "first", "(II)J") : NULL;
    jmethodID last = first ? (*jni)->GetStaticMethodID(jni, cls, "last", "(II)J") : NULL;
    jmethodID rel = last ? (*jni)->GetStaticMethodID(jni, cls, "release", "(II)V") : NULL;
    jmethodID touch =
        rel ? (*jni)->GetStaticMethodID(jni, cls, "touch", "(Ljava/lang/Object;I)V") : NULL;
    jfieldID scans = touch ? (*jni)->GetStaticFieldID(jni, cls, "SCANS", "[I") : NULL;
    jclass global = scans && !cleared(jni) ? (*jni)->NewGlobalRef(jni, cls) : NULL;
    (*jni)->DeleteLocalRef(jni, cls);
    if (!global) {
        cleared(jni);
        snprintf(err, errn, "drag mode's helper class lacks its methods");
        return -1;
    }
    /* initialised here, on this thread, not on the first application call */
    (*jni)->CallStaticLongMethod(jni, global, first, 1, 0);
    if (cleared(jni)) {
        (*jni)->DeleteGlobalRef(jni, global);
        snprintf(err, errn, "drag mode's helper class failed to initialise");
        return -1;
    }
    /* touch once here (cid 0 is never given out: it returns at once), so
     * that it is linked on this thread, not inside the first instrumented
     * method of an application thread */
    (*jni)->CallStaticVoidMethod(jni, global, touch, NULL, 0);
    cleared(jni);
    g_helper = global;
    g_register = reg;
    g_first = first;
    g_last = last;
    g_release = rel;
    g_scans = scans;
    return 0;
}

static void release_slot(JNIEnv *jni, uint16_t cid, uint8_t slot)
{
    (*jni)->CallStaticVoidMethod(jni, g_helper, g_release, (jint)cid, (jint)slot);
    cleared(jni);
}

/* ------------------------------------------------------------------ on/off */

/* Forget the originals of classes whose loader is gone. Collector thread. */
static void prune_originals(JNIEnv *jni)
{
    pthread_mutex_lock(&g_lock);
    ht_orig_prune(&g_orig, ht_drag_loader_gone, ht_drag_drop_loader, jni);
    pthread_mutex_unlock(&g_lock);
}

typedef struct pick_ctx {
    jvmtiEnv *jvmti;
    JNIEnv *jni;
} pick_ctx;

/* On: a class with an instance method (or not prepared yet: the hook may
 * have rewritten it at load) whose loader sees the helper; a class whose
 * loader does not is left alone and counted failed. */
static int pick_on(void *ctx, jclass k, const char *name, int code)
{
    pick_ctx *c = ctx;
    jobject loader = NULL;
    if (code == 0 || (*c->jvmti)->GetClassLoader(c->jvmti, k, &loader) != JVMTI_ERROR_NONE)
        return 0;
    int sees = ht_drag_loaders_check(c->jni, loader, g_helper);
    if (!sees) {
        char dot[HT_DRAG_NAME_MAX];
        ht_drag_dotted(name, dot, sizeof dot);
        pthread_mutex_lock(&g_lock);
        g_st.failed++;
        pthread_mutex_unlock(&g_lock);
        ht_drag_loaders_say(c->jvmti, c->jni, loader, dot);
    }
    if (loader) (*c->jni)->DeleteLocalRef(c->jni, loader);
    return sees;
}

/* Off: the classes the hook rewrote (their original kept), prepared or not. */
static int pick_off(void *ctx, jclass k, const char *name, int code)
{
    (void)code;
    pick_ctx *c = ctx;
    jobject loader = NULL;
    if ((*c->jvmti)->GetClassLoader(c->jvmti, k, &loader) != JVMTI_ERROR_NONE) return 0;
    pthread_mutex_lock(&g_lock);
    uint16_t cid = cid_of(name, 0);
    int kept = cid && ht_orig_has(&g_orig, cid, loader, ht_drag_same_loader, c->jni);
    pthread_mutex_unlock(&g_lock);
    if (loader) (*c->jni)->DeleteLocalRef(c->jni, loader);
    return kept;
}

static uint32_t retransform(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, ht_drag_pick_fn pick)
{
    ht_drag_retransformed rt;
    pick_ctx ctx = {.jvmti = jvmti, .jni = jni};
    g_ours_thread = pthread_self();
    atomic_store_explicit(&g_ours, 1, memory_order_release);
    ht_drag_retransform(jvmti, jni, filter, pick, &ctx, &rt);
    atomic_store_explicit(&g_ours, 0, memory_order_release);
    return rt.refused;
}

static void turn_off(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (!atomic_load(&g_on)) return;
    char filter[HT_DRAG_FILTER_MAX + 1];
    pthread_mutex_lock(&g_lock);
    atomic_store(&g_restoring, 1);
    atomic_store(&g_on, 0);
    memcpy(filter, g_filter, sizeof filter);
    pthread_mutex_unlock(&g_lock);
    /* every slot free: the injected calls that remain until the classes are
     * back cost one volatile read */
    for (uint32_t i = 0; i < g_track.nobjs; i++) {
        const ht_drag_obj *o = &g_track.objs[i];
        for (int k = 0; o->serial && k < o->n; k++)
            release_slot(jni, o->cid[k], o->slot[k]);
    }
    ht_drag_track_forget_all(&g_track);
    ht_map_clear(&g_chains);
    /* the hook stays enabled, restoring: it hands back the bytes it kept (the
     * JVM's own copy of a class loaded before any retransform-capable hook
     * changed it is rebuilt from the running class, and grew) */
    uint32_t refused = retransform(jvmti, jni, filter, pick_off);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
                                       NULL);
    atomic_store(&g_restoring, 0);
    prune_originals(jni);
    pthread_mutex_lock(&g_lock);
    g_gen++;         /* nothing counts as rewritten in this turn any more */
    g_why[0] = '\0'; /* the classes too hot to watch, if it named them */
    g_st.classes = g_st.methods = 0;
    g_st.failed = refused;
    pthread_mutex_unlock(&g_lock);
    if (refused)
        ht_log("drag mode off: the JVM refused to put %u classes back; their injected calls "
               "stay (each one volatile read)",
               refused);
    g_state_dirty = 1;
}

static int jdk_feature(jvmtiEnv *jvmti)
{
    char *v = NULL;
    int f = 0;
    if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &v) ==
            JVMTI_ERROR_NONE &&
        v) {
        f = atoi(v);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
    }
    return f;
}

static int turn_on(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, char *err, size_t errn)
{
    int f = jdk_feature(jvmti);
    if (!ht_g.opt.live) {
        snprintf(err, errn, "drag mode needs live tracking, which is off in this agent (live=off)");
        return HT_EBADREQ;
    }
    if (f < 17) {
        snprintf(err, errn,
                 "drag mode needs JDK 17 or later (WeakReference.refersTo); this JVM is %d", f);
        return HT_EBADREQ;
    }
    if (ht_drag_take_caps(jvmti, err, errn) != 0 || define_helper(jni, err, errn) != 0)
        return HT_EBADREQ;
    ht_drag_loaders_find_jdk(jni); /* before the hook is on: it reads them */
    if (!g_track_ready) {
        if (ht_drag_track_init(&g_track, MAX_ROWS) != 0) {
            snprintf(err, errn, "out of memory");
            return HT_EINTERNAL;
        }
        ht_map_init(&g_chains);
        g_track_ready = 1;
    }
    ht_drag_guard_init(&g_guard, ht_g.opt.drag_budget);
    pthread_mutex_lock(&g_lock);
    snprintf(g_filter, sizeof g_filter, "%s", filter);
    g_gen++;
    g_st.classes = g_st.methods = g_st.skipped_long = g_st.skipped_attr = g_st.failed = 0;
    g_st.hot = 0;
    g_st.t_on_ms = ht_agent_ms();
    atomic_store(&g_on, 1);
    pthread_mutex_unlock(&g_lock);
    ht_map_clear(&g_chains);
    prune_originals(jni);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    uint32_t refused = retransform(jvmti, jni, filter, pick_on);
    pthread_mutex_lock(&g_lock);
    g_st.failed += refused;
    pthread_mutex_unlock(&g_lock);
    g_why[0] = '\0';
    g_state_dirty = 1;
    return HT_OK;
}

void ht_drag_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    char err[512];
    if (!ht_g.opt.drag[0]) return;
    if (turn_on(jvmti, jni, ht_g.opt.drag, err, sizeof err) != HT_OK) {
        snprintf(g_filter, sizeof g_filter, "%s", ht_g.opt.drag);
        snprintf(g_why, sizeof g_why, "%s", err);
        g_state_dirty = 1;
        ht_log("drag mode stays off: %s", err);
    }
}

int ht_drag_request(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, size_t len, uint64_t *classes,
                    char *err, size_t errn)
{
    char f[HT_DRAG_FILTER_MAX + 1];
    *classes = 0;
    if (len > HT_DRAG_FILTER_MAX || memchr(filter, '\0', len)) {
        snprintf(err, errn, "drag filter longer than %u characters", HT_DRAG_FILTER_MAX);
        return HT_EBADREQ;
    }
    memcpy(f, filter, len);
    f[len] = '\0';
    if (ht_drag_filter_check(f, err, errn) != 0) return HT_EBADREQ;
    int off = !f[0] || strcmp(f, "off") == 0;
    if (off) {
        turn_off(jvmti, jni);
        return HT_OK;
    }
    turn_off(jvmti, jni); /* a new filter: off, then on */
    int rc = turn_on(jvmti, jni, f, err, errn);
    if (rc != HT_OK) {
        snprintf(g_why, sizeof g_why, "%s", err);
        g_state_dirty = 1;
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    *classes = g_st.classes;
    pthread_mutex_unlock(&g_lock);
    return HT_OK;
}

void ht_drag_stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    turn_off(jvmti, jni);
    pthread_mutex_lock(&g_lock);
    ht_orig_free(&g_orig, ht_drag_drop_loader, jni);
    pthread_mutex_unlock(&g_lock);
}

/* ---------------------------------------------------------------- tracking */

/* The cids of a class's chain (itself, then its superclasses) that this
 * turn rewrote, nearest first, at most HT_DRAG_CHAIN. */
static int chain_of(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t class_id, uint16_t *cids)
{
    uint64_t v;
    if (ht_map_get(&g_chains, class_id, &v)) {
        int n = (int)(v & 7);
        for (int k = 0; k < n; k++)
            cids[k] = (uint16_t)(v >> (4 + 15 * k) & 0x7fff);
        return n;
    }
    int n = 0;
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
                pthread_mutex_lock(&g_lock);
                uint16_t cid = cid_of(sig + 1, 0);
                if (cid && g_rewritten[cid] == g_gen) cids[n++] = cid;
                pthread_mutex_unlock(&g_lock);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        }
        jclass super = (*jni)->GetSuperclass(jni, k);
        (*jni)->DeleteLocalRef(jni, k);
        k = super;
    }
    if (k) (*jni)->DeleteLocalRef(jni, k);
    v = (uint64_t)n;
    for (int j = 0; j < n; j++)
        v |= (uint64_t)cids[j] << (4 + 15 * j);
    ht_map_put(&g_chains, class_id, v);
    return n;
}

void ht_drag_sample(jvmtiEnv *jvmti, JNIEnv *jni, const ht_event *e, uint64_t serial, double bytes,
                    uint64_t now)
{
    if (!atomic_load_explicit(&g_on, memory_order_relaxed) || !e->ref) return;
    uint16_t cids[HT_DRAG_CHAIN];
    int n = chain_of(jvmti, jni, e->class_id, cids);
    if (n == 0) return;
    uint32_t row = ht_drag_track_sample(&g_track, e->trace_id, e->class_id);
    if (row == UINT32_MAX) return;
    g_state_dirty = 1;
    for (int k = 0; k < n; k++)
        if (ht_drag_guard_is_hot(&g_guard, cids[k])) {
            /* a use in the hot class's methods would go unseen: untracked */
            ht_drag_track_take(&g_track, row, serial, now, bytes, cids, 0);
            return;
        }
    jobject obj = (*jni)->NewLocalRef(jni, (jweak)(uintptr_t)e->ref);
    if (!obj) { /* dead before it could be taken in: untracked, so the counts add up */
        ht_drag_track_take(&g_track, row, serial, now, bytes, cids, 0);
        return;
    }
    const ht_drag_obj *o = ht_drag_track_take(&g_track, row, serial, now, bytes, cids, n);
    for (int k = 0; o && k < o->n; k++) {
        (*jni)->CallStaticVoidMethod(jni, g_helper, g_register, obj, (jint)o->cid[k],
                                     (jint)o->slot[k]);
        if (cleared(jni)) { /* not registered: let the object go untracked */
            for (int j = 0; j < k; j++)
                release_slot(jni, o->cid[j], o->slot[j]);
            ht_drag_track_forget(&g_track, serial);
            break;
        }
    }
    (*jni)->DeleteLocalRef(jni, obj);
}

void ht_drag_died(JNIEnv *jni, const ht_live_entry *e, uint64_t t_alive, uint64_t now)
{
    if (!g_track_ready) return;
    const ht_drag_obj *o = ht_drag_track_find(&g_track, e->serial);
    if (!o) return;
    uint64_t first = 0, last = 0;
    for (int k = 0; k < o->n; k++) {
        jlong f =
            (*jni)->CallStaticLongMethod(jni, g_helper, g_first, (jint)o->cid[k], (jint)o->slot[k]);
        if (cleared(jni)) f = 0;
        jlong l =
            (*jni)->CallStaticLongMethod(jni, g_helper, g_last, (jint)o->cid[k], (jint)o->slot[k]);
        if (cleared(jni)) l = 0;
        if (f > 0 && (!first || (uint64_t)f < first)) first = (uint64_t)f;
        if (l > 0 && (uint64_t)l > last) last = (uint64_t)l;
        release_slot(jni, o->cid[k], o->slot[k]);
    }
    ht_drag_track_died(&g_track, e->serial, first, last, t_alive, now);
    g_state_dirty = 1;
}

/* Does the chain of the object's class (cached by chain_of) hold cid? */
static int chain_has(const ht_drag_obj *o, uint16_t cid)
{
    for (int k = 0; k < o->n; k++)
        if (o->cid[k] == cid) return 1;
    uint64_t v;
    if (!ht_map_get(&g_chains, g_track.rows[o->row].class_id, &v)) return 0;
    for (int k = 0; k < (int)(v & 7); k++)
        if ((uint16_t)(v >> (4 + 15 * k) & 0x7fff) == cid) return 1;
    return 0;
}

/* Let go of the objects whose chain has a class found too hot (a slot there
 * or not: a use in its methods would go unseen): counted untracked, without
 * figures, their slots in every class freed. */
static void let_go_in(JNIEnv *jni, uint16_t cid)
{
    for (uint32_t i = 0; i < g_track.nobjs; i++) {
        const ht_drag_obj *o = &g_track.objs[i];
        if (!o->serial || !chain_has(o, cid)) continue;
        for (int k = 0; k < o->n; k++)
            release_slot(jni, o->cid[k], o->slot[k]);
        ht_drag_track_untrack(&g_track, o->serial);
    }
}

/* g_why while on: the classes too hot to watch, the first few named. */
static void say_hot(void)
{
    size_t at = (size_t)snprintf(g_why, sizeof g_why, "too hot to watch:");
    uint32_t named = 0;
    pthread_mutex_lock(&g_lock);
    for (uint32_t c = 1; c <= g_ncids && c <= HT_DRAG_MAX_CID; c++) {
        if (!g_guard.hot[c] || !g_name[c]) continue;
        char dot[HT_DRAG_NAME_MAX];
        ht_drag_dotted(g_name[c], dot, sizeof dot);
        if (named < 4 && at + strlen(dot) + 3 < sizeof g_why - 24) {
            at += (size_t)snprintf(g_why + at, sizeof g_why - at, "%s %s", named ? "," : "", dot);
            named++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (g_guard.nhot > named && at < sizeof g_why)
        snprintf(g_why + at, sizeof g_why - at, " (+%u more)", g_guard.nhot - named);
}

void ht_drag_tick(JNIEnv *jni, uint64_t now)
{
    if (!atomic_load_explicit(&g_on, memory_order_relaxed) || !g_scans ||
        (g_guard.last_ns && now - g_guard.last_ns < STATE_EVERY_NS))
        return;
    pthread_mutex_lock(&g_lock);
    uint32_t n = g_ncids + 1;
    pthread_mutex_unlock(&g_lock);
    jobject arr = (*jni)->GetStaticObjectField(jni, g_helper, g_scans);
    if (!arr || cleared(jni)) return;
    (*jni)->GetIntArrayRegion(jni, arr, 0, (jsize)n, (jint *)g_counts);
    (*jni)->DeleteLocalRef(jni, arr);
    if (cleared(jni)) return;
    uint16_t hot[HT_DRAG_HOT_PER_CHECK];
    uint64_t rate[HT_DRAG_HOT_PER_CHECK];
    int k = ht_drag_guard_check(&g_guard, g_counts, n, now, hot, rate, HT_DRAG_HOT_PER_CHECK);
    for (int i = 0; i < k; i++) {
        let_go_in(jni, hot[i]);
        if (g_said_hot++ < 8) {
            char dot[HT_DRAG_NAME_MAX] = "?";
            pthread_mutex_lock(&g_lock);
            if (g_name[hot[i]]) ht_drag_dotted(g_name[hot[i]], dot, sizeof dot);
            pthread_mutex_unlock(&g_lock);
            ht_log("drag mode: class %s too hot to watch: its calls looked through its tracked "
                   "objects %" PRIu64 " times a second (drag_budget=%" PRIu64
                   " a second for all classes); its objects and its subclasses' are no longer "
                   "tracked%s",
                   dot, rate[i], g_guard.budget,
                   g_said_hot == 8 ? " (the 8th class: later ones are not named here)" : "");
        }
    }
    if (k) {
        pthread_mutex_lock(&g_lock);
        g_st.hot = g_guard.nhot;
        pthread_mutex_unlock(&g_lock);
        say_hot();
        g_state_dirty = 1;
    }
}

/* ------------------------------------------------------------------ stream */

static void emit_state(ht_sink *sink)
{
    ht_drag_state_rec s;
    char filter[HT_DRAG_FILTER_MAX + 1];
    pthread_mutex_lock(&g_lock);
    s = g_st;
    memcpy(filter, g_filter, sizeof filter);
    pthread_mutex_unlock(&g_lock);
    s.on = (uint8_t)atomic_load(&g_on);
    s.slots = HT_DRAG_SLOTS;
    if (g_track_ready) {
        s.samples = g_track.samples;
        s.tracked = g_track.tracked;
        s.untracked = g_track.untracked;
        s.tracking = ht_drag_track_count(&g_track);
    }
    ht_buf b;
    ht_buf_init(&b);
    size_t m = ht_msg_begin(&b, HT_MSG_DRAG_STATE, ht_sink_next_seq(sink));
    ht_enc_drag_state(&b, &s, filter, g_why);
    ht_msg_end(&b, m);
    ht_sink_emit_buf(sink, &b);
    ht_buf_free(&b);
}

static void emit_rows(ht_sink *sink, int all)
{
    if (!g_track_ready) return;
    ht_batch b;
    ht_batch_init(&b, sink, HT_MSG_DRAG_ROWS);
    uint32_t n = all ? g_track.nrows : g_track.ndirty;
    for (uint32_t k = 0; k < n; k++) {
        ht_drag_row_rec row;
        ht_drag_track_row(&g_track, all ? k : g_track.dirty[k], &row);
        ht_batch_record(&b);
        ht_enc_drag_row(&b.buf, &row);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);
}

void ht_drag_publish(ht_sink *sink, uint64_t now)
{
    int on = atomic_load(&g_on);
    if (g_state_dirty || (on && now - g_state_ns >= STATE_EVERY_NS)) {
        if (g_state_dirty || on) emit_state(sink);
        g_state_dirty = 0;
        g_state_ns = now;
    }
    if (g_track_ready && g_track.ndirty && now - g_rows_ns >= ROWS_EVERY_NS) {
        emit_rows(sink, 0);
        ht_drag_track_clear_dirty(&g_track);
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
    if (!g_track_ready) return 0;
    return ht_drag_track_mark(&g_track, op);
}
