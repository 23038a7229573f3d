/*
 * agent.c - entry points: Agent_OnLoad, Agent_OnAttach, VMInit, VMDeath.
 *
 * Owns: start-up order and shutdown. Options are parsed and the sockets opened
 * before anything is enabled, so a bad option, an unsafe socket directory or a
 * socket path in use refuses to load with one line on stderr and leaves the
 * JVM untouched. The socket files are created after VMInit, by the collector
 * thread once it can answer (collector.h): a JVM that fails to start after
 * loading the agent (no heap, another agent failing) exits through vm_abort's
 * _exit, which runs no code of ours, so there must be no file yet. Load
 * and attach share one path (ht_start); attach only differs in that the VM is
 * already live. A detach (collector.h) turns the events off and ends the
 * collector; the library stays and the phase is DETACHED, and a later
 * Agent_OnAttach starts it again (restart) with new options, reusing what the
 * first start allocated. An Agent_OnAttach while it runs changes nothing. At VM death the collector
 * flushes and says goodbye within a bounded time: the JVM's exit is never held up for long.
 * Whatever way the process leaves once the sockets exist, the socket files go with it where any
 * code of ours still runs: the transport's exit hook and Agent_OnUnload unlink
 * them (never through nng). A JVM that ends with _exit or SIGKILL runs none
 * (HotSpot's -XX:+ExitOnOutOfMemoryError is an _exit). Heap dumps not asked
 * to be kept (heapdump.h) are removed on the same ways out.
 *
 * The goodbye must not depend on VM death either. A JVM whose heap stays full
 * after main ends (an OutOfMemoryError that left its leak reachable) cannot
 * allocate the Thread object DestroyJavaVM attaches with: DestroyJavaVM fails,
 * no VM death is posted, and the launcher calls exit() with the VM still
 * running. Measured: a leaking program at -Xmx64m ended so, and its viewers
 * were told "went away without a goodbye" (the TUI's "JVM gone", kept for a
 * kill). So an exit hook, registered after the transport's (exit hooks run
 * last first: ours before the one that unlinks the sockets), does what VM
 * death would: the collector says goodbye, as bounded as at VM death. It does
 * nothing when VM death came first, after a detach, or on a thread attached to
 * the VM: that is HotSpot's -XX:+ExitOnOutOfMemoryError (an exit() up to JDK
 * 17) from a thread in the VM's own state, where the collector's next JNI
 * call waits for a safepoint that thread never reaches (measured: the exit
 * took the whole 2 s, and no goodbye went out).
 */
#include "agent_state.h"
#include "auth.h"
#include "collector.h"
#include "cpu_async.h"
#include "cpu_sampler.h"
#include "drag.h"
#include "heapdump.h"
#include "log.h"
#include "protocol.h"
#include "sampler.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int g_loaded; /* one agent instance per JVM */

static void warn_interval0_on_old_jdk(jvmtiEnv *jvmti, JNIEnv *jni);

/* listen=: over TCP, with the key (auth.h): key=@FILE's, or a new one written
 * to BASE.key beside the sockets (a private directory). Without a key nothing
 * is served over TCP; the local sockets go on either way. */
static void listen_tcp(void)
{
    char err[768], why[512] = "", file[300];
    ht_key key;
    int made = !ht_g.opt.key[0], ok = 0;
    if (!made) snprintf(file, sizeof file, "%s", ht_g.opt.key); /* key=@FILE */
    if (made && ht_ipc_file(file, sizeof file, ht_g.base, ".key") != 0)
        snprintf(why, sizeof why, "the key file's path %s.key is too long", ht_g.base);
    else if (ht_auth_init() != 0)
        snprintf(why, sizeof why, "libsodium cannot start");
    else if (made)
        ok = ht_key_create(file, &key, why, sizeof why) == 0;
    else
        ok = ht_key_load(file, geteuid(), &key, why, sizeof why) == 0;
    if (!ok) {
        ht_log("not listening on TCP: %s; viewers on this host can still connect", why);
        ht_transport_tcp_failed(why);
    } else if (ht_transport_listen_tcp(ht_g.opt.listen_host, ht_g.opt.listen_port, &key, file, made,
                                       err, sizeof err) != 0) {
        ht_log("%s; viewers on this host can still connect", err);
    }
    memset(&key, 0, sizeof key);
}

/* Called by the collector thread once it can answer (collector.h). */
static void open_sockets(void)
{
    char err[512];
    if (ht_transport_listen(err, sizeof err) != 0)
        ht_log("%s; sampling stays on but no viewer can connect", err);
    else if (ht_g.opt.listen_host[0])
        listen_tcp();
}

/* exit() without VM death (see the top): the goodbye VM death would say. Runs
 * on the exiting thread; never a JVMTI call (it may not be attached). */
static void goodbye_at_exit(void)
{
    void *env = NULL;
    if (!ht_g.vm || (*ht_g.vm)->GetEnv(ht_g.vm, &env, JNI_VERSION_1_8) != JNI_EDETACHED) return;
    int running = HT_PHASE_RUNNING;
    if (!atomic_compare_exchange_strong(&ht_g.phase, &running, HT_PHASE_DYING)) return;
    atomic_store(&ht_g.sampling, 0);
    ht_collector_stop(); /* the loop sees DYING and says goodbye; waits at most ~2 s */
    atomic_store(&ht_g.phase, HT_PHASE_DEAD);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    /* after the transport's hook (registered at load), so it runs before it */
    static int exit_hook;
    if (!exit_hook && atexit(goodbye_at_exit) == 0) exit_hook = 1;
    atomic_store(&ht_g.phase, HT_PHASE_RUNNING);
    /* VMInit runs on the main thread, which has no ThreadStart: its tid and
     * JNI environment for cpu=async (NULL at attach: another thread) */
    if (thread) ht_cpu_sampler_thread_start(jvmti, jni, thread);
    warn_interval0_on_old_jdk(jvmti, jni);
    if (ht_collector_start(jvmti, jni, open_sockets) != 0)
        ht_log("could not start the collector thread; sampling stays on but no viewer can "
               "connect");
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                       NULL);
    atomic_store(&ht_g.sampling, 0);
    atomic_store(&ht_g.phase, HT_PHASE_DYING);
    ht_collector_stop();
    ht_heapdump_remove_files(); /* the dumps not asked to be kept go with the JVM */
    atomic_store(&ht_g.phase, HT_PHASE_DEAD);
}

/* The VM's own value of -XX:UseTLAB, wherever it was set (command line,
 * JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, _JAVA_OPTIONS, @argfiles, flags files):
 * 1 on, 0 off, -1 when the VM cannot say (no jdk.management module). Asks
 * jdk.management's internal Flag class, the one HotSpotDiagnosticMXBean uses,
 * through JNI (no module access check), without the MXBean machinery. Its
 * natives live in libmanagement_ext, which the MXBean provider loads for the
 * boot loader (Flag's own initializer loads libmanagement on JDK 17): load it
 * the same way first. Every Java exception is cleared; local references go with
 * the frame. */
static int tlab_in_use(JNIEnv *jni)
{
    if ((*jni)->PushLocalFrame(jni, 16) != 0) {
        ht_jni_cleared(jni);
        return -1;
    }
    int on = -1;
    jclass boot = (*jni)->FindClass(jni, "jdk/internal/loader/BootLoader");
    jmethodID load =
        boot && !ht_jni_cleared(jni)
            ? (*jni)->GetStaticMethodID(jni, boot, "loadLibrary", "(Ljava/lang/String;)V")
            : NULL;
    jstring lib = load && !ht_jni_cleared(jni) ? (*jni)->NewStringUTF(jni, "management_ext") : NULL;
    if (lib && !ht_jni_cleared(jni)) (*jni)->CallStaticVoidMethod(jni, boot, load, lib);
    ht_jni_cleared(jni); /* without it Flag may still work (its natives found elsewhere) */
    jclass flag = (*jni)->FindClass(jni, "com/sun/management/internal/Flag");
    jmethodID get = NULL, value = NULL, bool_value = NULL;
    jobject f = NULL, v = NULL;
    jclass boolean = NULL;
    jstring name = NULL;
    if (flag && !ht_jni_cleared(jni))
        get = (*jni)->GetStaticMethodID(jni, flag, "getFlag",
                                        "(Ljava/lang/String;)Lcom/sun/management/internal/Flag;");
    if (get && !ht_jni_cleared(jni)) name = (*jni)->NewStringUTF(jni, "UseTLAB");
    if (name && !ht_jni_cleared(jni)) f = (*jni)->CallStaticObjectMethod(jni, flag, get, name);
    if (f && !ht_jni_cleared(jni))
        value = (*jni)->GetMethodID(jni, flag, "getValue", "()Ljava/lang/Object;");
    if (value && !ht_jni_cleared(jni)) v = (*jni)->CallObjectMethod(jni, f, value);
    if (v && !ht_jni_cleared(jni)) boolean = (*jni)->FindClass(jni, "java/lang/Boolean");
    if (boolean && !ht_jni_cleared(jni) && (*jni)->IsInstanceOf(jni, v, boolean))
        bool_value = (*jni)->GetMethodID(jni, boolean, "booleanValue", "()Z");
    if (bool_value && !ht_jni_cleared(jni)) {
        jboolean b = (*jni)->CallBooleanMethod(jni, v, bool_value);
        if (!ht_jni_cleared(jni)) on = b ? 1 : 0;
    }
    ht_jni_cleared(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    return on;
}

/* Measured: JDK 17's HotSpot skips about a quarter of TLAB allocations at
 * interval 0 (JDK 25 samples all of them; -XX:-UseTLAB makes JDK 17 exact).
 * Say so rather than under-count quietly, unless TLABs are already off. Runs
 * at VMInit (JNI is needed) on the thread that calls it: recording is paused
 * meanwhile so the agent's own allocations (a class loaded, a few objects, 2-7
 * ms measured, only at interval 0 on JDK < 21) are not counted as the application's;
 * at load the application has not started yet, at attach it only starts
 * recording that much later. */
static void warn_interval0_on_old_jdk(jvmtiEnv *jvmti, JNIEnv *jni)
{
    char *v = NULL;
    if (ht_g.opt.interval != 0 ||
        (*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &v) !=
            JVMTI_ERROR_NONE ||
        !v)
        return;
    if (atoi(v) < 21) {
        int was = atomic_exchange(&ht_g.sampling, 0);
        int tlab = tlab_in_use(jni);
        atomic_store(&ht_g.sampling, was);
        if (tlab != 0)
            ht_log("note: at interval=0, JDK %s skips some allocations made in TLABs; add "
                   "-XX:-UseTLAB for exact counts",
                   v);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
}

static int fail(const char *what, jvmtiError err)
{
    char num[32];
    ht_log("%s failed (%s); the agent is not loaded", what,
           ht_jvmti_error_name(err, num, sizeof num));
    return JNI_ERR;
}

/* The interval, then the events recording needs, sampling last. */
static jvmtiError enable_recording(jvmtiEnv *jvmti)
{
    jvmtiError e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)ht_g.opt.interval);
    if (e != JVMTI_ERROR_NONE) return e;
    /* which interval each thread's first gap was drawn with (estimate.h) */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                       NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
                                       NULL);
    atomic_store(&ht_g.sampling, 1);
    return (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                              NULL);
}

void ht_agent_quiesce(jvmtiEnv *jvmti)
{
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                       NULL);
    atomic_store(&ht_g.sampling, 0);
    atomic_store(&ht_g.tracking, 0);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_END, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                       NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
                                       NULL);
    /* the next attach may sample at another interval: HotSpot's default meanwhile */
    (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)HT_DEFAULT_INTERVAL);
}

/* The options and clocks a (re)start sets; the socket base from the options. */
static int take_options(ht_options *o)
{
    ht_g.opt = *o;
    ht_options_format(&ht_g.opt, ht_g.options_text, sizeof ht_g.options_text);
    if (ht_g.opt.ipc[0])
        snprintf(ht_g.base, sizeof ht_g.base, "%s", ht_g.opt.ipc);
    else if (ht_ipc_default_base(ht_g.base, sizeof ht_g.base, getpid()) != 0) {
        ht_log("cannot form the default socket path; set ipc=PATH");
        return -1;
    }
    ht_g.start_ns = ht_now_ns();
    struct timeval tv;
    gettimeofday(&tv, NULL);
    ht_g.start_epoch_ms = (uint64_t)tv.tv_sec * 1000ull + (uint64_t)tv.tv_usec / 1000ull;
    atomic_store(&ht_g.interval, ht_g.opt.interval);
    atomic_store(&ht_g.tracking, ht_g.opt.live);
    return 0;
}

/* Agent_OnAttach into a JVM that already has the agent. Running: it stays as
 * it is (a second instance would sample everything twice); the viewer finds it
 * at its socket. Detached: start it again with the new options, reusing what
 * the first start allocated (the trace table, the ring and the names: sampler
 * callbacks may still read them, so they are never freed while the JVM runs). */
static jint restart(JavaVM *vm, char *options)
{
    char err[512];
    int phase = atomic_load(&ht_g.phase);
    if (phase == HT_PHASE_RUNNING) {
        if (options && *options && strcmp(options, ht_g.options_text) != 0)
            ht_log("the agent is already running here (options %s); a second load's options "
                   "'%s' are not applied",
                   ht_g.options_text, options);
        return JNI_OK;
    }
    if (phase != HT_PHASE_DETACHED) {
        ht_log("the agent is already loaded in this JVM");
        return JNI_ERR;
    }
    /* DETACHED is set with the old collector's last act (collector.c): it
     * has finished, and its state can be opened anew */
    ht_options o;
    if (ht_options_parse(options, &o, err, sizeof err) != 0) {
        ht_log("%s", ht_log_unprefixed(err));
        return JNI_ERR;
    }
    if (o.help) {
        ht_options_help(stderr);
        return JNI_ERR;
    }
    /* sized at the first start, in use by callbacks since */
    if (o.max_traces != ht_g.opt.max_traces || o.buffer != ht_g.opt.buffer)
        ht_log("traces= and buffer= keep their first values (%u, %u) when the agent starts "
               "again",
               ht_g.opt.max_traces, ht_g.opt.buffer);
    o.max_traces = ht_g.opt.max_traces;
    o.buffer = ht_g.opt.buffer;
    if (take_options(&o) != 0) return JNI_ERR;
    atomic_store(&ht_g.dropped, 0);
    atomic_store(&ht_g.timed_ns, 0);
    atomic_store(&ht_g.timed_samples, 0);
    atomic_store(&ht_g.time_mask, 63u);
    if (ht_collector_open(err, sizeof err) != 0) {
        ht_log("%s; the agent stays detached", err);
        return JNI_ERR;
    }
    JNIEnv *jni = NULL;
    jvmtiError e = JVMTI_ERROR_NONE;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK ||
        (e = enable_recording(ht_g.jvmti)) != JVMTI_ERROR_NONE) {
        /* nothing half-done: events off, sockets closed, the agent detached */
        ht_agent_quiesce(ht_g.jvmti);
        ht_collector_abandon();
        return fail("restarting (JNI environment or SampledObjectAlloc)", e);
    }
    on_vm_init(ht_g.jvmti, jni, NULL);
    return JNI_OK;
}

static jint ht_start(JavaVM *vm, char *options, int live_phase)
{
    char err[512];
    if (g_loaded) return restart(vm, options);
    memset(&ht_g, 0, sizeof ht_g);
    /* until the collector has seen a second of samples: time one in 64, so a
     * program that allocates hard from its first second does not pay for
     * clock reads on every sample */
    atomic_init(&ht_g.time_mask, 63u);
    if (ht_options_parse(options, &ht_g.opt, err, sizeof err) != 0) {
        ht_log("%s", ht_log_unprefixed(err));
        return JNI_ERR;
    }
    if (ht_g.opt.help) {
        ht_options_help(stderr);
        ht_log("help printed; the agent is not loaded");
        return JNI_ERR;
    }
    if (take_options(&ht_g.opt) != 0) return JNI_ERR;
    /* A socket directory that is not ours and private (another user may have
     * made it first: its path is predictable) is a reason not to serve, never
     * a reason for the JVM not to start: nothing is set up yet, and a later
     * attach can start afresh once the directory is put right. */
    if (ht_ipc_secure_dir(ht_g.base, err, sizeof err) != 0) {
        ht_log("%s; the agent is not started, the JVM runs without it", err);
        return JNI_OK;
    }

    jvmtiEnv *jvmti = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK || !jvmti) {
        ht_log("this JVM has no JVMTI 11 (JDK 11 or later is needed)");
        return JNI_ERR;
    }
    ht_g.jvmti = jvmti;
    ht_g.vm = vm;
    pthread_mutex_init(&ht_g.new_lock, NULL);

    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    caps.can_tag_objects = 1;                        /* class ids live in class mirror tags */
    caps.can_generate_garbage_collection_events = 1; /* GC pauses; live sweeps */
    jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (e != JVMTI_ERROR_NONE) return fail("AddCapabilities (heap sampling)", e);
    /* CPU sampling's (cpu_sampler.h): HotSpot always has it, even on attach */
    memset(&caps, 0, sizeof caps);
    caps.can_get_thread_cpu_time = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        ht_log("this JVM cannot read threads' CPU time; CPU sampling is off");
        ht_g.opt.cpu = HT_CPU_OFF;
    }
    ht_drag_onload(jvmti); /* drag='s, only when given (drag.h) */

    ht_g.traces = ht_trace_table_create(ht_g.opt.max_traces);
    ht_g.events = ht_ring_create(ht_g.opt.buffer, sizeof(ht_event));
    ht_g.max_class_refs = 1u << 20; /* untouched pages cost no memory */
    ht_g.class_refs = calloc(ht_g.max_class_refs, sizeof *ht_g.class_refs);
    if (!ht_g.traces || !ht_g.events || !ht_g.class_refs) {
        ht_log("out of memory at start-up; the agent is not loaded");
        return JNI_ERR;
    }
    if (ht_collector_open(err, sizeof err) != 0) {
        ht_log("%s; the agent is not loaded", err);
        return JNI_ERR;
    }

    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.SampledObjectAlloc = ht_on_sampled_alloc;
    cb.ThreadStart = ht_on_thread_start;
    cb.ThreadEnd = ht_on_thread_end;
    cb.GarbageCollectionStart = ht_on_gc_start;
    cb.GarbageCollectionFinish = ht_on_gc_finish;
    ht_cpu_async_callbacks(&cb);                       /* cpu=async's; enabled only while it runs */
    cb.ClassFileLoadHook = ht_drag_on_class_file_load; /* enabled only while drag mode is on */
    e = (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    if (e != JVMTI_ERROR_NONE) return fail("SetEventCallbacks", e);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    e = enable_recording(jvmti);
    if (e != JVMTI_ERROR_NONE) return fail("enabling SampledObjectAlloc", e);
    g_loaded = 1;

    if (live_phase) {
        JNIEnv *jni = NULL;
        if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
        on_vm_init(jvmti, jni, NULL);
    } else {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    }
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    return ht_start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    return ht_start(vm, options, 1);
}

/* The JVM unloads agents at its shutdown; the files may already be gone. */
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
    ht_transport_remove_files();
    ht_heapdump_remove_files();
}
