"""cpu=on charges a thread's CPU to where it ran, not to where it sleeps.

CpuBurstWorkload's "burst-worker" burns ~3 ms of CPU in burn(), then sleeps
27 ms, over and over: all its CPU is in burn() by construction, none in
Thread.sleep. The sampler reads the thread's CPU each 10 ms tick; a read that
finds the CPU moved while the thread is asleep again by then must not take
the stack (the sleeping frame would get the burst's CPU): that CPU waits until
the thread is caught running. Recorded for 6 s: of burst-worker's sampled CPU,
burn() holds at least 80%, and frames in Thread.sleep hold at most 5%. (The
sampler before this rule put 96% of it in Thread.sleep: 541 of 565 ms.)

The same with the thread waiting in a blocking read of a pipe (a native read:
the JVM calls the thread RUNNABLE while it waits, its clock does not move):
read0 holds at most 5% too."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import by_leaf, of_thread, read_cpu, total_ms  # noqa: E402


def measure(wait):
    """One JVM: the burst thread waits in Thread.sleep, or in a native pipe read."""
    wd = Workdir(f"cpu-burst-{wait}")
    jvm = stop_at_exit(start_jvm("CpuBurstWorkload", [60, 3, 27, wait],
                                 agent_opts=f"ipc={wd.base},cpu=on,cpu_interval=10ms,budget=off",
                                 jvm_flags=["-Xmx64m"], stderr=subprocess.DEVNULL))
    check(wait_for(lambda: os.path.exists(wd.base + ".ctl"), 30, what="the agent's socket"),
          "the agent is up")
    out = wd.file("rec")
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "6", "--out", out,
                        "--top", "0"], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"record ran ({p.returncode}: {p.stderr.strip()[-300:]})")
    rows, threads = read_cpu(out)
    mine = of_thread(rows, "burst-worker")
    whole = total_ms(mine)
    leaf = by_leaf(mine)
    burn = leaf.get("CpuBurstWorkload.burn", 0.0)
    # the waiting frame: Thread.sleep, or the pipe's native read (read0)
    asleep = sum(v for k, v in leaf.items()
                 if k.startswith("java.lang.Thread.sleep") or ".read0" in k)
    print(f"[{wait}] burst-worker: {whole:.1f} ms sampled, burn {burn:.1f}, waiting {asleep:.1f}; "
          f"leaves {sorted(leaf.items(), key=lambda kv: -kv[1])[:5]}")
    mine_t = [t for t in threads if t["thread"] == "burst-worker"]
    used = float(mine_t[0]["cpu_ms"]) if mine_t else 0.0
    # its stacks hold its CPU but what it used since it was last caught running
    check(used > 100 and whole >= 0.5 * used,
          f"burst-worker's stacks hold most of its CPU ({whole:.1f} of {used:.1f} ms in threads.csv)")
    # (a stack taken at the poll where burn() returns names its caller's line:
    # safepoint bias, up to 8% here)
    check(whole and burn >= 0.8 * whole, f"burn() holds at least 80% of its CPU ({burn:.1f} of {whole:.1f} ms)")
    check(asleep <= 0.05 * whole,
          f"[{wait}] the waiting frame holds at most 5% ({asleep:.1f} of {whole:.1f} ms)")
    check(jvm.poll() is None, "the JVM is alive")
    stop_jvm(jvm)
    wd.cleanup()


for wait in ("sleep", "read"):
    measure(wait)
finish()
