import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Phases of one class with exactly known counts, for the mark tests. Each time
 * the file DIR/goN appears (N = 1, 2, ...), it allocates COUNT objects of
 * MarkWorkload$Item at one site (a class nothing else allocates) and then
 * writes DIR/doneN holding COUNT. It stops when DIR/stop appears.
 * Usage: MarkWorkload DIR [COUNT]
 */
public class MarkWorkload {
    static volatile Object sink;

    static final class Item {
        long a, b, c;
        Item(long a) { this.a = a; this.b = -a; this.c = a ^ 7; }
    }

    static void phase(int n) {
        for (int i = 0; i < n; i++) sink = new Item(i); // SITE:item
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 4_000_000;
        long end = System.currentTimeMillis() + 600_000;
        for (int n = 1; System.currentTimeMillis() < end && !Files.exists(dir.resolve("stop"));) {
            if (Files.exists(dir.resolve("go" + n))) {
                phase(count);
                Files.writeString(dir.resolve("done" + n + ".tmp"), Integer.toString(count));
                Files.move(dir.resolve("done" + n + ".tmp"), dir.resolve("done" + n));
                n++;
            } else {
                Thread.sleep(10);
            }
        }
    }
}
