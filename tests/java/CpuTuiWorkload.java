/**
 * The CPU screens' workload (tests/e2e/test_tui_cpu.py): one thread,
 * "tui-burner", burns CPU in CpuTuiWorkload.burn (and allocates there, every
 * so often, so that the frame is in the allocation tree too); another,
 * "tui-sleeper", waits on a monitor nobody notifies, using no CPU. Runs for
 * SECONDS (arg 0), then exits.
 */
public final class CpuTuiWorkload {
    static volatile long sink;
    static volatile Object kept;
    static final Object NEVER = new Object();

    static void burn(long until) {
        long x = System.nanoTime() | 1;
        int n = 0;
        while (System.nanoTime() < until) {
            for (int i = 0; i < 50_000; i++) { // SITE:burn
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            if (++n % 16 == 0) kept = new long[256]; // SITE:burnalloc
        }
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 120;
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        Thread sleeper = new Thread(() -> {
            synchronized (NEVER) {
                try {
                    NEVER.wait();
                } catch (InterruptedException e) {
                    // the end
                }
            }
        }, "tui-sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        Thread burner = new Thread(() -> burn(until), "tui-burner");
        burner.start();
        burner.join();
    }
}
