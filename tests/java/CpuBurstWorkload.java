/**
 * A thread that works in short bursts and sleeps between them, as a request
 * handler does: "burst-worker" loops { burn about BURST_MS of CPU in
 * burn(); Thread.sleep(SLEEP_MS) }. Its CPU is all in burn(): a CPU sampler
 * that takes the stack of a thread whose CPU moved since its last look, but
 * which has gone to sleep meanwhile, charges that CPU to Thread.sleep.
 *
 * With a fourth argument "read", the thread waits in a blocking read of a
 * pipe instead of Thread.sleep (a native read: the JVM calls the thread
 * RUNNABLE while it waits), which a feeder thread writes a byte into every
 * SLEEP_MS: the waiting frame is then sun.nio.ch's read0.
 *
 * Usage: CpuBurstWorkload SECONDS BURST_MS SLEEP_MS [read]
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
        boolean read = args.length > 3 && args[3].equals("read");
        java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
        if (read) {
            Thread feeder = new Thread(() -> {
                java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
                try {
                    while (true) {
                        Thread.sleep(sleepMs);
                        one.clear();
                        pipe.sink().write(one);
                    }
                } catch (Exception e) {
                    // stopped
                }
            }, "feeder");
            feeder.setDaemon(true);
            feeder.start();
        }
        Thread t = new Thread(() -> {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64);
            try {
                while (System.nanoTime() < end) {
                    burn(burstNs);
                    if (read) {
                        buf.clear();
                        pipe.source().read(buf);
                    } else {
                        Thread.sleep(sleepMs);
                    }
                }
            } catch (Exception e) {
                // stopped
            }
        }, "burst-worker");
        t.start();
        System.out.println("READY");
        System.out.flush();
        t.join();
    }
}
