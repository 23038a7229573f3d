import java.util.ArrayList;

/**
 * Two known heap states, one after the other, for the snapshot compare's
 * tests (`heaptop heap A B`, the Compare screen). Every part has classes of
 * its own, so a test finds it by class name:
 *
 * - CompareHeap$Grower: GROWERS_A of them held in state A, GROWERS_A +
 *   GROW in state B; the class that grows most in bytes (primitive fields
 *   only: no array class of the JVM's own grows with it);
 * - CompareHeap$Shrinker: SHRINKERS_A in A, SHRINKERS_A - SHRINK in B;
 * - CompareHeap$Steady: STEADY in both;
 * - CompareHeap$Gone: GONE in A, none in B (the class has no instance left);
 * - CompareHeap$Fresh: none in A (the class is not even loaded), FRESH in B.
 *
 * The driver dumps in each state: once state A is built (and collected a few
 * times) the program writes FACTS (key=value, integers, as
 * harness.read_facts reads them) and waits for the file GO; then it builds
 * state B, collects again, writes FACTS + ".b" and sleeps without
 * allocating, so a dump and a histogram taken one after the other see the
 * same objects.
 * Usage: CompareHeap FACTS GO SECONDS
 */
public class CompareHeap {
    static final int GROWERS_A = 2_000, GROW = 30_000;
    static final int SHRINKERS_A = 12_000, SHRINK = 5_000;
    static final int STEADY = 4_000, GONE = 3_000, FRESH = 7_000;

    static final ArrayList<Grower> GROWERS = new ArrayList<>();
    static final ArrayList<Shrinker> SHRINKERS = new ArrayList<>();
    static final ArrayList<Steady> STEADIES = new ArrayList<>();
    static ArrayList<Gone> GONES = new ArrayList<>();
    static ArrayList<Object> FRESHES = new ArrayList<>();

    static final class Grower {
        final long a, b, c, d, e;
        Grower(long id) { a = id; b = id + 1; c = id + 2; d = id + 3; e = id + 4; }
    }

    static final class Shrinker {
        final int id;
        Shrinker(int id) { this.id = id; }
    }

    static final class Steady {
        final long a, b;
        Steady(long a) { this.a = a; this.b = a * 3; }
    }

    static final class Gone {
        final int id;
        Gone(int id) { this.id = id; }
    }

    static final class Fresh {
        final long id;
        final Object next;
        Fresh(long id, Object next) { this.id = id; this.next = next; }
    }

    static void stateA() {
        for (int i = 0; i < GROWERS_A; i++) GROWERS.add(new Grower(i));
        for (int i = 0; i < SHRINKERS_A; i++) SHRINKERS.add(new Shrinker(i));
        for (int i = 0; i < STEADY; i++) STEADIES.add(new Steady(i));
        for (int i = 0; i < GONE; i++) GONES.add(new Gone(i));
        // every list at its final capacity: B changes no ArrayList's array
        GROWERS.ensureCapacity(GROWERS_A + GROW);
        FRESHES.ensureCapacity(FRESH);
    }

    static void stateB() {
        for (int i = 0; i < GROW; i++) GROWERS.add(new Grower(GROWERS_A + i));
        for (int i = 0; i < SHRINK; i++) SHRINKERS.remove(SHRINKERS.size() - 1);
        GONES.clear();
        Object prev = null;
        for (int i = 0; i < FRESH; i++) FRESHES.add(prev = new Fresh(i, prev));
    }

    static void settle() throws InterruptedException {
        // objects only phantom-reachable go through the Cleaner after a
        // first collection: let them settle
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    public static void main(String[] args) throws Exception {
        stateA();
        settle();
        var facts = TestSupport.facts();
        facts.put("pid", ProcessHandle.current().pid());
        facts.put("growers_a", GROWERS_A);
        facts.put("grow", GROW);
        facts.put("shrinkers_a", SHRINKERS_A);
        facts.put("shrink", SHRINK);
        facts.put("steady", STEADY);
        facts.put("gone", GONE);
        facts.put("fresh", FRESH);
        TestSupport.writeFacts(args[0], facts);
        TestSupport.awaitFile(args[1], 120_000);
        stateB();
        settle();
        var b = TestSupport.facts();
        b.put("state", 2);
        TestSupport.writeFacts(args[0] + ".b", b);
        Thread.sleep(Long.parseLong(args[2]) * 1000);
    }
}
