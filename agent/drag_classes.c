/* drag_classes.c - see drag_classes.h. */
#include "drag_classes.h"

#include "class_rewrite.h"
#include "log.h"
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRANSFORM_BATCH 64

void ht_drag_dotted(const char *internal, char *out, size_t n)
{
    size_t i = 0;
    for (; internal[i] && i + 1 < n; i++)
        out[i] = internal[i] == '/' ? '.' : internal[i];
    out[i] = '\0';
}

/* Does a class have a method the rewrite would inject into (an instance
 * method with code, not a constructor)? 1 yes, 0 no, -1 not known: the class
 * is loaded but not prepared (GetClassMethods refuses it), and the hook may
 * have rewritten it at its load. */
static int has_instance_code(jvmtiEnv *jvmti, jclass k)
{
    jboolean iface = JNI_FALSE;
    if ((*jvmti)->IsInterface(jvmti, k, &iface) != JVMTI_ERROR_NONE || iface) return 0;
    jint n = 0;
    jmethodID *ms = NULL;
    jvmtiError e = (*jvmti)->GetClassMethods(jvmti, k, &n, &ms);
    if (e == JVMTI_ERROR_CLASS_NOT_PREPARED) return -1;
    if (e != JVMTI_ERROR_NONE) return 0;
    int found = 0;
    for (jint i = 0; i < n && !found; i++) {
        jint mod = 0;
        char *name = NULL;
        if ((*jvmti)->GetMethodModifiers(jvmti, ms[i], &mod) != JVMTI_ERROR_NONE ||
            (mod & (0x0008 | 0x0100 | 0x0400))) /* static, native, abstract */
            continue;
        if ((*jvmti)->GetMethodName(jvmti, ms[i], &name, NULL, NULL) == JVMTI_ERROR_NONE && name) {
            found = name[0] != '<'; /* <init> */
            (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
    return found;
}

void ht_drag_retransform(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, ht_drag_pick_fn pick_fn,
                         void *ctx, ht_drag_retransformed *out)
{
    *out = (ht_drag_retransformed){.classes = 0};
    jint n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
    jclass *pick = malloc(((size_t)n + 1) * sizeof *pick);
    jint k = 0;
    for (jint i = 0; pick && i < n; i++) {
        char *sig = NULL;
        jboolean ok = JNI_FALSE;
        if ((*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL) == JVMTI_ERROR_NONE && sig) {
            size_t len = strlen(sig);
            if (sig[0] == 'L' && len > 2 && len < HT_DRAG_NAME_MAX) {
                char dot[HT_DRAG_NAME_MAX];
                sig[len - 1] = '\0';
                ht_drag_dotted(sig + 1, dot, sizeof dot);
                if (ht_drag_filter_matches(filter, dot) &&
                    strcmp(sig + 1, HT_DRAG_HELPER_CLASS) != 0 &&
                    (*jvmti)->IsModifiableClass(jvmti, all[i], &ok) == JVMTI_ERROR_NONE && ok &&
                    pick_fn(ctx, all[i], sig + 1, has_instance_code(jvmti, all[i])))
                    pick[k++] = all[i];
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        }
    }
    out->classes = (uint32_t)k;
    for (jint at = 0; at < k; at += RETRANSFORM_BATCH) {
        jint m = k - at < RETRANSFORM_BATCH ? k - at : RETRANSFORM_BATCH;
        if ((*jvmti)->RetransformClasses(jvmti, m, pick + at) == JVMTI_ERROR_NONE) continue;
        for (jint j = 0; j < m; j++) /* one by one: which did it refuse? */
            if ((*jvmti)->RetransformClasses(jvmti, 1, pick + at + j) != JVMTI_ERROR_NONE)
                out->refused++;
    }
    free(pick);
    for (jint i = 0; jni && i < n; i++)
        (*jni)->DeleteLocalRef(jni, all[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

int ht_drag_take_caps(jvmtiEnv *jvmti, char *err, size_t errn)
{
    static int g_caps; /* the capabilities are ours: collector thread, or OnLoad */
    if (g_caps) return 0;
    jvmtiCapabilities pot, caps;
    memset(&pot, 0, sizeof pot);
    memset(&caps, 0, sizeof caps);
    if ((*jvmti)->GetPotentialCapabilities(jvmti, &pot) != JVMTI_ERROR_NONE ||
        !pot.can_retransform_classes) {
        snprintf(err, errn,
                 "this JVM cannot retransform classes (can_retransform_classes), which drag "
                 "mode needs");
        return -1;
    }
    caps.can_retransform_classes = 1;
    caps.can_generate_all_class_hook_events = pot.can_generate_all_class_hook_events;
    jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (e != JVMTI_ERROR_NONE) {
        char num[32];
        snprintf(err, errn, "the JVM refused drag mode's capabilities (%s)",
                 ht_jvmti_error_name(e, num, sizeof num));
        return -1;
    }
    g_caps = 1;
    return 0;
}

int ht_drag_same_loader(void *ctx, const void *stored, const void *probe)
{
    JNIEnv *jni = ctx;
    return jni && (*jni)->IsSameObject(jni, (jobject)stored, (jobject)probe);
}

int ht_drag_loader_gone(void *ctx, const void *stored)
{
    JNIEnv *jni = ctx;
    return jni && (*jni)->IsSameObject(jni, (jobject)stored, NULL);
}

void ht_drag_drop_loader(void *ctx, void *stored)
{
    JNIEnv *jni = ctx;
    if (jni) (*jni)->DeleteWeakGlobalRef(jni, (jweak)stored);
}

uint8_t *ht_drag_jvmti_alloc(void *ctx, size_t n)
{
    jvmtiEnv *jvmti = ctx;
    unsigned char *mem = NULL;
    if (n > INT32_MAX || (*jvmti)->Allocate(jvmti, (jlong)n, &mem) != JVMTI_ERROR_NONE) return NULL;
    return mem;
}
