import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A steady live set under heavy churn, for the live figures: a known number of
 * byte[1008] (1024 bytes each with their 16-byte header) stays reachable while
 * two threads allocate short-lived objects as fast as they can, so young
 * collections come every few hundred milliseconds and eden is always full of
 * garbage that is not yet known to be dead. It never calls System.gc().
 * When the file DROP1 appears, every other kept object is dropped (half of the
 * set, without a GC), then half of the rest at DROP2, and so on; the test
 * collects from outside (jcmd GC.run) after each. DROPn.facts says what is
 * kept after drop n.
 * Usage: ChurnWorkload GO_FILE FACTS_FILE SECONDS KEEP_MB DROP_PREFIX
 */
public class ChurnWorkload {
    static volatile Object sink;
    static byte[][] kept;
    static final int SIZE = 1008; // 1024 bytes with the header

    static void keep(int n) {
        kept = new byte[n][];
        for (int i = 0; i < n; i++) kept[i] = new byte[SIZE]; // SITE:keep
    }

    static void churn(long end) {
        int i = 0;
        while (System.currentTimeMillis() < end) {
            sink = new byte[64 + (i++ & 1023)]; // SITE:churn
            if ((i & 15) == 0) sink = Integer.toString(i) + "-" + i; // SITE:strings
        }
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        long end = System.currentTimeMillis() + Long.parseLong(args[2]) * 1000;
        int n = Integer.parseInt(args[3]) * 1024;
        keep(n);
        Map<String, Object> f = TestSupport.facts();
        f.put("keep.objects", n);
        f.put("keep.bytes", (long) n * (SIZE + 16));
        TestSupport.writeFacts(args[1], f);
        Thread[] t = new Thread[2];
        for (int k = 0; k < t.length; k++) {
            t[k] = new Thread(() -> churn(end), "churn-" + k);
            t[k].start();
        }
        int drops = 0, step = 1;
        while (System.currentTimeMillis() < end) {
            if (Files.exists(Path.of(args[4] + (drops + 1)))) {
                drops++;
                step *= 2; // keep every step-th object: half of what was kept
                long left = 0;
                for (int i = 0; i < n; i++) {
                    if (i % step != 0) kept[i] = null;
                    else left++;
                }
                Map<String, Object> g = TestSupport.facts();
                g.put("keep.objects", left);
                g.put("keep.bytes", left * (SIZE + 16));
                TestSupport.writeFacts(args[4] + drops + ".facts", g);
            }
            Thread.sleep(20);
        }
        for (Thread x : t) x.join();
        System.out.println("kept " + kept.length);
    }
}
