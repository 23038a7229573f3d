import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads whose CPU is known, for the CPU sampler's thread tests. Each mode
 * writes READY once its threads are in place, waits for GO, does its part,
 * writes FACTS (ns, counts) and then idles in Thread.sleep until stopped.
 * Thread names are fixed, so a test finds each in threads.csv and cpu.csv.
 *
 * busy-idle READY GO FACTS SECONDS: "busy-worker" spins for SECONDS of wall
 *   time; "idle-worker" sits in Object.wait() with no timeout (no wake-ups)
 *   from before READY to the end. FACTS: busy.cpu_ns (the busy thread's CPU
 *   from GO to its end), idle.cpu_ns (the idle thread's CPU at FACTS time,
 *   all of it start-up, before READY).
 *
 * start-end READY GO FACTS SECONDS: on GO, after 0.5 s, a thread
 *   "burst-worker" starts, spins for SECONDS of its own CPU time and ends; the
 *   program then waits 0.5 s more. FACTS: burst.cpu_ns (its whole CPU).
 *
 * short-lived READY GO FACTS THREADS WAVE: on GO, THREADS threads named
 *   "short-N" in waves of WAVE at once, each spinning for about 0.2 ms of
 *   CPU and ending. FACTS: threads, short.cpu_ns (their summed CPU, each read
 *   on the thread at its end).
 *
 * native-read READY GO FACTS SECONDS: "native-reader" blocks in a read of a
 *   pipe that nobody writes (java.nio Pipe: a native read(2), so the VM says
 *   RUNNABLE) from before READY to the end; "busy-worker" spins beside it for
 *   SECONDS after GO so that the sampler has work. FACTS: busy.cpu_ns,
 *   reader.cpu_ns (the reader's CPU at FACTS time).
 */
public final class CpuThreadsWorkload {
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static volatile long sink;
    static final Object NEVER = new Object();

    /** Spin until this thread has used `cpuNs` of CPU (or `wallNs` of wall time). */
    static long spin(long cpuNs, long wallNs) {
        long c0 = MX.getCurrentThreadCpuTime(), w0 = System.nanoTime();
        long x = w0 | 1;
        while (true) {
            for (int i = 0; i < 20_000; i++) { // SITE:spin
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            if (cpuNs > 0 && MX.getCurrentThreadCpuTime() - c0 >= cpuNs) break;
            if (wallNs > 0 && System.nanoTime() - w0 >= wallNs) break;
        }
        sink = x;
        return MX.getCurrentThreadCpuTime() - c0;
    }

    static Thread idle(String name) {
        Thread t = new Thread(() -> {
            synchronized (NEVER) {
                try {
                    NEVER.wait(); // SITE:idle
                } catch (InterruptedException e) {
                    // stopped
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A thread's CPU ns as the VM counts it, -1 when it is gone. */
    static long cpuOf(Thread t) {
        return MX.getThreadCpuTime(t.getId());
    }

    static void awaitState(Thread t, Thread.State s) throws InterruptedException {
        long end = System.currentTimeMillis() + 30_000;
        while (t.getState() != s) {
            if (System.currentTimeMillis() > end) throw new IllegalStateException(t.getName() + " never " + s);
            Thread.sleep(10);
        }
    }

    static Thread busy(long wallNs, long[] cpu) {
        Thread t = new Thread(() -> cpu[0] = spin(0, wallNs), "busy-worker");
        t.start();
        return t;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0], ready = args[1], go = args[2], facts = args[3];
        Map<String, Object> f = TestSupport.facts();
        switch (mode) {
            case "busy-idle": {
                long seconds = Long.parseLong(args[4]);
                Thread idle = idle("idle-worker");
                awaitState(idle, Thread.State.WAITING);
                TestSupport.writeFacts(ready, TestSupport.facts());
                TestSupport.awaitFile(go, 600_000);
                long[] cpu = new long[1];
                busy(seconds * 1_000_000_000L, cpu).join();
                f.put("busy.cpu_ns", cpu[0]);
                f.put("idle.cpu_ns", cpuOf(idle));
                break;
            }
            case "start-end": {
                long seconds = Long.parseLong(args[4]);
                TestSupport.writeFacts(ready, TestSupport.facts());
                TestSupport.awaitFile(go, 600_000);
                Thread.sleep(500);
                long[] cpu = new long[1];
                Thread t = new Thread(() -> {
                    spin(seconds * 1_000_000_000L, 0);
                    cpu[0] = MX.getCurrentThreadCpuTime();
                }, "burst-worker");
                t.start();
                t.join();
                Thread.sleep(500);
                f.put("burst.cpu_ns", cpu[0]);
                break;
            }
            case "short-lived": {
                int threads = Integer.parseInt(args[4]), wave = Integer.parseInt(args[5]);
                TestSupport.writeFacts(ready, TestSupport.facts());
                TestSupport.awaitFile(go, 600_000);
                AtomicLong sum = new AtomicLong();
                for (int started = 0; started < threads; ) {
                    int n = Math.min(wave, threads - started);
                    Thread[] ts = new Thread[n];
                    for (int i = 0; i < n; i++) {
                        String name = "short-" + (started + i);
                        ts[i] = new Thread(() -> {
                            spin(200_000, 0);
                            sum.addAndGet(MX.getCurrentThreadCpuTime());
                        }, name);
                        ts[i].start();
                    }
                    for (Thread t : ts) t.join();
                    started += n;
                }
                f.put("threads", threads);
                f.put("short.cpu_ns", sum.get());
                break;
            }
            case "native-read": {
                long seconds = Long.parseLong(args[4]);
                Pipe pipe = Pipe.open();
                Thread reader = new Thread(() -> {
                    try {
                        pipe.source().read(ByteBuffer.allocate(16)); // SITE:read
                    } catch (java.io.IOException e) {
                        // closed at exit
                    }
                }, "native-reader");
                reader.setDaemon(true);
                reader.start();
                // in the read: RUNNABLE, and its stack ends in the native read
                long end = System.currentTimeMillis() + 30_000;
                while (!inNativeRead(reader)) {
                    if (System.currentTimeMillis() > end) throw new IllegalStateException("reader never blocked");
                    Thread.sleep(10);
                }
                TestSupport.writeFacts(ready, TestSupport.facts());
                TestSupport.awaitFile(go, 600_000);
                long[] cpu = new long[1];
                busy(seconds * 1_000_000_000L, cpu).join();
                f.put("busy.cpu_ns", cpu[0]);
                f.put("reader.cpu_ns", cpuOf(reader));
                f.put("reader.runnable", reader.getState() == Thread.State.RUNNABLE ? 1 : 0);
                break;
            }
            default:
                throw new IllegalArgumentException("mode busy-idle, start-end, short-lived or native-read: " + mode);
        }
        TestSupport.writeFacts(facts, f);
        Thread.sleep(600_000);
    }

    static boolean inNativeRead(Thread t) {
        if (t.getState() != Thread.State.RUNNABLE) return false;
        StackTraceElement[] st = t.getStackTrace();
        return st.length > 0 && st[0].isNativeMethod();
    }
}
