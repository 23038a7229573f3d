/**
 * A heap whose object-group reference graph (the Behaviour analysis, docs/
 * behaviour.md) is known from its structure, so every figure of
 * behaviour.csv for its classes follows from the bytes `jcmd
 * GC.class_histogram` gives per class (test_behaviour_heap computes them).
 * Arrays and fields only, no JDK collection, so a class's histogram bytes are
 * its node's MC. Every class is its own (BehaviourHeap$...), held by nothing
 * but this structure, under the one static field ROOT:
 *
 * - one Root: its Holder[] of HOLDERS Holder, and the head of a singly linked
 *   list of LIST ListNode (a self-edge: ListNode -> ListNode);
 * - each Holder holds exactly one ElemA, one ElemB, one ElemC (three classes
 *   of distinct sizes) and one CycA;
 * - each Elem holds one Leaf of its own (3 x HOLDERS Leaf: DR 1/3 from each
 *   Elem class);
 * - SHARED_A + SHARED_B Shared, with two parent classes: ElemA i holds
 *   Shared[i % SHARED_A], ElemB i holds Shared[SHARED_A + i % SHARED_B]
 *   (distinct DR SHARED_A / (SHARED_A + SHARED_B) and SHARED_B / ...; every
 *   Elem refers to one, so counting references gives HOLDERS / (SHARED_A +
 *   SHARED_B) each);
 * - each CycA and its CycB refer to each other: HOLDERS object-level
 *   2-cycles, one Cycle_N {CycA, CycB} with scc=literal, two nodes with
 *   scc=none (CycB -> CycA then dropped by the depth rule).
 *
 * Built in a method of its own, so main's frame holds none of it; then it
 * collects a few times, writes FACTS (key=value, integers) and prints
 * "ready", and sleeps without allocating, so a dump and a histogram taken
 * one after the other see the same objects.
 * Usage: BehaviourHeap FACTS SECONDS
 */
public class BehaviourHeap {
    static final int HOLDERS = 600, SHARED_A = 30, SHARED_B = 10, LIST = 500;

    static Root ROOT;

    static final class Root {
        final Holder[] holders;
        final ListNode list;
        Root(Holder[] holders, ListNode list) { this.holders = holders; this.list = list; }
    }

    static final class Holder {
        final ElemA a;
        final ElemB b;
        final ElemC c;
        final CycA cyc;
        final long id;
        Holder(ElemA a, ElemB b, ElemC c, CycA cyc, long id) {
            this.a = a; this.b = b; this.c = c; this.cyc = cyc; this.id = id;
        }
    }

    static final class ElemA {
        final Leaf leaf;
        final Shared shared;
        final long x;
        ElemA(Leaf leaf, Shared shared, long x) { this.leaf = leaf; this.shared = shared; this.x = x; }
    }

    static final class ElemB {
        final Leaf leaf;
        final Shared shared;
        final int y;
        ElemB(Leaf leaf, Shared shared, int y) { this.leaf = leaf; this.shared = shared; this.y = y; }
    }

    static final class ElemC {
        final Leaf leaf;
        final long p, q, r;
        ElemC(Leaf leaf, long v) { this.leaf = leaf; p = v; q = v + 1; r = v + 2; }
    }

    /** Primitives only. */
    static final class Leaf {
        final long v;
        Leaf(long v) { this.v = v; }
    }

    /** Primitives only. */
    static final class Shared {
        final long a, b, c, d;
        Shared(long v) { a = v; b = v * 2; c = v * 3; d = v * 4; }
    }

    static final class CycA {
        CycB partner;
        int n;
    }

    static final class CycB {
        CycA back;
        long n;
    }

    static final class ListNode {
        ListNode next;
        int n;
    }

    static void build() {
        Shared[] shared = new Shared[SHARED_A + SHARED_B]; // dropped once built
        for (int i = 0; i < shared.length; i++) shared[i] = new Shared(i);
        Holder[] holders = new Holder[HOLDERS];
        for (int i = 0; i < HOLDERS; i++) {
            CycA a = new CycA();
            CycB b = new CycB();
            a.partner = b;
            b.back = a;
            a.n = i;
            b.n = i;
            holders[i] = new Holder(new ElemA(new Leaf(3L * i), shared[i % SHARED_A], i),
                                    new ElemB(new Leaf(3L * i + 1), shared[SHARED_A + i % SHARED_B], i),
                                    new ElemC(new Leaf(3L * i + 2), i), a, i);
        }
        ListNode head = null;
        for (int i = 0; i < LIST; i++) {
            ListNode n = new ListNode();
            n.next = head;
            n.n = i;
            head = n;
        }
        ROOT = new Root(holders, head);
    }

    public static void main(String[] args) throws Exception {
        build();
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        var facts = TestSupport.facts();
        facts.put("holders", HOLDERS);
        facts.put("shared_a", SHARED_A);
        facts.put("shared_b", SHARED_B);
        facts.put("list", LIST);
        TestSupport.writeFacts(args[0], facts);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
}
