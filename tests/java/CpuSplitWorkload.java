import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A known split of CPU by construction, for the CPU sampler's truth tests and
 * its overhead benchmark. Three methods, each a frame of its own (run with
 * -XX:CompileCommand=dontinline,CpuSplitWorkload::spinA and the same for spinB
 * and copy):
 *
 * - spinA(n): a counted loop (xorshift steps, a data dependence the JIT cannot
 *   fold), n steps;
 * - spinB(n): the same loop in another method, called with half of spinA's n
 *   (a 2:1 weight);
 * - copy(len): one System.arraycopy of len longs of a 32 MiB array, a C2
 *   intrinsic stub without a safepoint poll, where JVMTI stack sampling cannot
 *   stop the thread and AsyncGetCallTrace cannot walk.
 *
 * Each phase is timed on its thread: getCurrentThreadCpuTime and nanoTime
 * before and after. Phase lengths vary at random (about 1-6 ms each) so that
 * a 10 ms sampler cannot lock onto the cycle.
 *
 * split READY GO FACTS SECONDS [WARM_SECONDS]: a thread "split-warmup" runs the
 * cycle for WARM_SECONDS (3) so that C2 compiles all three methods, and ends;
 * then READY is written and the program waits for GO. On GO a fresh thread,
 * "split-worker", runs the cycle for SECONDS and ends: its whole life is the
 * window, so any recording that spans GO..FACTS holds all of it and nothing
 * else of it. FACTS then holds the truth (ns): spinA.cpu_ns, spinA.wall_ns,
 * the same for spinB and copy, thread.cpu_ns (the worker's whole CPU, timing
 * included), window.wall_ns, cycles. Then the program idles (one thread in
 * Thread.sleep) until it is stopped.
 *
 * bench THREADS SECONDS REPORT_MS: THREADS CPU-bound threads "bench-i" (spinA
 * and spinB, no allocation) for SECONDS; a daemon thread prints "r NANOTIME
 * PROCESS_CPU_NS ITERATIONS" every REPORT_MS, as AllocBench does, for a
 * benchmark that prices phases of one run against each other.
 */
public final class CpuSplitWorkload {
    static final int ARRAY_LONGS = 4 << 20; // 32 MiB
    static final int SPIN_MIN = 400_000; // xorshift steps: about 1 ms here
    static volatile long sink;

    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    static long spinA(long seed, int n) {
        long x = seed | 1;
        for (int i = 0; i < n; i++) { // SITE:spinA
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long spinB(long seed, int n) {
        long x = seed | 1;
        for (int i = 0; i < n; i++) { // SITE:spinB
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static void copy(long[] src, long[] dst, int len) {
        System.arraycopy(src, 0, dst, 0, len); // SITE:copy
    }

    /** Per-phase totals of one thread: CPU and wall ns of spinA, spinB, copy. */
    static final class Truth {
        final long[] cpu = new long[3], wall = new long[3];
        long cycles;
    }

    /** Run the cycle until `endNs` (nanoTime), adding each phase's time to t. */
    static void cycle(long endNs, Truth t) {
        long[] src = new long[ARRAY_LONGS], dst = new long[ARRAY_LONGS];
        for (int i = 0; i < src.length; i++) src[i] = i * 31L;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long x = r.nextLong();
        while (System.nanoTime() < endNs) {
            int n = SPIN_MIN * (2 + r.nextInt(5)); // 2..6 units for A, half for B
            int len = ARRAY_LONGS / 2 + r.nextInt(ARRAY_LONGS / 2);
            long c0 = MX.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            x = spinA(x, n);
            long c1 = MX.getCurrentThreadCpuTime(), w1 = System.nanoTime();
            x = spinB(x, n / 2);
            long c2 = MX.getCurrentThreadCpuTime(), w2 = System.nanoTime();
            copy(src, dst, len);
            long c3 = MX.getCurrentThreadCpuTime(), w3 = System.nanoTime();
            t.cpu[0] += c1 - c0;
            t.cpu[1] += c2 - c1;
            t.cpu[2] += c3 - c2;
            t.wall[0] += w1 - w0;
            t.wall[1] += w2 - w1;
            t.wall[2] += w3 - w2;
            t.cycles++;
            x ^= dst[len - 1];
        }
        sink = x;
    }

    static void split(String[] args) throws Exception {
        String ready = args[1], go = args[2], facts = args[3];
        long seconds = Long.parseLong(args[4]);
        long warm = args.length > 5 ? Long.parseLong(args[5]) : 3;
        Thread w = new Thread(() -> cycle(System.nanoTime() + warm * 1_000_000_000L, new Truth()),
                              "split-warmup");
        w.start();
        w.join();
        TestSupport.writeFacts(ready, TestSupport.facts());
        TestSupport.awaitFile(go, 600_000);
        Truth t = new Truth();
        long[] threadCpu = new long[1];
        long w0 = System.nanoTime();
        Thread worker = new Thread(() -> {
            cycle(System.nanoTime() + seconds * 1_000_000_000L, t);
            threadCpu[0] = MX.getCurrentThreadCpuTime();
        }, "split-worker");
        worker.start();
        worker.join();
        long wall = System.nanoTime() - w0;
        Map<String, Object> f = TestSupport.facts();
        String[] names = {"spinA", "spinB", "copy"};
        for (int i = 0; i < 3; i++) {
            f.put(names[i] + ".cpu_ns", t.cpu[i]);
            f.put(names[i] + ".wall_ns", t.wall[i]);
        }
        f.put("thread.cpu_ns", threadCpu[0]);
        f.put("window.wall_ns", wall);
        f.put("cycles", t.cycles);
        TestSupport.writeFacts(facts, f);
        Thread.sleep(600_000);
    }

    static void bench(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        long endNs = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        long reportMs = Long.parseLong(args[3]);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong[] done = new AtomicLong[threads];
        Thread[] t = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            AtomicLong count = done[i] = new AtomicLong();
            t[i] = new Thread(() -> {
                long x = ThreadLocalRandom.current().nextLong();
                for (long k = 1; System.nanoTime() < endNs; k++) {
                    x = spinA(x, SPIN_MIN);
                    x = spinB(x, SPIN_MIN / 2);
                    count.lazySet(k);
                }
                sink = x;
            }, "bench-" + i);
            t[i].start();
        }
        Thread r = new Thread(() -> {
            try {
                while (true) {
                    long n = 0;
                    for (AtomicLong d : done) n += d.get();
                    System.out.println("r " + System.nanoTime() + " " + os.getProcessCpuTime() + " " + n);
                    Thread.sleep(reportMs);
                }
            } catch (InterruptedException e) {
                // the run is over
            }
        }, "reporter");
        r.setDaemon(true);
        r.start();
        for (Thread x : t) x.join();
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "split": split(args); break;
            case "bench": bench(args); break;
            default: throw new IllegalArgumentException("mode split or bench: " + args[0]);
        }
    }
}
