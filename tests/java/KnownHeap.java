import java.util.ArrayList;

/**
 * A known heap for the heap analyser's tests (histogram, duplicates,
 * dominator tree, retained sizes, paths to GC roots). Every part has classes
 * of its own, so a test finds it by class name:
 *
 * - KnownHeap$Cache, held by the static field CACHE: a KnownHeap$Entry[] of
 *   CACHE_ENTRIES entries. Every entry holds a String equal to
 *   "duplicate-value" (DUP_STRINGS distinct String objects, each made by
 *   new String(char[]) so each has a byte[] of its own); the first
 *   DUP_ARRAYS entries also hold an int[DUP_ARRAY_LENGTH], all equal to one
 *   another ({7, 8, 11, 16, ...}: i * i + 7), each a copy of its own. No
 *   literal "duplicate-value" is in this class (the string is put together at
 *   run time), so the interned string table holds no extra equal copy: there
 *   are exactly DUP_STRINGS of them, and DUP_ARRAYS such int[]s.
 * - a ring of RING KnownHeap$RingNode (a cycle; each has a long id), held by
 *   the static field RING (the node with id 0). Nothing else points into it,
 *   so that node dominates the others: its retained size is RING times a
 *   RingNode's size.
 * - lapsed listeners: LISTENERS KnownHeap$Listener, each with a
 *   KnownHeap$Widget owner (its long[8] state; the widget points back at its
 *   listener), added to the static ArrayList KnownHeap$EventBus.LISTENERS and
 *   never removed. Nothing else holds the widgets: their one path to a GC root
 *   goes through EventBus.LISTENERS.
 * - BIG, the independent truth for retained sizes: one KnownHeap$Big, held
 *   only by the static field BIG, holds a KnownHeap$BigNode[] of BIG_NODES
 *   KnownHeap$BigNode whose fields are primitives only. Nothing else refers to
 *   the array or the nodes, and nothing is reachable through them, so the
 *   retained size of the Big object is exactly the sum of the bytes
 *   `jcmd GC.class_histogram` gives for the three classes KnownHeap$Big,
 *   [LKnownHeap$BigNode; and KnownHeap$BigNode (and that of the array is that
 *   sum less the Big object's own size).
 *
 * Everything is built in methods of its own, so the frame of main holds no
 * reference into these structures while it sleeps (a frame's locals are GC
 * roots in a heap dump). Once built it collects a few times, writes FACTS
 * (key=value lines, integers only, as harness.read_facts reads them) and
 * sleeps without allocating, so a dump and a histogram taken one after the
 * other see the same objects.
 * Usage: KnownHeap FACTS SECONDS
 */
public class KnownHeap {
    static final int CACHE_ENTRIES = 5_000, DUP_STRINGS = CACHE_ENTRIES;
    static final int DUP_ARRAYS = 3_000, DUP_ARRAY_LENGTH = 16;
    static final int RING_NODES = 1_000;
    static final int LISTENERS = 2_000;
    static final int BIG_NODES = 50_000;

    static Cache CACHE;
    static RingNode RING;
    static Big BIG;

    static final class Cache {
        final Entry[] entries;
        Cache(Entry[] entries) { this.entries = entries; }
    }

    static final class Entry {
        final String text;
        final int[] data;
        Entry(String text, int[] data) { this.text = text; this.data = data; }
    }

    static final class RingNode {
        RingNode next;
        final long id;
        RingNode(long id) { this.id = id; }
    }

    static final class EventBus {
        static final ArrayList<Listener> LISTENERS = new ArrayList<>();
        static void register(Listener l) { LISTENERS.add(l); }
    }

    static final class Widget {
        final long[] state = new long[8];
        Listener listener;
    }

    static final class Listener {
        final int id;
        final Widget owner;
        Listener(int id, Widget owner) { this.id = id; this.owner = owner; }
    }

    static final class Big {
        final BigNode[] nodes;
        Big(BigNode[] nodes) { this.nodes = nodes; }
    }

    /** Primitives only: nothing is reachable through a BigNode. */
    static final class BigNode {
        final long a;
        final int b;
        final byte c;
        BigNode(int i) { a = i * 31L; b = i; c = (byte) i; }
    }

    static void buildCache() {
        char[] chars = new StringBuilder("duplicate").append('-').append("value").toString().toCharArray();
        Entry[] entries = new Entry[CACHE_ENTRIES];
        for (int i = 0; i < entries.length; i++) {
            int[] data = null;
            if (i < DUP_ARRAYS) {
                data = new int[DUP_ARRAY_LENGTH];
                for (int k = 0; k < data.length; k++) data[k] = k * k + 7;
            }
            entries[i] = new Entry(new String(chars), data);
        }
        CACHE = new Cache(entries);
    }

    static void buildRing() {
        RingNode first = new RingNode(0), last = first;
        for (int i = 1; i < RING_NODES; i++) {
            last.next = new RingNode(i);
            last = last.next;
        }
        last.next = first;
        RING = first;
    }

    static void buildListeners() {
        for (int i = 0; i < LISTENERS; i++) {
            Widget w = new Widget();
            w.listener = new Listener(i, w);
            EventBus.register(w.listener);
        }
    }

    static void buildBig() {
        BigNode[] nodes = new BigNode[BIG_NODES];
        for (int i = 0; i < nodes.length; i++) nodes[i] = new BigNode(i);
        BIG = new Big(nodes);
    }

    static void writeFacts(String path) throws Exception {
        var facts = TestSupport.facts();
        facts.put("pid", ProcessHandle.current().pid());
        facts.put("cache_entries", CACHE_ENTRIES);
        facts.put("dup_strings", DUP_STRINGS);
        facts.put("dup_string_length", CACHE.entries[0].text.length());
        facts.put("dup_arrays", DUP_ARRAYS);
        facts.put("dup_array_length", DUP_ARRAY_LENGTH);
        facts.put("ring_nodes", RING_NODES);
        facts.put("listeners", LISTENERS);
        facts.put("big_nodes", BIG_NODES);
        TestSupport.writeFacts(path, facts);
    }

    public static void main(String[] args) throws Exception {
        buildCache();
        buildRing();
        buildListeners();
        buildBig();
        // Objects only phantom-reachable go through the Cleaner after a first
        // collection: let them settle.
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        writeFacts(args[0]);
        Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
}
