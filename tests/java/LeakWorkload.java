import java.util.ArrayList;
import java.util.List;

/**
 * A leak hidden under short-lived allocations: the churn thread
 * allocates a lot that dies young at two sites; the leak thread allocates much
 * less, but keeps every object (100% of them stay live). By bytes allocated the
 * leak ranks low; by live growth since a mark it ranks first.
 * Usage: LeakWorkload SECONDS
 */
public class LeakWorkload {
    static final List<Object> KEPT = new ArrayList<>();
    static volatile Object sink;

    /** 144 bytes with its header, all of it in the object itself. */
    static final class Entry {
        final long id;
        long a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14;
        Entry(long id) { this.id = id; }
    }

    static void leak(long end) throws InterruptedException {
        long n = 0;
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 50; i++) KEPT.add(new Entry(n++)); // SITE:leak
            Thread.sleep(10);
        }
    }

    static void churnBuffers() {
        for (int i = 0; i < 50; i++) sink = new byte[4096]; // SITE:churn_buffers
    }

    static void churnText(int k) {
        for (int i = 0; i < 50; i++) sink = new StringBuilder(64).append("request ").append(k + i).toString(); // SITE:churn_text
    }

    static void churn(long end) throws InterruptedException {
        int k = 0;
        while (System.currentTimeMillis() < end) {
            churnBuffers();
            churnText(k++);
            Thread.sleep(1); // about 200 MB/s: most of it dies young
        }
    }

    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
        Thread leaker = new Thread(() -> { try { leak(end); } catch (InterruptedException e) { } }, "leaker");
        Thread churner = new Thread(() -> { try { churn(end); } catch (InterruptedException e) { } }, "churner");
        leaker.start();
        churner.start();
        leaker.join();
        churner.join();
    }
}
