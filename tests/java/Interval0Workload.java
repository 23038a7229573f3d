import java.util.Map;

/** A short run at interval=0: the counted site's samples must equal its count.
 *  Usage: Interval0Workload GO_FILE FACTS_FILE [STARTED_FILE]
 *  (STARTED_FILE is created first thing in main: proof that the program ran) */
public class Interval0Workload {
    static Object sink;
    static final int COUNT = 25_000;

    static void counted(int n) {
        for (int i = 0; i < n; i++) sink = new Object[3]; // SITE:counted
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 2) java.nio.file.Files.createFile(java.nio.file.Path.of(args[2]));
        TestSupport.awaitFile(args[0], 60_000);
        counted(COUNT);
        Map<String, Object> f = TestSupport.facts();
        f.put("counted.count", COUNT);
        TestSupport.writeFacts(args[1], f);
        Thread.sleep(300);
    }
}
