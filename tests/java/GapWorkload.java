import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Three phases at three sites, each of an exactly known count, run when the
 * test creates DIR/goN; DIR/doneN holds the count when phase N is over. Phase
 * 2 is meant to run while a viewer is stopped, so its stream is lost to that
 * viewer: site B is seen only through a resync. Two threads allocate there in
 * batches of COUNT_B until DIR/stop2 appears, so the test decides how long it
 * lasts, and count what they allocated. Exits after phase 3.
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
                for (Thread x : t) x.join();
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
