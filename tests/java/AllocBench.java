import java.util.concurrent.ThreadLocalRandom;

/**
 * Allocation-heavy, multi-threaded benchmark with a fixed amount of work (so CPU
 * time, not wall time, is the figure). Each thread allocates a mix of small
 * objects, strings and arrays, keeping a sliding window alive so some objects
 * survive a young collection. Usage: AllocBench THREADS ITERATIONS [SECONDS [DEPTH]]
 * (with SECONDS > 0 it runs for that long instead, for soak runs; with DEPTH the
 * allocating loop runs DEPTH calls deep, as in a framework-heavy application).
 */
public class AllocBench {
    static volatile Object sink;

    static final class Node {
        final long id;
        final Object payload;
        Node(long id, Object payload) { this.id = id; this.payload = payload; }
    }

    static long work(long iterations, long endMs) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        Object[] window = new Object[4096];
        long checksum = 0;
        for (long i = 0; endMs > 0 ? System.currentTimeMillis() < endMs : i < iterations; i++) {
            Object o;
            switch ((int) (i & 7)) {
                case 0: o = new byte[r.nextInt(16, 1024)]; break;
                case 1: o = "k" + i; break;
                case 2: o = new int[r.nextInt(1, 64)]; break;
                case 3: o = new Node(i, new int[4]); break;
                default: o = new Node(i, null);
            }
            window[(int) (i & 4095)] = o;
            checksum += o.hashCode() & 1;
        }
        sink = window;
        return checksum;
    }

    /** Descend depth frames, then work: recursion the JIT cannot flatten into a loop. */
    static long deep(int depth, long iterations, long endMs) {
        if (depth <= 0) return work(iterations, endMs);
        long r = deep(depth - 1, iterations, endMs);
        return r + (depth & 1);
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long iterations = Long.parseLong(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 0;
        int depth = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        long endMs = seconds > 0 ? System.currentTimeMillis() + seconds * 1000 : 0;
        Thread[] t = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            t[i] = new Thread(() -> deep(depth, iterations, endMs), "bench-" + i);
            t[i].start();
        }
        for (Thread x : t) x.join();
    }
}
