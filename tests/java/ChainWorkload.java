/**
 * Retained sets that nest, for the bound on a site's estimated retained bytes:
 *
 * - buildChain() makes a singly linked list of LINKS ChainWorkload$Link
 *   objects, all at one site (link()), each new one pointing to the one
 *   before: the newest is held from a static field, and every Link retains
 *   all the older ones (it is their only way in). A sampled Link at depth k
 *   retains the k Links behind it, so the site's estimate (weight x retained
 *   size, summed over its samples) is many times the whole heap, though no
 *   object retains more than the list.
 * - keepArrays() keeps ARRAYS byte[ARRAY_BYTES] at another site (array()),
 *   each retaining only itself: that site's estimate stays under the heap.
 *
 * Then it writes READY and sleeps SECONDS without allocating.
 * args: READY SECONDS
 */
public final class ChainWorkload {
    static final int LINKS = 1_000_000, ARRAYS = 8_000, ARRAY_BYTES = 1_000;

    static final class Link {
        final Link next;
        int value;

        Link(Link next, int value) {
            this.next = next;
            this.value = value;
        }
    }

    static Link chain;
    /* allocated before any sampled site of the test, and once */
    static final byte[][] KEPT = new byte[ARRAYS][];

    static Link link(Link next, int value) {
        return new Link(next, value); // SITE:link
    }

    static void buildChain() {
        Link head = null;
        for (int i = 0; i < LINKS; i++) head = link(head, i);
        chain = head;
    }

    static byte[] array() {
        return new byte[ARRAY_BYTES]; // SITE:array
    }

    static void keepArrays() {
        for (int i = 0; i < ARRAYS; i++) KEPT[i] = array();
    }

    public static void main(String[] args) throws Exception {
        buildChain(); // SITE:chain_call
        keepArrays(); // SITE:keep_call
        System.gc(); // the samples proven live before the test looks
        java.nio.file.Files.createFile(java.nio.file.Path.of(args[0]));
        Thread.sleep(Long.parseLong(args[1]) * 1000);
        if (chain.value != LINKS - 1 || KEPT[ARRAYS - 1].length != ARRAY_BYTES) throw new AssertionError();
    }
}
