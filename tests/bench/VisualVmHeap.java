import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

/**
 * The baseline of the heap-analysis benchmark: VisualVM's own heap library
 * (org.graalvm.visualvm.lib.jfluid.heap, Debian package visualvm), headless.
 * It opens an HPROF dump, has the library compute the retained size of every
 * instance (its dominator tree), and writes the 1000 instances with the
 * biggest retained size.
 *
 * Build and run (the library needs only java.base and java.logging):
 *   JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
 *   javac -cp $JAR -d DIR tests/bench/VisualVmHeap.java
 *   java -cp $JAR:DIR VisualVmHeap DUMP.hprof OUT.csv [IDS LOOKUP.csv CLASSES.csv]
 *
 * OUT.csv: object_id,class,shallow_bytes,retained_bytes, biggest retained
 * first; object_id is the HPROF object id in decimal.
 * LOOKUP.csv (when IDS, a file of decimal object ids one a line, is given):
 * the same columns for each of those objects, in IDS's order, so another
 * tool's top list can be checked object by object; an id the library has
 * no instance for gets class "-" and empty sizes. CLASSES.csv (with IDS):
 * class,instances,shallow_bytes,retained_bytes for every class, retained
 * being JavaClass.getRetainedSizeByClass (its instances taken together),
 * timed apart (a second line, "visualvm by_class_s=.."). Both are written
 * after total_s.
 * stdout, one line:
 *   visualvm objects=N classes=C open_s=.. retained_s=.. total_s=..
 *            peak_heap_mb=.. live_heap_mb=.. rss_peak_mb=..
 * then, if the dump has the class KnownHeap$Big, a line with the retained
 * size VisualVM gives its one instance.
 *   open_s      HeapFactory.createHeap, then the summary and the per-class
 *               instance counts (which make the library index every instance)
 *   retained_s  Heap.getBiggestObjectsByRetainedSize(1000): references, GC
 *               roots, the dominator tree and every retained size
 *   peak_heap_mb  the sum of the peak usage of every heap memory pool
 *               (MemoryPoolMXBean.getPeakUsage): an upper bound on the Java
 *               heap used, garbage included (pools peak at different times)
 *   live_heap_mb  Runtime used after System.gc(), with the Heap still held
 *   rss_peak_mb   VmHWM of /proc/self/status: the process's peak resident
 *               memory, which includes the library's memory-mapped index
 *               files and the dump's pages it touched
 * The library keeps its indexes in files of a cache directory next to the
 * dump, DUMP.hprof.hwcache, and reuses them when it opens the dump again (a
 * second run of a 7 MB dump took 0.05 s instead of 1.3 s for its retained
 * sizes). So that every run measures a cold open, this driver deletes that
 * directory before it opens the dump, and again at the end (it is about as
 * big as the dump).
 */
public class VisualVmHeap {
    static final int TOP = 1000;

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 5) {
            System.err.println("usage: VisualVmHeap DUMP.hprof OUT.csv [IDS LOOKUP.csv CLASSES.csv]");
            System.exit(2);
        }
        File dump = new File(args[0]);
        Path cache = Path.of(dump.getPath() + ".hwcache");
        deleteTree(cache);
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(dump);
        long liveInstances = heap.getSummary().getTotalLiveInstances();
        List<JavaClass> classes = heap.getAllClasses();
        long counted = 0;
        for (JavaClass c : classes) counted += c.getInstancesCount();
        long t1 = System.nanoTime();
        List<Instance> top = heap.getBiggestObjectsByRetainedSize(TOP);
        long t2 = System.nanoTime();

        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(args[1])))) {
            w.println("object_id,class,shallow_bytes,retained_bytes");
            for (Instance i : top) {
                w.println(Long.toUnsignedString(i.getInstanceId()) + "," + csv(i.getJavaClass().getName())
                          + "," + i.getSize() + "," + i.getRetainedSize());
            }
        }
        long t3 = System.nanoTime();

        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) peak += p.getPeakUsage().getUsed();
        }
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long live = rt.totalMemory() - rt.freeMemory();
        System.out.println(String.format(Locale.ROOT,
                "visualvm objects=%d classes=%d open_s=%.3f retained_s=%.3f total_s=%.3f "
                + "peak_heap_mb=%.1f live_heap_mb=%.1f rss_peak_mb=%.1f",
                counted, classes.size(), (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t0) / 1e9,
                peak / 1048576.0, live / 1048576.0, vmHwmKb() / 1024.0));
        if (counted != liveInstances) {
            System.out.println("visualvm: the summary says " + liveInstances
                               + " live instances, the classes' counts add up to " + counted);
        }

        if (args.length == 5) {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(args[3])))) {
                w.println("object_id,class,shallow_bytes,retained_bytes");
                for (String line : Files.readAllLines(Path.of(args[2]))) {
                    if (line.isBlank()) continue;
                    Instance i = heap.getInstanceByID(Long.parseUnsignedLong(line.trim()));
                    w.println(line.trim() + "," + (i == null ? "-,," : csv(i.getJavaClass().getName()) + ","
                                                   + i.getSize() + "," + i.getRetainedSize()));
                }
            }
            long t4 = System.nanoTime();
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(args[4])))) {
                w.println("class,instances,shallow_bytes,retained_bytes");
                for (JavaClass c : classes) {
                    w.println(csv(c.getName()) + "," + c.getInstancesCount() + "," + c.getAllInstancesSize() + ","
                              + c.getRetainedSizeByClass());
                }
            }
            System.out.println(String.format(Locale.ROOT, "visualvm by_class_s=%.3f",
                                             (System.nanoTime() - t4) / 1e9));
        }

        JavaClass big = heap.getJavaClassByName("KnownHeap$Big");
        if (big != null) {
            for (Instance i : big.getInstances()) {
                System.out.println("visualvm KnownHeap$Big id=" + Long.toUnsignedString(i.getInstanceId())
                                   + " shallow=" + i.getSize() + " retained=" + i.getRetainedSize());
            }
        }
        deleteTree(cache);
    }

    /** Remove the library's cache directory (its files are flat). */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) Files.delete(f);
        }
        Files.delete(dir);
    }

    static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /** Peak resident set size in KiB, or -1 where /proc has no VmHWM. */
    static long vmHwmKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (Exception e) {
            // not Linux: no figure
        }
        return -1;
    }
}
