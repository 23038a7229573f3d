/* telemetry.c - see telemetry.h. */
#include "telemetry.h"

#include "agent_state.h"

#include <string.h>

/* Global ref to the result of a static no-argument method, or NULL. */
static jobject call_static(JNIEnv *jni, const char *cls, const char *name, const char *sig)
{
    jclass c = (*jni)->FindClass(jni, cls);
    if (!c || ht_jni_cleared(jni)) return NULL;
    jobject g = NULL;
    jmethodID m = (*jni)->GetStaticMethodID(jni, c, name, sig);
    if (m && !ht_jni_cleared(jni)) {
        jobject o = (*jni)->CallStaticObjectMethod(jni, c, m);
        if (!ht_jni_cleared(jni) && o) {
            g = (*jni)->NewGlobalRef(jni, o);
            (*jni)->DeleteLocalRef(jni, o);
        }
    }
    (*jni)->DeleteLocalRef(jni, c);
    return g;
}

/* An instance method of o's own class, whatever its access: JNI does not check
 * it, which lets us call ThreadImpl's protected getTotalThreadAllocatedBytes. */
static jmethodID method_of(JNIEnv *jni, jobject o, const char *name, const char *sig)
{
    if (!o) return NULL;
    jclass c = (*jni)->GetObjectClass(jni, o);
    jmethodID m = c ? (*jni)->GetMethodID(jni, c, name, sig) : NULL;
    ht_jni_cleared(jni);
    if (c) (*jni)->DeleteLocalRef(jni, c);
    return m;
}

/* The thread and class-loading beans. java.management's own factory helper
 * builds them in ~3 ms and ~25 classes; java.lang.management.ManagementFactory
 * first sets up the platform MXBean machinery (~125 classes, 25-50 ms of CPU,
 * measured on JDK 17), so it is only the fallback for a JDK without the helper. */
static void find_beans(ht_telemetry *t, JNIEnv *jni)
{
    static const char *helper = "sun/management/ManagementFactoryHelper";
    static const char *factory = "java/lang/management/ManagementFactory";
    const char *where[2] = {helper, factory};
    for (int i = 0; i < 2 && !(t->thread_bean && t->class_bean); i++) {
        if (!t->thread_bean)
            t->thread_bean = call_static(jni, where[i], "getThreadMXBean",
                                         "()Ljava/lang/management/ThreadMXBean;");
        if (!t->class_bean)
            t->class_bean = call_static(jni, where[i], "getClassLoadingMXBean",
                                        "()Ljava/lang/management/ClassLoadingMXBean;");
    }
}

/* Suffix test for bean names. */
static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The GC beans that count collections which clear JNI weak references: the
 * live sweep's proof that a sampled object survived one. A collector can have
 * beans that count pauses instead ("ZGC Pauses", "Shenandoah Pauses", and since
 * JDK 20 "G1 Concurrent GC" for G1's remark and cleanup): those are left out.
 * So are generational ZGC's minor cycles: measured on JDK 25, they leave every
 * JNI weak reference to a dead young object set until the next major cycle,
 * so an object "alive" after a minor cycle has proven nothing; its major
 * cycles prove late (see ht_gc_proof). Beans named "... Cycles" count
 * concurrent cycles. Same helper as the other beans (see
 * find_beans), so the platform MXBean machinery is never set up. */
static void find_gc_beans(ht_telemetry *t, JNIEnv *jni)
{
    jobject list = call_static(jni, "sun/management/ManagementFactoryHelper",
                               "getGarbageCollectorMXBeans", "()Ljava/util/List;");
    if (!list) return;
    jclass lc = (*jni)->FindClass(jni, "java/util/List");
    jmethodID size = lc ? (*jni)->GetMethodID(jni, lc, "size", "()I") : NULL;
    jmethodID get = lc ? (*jni)->GetMethodID(jni, lc, "get", "(I)Ljava/lang/Object;") : NULL;
    jint n = (size && !ht_jni_cleared(jni)) ? (*jni)->CallIntMethod(jni, list, size) : 0;
    if (ht_jni_cleared(jni)) n = 0;
    for (jint i = 0; i < n && get && t->ngc_beans < HT_TELEMETRY_GC_BEANS; i++) {
        jobject bean = (*jni)->CallObjectMethod(jni, list, get, i);
        if (ht_jni_cleared(jni) || !bean) continue;
        jmethodID name_m = method_of(jni, bean, "getName", "()Ljava/lang/String;");
        jstring js = name_m ? (*jni)->CallObjectMethod(jni, bean, name_m) : NULL;
        const char *name =
            (!ht_jni_cleared(jni) && js) ? (*jni)->GetStringUTFChars(jni, js, NULL) : NULL;
        jmethodID count_m = method_of(jni, bean, "getCollectionCount", "()J");
        if (name && count_m && !ends_with(name, "Pauses") && !strstr(name, "Minor") &&
            strcmp(name, "G1 Concurrent GC") != 0) {
            t->gc_beans[t->ngc_beans] = (*jni)->NewGlobalRef(jni, bean);
            t->gc_count[t->ngc_beans++] = count_m;
            if (ends_with(name, "Cycles")) t->concurrent_cycles |= 1u << (t->ngc_beans - 1);
            if (strcmp(name, "ZGC Major Cycles") == 0) t->late_cycles |= 1u << (t->ngc_beans - 1);
        }
        if (name) (*jni)->ReleaseStringUTFChars(jni, js, name);
        if (js) (*jni)->DeleteLocalRef(jni, js);
        (*jni)->DeleteLocalRef(jni, bean);
    }
    if (lc) (*jni)->DeleteLocalRef(jni, lc);
    (*jni)->DeleteGlobalRef(jni, list);
}

int ht_telemetry_collections(ht_telemetry *t, JNIEnv *jni, uint64_t *counts)
{
    for (int i = 0; i < t->ngc_beans; i++) {
        jlong v = (*jni)->CallLongMethod(jni, t->gc_beans[i], t->gc_count[i]);
        if (ht_jni_cleared(jni) || v < 0) return 0;
        counts[i] = (uint64_t)v;
    }
    return t->ngc_beans;
}

int ht_telemetry_init(ht_telemetry *t, JNIEnv *jni)
{
    memset(t, 0, sizeof *t);
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        ht_jni_cleared(jni);
        return -1;
    }
    /* Heap figures from java.lang.Runtime: no MXBean needed, and the used
     * figure is the collector's own count, current to the allocation. */
    t->runtime = call_static(jni, "java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;");
    t->total_memory = method_of(jni, t->runtime, "totalMemory", "()J");
    t->free_memory = method_of(jni, t->runtime, "freeMemory", "()J");
    t->max_memory = method_of(jni, t->runtime, "maxMemory", "()J");
    find_beans(t, jni);
    t->thread_count = method_of(jni, t->thread_bean, "getThreadCount", "()I");
    t->started_count = method_of(jni, t->thread_bean, "getTotalStartedThreadCount", "()J");
    /* Exact bytes allocated by all threads, dead ones too (JDK 14+). */
    t->total_alloc = method_of(jni, t->thread_bean, "getTotalThreadAllocatedBytes", "()J");
    t->loaded_count = method_of(jni, t->class_bean, "getLoadedClassCount", "()I");
    find_gc_beans(t, jni);
    (*jni)->PopLocalFrame(jni, NULL);
    t->ready = t->runtime != NULL;
    return t->ready ? 0 : -1;
}

void ht_telemetry_destroy(ht_telemetry *t, JNIEnv *jni)
{
    jobject refs[] = {t->runtime, t->thread_bean, t->class_bean};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (refs[i]) (*jni)->DeleteGlobalRef(jni, refs[i]);
    for (int i = 0; i < t->ngc_beans; i++)
        (*jni)->DeleteGlobalRef(jni, t->gc_beans[i]);
    t->ngc_beans = 0;
    t->runtime = t->thread_bean = t->class_bean = NULL;
    t->ready = 0;
}

static uint64_t call_long(JNIEnv *jni, jobject o, jmethodID m, uint64_t dflt)
{
    if (!o || !m) return dflt;
    jlong v = (*jni)->CallLongMethod(jni, o, m);
    if (ht_jni_cleared(jni) || v < 0) return dflt;
    return (uint64_t)v;
}

static uint64_t call_int(JNIEnv *jni, jobject o, jmethodID m, uint64_t dflt)
{
    if (!o || !m) return dflt;
    jint v = (*jni)->CallIntMethod(jni, o, m);
    if (ht_jni_cleared(jni) || v < 0) return dflt;
    return (uint64_t)v;
}

void ht_telemetry_read(ht_telemetry *t, JNIEnv *jni, ht_telemetry_rec *out)
{
    const ht_telemetry_rec *prev = t->nhistory ? ht_telemetry_at(t, t->nhistory - 1) : NULL;
    if (prev) *out = *prev;
    out->alloc_bytes = prev ? prev->alloc_bytes : UINT64_MAX;
    /* GC pauses as the agent timed them (GarbageCollectionStart/Finish). */
    out->gc_count = atomic_load_explicit(&ht_g.gc_pauses, memory_order_acquire);
    out->gc_time_ms = atomic_load_explicit(&ht_g.gc_pause_ns, memory_order_relaxed) / 1000000u;
    if (!t->ready) return;
    uint64_t total = call_long(jni, t->runtime, t->total_memory, out->heap_committed);
    uint64_t free_bytes = call_long(jni, t->runtime, t->free_memory, 0);
    out->heap_committed = total;
    out->heap_used = total >= free_bytes ? total - free_bytes : 0;
    out->heap_max = call_long(jni, t->runtime, t->max_memory, out->heap_max);
    out->threads = (uint32_t)call_int(jni, t->thread_bean, t->thread_count, out->threads);
    out->threads_started = call_long(jni, t->thread_bean, t->started_count, out->threads_started);
    out->alloc_bytes = call_long(jni, t->thread_bean, t->total_alloc, out->alloc_bytes);
    out->classes = (uint32_t)call_int(jni, t->class_bean, t->loaded_count, out->classes);
}

void ht_telemetry_push(ht_telemetry *t, const ht_telemetry_rec *r)
{
    if (t->nhistory < HT_TELEMETRY_HISTORY) {
        t->history[(t->head + t->nhistory) % HT_TELEMETRY_HISTORY] = *r;
        t->nhistory++;
    } else {
        t->history[t->head] = *r;
        t->head = (t->head + 1) % HT_TELEMETRY_HISTORY;
    }
}

const ht_telemetry_rec *ht_telemetry_at(const ht_telemetry *t, uint32_t i)
{
    return &t->history[(t->head + i) % HT_TELEMETRY_HISTORY];
}
