/**
 * A thread that works in short bursts and sleeps between them, as a request
 * handler does: "burst-worker" loops { burn about BURST_MS of CPU in
 * burn(); Thread.sleep(SLEEP_MS) }. Its CPU is all in burn(): a CPU sampler
 * that takes the stack of a thread whose CPU moved since its last look, but
 * which has gone to sleep meanwhile, charges that CPU to Thread.sleep.
 *
 * Usage: CpuBurstWorkload SECONDS BURST_MS SLEEP_MS
 */
public final class CpuBurstWorkload {
    static volatile long sink;

    static void burn(long ns) {
        long end = System.nanoTime() + ns, x = end | 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 2_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        long burstNs = Long.parseLong(args[1]) * 1_000_000L;
        long sleepMs = Long.parseLong(args[2]);
        Thread t = new Thread(() -> {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            try {
                while (System.nanoTime() < end) {
                    burn(burstNs);
                    Thread.sleep(sleepMs);
                }
            } catch (InterruptedException e) {
                // stopped
            }
        }, "burst-worker");
        t.start();
        System.out.println("READY");
        System.out.flush();
        t.join();
    }
}
