package dragctl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;

/**
 * A workload for drag mode's control (tests/e2e/test_drag_control.py): it
 * allocates dragctl.Item objects (~1 KiB, so the sampler takes them often)
 * and dragctl.Sub ones (a subclass: its inherited methods pass Item's class
 * id), calls their instance methods (some overridden, one with a switch and
 * a try/catch, so a rewrite that breaks them fails under -Xverify:all),
 * holds the last HOLD of them in a FIFO, and checks its own sums: a wrong
 * answer exits 3. Every PRINT_EVERY rounds it writes the round it is at to
 * PROGRESS_FILE (the test reads that the JVM runs on). Runs until STOP_FILE
 * exists (at most 10 minutes).
 *
 * Usage: dragctl.DragControlWorkload PROGRESS_FILE STOP_FILE
 */
public final class DragControlWorkload {
    static final int HOLD = 2000;
    static final int PRINT_EVERY = 20000;

    public static void main(String[] args) throws Exception {
        Path progress = Path.of(args[0]);
        Path stop = Path.of(args[1]);
        ArrayDeque<Item> held = new ArrayDeque<>();
        long deadline = System.nanoTime() + 600_000_000_000L;
        long sum = 0, want = 0;
        for (long round = 1; System.nanoTime() < deadline; round++) {
            Item it = (round % 3 == 0) ? new Sub(round) : new Item(round);
            sum += it.value() + it.kind((int) (round % 5));
            want += expected(round);
            held.addLast(it);
            if (held.size() > HOLD) held.removeFirst().touchAgain();
            if (sum != want) {
                System.err.println("wrong sum at round " + round + ": " + sum + " != " + want);
                System.exit(3);
            }
            if (round % PRINT_EVERY == 0) {
                Files.writeString(progress, Long.toString(round));
                if (Files.exists(stop)) break;
            }
        }
    }

    /* What value() + kind() must give, computed without the classes. */
    static long expected(long round) {
        int k = (int) (round % 5);
        long v = round % 3 == 0 ? round * 2 : round;
        long kind;
        switch (k) {
            case 0: kind = 10; break;
            case 1: kind = 11; break;
            case 2: kind = 12; break;
            default: kind = round % 3 == 0 ? 7 : 13;
        }
        return v + kind;
    }
}

class Item {
    final long id;
    final long[] pad = new long[120];
    long uses;

    Item(long id) {
        this.id = id;
    }

    long value() {
        uses++;
        return id;
    }

    int kind(int k) {
        try {
            switch (k) {
                case 0: return 10;
                case 1: return 11;
                case 2: return 12;
                default: return other(k);
            }
        } catch (IllegalStateException e) {
            return -1;
        }
    }

    int other(int k) {
        if (k > 10) throw new IllegalStateException("k " + k);
        return 13;
    }

    void touchAgain() {
        uses++;
    }
}

final class Sub extends Item {
    Sub(long id) {
        super(id);
    }

    @Override
    long value() {
        return super.value() * 2;
    }

    @Override
    int other(int k) {
        return 7;
    }
}
