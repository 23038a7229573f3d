/* telemetry.c - see telemetry.h. */
#include "telemetry.h"

#include <string.h>

static int cleared(JNIEnv *jni)
{
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return 1;
    }
    return 0;
}

static jobject bean(JNIEnv *jni, jclass mf, const char *name, const char *sig)
{
    jmethodID m = (*jni)->GetStaticMethodID(jni, mf, name, sig);
    if (!m || cleared(jni)) return NULL;
    jobject o = (*jni)->CallStaticObjectMethod(jni, mf, m);
    if (cleared(jni) || !o) return NULL;
    jobject g = (*jni)->NewGlobalRef(jni, o);
    (*jni)->DeleteLocalRef(jni, o);
    return g;
}

static jmethodID method(JNIEnv *jni, const char *cls, const char *name, const char *sig)
{
    jclass c = (*jni)->FindClass(jni, cls);
    if (!c || cleared(jni)) return NULL;
    jmethodID m = (*jni)->GetMethodID(jni, c, name, sig);
    cleared(jni);
    (*jni)->DeleteLocalRef(jni, c);
    return m;
}

int ht_telemetry_init(ht_telemetry *t, JNIEnv *jni)
{
    memset(t, 0, sizeof *t);
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        cleared(jni);
        return -1;
    }
    jclass mf = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    if (!mf || cleared(jni)) {
        (*jni)->PopLocalFrame(jni, NULL);
        return -1;
    }
    t->mem_bean = bean(jni, mf, "getMemoryMXBean", "()Ljava/lang/management/MemoryMXBean;");
    t->thread_bean = bean(jni, mf, "getThreadMXBean", "()Ljava/lang/management/ThreadMXBean;");
    t->class_bean =
        bean(jni, mf, "getClassLoadingMXBean", "()Ljava/lang/management/ClassLoadingMXBean;");
    jobject list = bean(jni, mf, "getGarbageCollectorMXBeans", "()Ljava/util/List;");
    if (list) {
        jmethodID to_array = method(jni, "java/util/List", "toArray", "()[Ljava/lang/Object;");
        jobject arr = to_array ? (*jni)->CallObjectMethod(jni, list, to_array) : NULL;
        if (!cleared(jni) && arr) t->gc_beans = (*jni)->NewGlobalRef(jni, arr);
        (*jni)->DeleteGlobalRef(jni, list);
    }
    t->heap_usage = method(jni, "java/lang/management/MemoryMXBean", "getHeapMemoryUsage",
                           "()Ljava/lang/management/MemoryUsage;");
    t->mu_used = method(jni, "java/lang/management/MemoryUsage", "getUsed", "()J");
    t->mu_committed = method(jni, "java/lang/management/MemoryUsage", "getCommitted", "()J");
    t->mu_max = method(jni, "java/lang/management/MemoryUsage", "getMax", "()J");
    t->thread_count = method(jni, "java/lang/management/ThreadMXBean", "getThreadCount", "()I");
    t->started_count =
        method(jni, "java/lang/management/ThreadMXBean", "getTotalStartedThreadCount", "()J");
    /* com.sun.management: exact bytes allocated by all threads, dead ones too. */
    t->total_alloc =
        method(jni, "com/sun/management/ThreadMXBean", "getTotalThreadAllocatedBytes", "()J");
    t->loaded_count =
        method(jni, "java/lang/management/ClassLoadingMXBean", "getLoadedClassCount", "()I");
    t->gc_count =
        method(jni, "java/lang/management/GarbageCollectorMXBean", "getCollectionCount", "()J");
    t->gc_time =
        method(jni, "java/lang/management/GarbageCollectorMXBean", "getCollectionTime", "()J");
    (*jni)->PopLocalFrame(jni, NULL);
    t->ready = t->mem_bean && t->thread_bean && t->class_bean;
    return t->ready ? 0 : -1;
}

void ht_telemetry_destroy(ht_telemetry *t, JNIEnv *jni)
{
    jobject refs[] = {t->mem_bean, t->thread_bean, t->class_bean, t->gc_beans};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (refs[i]) (*jni)->DeleteGlobalRef(jni, refs[i]);
    t->mem_bean = t->thread_bean = t->class_bean = NULL;
    t->gc_beans = NULL;
    t->ready = 0;
}

static uint64_t call_long(JNIEnv *jni, jobject o, jmethodID m, uint64_t dflt)
{
    if (!o || !m) return dflt;
    jlong v = (*jni)->CallLongMethod(jni, o, m);
    if (cleared(jni) || v < 0) return dflt;
    return (uint64_t)v;
}

static uint64_t call_int(JNIEnv *jni, jobject o, jmethodID m, uint64_t dflt)
{
    if (!o || !m) return dflt;
    jint v = (*jni)->CallIntMethod(jni, o, m);
    if (cleared(jni) || v < 0) return dflt;
    return (uint64_t)v;
}

void ht_telemetry_read(ht_telemetry *t, JNIEnv *jni, ht_telemetry_rec *out)
{
    const ht_telemetry_rec *prev = t->nhistory ? ht_telemetry_at(t, t->nhistory - 1) : NULL;
    if (prev) *out = *prev;
    out->alloc_bytes = prev ? prev->alloc_bytes : UINT64_MAX;
    if (!t->ready || (*jni)->PushLocalFrame(jni, 16) != 0) {
        cleared(jni);
        return;
    }
    jobject mu = t->heap_usage ? (*jni)->CallObjectMethod(jni, t->mem_bean, t->heap_usage) : NULL;
    if (!cleared(jni) && mu) {
        out->heap_used = call_long(jni, mu, t->mu_used, out->heap_used);
        out->heap_committed = call_long(jni, mu, t->mu_committed, out->heap_committed);
        out->heap_max = call_long(jni, mu, t->mu_max, out->heap_max);
    }
    out->threads = (uint32_t)call_int(jni, t->thread_bean, t->thread_count, out->threads);
    out->threads_started = call_long(jni, t->thread_bean, t->started_count, out->threads_started);
    out->alloc_bytes = call_long(jni, t->thread_bean, t->total_alloc, out->alloc_bytes);
    out->classes = (uint32_t)call_int(jni, t->class_bean, t->loaded_count, out->classes);
    uint64_t count = 0, time_ms = 0;
    jsize n = t->gc_beans ? (*jni)->GetArrayLength(jni, t->gc_beans) : 0;
    for (jsize i = 0; i < n; i++) {
        jobject gc = (*jni)->GetObjectArrayElement(jni, t->gc_beans, i);
        if (cleared(jni) || !gc) continue;
        count += call_long(jni, gc, t->gc_count, 0);
        time_ms += call_long(jni, gc, t->gc_time, 0);
        (*jni)->DeleteLocalRef(jni, gc);
    }
    out->gc_count = count;
    out->gc_time_ms = time_ms;
    (*jni)->PopLocalFrame(jni, NULL);
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
