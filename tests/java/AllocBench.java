import java.util.concurrent.ThreadLocalRandom;

/**
 * Allocation-heavy, multi-threaded benchmark with a fixed amount of work (so CPU
 * time, not wall time, is the figure). Each thread allocates a mix of small
 * objects, strings and arrays, keeping a sliding window alive so some objects
 * survive a young collection. Usage: AllocBench THREADS ITERATIONS [SECONDS [DEPTH]]
 * (with SECONDS > 0 it runs for that long instead, for soak runs; with DEPTH the
 * allocating loop runs DEPTH calls deep, as in a framework-heavy application;
 * with REPORT_MS > 0 a daemon thread prints "r NANOTIME PROCESS_CPU_NS ITERATIONS"
 * every REPORT_MS, for benchmarks that price phases of one run against each other).
 * It prints the process's CPU time and the wall time of the allocating part
 * alone ("window_cpu_ns=... window_wall_ns=..."): a JVM's start-up (pre-touching
 * the heap, whose page clearing took 0.5 to 1.8 s of kernel time from one run
 * to the next on this machine) and its exit are then out of the figure.
 */
public class AllocBench {
    static volatile Object sink;

    static final class Node {
        final long id;
        final Object payload;
        Node(long id, Object payload) { this.id = id; this.payload = payload; }
    }

    /** Each thread's iterations so far, published every 4096 (a reporter reads them). */
    static java.util.concurrent.atomic.AtomicLong[] done;

    static long work(long iterations, long endMs, java.util.concurrent.atomic.AtomicLong count) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        Object[] window = new Object[4096];
        long checksum = 0;
        // timed runs look at the clock every 4096 iterations: a clock read per
        // iteration took 37% of the thread (vdso) and cut its allocation rate
        // to less than half of the counted runs'
        for (long i = 0; endMs > 0 ? (i & 4095) != 0 || System.currentTimeMillis() < endMs : i < iterations;
             i++) {
            Object o;
            switch ((int) (i & 7)) {
                case 0: o = new byte[r.nextInt(16, 1024)]; break;
                case 1: o = "k" + i; break;
                case 2: o = new int[r.nextInt(1, 64)]; break;
                case 3: o = new Node(i, new int[4]); break;
                default: o = new Node(i, null);
            }
            window[(int) (i & 4095)] = o;
            checksum += o.hashCode() & 1;
            if ((i & 4095) == 0) count.lazySet(i);
        }
        sink = window;
        return checksum;
    }

    /** Descend depth frames, then work: recursion the JIT cannot flatten into a loop. */
    static long deep(int depth, long iterations, long endMs, java.util.concurrent.atomic.AtomicLong count) {
        if (depth <= 0) return work(iterations, endMs, count);
        long r = deep(depth - 1, iterations, endMs, count);
        return r + (depth & 1);
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long iterations = Long.parseLong(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 0;
        int depth = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        long reportMs = args.length > 4 ? Long.parseLong(args[4]) : 0;
        long endMs = seconds > 0 ? System.currentTimeMillis() + seconds * 1000 : 0;
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime(), wall0 = System.nanoTime();
        Thread[] t = new Thread[threads];
        done = new java.util.concurrent.atomic.AtomicLong[threads];
        for (int i = 0; i < threads; i++) {
            java.util.concurrent.atomic.AtomicLong count = done[i] = new java.util.concurrent.atomic.AtomicLong();
            t[i] = new Thread(() -> deep(depth, iterations, endMs, count), "bench-" + i);
            t[i].start();
        }
        if (reportMs > 0) {
            Thread r = new Thread(() -> {
                try {
                    while (true) {
                        long n = 0;
                        for (int i = 0; i < threads; i++) n += done[i].get();
                        System.out.println("r " + System.nanoTime() + " " + os.getProcessCpuTime() + " " + n);
                        Thread.sleep(reportMs);
                    }
                } catch (InterruptedException e) {
                    // the run is over
                }
            }, "reporter");
            r.setDaemon(true);
            r.start();
        }
        for (Thread x : t) x.join();
        long cpu = os.getProcessCpuTime() - cpu0, wall = System.nanoTime() - wall0;
        System.out.println("window_cpu_ns=" + cpu + " window_wall_ns=" + wall);
    }
}
