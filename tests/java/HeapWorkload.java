import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A known heap that then stands still, for comparing a heap dump with
 * `jcmd GC.class_histogram`: a list of nodes each holding an int[] and a
 * string, a ring (a cycle), a map of boxed keys, an Object[][] and a lambda
 * (a hidden class). Once built it collects a few times, writes FACTS and
 * sleeps without allocating, so a dump and a histogram taken one after the
 * other see the same objects.
 * Usage: HeapWorkload FACTS SECONDS
 */
public class HeapWorkload {
    static final int NODES = 20_000, RING = 1_000;
    static final List<Node> NODES_KEPT = new ArrayList<>();
    static final Map<Long, Object> MAP = new HashMap<>();
    static Ring ring;
    static Object[][] grid;
    static Runnable lambda;

    static final class Node {
        final int[] data;
        final String key;
        Node(int i) { data = new int[i % 7]; key = "node-" + i; }
    }

    static final class Ring {
        Ring next;
        final long id;
        Ring(long id) { this.id = id; }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < NODES; i++) NODES_KEPT.add(new Node(i));
        Ring first = new Ring(0), last = first;
        for (int i = 1; i < RING; i++) { last.next = new Ring(i); last = last.next; }
        last.next = first;
        ring = first;
        for (long i = 0; i < 3_000; i++) MAP.put(i * 1_000_003L, new byte[(int) (i % 5)]);
        grid = new Object[50][];
        for (int i = 0; i < grid.length; i++) grid[i] = new Object[i];
        final int k = NODES;
        lambda = () -> System.out.println(k);
        // Objects only phantom-reachable (the lambda's call site contexts) go
        // through the Cleaner after a first collection: let them settle.
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        var facts = TestSupport.facts();
        facts.put("nodes", NODES);
        facts.put("ring", RING);
        TestSupport.writeFacts(args[0], facts);
        Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
}
