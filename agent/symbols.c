/* symbols.c - see symbols.h. */
#include "symbols.h"

#include "agent_state.h"

#include <stdlib.h>
#include <string.h>

static int idlist_add(ht_idlist *l, uint32_t id)
{
    if (l->n == l->cap) {
        uint32_t ncap = l->cap ? l->cap * 2 : 64;
        uint32_t *ids = realloc(l->ids, (size_t)ncap * sizeof *ids);
        if (!ids) return -1;
        l->ids = ids;
        l->cap = ncap;
    }
    l->ids[l->n++] = id;
    return 0;
}

/* Grow a pointer array indexed by id so that id fits. */
static int fit_names(char ***arr, uint32_t *cap, uint32_t id)
{
    if (id < *cap) return 0;
    uint32_t ncap = *cap ? *cap : 256;
    while (ncap <= id)
        ncap *= 2;
    char **n = realloc(*arr, (size_t)ncap * sizeof *n);
    if (!n) return -1;
    memset(n + *cap, 0, (size_t)(ncap - *cap) * sizeof *n);
    *arr = n;
    *cap = ncap;
    return 0;
}

int ht_symbols_init(ht_symbols *s)
{
    memset(s, 0, sizeof *s);
    ht_map_init(&s->mindex);
    ht_hidden_names_init(&s->hidden);
    return ht_map_reserve(&s->mindex, 4096);
}

/* The name users see: Java's, with hidden classes made stable across runs. */
static char *class_java_name(ht_symbols *s, jvmtiEnv *jvmti, jclass cls)
{
    char *sig = NULL;
    char buf[1024];
    if (!cls || (*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
        return strdup("<unknown class>");
    ht_class_name_from_signature(sig, buf, sizeof buf);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    char *shown = ht_hidden_display(&s->hidden, buf);
    return shown ? shown : strdup(buf);
}

/* Method id for a jmethodID, resolving its names on first sight; 0 on failure. */
static uint32_t method_id(ht_symbols *s, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid)
{
    uint64_t key = (uint64_t)(uintptr_t)mid, known;
    if (ht_map_get(&s->mindex, key, &known)) return (uint32_t)known;
    if (s->nmethods == s->cap_methods) {
        uint32_t ncap = s->cap_methods ? s->cap_methods * 2 : 1024;
        ht_method *m = realloc(s->methods, (size_t)ncap * sizeof *m);
        if (!m) return 0;
        s->methods = m;
        s->cap_methods = ncap;
    }
    ht_method *m = &s->methods[s->nmethods];
    memset(m, 0, sizeof *m);
    m->mid = mid;
    char *name = NULL;
    if ((*jvmti)->GetMethodName(jvmti, mid, &name, NULL, NULL) == JVMTI_ERROR_NONE && name) {
        m->name = strdup(name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    } else {
        m->name = strdup("<unknown method>");
    }
    jclass cls = NULL;
    (*jvmti)->GetMethodDeclaringClass(jvmti, mid, &cls);
    m->cls = class_java_name(s, jvmti, cls);
    char *src = NULL;
    if (cls && (*jvmti)->GetSourceFileName(jvmti, cls, &src) == JVMTI_ERROR_NONE && src) {
        m->src = strdup(src);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)src);
    } else {
        m->src = strdup("");
    }
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    if (ht_map_put(&s->mindex, key, s->nmethods + 1) != 0) {
        free(m->name);
        free(m->cls);
        free(m->src);
        return 0;
    }
    s->nmethods++;
    idlist_add(&s->new_methods, s->nmethods);
    return s->nmethods;
}

static int32_t frame_line(jvmtiEnv *jvmti, jmethodID mid, jlocation loc)
{
    jboolean native = JNI_FALSE;
    if ((*jvmti)->IsMethodNative(jvmti, mid, &native) == JVMTI_ERROR_NONE && native)
        return HT_LINE_NATIVE;
    if (loc < 0) return HT_LINE_UNKNOWN;
    jint n = 0;
    jvmtiLineNumberEntry *tab = NULL;
    if ((*jvmti)->GetLineNumberTable(jvmti, mid, &n, &tab) != JVMTI_ERROR_NONE || !tab)
        return HT_LINE_UNKNOWN;
    int32_t line = HT_LINE_UNKNOWN;
    int64_t best = -1;
    for (jint i = 0; i < n; i++) {
        if (tab[i].start_location <= loc && tab[i].start_location > best) {
            best = tab[i].start_location;
            line = tab[i].line_number;
        }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)tab);
    return line;
}

static void resolve_trace(ht_symbols *s, jvmtiEnv *jvmti, JNIEnv *jni, ht_trace *t)
{
    if (s->ntraces == s->cap_traces) {
        uint32_t ncap = s->cap_traces ? s->cap_traces * 2 : 1024;
        ht_rtrace *n = realloc(s->traces, (size_t)ncap * sizeof *n);
        if (!n) return;
        s->traces = n;
        s->cap_traces = ncap;
    }
    ht_rtrace *rt = &s->traces[s->ntraces];
    rt->id = t->id;
    rt->depth = (uint16_t)t->depth;
    rt->frames = calloc(t->depth ? t->depth : 1, sizeof *rt->frames);
    if (!rt->frames) return;
    for (uint32_t i = 0; i < t->depth; i++) {
        rt->frames[i].method_id = method_id(s, jvmti, jni, t->frames[i].method);
        rt->frames[i].line = frame_line(jvmti, t->frames[i].method, t->frames[i].location);
    }
    idlist_add(&s->new_traces, s->ntraces);
    s->ntraces++;
}

static void release_pins(JNIEnv *jni, ht_trace *t)
{
    jobject *refs = t->pins;
    if (!refs) return;
    for (uint32_t i = 0; i < t->depth; i++)
        if (refs[i]) (*jni)->DeleteGlobalRef(jni, refs[i]);
    free(refs);
    t->pins = NULL;
}

void ht_symbols_drain(ht_symbols *s, jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&ht_g.new_lock);
    ht_new_class *classes = ht_g.new_classes;
    ht_g.new_classes = NULL;
    pthread_mutex_unlock(&ht_g.new_lock);

    while (classes) {
        ht_new_class *next = classes->next;
        if (fit_names(&s->classes, &s->cap_classes, classes->id) == 0) {
            free(s->classes[classes->id]);
            s->classes[classes->id] = class_java_name(s, jvmti, classes->ref);
            idlist_add(&s->new_classes, classes->id);
        }
        if (classes->ref) (*jni)->DeleteGlobalRef(jni, classes->ref);
        free(classes);
        classes = next;
    }
    /* Newest first from the table; resolve oldest first for a stable order. */
    ht_trace *list = ht_trace_take_new(ht_g.traces), *rev = NULL;
    while (list) {
        ht_trace *next = list->next_new;
        list->next_new = rev;
        rev = list;
        list = next;
    }
    for (ht_trace *t = rev; t; t = t->next_new) {
        resolve_trace(s, jvmti, jni, t);
        release_pins(jni, t);
    }
}

static void emit_names(ht_sink *sink, uint16_t type, char **names, uint32_t cap,
                       const ht_idlist *only)
{
    ht_batch b;
    ht_batch_init(&b, sink, type);
    uint32_t n = only ? only->n : cap;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = only ? only->ids[k] : k;
        if (id >= cap || !names[id]) continue;
        ht_batch_record(&b);
        ht_enc_class(&b.buf, id, names[id]);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);
}

void ht_symbols_emit(ht_symbols *s, ht_sink *sink, int fresh)
{
    emit_names(sink, HT_MSG_CLASSES, s->classes, s->cap_classes, fresh ? &s->new_classes : NULL);

    ht_batch b;
    ht_batch_init(&b, sink, HT_MSG_METHODS);
    uint32_t n = fresh ? s->new_methods.n : s->nmethods;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = fresh ? s->new_methods.ids[k] : k + 1;
        const ht_method *m = &s->methods[id - 1];
        ht_batch_record(&b);
        ht_enc_method(&b.buf, id, m->cls, m->name, m->src);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);

    ht_batch_init(&b, sink, HT_MSG_TRACES);
    n = fresh ? s->new_traces.n : s->ntraces;
    for (uint32_t k = 0; k < n; k++) {
        const ht_rtrace *t = &s->traces[fresh ? s->new_traces.ids[k] : k];
        if (!t->frames) continue;
        ht_batch_record(&b);
        ht_enc_trace_head(&b.buf, t->id, t->depth);
        for (uint32_t f = 0; f < t->depth; f++)
            ht_enc_frame(&b.buf, t->frames[f].method_id, t->frames[f].line);
        ht_batch_done(&b);
    }
    ht_batch_finish(&b);
}

void ht_symbols_clear_new(ht_symbols *s)
{
    s->new_classes.n = s->new_methods.n = s->new_traces.n = 0;
}
