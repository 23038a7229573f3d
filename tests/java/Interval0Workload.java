import java.util.Map;

/** A short run at interval=0: the counted site's samples must equal its count.
 *  Usage: Interval0Workload GO_FILE FACTS_FILE */
public class Interval0Workload {
    static Object sink;
    static final int COUNT = 25_000;

    static void counted(int n) {
        for (int i = 0; i < n; i++) sink = new Object[3]; // SITE:counted
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        counted(COUNT);
        Map<String, Object> f = TestSupport.facts();
        f.put("counted.count", COUNT);
        TestSupport.writeFacts(args[1], f);
        Thread.sleep(300);
    }
}
