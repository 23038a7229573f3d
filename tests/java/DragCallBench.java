package dragbench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Drag mode's worst case: a call-dense loop of getters over objects of a
 * class in the filter (dragbench.Item), some of which are tracked. Each
 * iteration calls two instance methods (getA, getB): with drag mode on, two
 * entries into heaptop/Drag.touch. One iteration in CHURN replaces an object
 * of the working set with a new one, so the allocation sampler keeps taking
 * Items and the helper always has some tracked (touch then scans its slots on
 * every call: the per-call cost the design note prices at 3-7 ns).
 *
 * With REPORT_MS > 0 a daemon thread prints "r NANOTIME PROCESS_CPU_NS
 * ITERATIONS" every REPORT_MS, as AllocBench does, for a benchmark that
 * prices phases of one run against each other (tests/bench/drag_overhead.py).
 * Usage: dragbench.DragCallBench THREADS SECONDS REPORT_MS [SET [CHURN]]
 */
public final class DragCallBench {
    static volatile long sink;
    static AtomicLong[] done;

    static long work(int set, int churn, long endMs, AtomicLong count) {
        Item[] items = new Item[set];
        for (int i = 0; i < set; i++) items[i] = new Item(i, 2L * i);
        int mask = set - 1;
        long acc = 0;
        for (long i = 1;; i++) {
            Item it = items[(int) (i * 0x9E3779B1L >>> 7) & mask];
            acc += it.getA() ^ it.getB();
            if (i % churn == 0) items[(int) (acc & mask)] = new Item(i, acc);
            if ((i & 4095) == 0) {
                count.lazySet(i);
                if (System.currentTimeMillis() >= endMs) return acc;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long seconds = Long.parseLong(args[1]);
        long reportMs = Long.parseLong(args[2]);
        int set = args.length > 3 ? Integer.parseInt(args[3]) : 4096;
        int churn = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        if (Integer.bitCount(set) != 1 || churn < 1) throw new IllegalArgumentException("SET a power of 2, CHURN >= 1");
        long endMs = System.currentTimeMillis() + seconds * 1000;
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        done = new AtomicLong[threads];
        Thread[] t = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            AtomicLong c = done[i] = new AtomicLong();
            t[i] = new Thread(() -> sink += work(set, churn, endMs, c), "bench-" + i);
            t[i].start();
        }
        if (reportMs > 0) {
            Thread r = new Thread(() -> {
                try {
                    while (true) {
                        long n = 0;
                        for (AtomicLong c : done) n += c.get();
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
        long n = 0;
        for (AtomicLong c : done) n += c.get();
        System.out.println("iterations=" + n + " sink=" + (sink & 1));
    }
}

/** The tracked class: two getters, the calls drag mode instruments. */
final class Item {
    private final long a, b;

    Item(long a, long b) {
        this.a = a;
        this.b = b;
    }

    long getA() { return a; }

    long getB() { return b; }
}
