/**
 * Stacks deeper than the agent keeps, shallow ones, and native frames:
 *  - "deep" recurses DEPTH calls, then allocates at the bottom (its stack is
 *    cut at the agent's depth= when DEPTH is larger);
 *  - "shallow" allocates two calls below its thread entry;
 *  - "native" makes Throwables (fillInStackTrace is native and allocates the
 *    backtrace) and clones arrays (Object.clone is native).
 * Usage: DeepWorkload DEPTH SECONDS
 */
public class DeepWorkload {
    static volatile Object sink;

    static void descend(int n, long end) {
        if (n > 0) {
            descend(n - 1, end);
            return;
        }
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 10; i++) sink = new long[64]; // SITE:deep
            pause(1);
        }
    }

    static void shallow(long end) {
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 100; i++) sink = new char[256]; // SITE:shallow
            pause(1);
        }
    }

    static void natives(long end) {
        int[] template = new int[128];
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 100; i++) {
                sink = new Throwable();
                sink = template.clone();
            }
            pause(1);
        }
    }

    static void pause(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }

    public static void main(String[] args) throws Exception {
        int depth = Integer.parseInt(args[0]);
        long end = System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
        Thread[] t = {
            new Thread(null, () -> descend(depth, end), "deep", 64L << 20),
            new Thread(() -> shallow(end), "shallow"),
            new Thread(() -> natives(end), "native"),
        };
        for (Thread x : t) x.start();
        for (Thread x : t) x.join();
    }
}
