/* drag.c - see drag.h. */
#include "drag.h"
#include "drag_int.h"

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

#define MAX_ROWS       65536u      /* sites with a drag row of their own */
#define ORIG_MAX_BYTES (64u << 20) /* original class bytes kept, compressed */
#define ORIG_MAX_TEXT  "64 MiB"

ht_drag_shared ht_dg = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* --- drag.c's own, shared with the hook (any thread): under ht_dg.lock */
static atomic_int g_restoring; /* drag off: the hook hands back the originals while 1 */
static atomic_int g_said_full;
static ht_orig_store g_orig = {.max_bytes = ORIG_MAX_BYTES}; /* the classes' original bytes */
static ht_map g_names; /* hash of a class's internal name -> cid */
static uint32_t g_methods_of[HT_DRAG_MAX_CID + 1];

/* --- our own RetransformClasses: the hook rewrites from the kept original
 * only on that call's thread, while it runs */
static atomic_int g_ours;
static pthread_t g_ours_thread;

/* ------------------------------------------------------------------ names */

/* The cid of an internal class name, given one if new. 0 when the table is
 * full or out of memory. Under ht_dg.lock. */
uint16_t ht_drag_cid_of(const char *name, int add)
{
    size_t n = strlen(name);
    uint64_t h = ht_hash_bytes(name, n), v;
    for (uint32_t salt = 0; salt < 8; salt++) {
        uint64_t key = ht_map_salt(h, salt);
        if (!ht_map_get(&g_names, key, &v)) {
            if (!add || ht_dg.ncids >= HT_DRAG_MAX_CID) return 0;
            char *copy = strdup(name);
            if (!copy) return 0;
            uint16_t cid = (uint16_t)(ht_dg.ncids + 1);
            if (ht_map_put(&g_names, key, cid) != 0) {
                free(copy);
                return 0;
            }
            ht_dg.ncids++;
            ht_dg.name[cid] = copy;
            return cid;
        }
        if (strcmp(ht_dg.name[v], name) == 0) return (uint16_t)v;
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
    pthread_mutex_lock(&ht_dg.lock);
    uint16_t cid = ht_drag_cid_of(name, 0);
    int r = cid ? ht_orig_get(&g_orig, cid, loader, ht_drag_same_loader, jni, ht_drag_jvmti_alloc,
                              jvmti, &mem, &n)
                : 0;
    pthread_mutex_unlock(&ht_dg.lock);
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
    int on = atomic_load_explicit(&ht_dg.on, memory_order_acquire);
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
    pthread_mutex_lock(&ht_dg.lock);
    uint32_t gen = ht_dg.gen;
    int match = atomic_load(&ht_dg.on) && ht_drag_filter_matches(ht_dg.filter, dot);
    pthread_mutex_unlock(&ht_dg.lock);
    if (!match) return;
    if (!ht_drag_loaders_sees(jni, loader)) { /* the injected call would not link */
        pthread_mutex_lock(&ht_dg.lock);
        if (gen == ht_dg.gen) ht_dg.st.failed++;
        pthread_mutex_unlock(&ht_dg.lock);
        ht_drag_loaders_say(jvmti, jni, loader, dot);
        return;
    }
    uint16_t cid = 0;
    uint8_t *orig = NULL;
    size_t orig_len = 0;
    int saved = 0, replace = 0;
    pthread_mutex_lock(&ht_dg.lock);
    if ((cid = ht_drag_cid_of(name, 1)) != 0) {
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
    if (!cid && gen == ht_dg.gen) ht_dg.st.failed++;
    pthread_mutex_unlock(&ht_dg.lock);
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
        pthread_mutex_lock(&ht_dg.lock);
        int put =
            ht_orig_replace(&g_orig, cid, loader, data, (size_t)len, ht_drag_same_loader, jni);
        pthread_mutex_unlock(&ht_dg.lock);
        if (put != 1) { /* drag off could not give their bytes back: theirs stand, unchanged */
            rc = -1;
            full = 1;
        }
    }
    if (rc == 0 && !saved) { /* first seen: these bytes are its original */
        jweak w = loader && jni ? (*jni)->NewWeakGlobalRef(jni, loader) : NULL;
        int put = -1;
        if (!loader || w) {
            pthread_mutex_lock(&ht_dg.lock);
            put = ht_orig_put(&g_orig, cid, w, data, (size_t)len, ht_drag_same_loader, jni);
            pthread_mutex_unlock(&ht_dg.lock);
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

    pthread_mutex_lock(&ht_dg.lock);
    if (gen == ht_dg.gen) {
        ht_dg.st.skipped_long += st.skipped_long;
        ht_dg.st.skipped_attr += st.skipped_attr;
        if (rc == 0) {
            if (ht_dg.rewritten[cid] != gen) {
                ht_dg.st.classes++;
                g_methods_of[cid] = 0;
            }
            ht_dg.st.methods += st.injected - g_methods_of[cid];
            g_methods_of[cid] = st.injected;
            ht_dg.rewritten[cid] = gen;
        } else if (rc < 0) {
            ht_dg.st.failed++;
        }
    }
    pthread_mutex_unlock(&ht_dg.lock);
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

static int define_helper(JNIEnv *jni, char *err, size_t errn)
{
    if (ht_dg.helper) return 0;
    jclass cls =
        (*jni)->DefineClass(jni, HT_DRAG_HELPER_CLASS, NULL, (const jbyte *)heaptop_drag_class,
                            (jsize)heaptop_drag_class_len);
    if (!cls || ht_jni_cleared(jni)) {
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
    jclass global = scans && !ht_jni_cleared(jni) ? (*jni)->NewGlobalRef(jni, cls) : NULL;
    (*jni)->DeleteLocalRef(jni, cls);
    if (!global) {
        ht_jni_cleared(jni);
        snprintf(err, errn, "drag mode's helper class lacks its methods");
        return -1;
    }
    /* initialised here, on this thread, not on the first application call */
    (*jni)->CallStaticLongMethod(jni, global, first, 1, 0);
    if (ht_jni_cleared(jni)) {
        (*jni)->DeleteGlobalRef(jni, global);
        snprintf(err, errn, "drag mode's helper class failed to initialise");
        return -1;
    }
    /* touch once here (cid 0 is never given out: it returns at once), so
     * that it is linked on this thread, not inside the first instrumented
     * method of an application thread */
    (*jni)->CallStaticVoidMethod(jni, global, touch, NULL, 0);
    ht_jni_cleared(jni);
    ht_dg.helper = global;
    ht_dg.reg = reg;
    ht_dg.first = first;
    ht_dg.last = last;
    ht_dg.release = rel;
    ht_dg.scans = scans;
    return 0;
}

void ht_drag_release_slot(JNIEnv *jni, uint16_t cid, uint8_t slot)
{
    (*jni)->CallStaticVoidMethod(jni, ht_dg.helper, ht_dg.release, (jint)cid, (jint)slot);
    ht_jni_cleared(jni);
}

/* ------------------------------------------------------------------ on/off */

/* Forget the originals of classes whose loader is gone. Collector thread. */
static void prune_originals(JNIEnv *jni)
{
    pthread_mutex_lock(&ht_dg.lock);
    ht_orig_prune(&g_orig, ht_drag_loader_gone, ht_drag_drop_loader, jni);
    pthread_mutex_unlock(&ht_dg.lock);
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
    int sees = ht_drag_loaders_check(c->jni, loader, ht_dg.helper);
    if (!sees) {
        char dot[HT_DRAG_NAME_MAX];
        ht_drag_dotted(name, dot, sizeof dot);
        pthread_mutex_lock(&ht_dg.lock);
        ht_dg.st.failed++;
        pthread_mutex_unlock(&ht_dg.lock);
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
    pthread_mutex_lock(&ht_dg.lock);
    uint16_t cid = ht_drag_cid_of(name, 0);
    int kept = cid && ht_orig_has(&g_orig, cid, loader, ht_drag_same_loader, c->jni);
    pthread_mutex_unlock(&ht_dg.lock);
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
    if (!atomic_load(&ht_dg.on)) return;
    char filter[HT_DRAG_FILTER_MAX + 1];
    pthread_mutex_lock(&ht_dg.lock);
    atomic_store(&g_restoring, 1);
    atomic_store(&ht_dg.on, 0);
    memcpy(filter, ht_dg.filter, sizeof filter);
    pthread_mutex_unlock(&ht_dg.lock);
    /* every slot free: the injected calls that remain until the classes are
     * back cost one volatile read */
    for (uint32_t i = 0; i < ht_dg.track.nobjs; i++) {
        const ht_drag_obj *o = &ht_dg.track.objs[i];
        for (int k = 0; o->serial && k < o->n; k++)
            ht_drag_release_slot(jni, o->cid[k], o->slot[k]);
    }
    ht_drag_track_forget_all(&ht_dg.track);
    ht_map_clear(&ht_dg.chains);
    /* the hook stays enabled, restoring: it hands back the bytes it kept (the
     * JVM's own copy of a class loaded before any retransform-capable hook
     * changed it is rebuilt from the running class, and grew) */
    uint32_t refused = retransform(jvmti, jni, filter, pick_off);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
                                       NULL);
    atomic_store(&g_restoring, 0);
    prune_originals(jni);
    pthread_mutex_lock(&ht_dg.lock);
    ht_dg.gen++;         /* nothing counts as rewritten in this turn any more */
    ht_dg.why[0] = '\0'; /* the classes too hot to watch, if it named them */
    ht_dg.st.classes = ht_dg.st.methods = 0;
    ht_dg.st.failed = refused;
    pthread_mutex_unlock(&ht_dg.lock);
    if (refused)
        ht_log("drag mode off: the JVM refused to put %u classes back; their injected calls "
               "stay (each one volatile read)",
               refused);
    ht_dg.state_dirty = 1;
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
    if (!ht_dg.track_ready) {
        if (ht_drag_track_init(&ht_dg.track, MAX_ROWS) != 0) {
            snprintf(err, errn, "out of memory");
            return HT_EINTERNAL;
        }
        ht_map_init(&ht_dg.chains);
        ht_dg.track_ready = 1;
    }
    ht_drag_guard_init(&ht_dg.guard, ht_g.opt.drag_budget);
    pthread_mutex_lock(&ht_dg.lock);
    snprintf(ht_dg.filter, sizeof ht_dg.filter, "%s", filter);
    ht_dg.gen++;
    ht_dg.st.classes = ht_dg.st.methods = ht_dg.st.skipped_long = ht_dg.st.skipped_attr =
        ht_dg.st.failed = 0;
    ht_dg.st.hot = 0;
    ht_dg.st.t_on_ms = ht_agent_ms();
    atomic_store(&ht_dg.on, 1);
    pthread_mutex_unlock(&ht_dg.lock);
    ht_map_clear(&ht_dg.chains);
    prune_originals(jni);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    uint32_t refused = retransform(jvmti, jni, filter, pick_on);
    pthread_mutex_lock(&ht_dg.lock);
    ht_dg.st.failed += refused;
    pthread_mutex_unlock(&ht_dg.lock);
    ht_dg.why[0] = '\0';
    ht_dg.state_dirty = 1;
    return HT_OK;
}

void ht_drag_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    char err[512];
    if (!ht_g.opt.drag[0]) return;
    if (turn_on(jvmti, jni, ht_g.opt.drag, err, sizeof err) != HT_OK) {
        snprintf(ht_dg.filter, sizeof ht_dg.filter, "%s", ht_g.opt.drag);
        snprintf(ht_dg.why, sizeof ht_dg.why, "%s", err);
        ht_dg.state_dirty = 1;
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
        snprintf(ht_dg.why, sizeof ht_dg.why, "%s", err);
        ht_dg.state_dirty = 1;
        return rc;
    }
    pthread_mutex_lock(&ht_dg.lock);
    *classes = ht_dg.st.classes;
    pthread_mutex_unlock(&ht_dg.lock);
    return HT_OK;
}

void ht_drag_stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    turn_off(jvmti, jni);
    pthread_mutex_lock(&ht_dg.lock);
    ht_orig_free(&g_orig, ht_drag_drop_loader, jni);
    pthread_mutex_unlock(&ht_dg.lock);
}
