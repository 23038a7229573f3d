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
    /* Objects as large as the sampling interval (512 KiB by default) and
     * larger, where the exact weight 1/(1 - exp(-s/I)) and the naive I/s
     * differ most. Sizes are whole objects: a byte[] has a 16-byte header. */
    static final int LARGE_256K = 256 * 1024, LARGE_256K_COUNT = 4_000;
    static final int LARGE_512K = 512 * 1024, LARGE_512K_COUNT = 2_000;
    static final int LARGE_2M = 2 * 1024 * 1024, LARGE_2M_COUNT = 500;

    static void allocByteArrays(int n) {
        for (int i = 0; i < n; i++) sink = new byte[1000]; // SITE:bytes
    }

    static void allocPoints(int n) {
        for (int i = 0; i < n; i++) sink = new Point(i, -i); // SITE:points
    }

    static void allocLongArrays(int n) {
        for (int i = 0; i < n; i++) sink = new long[30]; // SITE:longs
    }

    static void allocLarge256k(int n) {
        for (int i = 0; i < n; i++) sink = new byte[LARGE_256K - 16]; // SITE:large256k
    }

    static void allocLarge512k(int n) {
        for (int i = 0; i < n; i++) sink = new byte[LARGE_512K - 16]; // SITE:large512k
    }

    static void allocLarge2m(int n) {
        for (int i = 0; i < n; i++) sink = new byte[LARGE_2M - 16]; // SITE:large2m
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
        allocLarge256k(LARGE_256K_COUNT);
        allocLarge512k(LARGE_512K_COUNT);
        allocLarge2m(LARGE_2M_COUNT);
        return TestSupport.threadAllocatedBytes() - before;
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        long spanBytes = span();
        Map<String, Object> f = TestSupport.facts();
        f.put("bytes.count", BYTE_ARRAYS);
        f.put("points.count", POINTS);
        f.put("longs.count", LONG_ARRAYS);
        f.put("large256k.count", LARGE_256K_COUNT);
        f.put("large256k.size", LARGE_256K);
        f.put("large512k.count", LARGE_512K_COUNT);
        f.put("large512k.size", LARGE_512K);
        f.put("large2m.count", LARGE_2M_COUNT);
        f.put("large2m.size", LARGE_2M);
        f.put("span.alloc_bytes", spanBytes);
        TestSupport.writeFacts(args[1], f);
    }
}
