import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A heap for the paths to GC roots (`heaptop heap --paths`), whose answers
 * the dump itself guarantees:
 * - one PathsHeap$FrameHeld, held by nothing but a local variable of main
 *   while main sleeps (the line marked SITE:frame): its only GC root is that
 *   Java frame, so its path is that root, naming thread "main" and the line;
 * - PathsHeap$Item: GARBAGE instances made first and dropped (garbage in a
 *   dump taken with -all, at lower addresses than the kept ones), then KEPT
 *   instances held by a static list.
 * Nothing is allocated once FACTS is written (main sleeps), so an -all dump
 * still holds the garbage unless a collection ran.
 * Usage: PathsHeap FACTS SECONDS
 */
public class PathsHeap {
    static final int GARBAGE = 3_000, KEPT = 40;
    static final List<Item> ITEMS = new ArrayList<>(KEPT);
    static int sink;

    static final class Item {
        final long id;
        Item(long id) { this.id = id; }
    }

    static final class FrameHeld {
        final int[] payload = new int[4];
    }

    static void garbage() {
        Item[] tmp = new Item[GARBAGE];
        for (int i = 0; i < GARBAGE; i++) tmp[i] = new Item(-i);
        sink = tmp.length;
    }

    public static void main(String[] args) throws Exception {
        garbage();
        for (int i = 0; i < KEPT; i++) ITEMS.add(new Item(i));
        FrameHeld held = new FrameHeld();
        TestSupport.writeFacts(args[0], Map.of("garbage", (Object) GARBAGE, "kept", (Object) KEPT));
        Thread.sleep(Long.parseLong(args[1]) * 1000); // SITE:frame
        System.out.println(held.payload.length);
    }
}
