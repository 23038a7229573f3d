import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Long stop-the-world pauses, the kind a big production heap has: it builds
 * START_NODES small objects each pointing at a random other one (a graph a
 * full collection has to chase through memory), times one System.gc(), and
 * adds nodes until a collection should take a fifth longer than PAUSE_MS
 * (it grows with the nodes; at most MAX_NODES); then, PAUSES times:
 * allocates short-lived arrays for a second (so the agent has samples in hand
 * when the pause comes) and calls System.gc().
 * Writes FACTS when done: pid, nodes, pauses, and pause_ms, the shortest of
 * those pauses in milliseconds (a test checks its premise with it),
 * pause_max_ms.
 * Usage: PauseWorkload FACTS PAUSE_MS PAUSES START_NODES MAX_NODES
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
        long first = fullGcMs(); /* a full collection's time grows with the nodes */
        if (first < target * 5 / 4)
            n = grow(n, Math.min(max, (long) (n * 1.2 * target / Math.max(first, 1))), r);
        long shortest = Long.MAX_VALUE, longest = 0;
        for (int p = 0; p < pauses; p++) {
            long until = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < until)
                for (int i = 0; i < 1000; i++) sink = new byte[256];
            long ms = fullGcMs();
            shortest = Math.min(shortest, ms);
            longest = Math.max(longest, ms);
        }
        Map<String, Object> f = TestSupport.facts();
        f.put("nodes", n);
        f.put("pauses", pauses);
        f.put("pause_ms", shortest);
        f.put("pause_max_ms", longest);
        TestSupport.writeFacts(args[0], f);
    }
}
