import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Three phases at three sites, each of an exactly known count, run when the
 * test creates DIR/goN; DIR/doneN holds the count when phase N is over. Phase
 * 2 is meant to run while a viewer is stopped, so its stream is lost to that
 * viewer: site B is seen only through a resync. Two threads allocate there in
 * batches of COUNT_B until DIR/stop2 appears, so the test decides how long it
 * lasts, and count what they allocated. Beside them a third thread allocates
 * at 480 other stacks (eight array classes at recursion depths 1..60), so
 * every stream message of rows the agent publishes is large and the stopped
 * viewer's queue overflows in seconds. Exits after phase 3.
 * Usage: GapWorkload DIR COUNT_A COUNT_B COUNT_C
 */
public class GapWorkload {
    static Object sink;

    static void siteA(int n) {
        for (int i = 0; i < n; i++) sink = new long[2]; // SITE:a
    }

    static void siteB(int n) {
        for (int i = 0; i < n; i++) sink = new long[3]; // SITE:b
    }

    static void siteC(int n) {
        for (int i = 0; i < n; i++) sink = new long[4]; // SITE:c
    }

    /* One allocation of class k at a stack depth+1 frames below noiseLoop. */
    static void noise(int depth, int k) {
        if (depth > 0) {
            noise(depth - 1, k);
            return;
        }
        switch (k) {
            case 0: sink = new byte[16]; break;
            case 1: sink = new short[16]; break;
            case 2: sink = new char[16]; break;
            case 3: sink = new int[16]; break;
            case 4: sink = new long[16]; break;
            case 5: sink = new float[16]; break;
            case 6: sink = new double[16]; break;
            default: sink = new Object[16]; break;
        }
    }

    static void noiseLoop(Path stop, long end) {
        do {
            for (int d = 0; d < 60; d++)
                for (int k = 0; k < 8; k++) noise(d, k);
        } while (!Files.exists(stop) && System.currentTimeMillis() < end);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long end = System.currentTimeMillis() + 600_000;
        for (int phase = 1; phase <= 3 && System.currentTimeMillis() < end; ) {
            if (!Files.exists(dir.resolve("go" + phase))) {
                Thread.sleep(10);
                continue;
            }
            long n = Integer.parseInt(args[phase]);
            if (phase == 1) {
                siteA((int) n);
            } else if (phase == 2) {
                int batch = (int) n;
                java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
                Thread[] t = new Thread[2];
                for (int k = 0; k < t.length; k++) {
                    t[k] = new Thread(() -> {
                        do {
                            siteB(batch);
                            total.addAndGet(batch);
                        } while (!Files.exists(dir.resolve("stop2")) && System.currentTimeMillis() < end);
                    }, "site-b-" + k);
                    t[k].start();
                }
                Thread noise = new Thread(() -> noiseLoop(dir.resolve("stop2"), end), "noise");
                noise.start();
                for (Thread x : t) x.join();
                noise.join();
                n = total.get();
            } else {
                siteC((int) n);
            }
            Files.writeString(dir.resolve("done" + phase + ".tmp"), Long.toString(n));
            Files.move(dir.resolve("done" + phase + ".tmp"), dir.resolve("done" + phase));
            phase++;
        }
    }
}
