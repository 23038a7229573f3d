import java.util.Map;

/**
 * Allocations from many distinct stacks with exact counts, for depth= and
 * traces=: for d = 0..STACKS-1, down() recurses d frames deeper and leaf()
 * allocates COUNT objects of StackWorkload$Leaf (a class nothing else
 * allocates), so stack d holds d + 4 frames (leaf, d + 1 down, run, main).
 * Usage: StackWorkload GO_FILE FACTS_FILE STACKS COUNT
 */
public class StackWorkload {
    static Object sink;

    static final class Leaf {
        final int v;
        Leaf(int v) { this.v = v; }
    }

    static void leaf(int n) {
        for (int i = 0; i < n; i++) sink = new Leaf(i); // SITE:leaf
    }

    static void down(int d, int n) {
        if (d == 0) leaf(n); else down(d - 1, n); // SITE:down
    }

    static void run(int stacks, int n) {
        for (int d = 0; d < stacks; d++) down(d, n); // SITE:run
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        int stacks = Integer.parseInt(args[2]), count = Integer.parseInt(args[3]);
        run(stacks, count); // SITE:main
        Map<String, Object> f = TestSupport.facts();
        f.put("stacks", stacks);
        f.put("count", count);
        TestSupport.writeFacts(args[1], f);
    }
}
