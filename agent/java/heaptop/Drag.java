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
 * with no tracked object it is one volatile read and a branch. register,
 * release and the readers run on the agent's collector thread, through JNI.
 * It must never throw into the application: touch cannot (cid is checked
 * against the arrays' length by the caller's rewrite, and the arrays are
 * allocated before a cid is handed out).
 */
package heaptop;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicIntegerArray;

public final class Drag {
    /** Tracked objects per instrumented class at once. */
    public static final int SLOTS = 8;
    /** Class ids: 1..MAX_CLASSES-1 (sipush takes 32767 at most). */
    public static final int MAX_CLASSES = 32768;

    /* Tracked objects per class now: touch's volatile read, so a loop that
     * inlined touch sees a class become tracked. */
    private static final AtomicIntegerArray ACTIVE = new AtomicIntegerArray(MAX_CLASSES);
    private static final WeakReference<?>[][] REFS = new WeakReference<?>[MAX_CLASSES][];
    private static final long[][] FIRST = new long[MAX_CLASSES][];
    private static final long[][] LAST = new long[MAX_CLASSES][];

    private Drag() {}

    /** The injected call: o was used (one of its instance methods entered). */
    public static void touch(Object o, int cid) {
        if (ACTIVE.get(cid) == 0) return;
        WeakReference<?>[] r = REFS[cid];
        for (int i = 0; i < r.length; i++) {
            /* refersTo(T) takes no argument through a wildcard */
            @SuppressWarnings("unchecked")
            WeakReference<Object> w = (WeakReference<Object>) r[i];
            if (w != null && w.refersTo(o)) {
                long now = System.nanoTime();
                long[] f = FIRST[cid];
                if (f[i] == 0) f[i] = now;
                LAST[cid][i] = now;
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
        ACTIVE.incrementAndGet(cid); /* after the slot: a touch that sees it sees the slot */
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
        ACTIVE.decrementAndGet(cid);
        r[slot].clear();
        r[slot] = null;
    }
}
