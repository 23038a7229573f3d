import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Waits for the go signal, then leaks into a static list (a map with an
 * int[32] per entry, as a request leak would) until an OutOfMemoryError ends
 * main. Unlike OomWorkload's local list, the leak stays reachable after main
 * has died: the heap stays full, so the launcher's DestroyJavaVM cannot
 * allocate the Thread it attaches with, fails, and the process exits without
 * a VM death event (the path that used to end without the agent's goodbye).
 * Usage: KeptOomWorkload GO_FILE
 */
public class KeptOomWorkload {
    static final List<Object> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args.length > 0 ? args[0] : "-", 60_000);
        long n = 0;
        while (true) {
            Map<String, Object> m = new HashMap<>();
            m.put("k" + n++, new int[32]);
            KEPT.add(m);
        }
    }
}
