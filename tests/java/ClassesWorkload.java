import java.lang.reflect.Array;

/**
 * Many classes, for lists longer than the screen: arrays of NAMES.length
 * element types (java.lang.String[], java.util.HashMap[], ...), class k
 * allocated (k + 1) x STEP bytes in arrays of 64 references, so the classes
 * sort by bytes in a fixed order (the last name biggest). Then it writes
 * READY and sleeps SECONDS without allocating: the figures hold still.
 * args: READY SECONDS
 */
public final class ClassesWorkload {
    static final String[] NAMES = {
        "java.lang.String", "java.lang.Integer", "java.lang.Long", "java.lang.Short",
        "java.lang.Byte", "java.lang.Character", "java.lang.Boolean", "java.lang.Double",
        "java.lang.Float", "java.lang.Number", "java.lang.Thread", "java.lang.Runnable",
        "java.lang.StringBuilder", "java.lang.Math", "java.lang.System", "java.lang.Runtime",
        "java.lang.Process", "java.lang.Enum", "java.lang.Iterable", "java.lang.Comparable",
        "java.lang.CharSequence", "java.lang.Void", "java.util.ArrayList", "java.util.HashMap",
        "java.util.LinkedList", "java.util.TreeMap", "java.util.HashSet", "java.util.TreeSet",
        "java.util.Vector", "java.util.Stack", "java.util.Hashtable", "java.util.Properties",
        "java.util.Random", "java.util.Date", "java.util.Optional", "java.util.UUID",
        "java.util.BitSet", "java.util.Timer", "java.util.Locale", "java.util.Calendar",
        "java.util.Currency", "java.util.Objects", "java.util.Arrays", "java.util.Collections",
        "java.util.ArrayDeque", "java.util.PriorityQueue", "java.util.LinkedHashMap",
        "java.util.LinkedHashSet", "java.util.IdentityHashMap", "java.util.WeakHashMap",
        "java.io.File", "java.io.InputStream", "java.io.OutputStream", "java.io.Reader",
        "java.io.Writer", "java.io.PrintStream", "java.io.Serializable", "java.io.Closeable",
        "java.net.URI", "java.net.Socket"};
    static final long STEP = 100_000;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        for (int k = 0; k < NAMES.length; k++) {
            Class<?> c = Class.forName(NAMES[k]);
            long size = 16 + 64 * 4; /* an array of 64 compressed references */
            for (long made = 0; made < (k + 1) * STEP; made += size) sink = Array.newInstance(c, 64);
        }
        sink = null;
        java.nio.file.Files.createFile(java.nio.file.Path.of(args[0]));
        Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
}
