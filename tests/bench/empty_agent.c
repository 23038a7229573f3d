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
 *   toggle=PATH     sampling is off while the file PATH exists, on otherwise
 *                   (an agent thread looks every 5 ms), so a benchmark can
 *                   price phases of one run against each other; PATH is the
 *                   last option
 */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int g_stack, g_tag, g_weak, g_caps;
static char g_toggle[4096];

static void JNICALL toggle_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jni;
    (void)arg;
    int on = 1;
    for (;;) {
        struct stat st;
        int want = stat(g_toggle, &st) != 0;
        if (want != on) {
            (*jvmti)->SetEventNotificationMode(jvmti, want ? JVMTI_ENABLE : JVMTI_DISABLE,
                                               JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
            on = want;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    (void)thread;
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "()V") : NULL;
    jobject t = ctor ? (*jni)->NewObject(jni, cls, ctor) : NULL;
    if (t) (*jvmti)->RunAgentThread(jvmti, t, toggle_main, NULL, JVMTI_THREAD_NORM_PRIORITY);
}

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
        /* the flags are read before toggle=, so a path cannot spell one */
        static char flags[4096];
        snprintf(flags, sizeof flags, "%s", options);
        char *tg = strstr(flags, "toggle=");
        if (tg) {
            if (strlen(tg + 7) >= sizeof g_toggle) return JNI_ERR;
            strcpy(g_toggle, tg + 7);
            *tg = 0;
        }
        g_stack = strstr(flags, "stack") != NULL;
        g_tag = strstr(flags, "tag") != NULL;
        g_weak = strstr(flags, "weak") != NULL;
        g_caps = strstr(flags, "caps") != NULL; /* heaptop's capabilities and GC events */
        const char *iv = strstr(flags, "interval=");
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
    cb.VMInit = on_vm_init;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->SetHeapSamplingInterval(jvmti, interval);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (g_toggle[0])
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    if (g_caps) {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                           JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                           JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    }
    return JNI_OK;
}
