import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * More sampled objects alive at once than the agent tracks (1,000,000): at
 * interval=0 every one of KEEP objects of CapWorkload$Kept is sampled, and all
 * stay reachable. Writes FACTS once they exist, then idles until STOP appears.
 * Usage: CapWorkload GO_FILE FACTS_FILE KEEP STOP_FILE
 */
public class CapWorkload {
    static Kept[] kept;

    static final class Kept {
        final int v;
        Kept(int v) { this.v = v; }
    }

    static void keep(int n) {
        kept = new Kept[n];
        for (int i = 0; i < n; i++) kept[i] = new Kept(i); // SITE:kept
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        int n = Integer.parseInt(args[2]);
        keep(n);
        Map<String, Object> f = TestSupport.facts();
        f.put("kept", n);
        TestSupport.writeFacts(args[1], f);
        Path stop = Path.of(args[3]);
        long end = System.currentTimeMillis() + 600_000;
        while (!Files.exists(stop) && System.currentTimeMillis() < end) Thread.sleep(20);
        System.out.println("kept " + kept.length);
    }
}
