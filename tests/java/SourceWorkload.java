import java.util.ArrayList;
import java.util.List;

/**
 * Allocations at known lines, for the Source screen: chunk() allocates byte
 * arrays on its marked line, and grow() fills ArrayLists, so the JDK's own
 * frames (java.util.ArrayList.grow, Arrays.copyOf) are in the stacks.
 * Usage: SourceWorkload SECONDS
 */
public class SourceWorkload {
    static Object sink;

    /* a block comment, a "string" and 'c' on the lines around the site */
    static byte[] chunk(int n) {
        String why = "bytes"; char c = 'c'; // a line comment
        return new byte[n + why.length() + c - 'c']; // SITE:chunk
    }

    static List<Integer> grow(int n) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n; i++) l.add(i); // SITE:grow
        return l;
    }

    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000L;
        while (System.currentTimeMillis() < end) {
            sink = chunk(4096); // SITE:chunk_call
            sink = grow(2000); // SITE:grow_call
            Thread.sleep(1);
        }
    }
}
