import java.util.HashMap;

/**
 * A big heap for the heap-analysis benchmark (our HPROF parser and retained
 * sizes at 1M and 10M objects). It builds about OBJECTS objects, collects a
 * few times, writes FACTS and sleeps SECONDS without allocating, so a dump
 * taken then holds what it built.
 *
 * The heap is made of groups of eight objects, all reachable from the static
 * HashMap MAP:
 *   - a map entry: its String key ("k" + group), the key's byte[], the
 *     HashMap$Node, and an Object[4] value;
 *   - three BigHeap$Node (next, other, owner, data; 32 bytes each with
 *     compressed oops) chained n0 -> n1 -> n2, and n2 -> the next group's n0:
 *     lists of LIST_GROUPS groups, every CYCLE_EVERY-th list closed into a
 *     cycle (its last node points back at its first);
 *   - one payload, an int[8] (even groups) or a byte[40] (odd ones).
 * The value array holds {n0, n2, payload, the previous group's value array},
 * so the values form a chain across the whole map; each node points at its
 * group's value array (owner) and at an earlier node (other, from a window of
 * the last WINDOW nodes), so the dominator tree is not just the map: about
 * 2.25 references per object. Its shallow size is about 33 bytes per object.
 *
 * FACTS (key=value, integers): pid, objects (exactly the objects built:
 * 8 per group; the map, its table and the classes are not counted), groups,
 * references (the non-null references those objects hold: a HashMap$Node
 * counted as key and value, its next links within a bucket not), build_ms.
 * Usage: BigHeap FACTS OBJECTS SECONDS
 */
public class BigHeap {
    static final int LIST_GROUPS = 1_000, CYCLE_EVERY = 4, WINDOW = 4_096;

    static HashMap<String, Object[]> MAP;

    static final class Node {
        Node next;
        Node other;
        Object[] owner;
        Object data;
        final int id;
        Node(int id) { this.id = id; }
    }

    static long objects, references;

    static void build(int groups) {
        HashMap<String, Object[]> map = new HashMap<>(groups * 4 / 3 + 16);
        Node[] window = new Node[WINDOW];
        Node listFirst = null, last = null;
        Object[] prev = null;
        for (int g = 0; g < groups; g++) {
            String key = "k".concat(Integer.toString(g));
            Object[] value = new Object[4];
            Node n0 = new Node(3 * g), n1 = new Node(3 * g + 1), n2 = new Node(3 * g + 2);
            Object payload = (g & 1) == 0 ? new int[8] : new byte[40];
            value[0] = n0;
            value[1] = n2;
            value[2] = payload;
            value[3] = prev;
            n0.next = n1;
            n1.next = n2;
            n0.owner = n1.owner = n2.owner = value;
            n0.data = key;
            n1.data = payload;
            n0.other = window[(int) ((g * 2654435761L) & (WINDOW - 1))];
            n1.other = window[(int) ((g * 40503L + 7) & (WINDOW - 1))];
            n2.other = window[(int) ((g * 9973L + 13) & (WINDOW - 1))];
            references += 1 /* the key's byte[] */ + 2 /* the map's node */ + (prev != null ? 4 : 3) /* value */
                    + 2 /* next */ + 3 /* owner */ + 2 /* data */
                    + (n0.other != null ? 1 : 0) + (n1.other != null ? 1 : 0) + (n2.other != null ? 1 : 0);
            if (last != null) {
                last.next = n0;
                references++;
            } else {
                listFirst = n0;
            }
            last = n2;
            int list = g / LIST_GROUPS;
            boolean lastOfList = g % LIST_GROUPS == LIST_GROUPS - 1 || g == groups - 1;
            if (lastOfList) {
                if (list % CYCLE_EVERY == 0) {
                    n2.next = listFirst;
                    references++;
                }
                last = null;
            }
            window[(3 * g) & (WINDOW - 1)] = n0;
            window[(3 * g + 1) & (WINDOW - 1)] = n1;
            window[(3 * g + 2) & (WINDOW - 1)] = n2;
            map.put(key, value);
            prev = value;
            objects += 8;
        }
        MAP = map;
    }

    static void writeFacts(String path, int groups, long buildMs) throws Exception {
        var facts = TestSupport.facts();
        facts.put("pid", ProcessHandle.current().pid());
        facts.put("objects", objects);
        facts.put("groups", groups);
        facts.put("references", references);
        facts.put("build_ms", buildMs);
        TestSupport.writeFacts(path, facts);
    }

    public static void main(String[] args) throws Exception {
        int groups = (int) (Long.parseLong(args[1]) / 8);
        long t0 = System.nanoTime();
        build(groups);
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        long buildMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("BigHeap: " + objects + " objects, " + references + " references, built and collected in "
                           + buildMs + " ms");
        writeFacts(args[0], groups, buildMs);
        Thread.sleep(Long.parseLong(args[2]) * 1000);
    }
}
