/*
 * Drag.java - drag mode's helper, defined by the agent in the boot loader
 * (agent/drag.c) and called at the entry of the instance methods of the
 * classes of the filter (agent/class_rewrite.c injects
 * "aload_0; sipush cid; invokestatic heaptop/Drag.touch(Ljava/lang/Object;I)V; nop").
 *
 * Owns: per instrumented class (cid), at most SLOTS sampled objects tracked
 * at once, each as a WeakReference (it keeps nothing alive) with the
 * System.nanoTime() of its first and last use (0: not used yet). touch runs
 * on the application's threads: no lock, no allocation, no JNI; for a class
 * with no tracked object it is a volatile read, an array read and a
 * branch or two; for one with, a count and a look through its slots. register,
 * release and the readers run on the agent's collector thread, through JNI.
 * It must never throw into the application: touch cannot (cid is below
 * MAX_CLASSES by the rewrite's sipush, and seen checks a class's arrays
 * for null before it reads them).
 */
package heaptop;

import java.lang.ref.WeakReference;

public final class Drag {
    /** Tracked objects per instrumented class at once. */
    public static final int SLOTS = 8;
    /** Class ids: 1..MAX_CLASSES-1 (sipush takes 32767 at most). */
    public static final int MAX_CLASSES = 32768;

    /* Tracked objects in all classes now. touch reads it first: a volatile
     * read is one load on x86, and as an acquire it keeps a loop that inlined
     * touch from hoisting the read of ACTIVE below (that loop would not see
     * its class become tracked). */
    private static volatile int tracked;
    /* Tracked objects per class now; written before tracked's release. */
    private static final int[] ACTIVE = new int[MAX_CLASSES];
    /* Per class, the calls that looked through its slots (a plain, racy
     * count: an estimate). The agent reads it each second and stops tracking
     * in a class whose calls cost more than its budget (agent/drag_guard.h):
     * Jython calls PyObject's methods 2e8 times a second, and a look through
     * 8 slots at each made it 3.8x slower. */
    private static final int[] SCANS = new int[MAX_CLASSES];
    private static final WeakReference<?>[][] REFS = new WeakReference<?>[MAX_CLASSES][];
    private static final long[][] FIRST = new long[MAX_CLASSES][];
    private static final long[][] LAST = new long[MAX_CLASSES][];

    private Drag() {}

    /** The injected call: o was used (one of its instance methods entered). */
    public static void touch(Object o, int cid) {
        if (tracked != 0 && ACTIVE[cid] != 0) seen(o, cid);
    }

    /* touch's slow path, out of line: touch is inlined into every method of
     * the filter, and the smaller it is the less it costs the JIT there. */
    private static void seen(Object o, int cid) {
        SCANS[cid]++;
        /* read once each and checked: ACTIVE is a plain array, so a touch
         * may see a class's first register's ACTIVE[cid] before the arrays
         * that register made (the JIT or the CPU may reorder its stores) */
        WeakReference<?>[] r = REFS[cid];
        long[] f = FIRST[cid], l = LAST[cid];
        if (r == null || f == null || l == null) return;
        for (int i = 0; i < r.length; i++) {
            /* refersTo(T) takes no argument through a wildcard */
            @SuppressWarnings("unchecked")
            WeakReference<Object> w = (WeakReference<Object>) r[i];
            if (w != null && w.refersTo(o)) {
                long now = System.nanoTime();
                if (f[i] == 0) f[i] = now;
                l[i] = now;
                return;
            }
        }
    }

    /** Tracks o in a class's slot (the agent chose a free one). */
    static void register(Object o, int cid, int slot) {
        if (REFS[cid] == null) {
            FIRST[cid] = new long[SLOTS];
            LAST[cid] = new long[SLOTS];
            REFS[cid] = new WeakReference<?>[SLOTS];
        }
        FIRST[cid][slot] = 0;
        LAST[cid][slot] = 0;
        REFS[cid][slot] = new WeakReference<>(o);
        ACTIVE[cid]++;
        tracked++; /* the volatile write last: a touch that sees it sees the slot */
    }

    /** The slot's first use, System.nanoTime(), 0 if never used. */
    static long first(int cid, int slot) {
        long[] f = FIRST[cid];
        return f == null ? 0 : f[slot];
    }

    /** The slot's last use, System.nanoTime(), 0 if never used. */
    static long last(int cid, int slot) {
        long[] l = LAST[cid];
        return l == null ? 0 : l[slot];
    }

    /** Frees a slot (its object died, or drag mode was turned off). */
    static void release(int cid, int slot) {
        WeakReference<?>[] r = REFS[cid];
        if (r == null || r[slot] == null) return;
        ACTIVE[cid]--;
        tracked--;
        r[slot].clear();
        r[slot] = null;
    }
}
