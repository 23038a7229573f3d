/*
 * empty_agent.c - the JEP 331 baseline for the overhead benchmark: an agent
 * that enables SampledObjectAlloc at the default 512 KiB interval and does
 * nothing in the callback. What heaptop costs above this is heaptop's own.
 */
#include <jvmti.h>
#include <string.h>

static void JNICALL on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size)
{
    (void)jvmti;
    (void)jni;
    (void)thread;
    (void)object;
    (void)klass;
    (void)size;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)options;
    (void)reserved;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) return JNI_ERR;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = on_sample;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    return JNI_OK;
}
