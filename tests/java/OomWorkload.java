import java.util.ArrayList;
import java.util.List;

/**
 * Waits for the go signal, then fills the heap until an OutOfMemoryError that it
 * does not catch ends the JVM (or -XX:+ExitOnOutOfMemoryError does).
 * Usage: OomWorkload GO_FILE
 */
public class OomWorkload {
    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args.length > 0 ? args[0] : "-", 60_000);
        List<long[]> keep = new ArrayList<>();
        while (true) keep.add(new long[1 << 16]);
    }
}
