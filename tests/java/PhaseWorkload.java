import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Steady background allocation plus one phase with an exactly known count, for
 * the TUI test: the test begins a mark, creates GO_FILE, waits for DONE_FILE,
 * then ends the mark and checks the diff columns against BLOBS.
 * Usage: PhaseWorkload GO_FILE DONE_FILE
 */
public class PhaseWorkload {
    static volatile Object sink;
    static final int BLOBS = 20_000_000;

    static final class Blob {
        long a, b;
        Blob(long a) { this.a = a; this.b = -a; }
    }

    static void steady() {
        for (int i = 0; i < 2000; i++) sink = new byte[512];
    }

    static void phase() {
        for (int i = 0; i < BLOBS; i++) sink = new Blob(i); // SITE:phase
    }

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]), done = Path.of(args[1]);
        boolean ran = false;
        long end = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < end) {
            steady();
            if (!ran && Files.exists(go)) {
                phase();
                Files.writeString(done, Integer.toString(BLOBS));
                ran = true;
            }
            Thread.sleep(20);
        }
    }
}
