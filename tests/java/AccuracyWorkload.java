import java.util.Map;

/**
 * Known allocation sites with exact counts. Each site line carries a SITE marker
 * comment that the test looks up to know the expected line number.
 * Usage: AccuracyWorkload GO_FILE FACTS_FILE
 */
public class AccuracyWorkload {
    static Object sink;

    static final class Point {
        final int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
    }

    static final int BYTE_ARRAYS = 800_000;
    static final int POINTS = 40_000_000;
    static final int LONG_ARRAYS = 3_000_000;

    static void allocByteArrays(int n) {
        for (int i = 0; i < n; i++) sink = new byte[1000]; // SITE:bytes
    }

    static void allocPoints(int n) {
        for (int i = 0; i < n; i++) sink = new Point(i, -i); // SITE:points
    }

    static void allocLongArrays(int n) {
        for (int i = 0; i < n; i++) sink = new long[30]; // SITE:longs
    }

    static void middleBytes() { allocByteArrays(BYTE_ARRAYS); }
    static void outerBytes() { middleBytes(); }
    static void middlePoints() { allocPoints(POINTS); }

    /** Everything the test measures happens in here, on one thread. */
    static long span() {
        long before = TestSupport.threadAllocatedBytes();
        outerBytes();
        middlePoints();
        allocLongArrays(LONG_ARRAYS);
        return TestSupport.threadAllocatedBytes() - before;
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        long spanBytes = span();
        Map<String, Object> f = TestSupport.facts();
        f.put("bytes.count", BYTE_ARRAYS);
        f.put("points.count", POINTS);
        f.put("longs.count", LONG_ARRAYS);
        f.put("span.alloc_bytes", spanBytes);
        TestSupport.writeFacts(args[1], f);
    }
}
