import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Long stop-the-world pauses, the kind a big production heap has: it builds
 * START_NODES small objects each pointing at a random other one (a graph a
 * full collection has to chase through memory), times one System.gc(), and
 * adds nodes until a collection takes a fifth longer than PAUSE_MS (at most
 * MAX_NODES); then, PAUSES times:
 * allocates short-lived arrays for a second (so the agent has samples in hand
 * when the pause comes) and calls System.gc().
 * Writes FACTS when done: pid, nodes, pauses, and pause_ms, the shortest of
 * those pauses in milliseconds (a test checks its premise with it),
 * pause_max_ms (with PAUSES 0: both the last collection's).
 * Then it sleeps LINGER seconds (default 0) without allocating: a heap dump
 * taken then (a full collection first) stops the JVM about as long.
 * Usage: PauseWorkload FACTS PAUSE_MS PAUSES START_NODES MAX_NODES [LINGER]
 * (-XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions -XX:+VerifyBeforeGC
 * makes a collection of a few million nodes last seconds.)
 */
public class PauseWorkload {
    static final class Node {
        Node next;
    }

    static final int CHUNK = 1 << 20;
    static final List<Node[]> NODES = new ArrayList<>();
    static volatile Object sink;

    static long fullGcMs() {
        long t0 = System.nanoTime();
        System.gc();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /* A full collection's time once the graph has settled: the first after
     * growing also moves the new nodes to the old generation, and measured
     * up to half as long again as the ones after it. */
    static long steadyGcMs() {
        System.gc();
        return fullGcMs();
    }

    /* Nodes up to `to` (whole chunks), each pointing anywhere in the graph
     * built so far. */
    static long grow(long n, long to, Random r) {
        for (; n < to; n += CHUNK) {
            Node[] c = new Node[CHUNK];
            for (int i = 0; i < CHUNK; i++) c[i] = new Node();
            NODES.add(c);
            for (Node x : c) {
                long at = (long) (r.nextDouble() * (n + CHUNK));
                x.next = NODES.get((int) (at / CHUNK))[(int) (at % CHUNK)];
            }
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[1]);
        int pauses = Integer.parseInt(args[2]);
        long start = Long.parseLong(args[3]), max = Long.parseLong(args[4]);
        Random r = new Random(1);
        long n = grow(0, start, r);
        /* a full collection's time grows with the nodes, not quite in
         * proportion: measure again after each step */
        long ms = steadyGcMs();
        for (; ms < target * 6 / 5 && n < max; ms = steadyGcMs())
            n = grow(n, Math.min(max, (long) (n * 1.3 * target / Math.max(ms, 1))), r);
        long shortest = pauses > 0 ? Long.MAX_VALUE : ms, longest = pauses > 0 ? 0 : ms;
        for (int p = 0; p < pauses; p++) {
            long until = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < until)
                for (int i = 0; i < 1000; i++) sink = new byte[256];
            ms = fullGcMs();
            shortest = Math.min(shortest, ms);
            longest = Math.max(longest, ms);
        }
        Map<String, Object> f = TestSupport.facts();
        f.put("nodes", n);
        f.put("pauses", pauses);
        f.put("pause_ms", shortest);
        f.put("pause_max_ms", longest);
        TestSupport.writeFacts(args[0], f);
        if (args.length > 5) Thread.sleep(Long.parseLong(args[5]) * 1000);
    }
}
