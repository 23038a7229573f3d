import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * Classes unloaded while the CPU sampler samples them. Each round, thread
 * "unload-worker" makes a fresh URLClassLoader over the tests' own classes
 * (the platform loader as parent, so CpuUnloadBurner is defined again by it,
 * not found in the application loader), burns about BURN_MS of CPU inside
 * CpuUnloadBurner.burn, then drops the loader and calls System.gc() until the
 * class is collected (a WeakReference to it clears; the VM then unloads it).
 *
 * args: READY GO FACTS ROUNDS BURN_MS. READY is written at once (no warm-up:
 * every round's class is new anyway), the rounds run on GO, then FACTS holds
 * rounds, unloaded (the VM's count of classes unloaded during the rounds),
 * collected (rounds whose class was seen collected), burn.cpu_ns (the worker's
 * CPU inside the burner, timed around each call) and thread.cpu_ns; then the
 * program idles until stopped.
 */
public final class CpuUnloadWorkload {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        String ready = args[0], go = args[1], facts = args[2];
        int rounds = Integer.parseInt(args[3]);
        long burnNs = Long.parseLong(args[4]) * 1_000_000L;
        URL where = CpuUnloadWorkload.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoadingMXBean cl = ManagementFactory.getClassLoadingMXBean();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        TestSupport.writeFacts(ready, TestSupport.facts());
        TestSupport.awaitFile(go, 600_000);
        long unloaded0 = cl.getUnloadedClassCount();
        long[] out = new long[3]; // collected, burn cpu, thread cpu
        Throwable[] failed = new Throwable[1];
        Thread w = new Thread(() -> {
            try {
                for (int r = 0; r < rounds; r++) {
                    WeakReference<Class<?>> gone = round(where, burnNs, mx, out);
                    for (int i = 0; i < 20 && gone.get() != null; i++) System.gc();
                    if (gone.get() == null) out[0]++;
                }
                out[2] = mx.getCurrentThreadCpuTime();
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "unload-worker");
        w.start();
        w.join();
        if (failed[0] != null) throw new RuntimeException(failed[0]);
        Map<String, Object> f = TestSupport.facts();
        f.put("rounds", rounds);
        f.put("unloaded", cl.getUnloadedClassCount() - unloaded0);
        f.put("collected", out[0]);
        f.put("burn.cpu_ns", out[1]);
        f.put("thread.cpu_ns", out[2]);
        TestSupport.writeFacts(facts, f);
        Thread.sleep(600_000);
    }

    /** One round: a new loader and class, BURN of CPU in it; a weak reference to the class. */
    static WeakReference<Class<?>> round(URL where, long burnNs, ThreadMXBean mx, long[] out)
            throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {where},
                                                        ClassLoader.getPlatformClassLoader())) {
            Class<?> c = loader.loadClass("CpuUnloadBurner");
            if (c.getClassLoader() != loader) throw new IllegalStateException("not defined by the round's loader");
            LongUnaryOperator op = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
            long c0 = mx.getCurrentThreadCpuTime(), x = 0;
            while (mx.getCurrentThreadCpuTime() - c0 < burnNs) x ^= op.applyAsLong(200_000);
            out[1] += mx.getCurrentThreadCpuTime() - c0;
            sink = x;
            return new WeakReference<>(c);
        }
    }
}
