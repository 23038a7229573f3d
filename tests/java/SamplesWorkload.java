import java.util.ArrayList;
import java.util.Map;

/**
 * Known sample counts, for the samples columns (test_samples.py). At
 * interval=0 every allocation is a sample (weight 1), so a class allocated
 * COUNT times has exactly COUNT samples, and as many live samples once a
 * collection has proven them alive.
 *
 * After GO: COUNT SamplesWorkload$Counted objects, every one kept, and FEW
 * SamplesWorkload$Rare ones, kept too; then System.gc() (the proof the agent
 * waits for), FACTS (counted.count, rare.count), and an idle wait until STOP
 * appears (at most 120 s).
 * Usage: SamplesWorkload GO FACTS STOP
 */
public final class SamplesWorkload {
    static final int COUNT = 2000, FEW = 3;
    static final ArrayList<Object> KEEP = new ArrayList<>(COUNT + FEW);

    static final class Counted {
        long a;
    }

    static final class Rare {
        long a;
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        for (int i = 0; i < COUNT; i++) KEEP.add(new Counted()); // SITE:counted
        for (int i = 0; i < FEW; i++) KEEP.add(new Rare()); // SITE:rare
        System.gc();
        Map<String, Object> f = TestSupport.facts();
        f.put("counted.count", COUNT);
        f.put("rare.count", FEW);
        TestSupport.writeFacts(args[1], f);
        TestSupport.awaitFile(args[2], 120_000);
        if (KEEP.size() != COUNT + FEW) throw new IllegalStateException("lost some");
    }
}
