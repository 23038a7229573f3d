import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Allocations made through lambdas: two capturing lambdas created in the same
 * method (each creation allocates an instance of the lambda's hidden class),
 * and arrays allocated inside lambda bodies, called through the hidden
 * classes' methods. Hidden classes carry addresses that change every run.
 * Usage: LambdaWorkload GO_FILE FACTS_FILE
 */
public class LambdaWorkload {
    static Object sink;
    static final int N = 2_000_000;

    static void run() {
        for (int i = 0; i < N; i++) {
            final int k = i;
            Supplier<byte[]> a = () -> new byte[64 + (k & 7)]; // SITE:first
            IntFunction<long[]> b = n -> new long[n + (k & 3)]; // SITE:second
            sink = a;
            sink = b;
            sink = a.get();
            sink = b.apply(8);
        }
    }

    public static void main(String[] args) throws Exception {
        TestSupport.awaitFile(args[0], 60_000);
        run();
        Map<String, Object> f = TestSupport.facts();
        f.put("n", N);
        TestSupport.writeFacts(args[1], f);
    }
}
