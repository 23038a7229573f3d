import java.util.Map;

/**
 * An allocation rate that steps up more than tenfold and back: two threads
 * allocate at two known sites, first throttled (a batch, then nineteen
 * batches' time of computing that allocates nothing: the CPU stays busy, the
 * allocation per CPU second falls about twentyfold), then flat out, then
 * throttled again. Each thread counts what it allocates at
 * each site and what it allocates in all (the VM's own count for the thread).
 * Usage: StepWorkload GO_FILE FACTS_FILE SLOW_S FAST_S SLOW_S
 */
public class StepWorkload {
    static volatile Object sink;
    static volatile long spin;
    static final int BATCH = 2000;

    static final class Counts {
        long small, large, bytes;
    }

    static void batch(Counts c) {
        for (int i = 0; i < BATCH; i++) {
            sink = new byte[48]; // SITE:small
            if ((i & 7) == 0) sink = new long[60]; // SITE:large
        }
        c.small += BATCH;
        c.large += BATCH / 8;
    }

    static void phase(Counts c, long millis, boolean throttled) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            batch(c);
            if (throttled) {
                long until = System.nanoTime() + (System.nanoTime() - t0) * 19;
                long x = c.small;
                while (System.nanoTime() < until)
                    for (int i = 0; i < 1000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
                spin = x;
            }
        }
    }

    static volatile long fastStart, fastEnd; // JVM uptime, ms (the agent's clock, near enough)

    static long uptime() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
    }

    static void work(Counts c, long[] ms) {
        long before = TestSupport.threadAllocatedBytes();
        phase(c, ms[0], true);
        if (fastStart == 0) fastStart = uptime();
        phase(c, ms[1], false);
        fastEnd = uptime();
        phase(c, ms[2], true);
        c.bytes = TestSupport.threadAllocatedBytes() - before;
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        long[] ms = {Long.parseLong(args[2]) * 1000, Long.parseLong(args[3]) * 1000,
                     Long.parseLong(args[4]) * 1000};
        Counts[] c = {new Counts(), new Counts()};
        Thread[] t = new Thread[2];
        for (int i = 0; i < 2; i++) {
            Counts mine = c[i];
            t[i] = new Thread(() -> work(mine, ms), "step-" + i);
            t[i].start();
        }
        for (Thread x : t) x.join();
        Map<String, Object> f = TestSupport.facts();
        f.put("small.count", c[0].small + c[1].small);
        f.put("large.count", c[0].large + c[1].large);
        f.put("threads.bytes", c[0].bytes + c[1].bytes);
        f.put("fast.start_ms", fastStart);
        f.put("fast.end_ms", fastEnd);
        f.put("end_ms", uptime());
        TestSupport.writeFacts(args[1], f);
    }
}
