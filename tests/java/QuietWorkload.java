import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A quiet service: a "request" ten times a second that allocates about 20 KiB
 * in small objects (about 200 KiB/s in all), sleeping in between, until
 * STOP_FILE appears or MILLIS pass. Its CPU is tiny, so the agent's fixed
 * costs (waking up, telemetry) are a large share of it: the case where a CPU
 * budget must not mistake them for the cost of sampling.
 * Usage: QuietWorkload MILLIS STOP_FILE
 */
public class QuietWorkload {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]);
        Path stop = Path.of(args[1]);
        while (System.currentTimeMillis() < end && !Files.exists(stop)) {
            for (int i = 0; i < 200; i++) sink = new byte[100]; // SITE:request
            Thread.sleep(100);
        }
    }
}
