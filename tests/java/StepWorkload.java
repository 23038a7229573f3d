import java.util.Map;

/**
 * An allocation rate that steps up more than tenfold and back: two threads
 * allocate at two known sites, first paced (a batch, then computing that
 * allocates nothing until the next batch is due: the CPU stays busy at a fixed
 * allocation rate), then flat out, then paced again at the same rate. Each
 * thread counts what it allocates at each site, and the VM's own count of what
 * it allocated in all and in each phase.
 *
 * The pace is a rate, not a share of time: an earlier version computed for
 * nineteen times as long as each batch took, so the first paced phase, run
 * before the batch was compiled, allocated ~15x less than the last one
 * (60 against 1,000 samples a second at 512 KiB), and the "same" slow rate
 * after the step cost the agent four times what it cost before it.
 * Usage: StepWorkload GO_FILE FACTS_FILE SLOW_S FAST_S SLOW_S
 */
public class StepWorkload {
    static volatile Object sink;
    static volatile long spin;
    static final int BATCH = 2000;
    /* a batch: BATCH byte[48] (64 bytes each) and BATCH/8 long[60] (496) */
    static final long BATCH_BYTES = BATCH * 64L + (BATCH / 8) * 496L;
    /* each thread's paced rate: far below what one thread allocates flat out
     * (2 GB/s here, ~1 GB/s on a slow machine) */
    static final long PACED_BYTES_PER_S = 40L << 20;

    static final class Counts {
        long small, large, bytes;
        final long[] phaseBytes = new long[3];
    }

    static void batch(Counts c) {
        for (int i = 0; i < BATCH; i++) {
            sink = new byte[48]; // SITE:small
            if ((i & 7) == 0) sink = new long[60]; // SITE:large
        }
        c.small += BATCH;
        c.large += BATCH / 8;
    }

    static void phase(Counts c, long millis, boolean paced) {
        long period = BATCH_BYTES * 1_000_000_000L / PACED_BYTES_PER_S;
        long due = System.nanoTime(), end = due + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            batch(c);
            if (paced) {
                due += period;
                long now = System.nanoTime();
                if (due < now - period) due = now; // late: no burst to catch up
                long x = c.small;
                while (System.nanoTime() < due)
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
        long before = TestSupport.threadAllocatedBytes(), mark = before;
        for (int p = 0; p < 3; p++) {
            if (p == 1 && fastStart == 0) fastStart = uptime();
            phase(c, ms[p], p != 1);
            if (p == 1) fastEnd = uptime();
            long now = TestSupport.threadAllocatedBytes();
            c.phaseBytes[p] = now - mark;
            mark = now;
        }
        c.bytes = mark - before;
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
        for (int p = 0; p < 3; p++)
            f.put("phase" + p + ".bytes", c[0].phaseBytes[p] + c[1].phaseBytes[p]);
        f.put("fast.start_ms", fastStart);
        f.put("fast.end_ms", fastEnd);
        f.put("end_ms", uptime());
        TestSupport.writeFacts(args[1], f);
    }
}
