import java.util.function.LongUnaryOperator;

/**
 * The class CpuUnloadWorkload loads afresh each round through a loader of its
 * own (a URLClassLoader over the tests' classes, the platform loader as
 * parent): burn(n) is its hot loop, reached through a JDK interface so that
 * nothing outside the round's loader names the class.
 */
public final class CpuUnloadBurner implements LongUnaryOperator {
    static long burn(long seed, long n) {
        long x = seed | 1;
        for (long i = 0; i < n; i++) { // SITE:burn
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    @Override
    public long applyAsLong(long n) {
        return burn(System.nanoTime(), n); // SITE:apply
    }
}
