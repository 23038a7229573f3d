import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Garbage collections to check the agent's heap and GC figures against the
 * VM's own GC log: it churns through BYTES_MB of short-lived arrays while
 * keeping a sliding window of them (young collections, some promotion), then
 * calls System.gc() once, writes FACTS and allocates nothing more until STOP
 * appears, so the heap stays as that last collection left it.
 * Usage: GcWorkload GO_FILE FACTS_FILE BYTES_MB STOP_FILE
 */
public class GcWorkload {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        long total = Long.parseLong(args[2]) << 20;
        List<byte[]> window = new ArrayList<>();
        for (long done = 0; done < total; done += 4096) {
            byte[] b = new byte[4096 - 16];
            sink = b;
            if ((done & 0xfffff) == 0) window.add(b);
            if (window.size() > 2000) window.subList(0, 1000).clear();
        }
        window = null;
        sink = null;
        System.gc();
        Map<String, Object> f = TestSupport.facts();
        f.put("churned_mb", total >> 20);
        TestSupport.writeFacts(args[1], f);
        Path stop = Path.of(args[3]);
        long end = System.currentTimeMillis() + 600_000;
        while (!Files.exists(stop) && System.currentTimeMillis() < end) Thread.sleep(20);
    }
}
