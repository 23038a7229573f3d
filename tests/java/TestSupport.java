import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Shared helpers for the test workloads: a go-signal file and a facts file. */
final class TestSupport {
    private TestSupport() {}

    /** Wait until the driver creates `path` (it does so once a viewer is connected). */
    static void awaitFile(String path, long timeoutMs) throws InterruptedException {
        if (path == null || path.equals("-")) return;
        long end = System.currentTimeMillis() + timeoutMs;
        // one File, asked natively: a Path.of or Files.exists each poll would
        // leave a UnixPath (or an exception) in the heap every 20 ms, which a
        // heap dump taken while the program waits may catch alive
        java.io.File go = new java.io.File(path);
        while (!go.exists()) {
            if (System.currentTimeMillis() > end) throw new IllegalStateException("no go signal: " + path);
            Thread.sleep(20);
        }
    }

    /** Bytes this thread has allocated so far, as the VM counts them. */
    static long threadAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    static void writeFacts(String path, Map<String, Object> facts) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(path + ".tmp")))) {
            for (Map.Entry<String, Object> e : facts.entrySet()) w.println(e.getKey() + "=" + e.getValue());
        }
        Files.move(Path.of(path + ".tmp"), Path.of(path));
    }

    static Map<String, Object> facts() {
        return new LinkedHashMap<>();
    }
}
