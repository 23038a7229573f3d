import java.util.Map;

/**
 * A million copies of one value (java.lang.Long 1000, each its own object:
 * Long.valueOf caches only -128..127), held by one array: the duplicates
 * screen's COPIES column at seven digits and more ("1,000,000").
 * Usage: DupsHeap FACTS SECONDS
 */
public class DupsHeap {
    static final int COPIES = 1_000_000;
    static Long[] COPIES_HELD;

    public static void main(String[] args) throws Exception {
        COPIES_HELD = new Long[COPIES];
        long v = 1000;
        for (int i = 0; i < COPIES; i++) COPIES_HELD[i] = Long.valueOf(v);
        TestSupport.writeFacts(args[0], Map.of("copies", (Object) COPIES));
        Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
}
