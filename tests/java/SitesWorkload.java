import java.util.ArrayList;
import java.util.Map;

/**
 * Two known allocation sites, each keeping a known share of what it
 * allocates, for the sites-in-the-heap tests:
 *
 * - allocA() makes a SitesWorkload$ANode (64 bytes) holding a byte[A_BYTES]; one in
 *   A_KEEP is kept in KEEP_A (the rest is garbage at once). Each kept ANode
 *   retains itself and its byte[]: nothing else refers to the array.
 * - allocB() makes a SitesWorkload$BNode holding a long[B_LONGS]; one in
 *   B_KEEP is kept in KEEP_B.
 *
 * Phase 1 runs ROUNDS allocations of each, then writes FACTS (kept_a1,
 * kept_b1) and waits for GO; phase 2 runs ROUNDS more of allocA only (site A
 * grows, B stays), then writes FACTS2 (kept_a2, kept_b2) and sleeps without
 * allocating. The test dumps after each phase: between the two dumps the
 * survivors that are new are site A's.
 *
 * args: FACTS GO FACTS2 ROUNDS SECONDS
 */
public final class SitesWorkload {
    static final int A_BYTES = 992, A_KEEP = 4;
    static final int B_LONGS = 126, B_KEEP = 10;
    static final ArrayList<ANode> KEEP_A = new ArrayList<>();
    static final ArrayList<BNode> KEEP_B = new ArrayList<>();
    static volatile Object sink;

    /* 64 bytes each (12-byte header, a reference, six longs, padding), so
     * that enough of them are sampled for a tight estimate */
    static final class ANode {
        final byte[] payload;
        long f1, f2, f3, f4, f5, f6;

        ANode(byte[] p) {
            payload = p;
        }
    }

    static final class BNode {
        final long[] data;
        long f1, f2, f3, f4, f5, f6;

        BNode(long[] d) {
            data = d;
        }
    }

    static ANode allocA() {
        return new ANode(new byte[A_BYTES]);
    }

    static BNode allocB() {
        return new BNode(new long[B_LONGS]);
    }

    static void phase(int rounds, boolean withB) {
        for (int i = 0; i < rounds; i++) {
            ANode a = allocA();
            if (i % A_KEEP == 0) KEEP_A.add(a);
            else sink = a;
            if (!withB) continue;
            BNode b = allocB();
            if (i % B_KEEP == 0) KEEP_B.add(b);
            else sink = b;
        }
        sink = null;
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[3]);
        long seconds = Long.parseLong(args[4]);
        KEEP_A.ensureCapacity(2 * rounds / A_KEEP + 2);
        KEEP_B.ensureCapacity(rounds / B_KEEP + 2);
        phase(rounds, true);
        System.gc();
        Map<String, Object> f = TestSupport.facts();
        f.put("kept_a1", KEEP_A.size());
        f.put("kept_b1", KEEP_B.size());
        TestSupport.writeFacts(args[0], f);
        TestSupport.awaitFile(args[1], seconds * 1000);
        phase(rounds, false);
        System.gc();
        f = TestSupport.facts();
        f.put("kept_a2", KEEP_A.size());
        f.put("kept_b2", KEEP_B.size());
        TestSupport.writeFacts(args[2], f);
        Thread.sleep(seconds * 1000);
    }
}
