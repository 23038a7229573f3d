/*
 * empty_agent.c - baselines for the overhead benchmark.
 *
 * With no options: SampledObjectAlloc enabled at the default 512 KiB interval
 * and a callback that does nothing (the JEP 331 floor); what heaptop costs
 * above this is heaptop's own. Options price the parts of heaptop's callback
 * one at a time, so the benchmark can say where the time goes:
 *   interval=BYTES  sampling interval
 *   stack           JVMTI GetStackTrace of up to 64 frames (what any agent
 *                   that records allocation stacks through JVMTI pays)
 *   tag             SetTag on the sampled object (JVMTI object tagging)
 *   weak            NewWeakGlobalRef on it, released at once
 */
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

static int g_stack, g_tag, g_weak, g_caps;

static void JNICALL on_gc(jvmtiEnv *jvmti)
{
    (void)jvmti;
}

static void JNICALL on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size)
{
    (void)thread;
    (void)klass;
    (void)size;
    if (g_stack) {
        jvmtiFrameInfo frames[64];
        jint n = 0;
        (*jvmti)->GetStackTrace(jvmti, NULL, 0, 64, frames, &n);
    }
    if (g_tag) (*jvmti)->SetTag(jvmti, object, 1);
    if (g_weak) {
        jweak w = (*jni)->NewWeakGlobalRef(jni, object);
        if (w) (*jni)->DeleteWeakGlobalRef(jni, w);
    }
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jint interval = 512 * 1024;
    if (options) {
        g_stack = strstr(options, "stack") != NULL;
        g_tag = strstr(options, "tag") != NULL;
        g_weak = strstr(options, "weak") != NULL;
        g_caps = strstr(options, "caps") != NULL; /* heaptop's capabilities and GC events */
        const char *iv = strstr(options, "interval=");
        if (iv) interval = atoi(iv + 9);
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_tag_objects = (unsigned)(g_tag || g_caps);
    caps.can_get_line_numbers = (unsigned)g_caps;
    caps.can_get_source_file_name = (unsigned)g_caps;
    caps.can_generate_garbage_collection_events = (unsigned)g_caps;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) return JNI_ERR;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = on_sample;
    cb.GarbageCollectionStart = on_gc;
    cb.GarbageCollectionFinish = on_gc;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->SetHeapSamplingInterval(jvmti, interval);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (g_caps) {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                           JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                           JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    }
    return JNI_OK;
}
