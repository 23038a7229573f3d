import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Live tracking: one site keeps a known share of its objects, another drops all
 * of its objects; then GC. Usage: LiveWorkload GO_FILE FACTS_FILE
 */
public class LiveWorkload {
    static Object sink;
    static final List<byte[]> kept = new ArrayList<>();
    static final int N = 200_000;
    static final int SIZE = 2000; // a byte[2000] occupies 2016 bytes (16-byte header)

    static void keepSome(int n) {
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[SIZE]; // SITE:keep
            if (i % 4 == 0) kept.add(b);
        }
    }

    static void dropAll(int n) {
        for (int i = 0; i < n; i++) sink = new byte[SIZE]; // SITE:drop
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        keepSome(N);
        dropAll(N);
        sink = null;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        Thread.sleep(1500); // let the agent's sweep and the stream catch up
        Map<String, Object> f = TestSupport.facts();
        // What the JVM itself says, to check the agent's telemetry against.
        long gcs = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans())
            gcs += Math.max(0, gc.getCollectionCount());
        f.put("vm.gc_count", gcs);
        f.put("vm.heap_max", Runtime.getRuntime().maxMemory());
        f.put("vm.threads", java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount());
        f.put("keep.count", N);
        f.put("keep.retained_objects", kept.size());
        f.put("keep.retained_bytes", (long) kept.size() * (SIZE + 16));
        f.put("drop.count", N);
        TestSupport.writeFacts(args[1], f);
        Thread.sleep(500);
        System.out.println("kept " + kept.size());
    }
}
