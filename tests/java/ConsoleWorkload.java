import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program that prints: known lines on stdout and stderr in turn (each
 * flushed before the next, so their order is known), then a numbered tick
 * line on stdout every 100 ms while allocating at one known site, until
 * MILLIS have passed or STOP_FILE appears; then it exits with EXIT_CODE.
 * Usage: ConsoleWorkload MILLIS EXIT_CODE [STOP_FILE]
 */
public class ConsoleWorkload {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]);
        int code = Integer.parseInt(args[1]);
        Path stop = args.length > 2 ? Path.of(args[2]) : null;
        for (int i = 1; i <= 3; i++) {
            System.out.println("console-out line " + i);
            System.out.flush();
            Thread.sleep(30);
            System.err.println("console-err line " + i);
            System.err.flush();
            Thread.sleep(30);
        }
        for (int tick = 1; System.currentTimeMillis() < end && (stop == null || !Files.exists(stop)); tick++) {
            for (int i = 0; i < 2000; i++) sink = new long[64]; // SITE:tick
            System.out.println("console tick " + tick);
            Thread.sleep(100);
        }
        System.out.println("console-out done");
        System.exit(code);
    }
}
