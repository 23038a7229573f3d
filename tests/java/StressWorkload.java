import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Many threads allocating for a while, some objects kept for a time; exits with
 * the given status so the test can check the agent does not change it.
 * Usage: StressWorkload THREADS MILLIS EXIT_CODE [STOP_FILE]
 * (with STOP_FILE it stops as soon as that file appears, MILLIS being only
 * the longest it runs, so a test decides when it ends, not a clock).
 */
public class StressWorkload {
    static volatile Object sink;
    static volatile boolean stop;

    static void work(long end) {
        List<Object> window = new ArrayList<>();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (!stop && System.currentTimeMillis() < end) {
            for (int i = 0; i < 1000; i++) {
                switch (r.nextInt(4)) {
                    case 0: sink = new byte[r.nextInt(64, 4096)]; break;
                    case 1: sink = new StringBuilder("s").append(i).toString(); break;
                    case 2: sink = new int[r.nextInt(1, 64)][2]; break;
                    default: window.add(new long[r.nextInt(1, 128)]);
                }
            }
            if (window.size() > 5000) window.clear();
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long end = System.currentTimeMillis() + Long.parseLong(args[1]);
        Thread[] t = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            t[i] = new Thread(() -> work(end), "stress-" + i);
            t[i].start();
        }
        if (args.length > 3) {
            Path stopFile = Path.of(args[3]);
            while (System.currentTimeMillis() < end && !Files.exists(stopFile)) Thread.sleep(20);
            stop = true;
        }
        for (Thread x : t) x.join();
        System.exit(Integer.parseInt(args[2]));
    }
}
