import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A start-up path that is hot first, then another path that takes over, for
 * the tree's hot path (tests/e2e/test_tui_hot_path.py): until GO_FILE
 * exists, main allocates through startup -> loadConfiguration ->
 * parseDescriptors; from then on through serveRequests -> handleRequest ->
 * renderResponse at a higher rate, while the start-up path goes on at a
 * trickle (it stays in the tree, folded under the new hot path). Both
 * paths leave main at lines of their own, so they part at the first level.
 * Usage: TakeoverWorkload GO_FILE SECONDS
 */
public class TakeoverWorkload {
    static volatile Object sink;

    static void startup(int n) {
        loadConfiguration(n);
    }

    static void loadConfiguration(int n) {
        parseDescriptors(n);
    }

    static void parseDescriptors(int n) {
        for (int i = 0; i < n; i++) sink = new byte[1024]; // SITE:startup
    }

    static void serveRequests(int n) {
        handleRequest(n);
    }

    static void handleRequest(int n) {
        renderResponse(n);
    }

    static void renderResponse(int n) {
        for (int i = 0; i < n; i++) sink = new byte[1024]; // SITE:serve
    }

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]);
        long end = System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
        boolean serving = false;
        while (System.currentTimeMillis() < end) {
            if (!serving) serving = Files.exists(go);
            startup(serving ? 2 : 100); // SITE:startup_call
            if (serving) serveRequests(1000); // SITE:serve_call
            Thread.sleep(1);
        }
    }
}
