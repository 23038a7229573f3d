import java.util.Map;

/** A short run at interval=0: the counted site's samples must equal its count;
 *  the mixed site allocates two classes at one stack.
 *  Usage: Interval0Workload GO_FILE FACTS_FILE [STARTED_FILE]
 *  (STARTED_FILE is created first thing in main: proof that the program ran) */
public class Interval0Workload {
    static Object sink;
    static final int COUNT = 25_000;

    static void counted(int n) {
        for (int i = 0; i < n; i++) sink = new Object[3]; // SITE:counted
    }

    /* One stack, two classes: reflection allocates both at the same frames.
     * In ten bursts 150 ms apart, longer than the agent's collector sleeps
     * (100 ms at most), so its queue is empty as each burst begins and a tiny
     * buffer= still lets samples of both classes through: the burst that
     * comes right after counted()'s may find the queue full. */
    static void mixed(int n) throws InterruptedException {
        for (int b = 0, i = 0; b < 10; b++) {
            Thread.sleep(150);
            for (int end = n * (b + 1) / 10; i < end; i++)
                sink = java.lang.reflect.Array.newInstance((i & 1) == 0 ? Object.class : long.class, 2);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 2) java.nio.file.Files.createFile(java.nio.file.Path.of(args[2]));
        TestSupport.awaitFile(args[0], 60_000);
        counted(COUNT);
        mixed(COUNT);
        Map<String, Object> f = TestSupport.facts();
        f.put("counted.count", COUNT);
        f.put("mixed.count", COUNT);
        TestSupport.writeFacts(args[1], f);
        Thread.sleep(300);
    }
}
