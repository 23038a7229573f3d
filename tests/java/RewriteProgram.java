import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;

/**
 * A deterministic program for the drag rewriter's check on a real JVM
 * (tests/e2e/test_class_rewrite_programs.py): its classes are rewritten
 * offline (a call at the entry of every instance method) and run under
 * -Xverify:all; the output must equal the unrewritten run's. It uses what
 * moves offsets: table and lookup switches at every alignment, string and
 * enum switches, try/catch/finally, loops back to a method's first
 * instruction, constructors called with branches in their arguments (frames
 * holding uninitialized objects), inner, anonymous and local classes, lambdas,
 * generics, records, enums with bodies, synchronized methods, recursion and a
 * long method. Prints one line per part and a checksum.
 */
public class RewriteProgram {
    private long sum;
    private final StringBuilder log = new StringBuilder();

    enum Op {
        ADD { int apply(int a, int b) { return a + b; } },
        MUL { int apply(int a, int b) { return a * b; } },
        XOR { int apply(int a, int b) { return a ^ b; } };
        abstract int apply(int a, int b);
    }

    record Pair<A, B>(A first, B second) {
        Pair<B, A> swap() { return new Pair<>(second, first); }
    }

    interface Shape { double area(); default String describe() { return "shape " + area(); } }

    static abstract class Base implements Shape {
        protected final int id;
        Base(int id) { this.id = id; }
        public String describe() { return getClass().getSimpleName() + "#" + id + " " + area(); }
    }

    static final class Rect extends Base {
        private final int w, h;
        Rect(int id, int w, int h) { super(id); this.w = w; this.h = h; }
        public double area() { return w * h; }
    }

    static final class Circle extends Base {
        private final int r;
        Circle(int id, int r) { super(id > 0 ? id : -id); this.r = r; }
        public double area() { return Math.floor(Math.PI * r * r * 100) / 100; }
    }

    /** A linked list of its own, iterated by an inner (non-static) class. */
    final class Chain implements Iterable<Integer> {
        private final int[] items;
        Chain(int n) {
            items = new int[n];
            for (int i = 0; i < n; i++) items[i] = i * i % 17;
        }
        public Iterator<Integer> iterator() {
            return new Iterator<Integer>() {
                int at;
                public boolean hasNext() { return at < items.length; }
                public Integer next() {
                    if (!hasNext()) throw new NoSuchElementException();
                    sum += items[at]; // the outer instance's field
                    return items[at++];
                }
            };
        }
    }

    /** A switch after k nops' worth of code, so each alignment is met. */
    int table0(int x) {
        switch (x) { case 0: return 10; case 1: return 11; case 2: return 12; case 3: return 13; default: return -1; }
    }
    int table1(int x) {
        int y = 1;
        switch (x) { case 0: return 10 + y; case 1: return 11 + y; case 2: return 12 + y; default: return -y; }
    }
    int table2(int x) {
        long y = 2;
        switch (x + (int) y) { case 2: return 20; case 3: return 21; case 4: return 22; default: return -2; }
    }
    int table3(int x) {
        int a = x, b = a + 1, c = b * 2;
        switch (c) { case 2: return 30; case 4: return 31; case 6: return 32; default: return c; }
    }
    int lookup(int x) {
        switch (x) { case -1000: return 1; case 7: return 2; case 100000: return 3; case 42: return 4; default: return 0; }
    }
    String strings(String s) {
        switch (s) { case "alpha": return "A"; case "beta": return "B"; case "gamma": return "G"; default: return "?"; }
    }
    int enums(Op op, int a, int b) {
        switch (op) { case ADD: return op.apply(a, b) + 1; case MUL: return op.apply(a, b) + 2; default: return op.apply(a, b); }
    }

    /** A loop whose head is the method's first instruction. */
    int collatz(int n) {
        int steps = 0;
        while (n != 1) {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
        }
        return steps;
    }
    int spin(int n) {
        do { n -= 3; } while (n > 0);
        return n;
    }

    int tryCatch(int x) {
        int r = 0;
        try {
            r = 100 / x;
            if (x == 3) throw new IllegalStateException("three");
        } catch (ArithmeticException e) {
            r = -1;
        } catch (IllegalStateException e) {
            r = -3;
        } finally {
            log.append('f');
        }
        try (AutoCloseable c = () -> log.append('c')) {
            r += 1;
        } catch (Exception e) {
            r = -100;
        }
        return r;
    }

    synchronized long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    /** new with a branch in its arguments: a frame holds uninitialized objects. */
    Base make(int i) {
        return i % 2 == 0 ? new Rect(i, i > 3 ? i : 3, i % 3 == 0 ? 2 : 5)
                          : new Circle(i < 5 ? -i : i, i);
    }

    <T extends Comparable<T>> T max(List<T> xs) {
        T best = null;
        for (T x : xs) if (best == null || x.compareTo(best) > 0) best = x;
        return best;
    }

    int lambdas(int n) {
        IntBinaryOperator f = (a, b) -> a * 31 + b;
        Function<Integer, Integer> g = x -> x + n; // captures n
        Supplier<Integer> s = () -> (int) (sum % 1000); // captures this
        int acc = 0;
        for (int i = 0; i < n; i++) acc = f.applyAsInt(acc, g.apply(i)) % 1000003;
        return acc + s.get();
    }

    int local(int k) {
        class Counter {
            int c;
            void add(int v) { c += v * k; }
        }
        Counter c = new Counter();
        for (int i = 0; i < 10; i++) c.add(i);
        return c.c;
    }

    /** A long method: many branches and a big switch. */
    long longMethod(int seed) {
        long h = seed;
        for (int i = 0; i < 200; i++) {
            switch (i % 12) {
                case 0: h = h * 31 + i; break;
                case 1: h ^= h >>> 7; break;
                case 2: h += i * i; break;
                case 3: h -= i << 3; break;
                case 4: h = Long.rotateLeft(h, 5); break;
                case 5: h = h * 1103515245L + 12345; break;
                case 6: if (h < 0) h = -h; break;
                case 7: h %= 1000000007L; break;
                case 8: h += table0(i % 5) + table1(i % 4) + table2(i % 3) + table3(i % 4); break;
                case 9: h += lookup(i % 2 == 0 ? 42 : 7); break;
                case 10: h += strings(i % 3 == 0 ? "alpha" : "gamma").charAt(0); break;
                default: h += tryCatch(i % 5); break;
            }
            if (h > 1L << 50) h >>= 3;
            else if (h < -(1L << 50)) h = -(h >> 3);
        }
        return h;
    }

    void run() {
        StringBuilder out = new StringBuilder();
        for (int i = -1; i < 5; i++) out.append(table0(i)).append(table1(i)).append(table2(i)).append(table3(i)).append(' ');
        System.out.println("switches " + out + lookup(-1000) + lookup(100000) + lookup(5) + strings("beta") + strings("x"));
        for (Op op : Op.values()) System.out.print("enum " + op + " " + enums(op, 6, 7) + "; ");
        System.out.println();
        System.out.println("loops " + collatz(27) + " " + collatz(97) + " " + spin(10));
        System.out.println("try " + tryCatch(0) + " " + tryCatch(3) + " " + tryCatch(7) + " " + log);
        System.out.println("fib " + fib(20));
        List<Base> shapes = new ArrayList<>();
        for (int i = 0; i < 8; i++) shapes.add(make(i));
        for (Base b : shapes) System.out.println("shape " + b.describe());
        Chain chain = new Chain(12);
        int total = 0;
        for (int x : chain) total += x;
        System.out.println("chain " + total + " sum " + sum);
        List<String> words = List.of("pear", "apple", "zucchini", "fig");
        System.out.println("max " + max(words) + " " + max(List.of(3, 9, 4)));
        Pair<String, Integer> p = new Pair<>("k", 5);
        System.out.println("record " + p + " " + p.swap());
        System.out.println("lambdas " + lambdas(50) + " local " + local(3));
        Map<String, Integer> counts = new HashMap<>();
        for (String w : "a b a c b a d".split(" ")) counts.merge(w, 1, Integer::sum);
        System.out.println("map " + new java.util.TreeMap<>(counts));
        System.out.println("long " + longMethod(12345) + " " + longMethod(-7));
        Shape anon = new Shape() { public double area() { return 2.5; } };
        System.out.println(anon.describe());
        System.out.println("checksum " + (sum + longMethod(1) + fib(15)));
    }

    public static void main(String[] args) {
        new RewriteProgram().run();
    }
}
