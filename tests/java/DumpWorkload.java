import java.util.ArrayList;
import java.util.List;

/**
 * A heap of a chosen size for the heap dump tests: ITEMS DumpWorkload$Item
 * (a long and a reference each: 24 bytes with compressed oops), held in
 * DumpWorkload$Item[] chunks of CHUNK (the last one may be shorter) in the
 * static list CHUNKS, each item pointing at the one before it in its chunk.
 * Nothing else refers to the items, so the list retains them all. Built in a
 * method of its own (main's frame holds no reference into it), then it
 * collects a few times, writes FACTS (pid, items, chunks) and sleeps SECONDS
 * without allocating, so every dump taken then holds exactly these items.
 * Usage: DumpWorkload FACTS ITEMS SECONDS
 */
public class DumpWorkload {
    static final int CHUNK = 1024;
    static final List<Item[]> CHUNKS = new ArrayList<>();

    static final class Item {
        final long id;
        final Item previous;
        Item(long id, Item previous) { this.id = id; this.previous = previous; }
    }

    static void build(long items) {
        for (long done = 0; done < items; ) {
            Item[] chunk = new Item[(int) Math.min(CHUNK, items - done)];
            Item previous = null;
            for (int i = 0; i < chunk.length; i++, done++) previous = chunk[i] = new Item(done, previous);
            CHUNKS.add(chunk);
        }
    }

    public static void main(String[] args) throws Exception {
        long items = Long.parseLong(args[1]);
        build(items);
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        var facts = TestSupport.facts();
        facts.put("pid", ProcessHandle.current().pid());
        facts.put("items", items);
        facts.put("chunks", CHUNKS.size());
        TestSupport.writeFacts(args[0], facts);
        Thread.sleep(Long.parseLong(args[2]) * 1000);
    }
}
