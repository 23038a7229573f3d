/* cpu_async.c - see cpu_async.h. Not written yet: cpu=async is refused. */
#include "cpu_async.h"

#include <stdio.h>

int ht_cpu_async_supported(jvmtiEnv *jvmti, JNIEnv *jni, char *why, size_t n)
{
    (void)jvmti;
    (void)jni;
    snprintf(why, n, "cpu=async is not built into this agent");
    return 0;
}

int ht_cpu_async_start(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t interval_us, char *err, size_t errn)
{
    (void)interval_us;
    return ht_cpu_async_supported(jvmti, jni, err, errn) ? 0 : -1;
}

void ht_cpu_async_stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti;
    (void)jni;
}

void ht_cpu_async_arm(ht_cpu_rec *rec)
{
    rec->async = 0;
}

void ht_cpu_async_disarm(ht_cpu_rec *rec)
{
    rec->async = 0;
}

void ht_cpu_async_thread_start(ht_cpu_rec *rec)
{
    (void)rec;
}

void ht_cpu_async_drain(ht_cpu_async_charge_fn charge, void *ctx)
{
    (void)charge;
    (void)ctx;
}
