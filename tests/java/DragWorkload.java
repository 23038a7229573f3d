package dragwl;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Drag whose truth is known by construction (issue 25, design note B4): one
 * class, dragwl.Rec (128 long fields: ~1 KiB, so the allocation sampler takes
 * it often), allocated at three sites, each its own method (its own stack):
 *
 * - L, lingering (allocL): use() 3 times over SPREAD_MS, then held untouched
 *   in a FIFO for HOLD_MS (2 s), then dropped;
 * - P, prompt (allocP): use() 3 times over SPREAD_MS, dropped at the third;
 * - V, void (allocV): never used after its constructor, held VOID_MS (1 s).
 *
 * The uses are spread over SPREAD_MS (300 ms), not the ~10 ms of the note: the
 * agent hands a sampled object to the helper on its collector thread, which
 * wakes at least every 100 ms, and a use before that cannot be seen. What is
 * measured is the last use, which comes after.
 *
 * A thread "drag-gc" calls System.gc() every GC_MS (100 ms), so that a death
 * is seen at most ~GC_MS after the drop. The objects are allocated at fixed
 * rates (objects a second per site) for SECONDS; then no more, and the held
 * ones are dropped on their schedule; then, after three more collections, the
 * truth is written: per site the objects allocated, the sum of (drop - last
 * use) and of the lifetimes, from the clock the program read when it used
 * and dropped each object (System.nanoTime()), never from heaptop. Then it
 * goes on collecting until STOP_FILE exists (at most 10 minutes), so that a
 * viewer can read the agent's figures with every object dead. A STOP_FILE
 * that appears before the truth is written ends the program at once.
 *
 * Only this program's own bookkeeping reads Rec's fields from outside (field
 * reads from another class are no use in heaptop's sense, nor here).
 *
 * Usage: dragwl.DragWorkload FACTS_FILE STOP_FILE SECONDS L_PER_S P_PER_S
 *        V_PER_S [HOLD_MS [VOID_MS [GC_MS [SPREAD_MS]]]]
 * Facts (key=value, integers): fields_bytes, gc_ms, gcs, gc_period_us, and
 * per site S in l, p, v: S.count, S.hold_ns (sum of drop - last use),
 * S.life_ns (sum of drop - allocation), S.used (objects used at least once).
 */
public final class DragWorkload {
    static final int CAP = 1 << 16; /* each ring's capacity: at most ~30 000 held at the rates used */

    /** A FIFO of objects with their deadline in Rec.due; preallocated, no allocation. */
    static final class Ring {
        final Rec[] a = new Rec[CAP];
        int head, tail;

        boolean empty() { return head == tail; }

        void push(Rec r) {
            if (tail - head == CAP) throw new IllegalStateException("ring full: lower the rates");
            a[tail++ & (CAP - 1)] = r;
        }

        Rec due(long now) { /* the oldest if its deadline passed, else null */
            if (head == tail) return null;
            Rec r = a[head & (CAP - 1)];
            if (r.due > now) return null;
            a[head++ & (CAP - 1)] = null;
            return r;
        }
    }

    /** Per site: what it allocated and the times it kept, in nanoseconds. */
    static final class Truth {
        long count, used, holdNs, lifeNs;

        void dropped(Rec r, long now) {
            if (r.tLast != 0) {
                used++;
                holdNs += now - r.tLast;
            } else {
                holdNs += now - r.tAlloc; /* never used: held from its allocation */
            }
            lifeNs += now - r.tAlloc;
        }
    }

    static final Truth L = new Truth(), P = new Truth(), V = new Truth();
    static final Ring lUse2 = new Ring(), lUse3 = new Ring(), lHeld = new Ring();
    static final Ring pUse2 = new Ring(), pUse3 = new Ring(), vHeld = new Ring();
    static long sink;
    static long holdNs, voidNs, spreadNs;

    static Rec allocL(long now) {
        Rec r = new Rec(now); // SITE:L
        L.count++;
        return r;
    }

    static Rec allocP(long now) {
        Rec r = new Rec(now); // SITE:P
        P.count++;
        return r;
    }

    static Rec allocV(long now) {
        Rec r = new Rec(now); // SITE:V
        V.count++;
        return r;
    }

    /** Moves the due objects of one site through their uses; L is then held. */
    static void advance(Ring use2, Ring use3, Ring held, Truth t, long now) {
        for (Rec r; (r = use2.due(now)) != null;) {
            sink += r.use(now);
            r.due = r.tAlloc + spreadNs;
            use3.push(r);
        }
        for (Rec r; (r = use3.due(now)) != null;) {
            sink += r.use(now);
            if (held == null) {
                t.dropped(r, now); /* P: dropped at its last use */
            } else {
                r.due = now + holdNs;
                held.push(r);
            }
        }
    }

    static final class Gc extends Thread {
        final long periodMs;
        volatile long count, totalNs;

        Gc(long periodMs) {
            super("drag-gc");
            this.periodMs = periodMs;
            setDaemon(true);
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            try {
                for (long next = t0;; ) {
                    System.gc();
                    count++;
                    totalNs = System.nanoTime() - t0;
                    next += periodMs * 1_000_000L;
                    long wait = next - System.nanoTime();
                    if (wait > 0) Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                }
            } catch (InterruptedException e) {
                // the program ends
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String facts = args[0], stop = args[1];
        long seconds = Long.parseLong(args[2]);
        double lRate = Double.parseDouble(args[3]), pRate = Double.parseDouble(args[4]);
        double vRate = Double.parseDouble(args[5]);
        long holdMs = args.length > 6 ? Long.parseLong(args[6]) : 2000;
        long voidMs = args.length > 7 ? Long.parseLong(args[7]) : 1000;
        long gcMs = args.length > 8 ? Long.parseLong(args[8]) : 100;
        long spreadMs = args.length > 9 ? Long.parseLong(args[9]) : 300;
        holdNs = holdMs * 1_000_000L;
        voidNs = voidMs * 1_000_000L;
        spreadNs = spreadMs * 1_000_000L;
        Gc gc = new Gc(gcMs);
        gc.start();

        java.io.File stopFile = new java.io.File(stop);
        long t0 = System.nanoTime(), end = t0 + seconds * 1_000_000_000L;
        for (long look = t0;;) {
            long now = System.nanoTime();
            if (now - look > 500_000_000L) { /* stopped early: no truth */
                look = now;
                if (stopFile.exists()) return;
            }
            if (now < end) {
                double s = (now - t0) / 1e9;
                while (L.count < (long) (s * lRate)) {
                    Rec r = allocL(now);
                    sink += r.use(now);
                    r.due = now + spreadNs / 2;
                    lUse2.push(r);
                }
                while (P.count < (long) (s * pRate)) {
                    Rec r = allocP(now);
                    sink += r.use(now);
                    r.due = now + spreadNs / 2;
                    pUse2.push(r);
                }
                while (V.count < (long) (s * vRate)) {
                    Rec r = allocV(now);
                    r.due = now + voidNs;
                    vHeld.push(r);
                }
            }
            advance(lUse2, lUse3, lHeld, L, now);
            advance(pUse2, pUse3, null, P, now);
            for (Rec r; (r = lHeld.due(now)) != null;) L.dropped(r, now);
            for (Rec r; (r = vHeld.due(now)) != null;) V.dropped(r, now);
            if (now >= end && lUse2.empty() && lUse3.empty() && lHeld.empty() && pUse2.empty()
                    && pUse3.empty() && vHeld.empty())
                break;
            Thread.sleep(2);
        }
        long gcs = gc.count;
        while (gc.count < gcs + 3) Thread.sleep(10); /* every object dead and collected */

        long n = gc.count;
        StringBuilder b = new StringBuilder();
        b.append("fields_bytes=").append(128 * 8).append('\n');
        b.append("gc_ms=").append(gcMs).append('\n');
        b.append("gcs=").append(n).append('\n');
        b.append("gc_period_us=").append(n > 1 ? gc.totalNs / (n - 1) / 1000 : 0).append('\n');
        Truth[] ts = {L, P, V};
        String[] names = {"l", "p", "v"};
        for (int i = 0; i < 3; i++) {
            Truth t = ts[i];
            b.append(names[i]).append(".count=").append(t.count).append('\n');
            b.append(names[i]).append(".used=").append(t.used).append('\n');
            b.append(names[i]).append(".hold_ns=").append(t.holdNs).append('\n');
            b.append(names[i]).append(".life_ns=").append(t.lifeNs).append('\n');
            System.out.printf("truth site %s: %d objects of %d bytes of fields, mean hold after the "
                            + "last use %.1f ms, mean life %.1f ms%n",
                    names[i].toUpperCase(), t.count, 128 * 8,
                    t.count > 0 ? t.holdNs / 1e6 / t.count : 0.0,
                    t.count > 0 ? t.lifeNs / 1e6 / t.count : 0.0);
        }
        System.out.printf("truth: %d collections, one every %.1f ms%n", n,
                n > 1 ? gc.totalNs / 1e6 / (n - 1) : 0.0);
        System.out.flush();
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(facts + ".tmp")))) {
            w.print(b);
        }
        Files.move(Path.of(facts + ".tmp"), Path.of(facts));

        long deadline = System.nanoTime() + 600_000_000_000L;
        while (!stopFile.exists() && System.nanoTime() < deadline) Thread.sleep(20);
        System.out.println("sink " + (sink & 1));
    }
}

/** The tracked class: 128 longs (1 KiB of fields); use() is its one use. */
final class Rec {
    long tAlloc, tFirst, tLast, due;
    long f004, f005, f006, f007, f008, f009, f010, f011, f012, f013, f014, f015, f016;
    long f017, f018, f019, f020, f021, f022, f023, f024, f025, f026, f027, f028, f029;
    long f030, f031, f032, f033, f034, f035, f036, f037, f038, f039, f040, f041, f042;
    long f043, f044, f045, f046, f047, f048, f049, f050, f051, f052, f053, f054, f055;
    long f056, f057, f058, f059, f060, f061, f062, f063, f064, f065, f066, f067, f068;
    long f069, f070, f071, f072, f073, f074, f075, f076, f077, f078, f079, f080, f081;
    long f082, f083, f084, f085, f086, f087, f088, f089, f090, f091, f092, f093, f094;
    long f095, f096, f097, f098, f099, f100, f101, f102, f103, f104, f105, f106, f107;
    long f108, f109, f110, f111, f112, f113, f114, f115, f116, f117, f118, f119, f120;
    long f121, f122, f123, f124, f125, f126, f127;

    Rec(long now) {
        tAlloc = now;
        f004 = now;
    }

    /** A use: heaptop sees the entry of this method. Returns a checksum. */
    long use(long now) {
        if (tFirst == 0) tFirst = now;
        tLast = now;
        f127 += f004 + 1;
        return f127 ^ f064;
    }
}
