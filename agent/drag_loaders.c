/* drag_loaders.c - see drag_loaders.h. */
#include "drag_loaders.h"

#include "agent_state.h"

#include "log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define MAX_GOOD_LOADERS 256
#define MAX_BAD_LOADERS  64

/* --- read by the hook (any thread): the JDK's two, set once before the
 * hook is first enabled, and the ones the collector checked, under g_loaders */
static pthread_mutex_t g_loaders = PTHREAD_MUTEX_INITIALIZER;
static jobject g_sys_loader, g_plat_loader; /* global refs */
static jweak g_good[MAX_GOOD_LOADERS];
static uint32_t g_ngood;
static atomic_int g_said_loader;

/* --- collector thread only */
static jweak g_bad[MAX_BAD_LOADERS]; /* loaders checked that do not see the helper */
static uint32_t g_nbad;

int ht_drag_loaders_sees(JNIEnv *jni, jobject loader)
{
    if (!loader) return 1;
    if (!jni) return 0;
    if ((g_sys_loader && (*jni)->IsSameObject(jni, loader, g_sys_loader)) ||
        (g_plat_loader && (*jni)->IsSameObject(jni, loader, g_plat_loader)))
        return 1;
    int seen = 0;
    pthread_mutex_lock(&g_loaders);
    for (uint32_t i = 0; i < g_ngood && !seen; i++)
        seen = (*jni)->IsSameObject(jni, g_good[i], loader);
    pthread_mutex_unlock(&g_loaders);
    return seen;
}

void ht_drag_loaders_say(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *dot)
{
    if (atomic_exchange(&g_said_loader, 1)) return;
    char *sig = NULL;
    jclass lk = jni && loader ? (*jni)->GetObjectClass(jni, loader) : NULL;
    if (lk && (*jvmti)->GetClassSignature(jvmti, lk, &sig, NULL) != JVMTI_ERROR_NONE) sig = NULL;
    ht_log("drag mode: class %s left alone: its class loader (%s) does not see heaptop.Drag "
           "(it does not delegate to the JDK's loaders); such classes count as failed (said once)",
           dot, sig ? sig : "of unknown class");
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (lk) (*jni)->DeleteLocalRef(jni, lk);
}

void ht_drag_loaders_find_jdk(JNIEnv *jni)
{
    if (g_sys_loader) return;
    jclass cl = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    jmethodID sys =
        cl ? (*jni)->GetStaticMethodID(jni, cl, "getSystemClassLoader", "()Ljava/lang/ClassLoader;")
           : NULL;
    jmethodID plat = sys ? (*jni)->GetStaticMethodID(jni, cl, "getPlatformClassLoader",
                                                     "()Ljava/lang/ClassLoader;")
                         : NULL;
    jobject s = plat ? (*jni)->CallStaticObjectMethod(jni, cl, sys) : NULL;
    if (ht_jni_cleared(jni)) s = NULL;
    jobject p = plat ? (*jni)->CallStaticObjectMethod(jni, cl, plat) : NULL;
    if (ht_jni_cleared(jni)) p = NULL;
    ht_jni_cleared(jni);
    g_plat_loader = p ? (*jni)->NewGlobalRef(jni, p) : NULL;
    g_sys_loader = s ? (*jni)->NewGlobalRef(jni, s) : NULL;
    if (s) (*jni)->DeleteLocalRef(jni, s);
    if (p) (*jni)->DeleteLocalRef(jni, p);
    if (cl) (*jni)->DeleteLocalRef(jni, cl);
}

/* Forget the checked loaders that are gone. */
static uint32_t drop_gone(JNIEnv *jni, jweak *list, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((*jni)->IsSameObject(jni, list[i], NULL))
            (*jni)->DeleteWeakGlobalRef(jni, list[i]);
        else
            list[k++] = list[i];
    }
    return k;
}

int ht_drag_loaders_check(JNIEnv *jni, jobject loader, jclass helper)
{
    if (ht_drag_loaders_sees(jni, loader)) return 1;
    for (uint32_t i = 0; i < g_nbad; i++)
        if ((*jni)->IsSameObject(jni, g_bad[i], loader)) return 0;
    jclass cls = (*jni)->FindClass(jni, "java/lang/Class");
    jmethodID for_name = cls ? (*jni)->GetStaticMethodID(
                                   jni, cls, "forName",
                                   "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
                             : NULL;
    jstring dotted = for_name ? (*jni)->NewStringUTF(jni, "heaptop.Drag") : NULL;
    jobject got =
        dotted ? (*jni)->CallStaticObjectMethod(jni, cls, for_name, dotted, JNI_FALSE, loader)
               : NULL;
    if (ht_jni_cleared(jni)) got = NULL;
    int sees = got && (*jni)->IsSameObject(jni, got, helper);
    if (got) (*jni)->DeleteLocalRef(jni, got);
    if (dotted) (*jni)->DeleteLocalRef(jni, dotted);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    ht_jni_cleared(jni);
    jweak w = (*jni)->NewWeakGlobalRef(jni, loader);
    if (!w) return sees;
    if (sees) {
        pthread_mutex_lock(&g_loaders);
        if (g_ngood == MAX_GOOD_LOADERS) g_ngood = drop_gone(jni, g_good, g_ngood);
        if (g_ngood < MAX_GOOD_LOADERS) {
            g_good[g_ngood++] = w;
            w = NULL;
        }
        pthread_mutex_unlock(&g_loaders);
    } else {
        if (g_nbad == MAX_BAD_LOADERS) g_nbad = drop_gone(jni, g_bad, g_nbad);
        if (g_nbad < MAX_BAD_LOADERS) {
            g_bad[g_nbad++] = w;
            w = NULL;
        }
    }
    if (w) (*jni)->DeleteWeakGlobalRef(jni, w);
    return sees;
}
