"""The CPU sampler's threads (CpuThreadsWorkload, mode from HEAPTOP_CPU_MODE:
on, the default, or async, loaded with the agent). Each part is a JVM of its
own; a recording is taken just before the part's window (the workload is
READY, its threads in place, the waiting ones' start-up CPU counted: the
agent charges a thread found after it started its CPU so far at its first
read, to the stack it is in then) and one after it, and since totals count
from the agent's start, the window is the difference.

- busy-idle: "busy-worker" spins 3 s; "idle-worker" sits in Object.wait()
  throughout. The busy thread's sampled CPU is within 10% of what it measured
  itself; the idle one gets no CPU samples in the window (in either mode),
  and threads.csv lists it WAITING with no CPU added.
- start-end: "burst-worker" starts inside the window, burns 1 s of CPU and
  ends before the window's end: threads.csv still lists it, with its CPU
  within 10% (+20 ms), and cpu.csv has its stacks (in spin).
- short-lived: 5000 threads "short-N" in waves of 100, about 0.3 ms of CPU
  each: the JVM lives, the agent answers a recording at once after (a sync
  within 30 s), and the totals stay sane: the short threads' sampled CPU is
  no more than they used (+10%, +20 ms), and cpu.csv's grand total no more
  than the process's CPU from /proc (+5%).
- native-read: "native-reader" is blocked in a native read(2) of a pipe
  nobody writes (jcmd Thread.print says RUNNABLE, checked first) while
  "busy-worker" spins 2 s: the reader gets no CPU samples in the window,
  while the busy thread does; threads.csv says RUNNABLE, or NATIVE (the
  agent's RUNNABLE in native code)."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import *  # noqa: E402,F403


def samples_of(rows, name):
    return sum(int(r["samples"]) for r in of_thread(rows, name))


class Part:
    """One JVM running CpuThreadsWorkload MODE ...: recordings before and
    after its window (cpu0/threads0, cpu1/threads1), its truth, its pid."""

    def __init__(self, part, args, window_s, waiting=()):
        self.wd = Workdir(f"cpu-threads-{part}")
        wd = self.wd
        ready, go, facts = wd.file("ready"), wd.file("go"), wd.file("facts")
        self.err_path = wd.file("jvm.err")
        self.jerr = open(self.err_path, "w")
        self.jvm = stop_at_exit(start_jvm(
            "CpuThreadsWorkload", [part, ready, go, facts, *args],
            agent_opts=f"ipc={wd.base},cpu={MODE},cpu_interval=10ms", jvm_flags=["-Xmx256m"],
            stdout=subprocess.DEVNULL, stderr=self.jerr))
        self.ok = False
        wait_for(lambda: os.path.exists(wd.base + ".ctl") or self.jvm.poll() is not None, 60,
                 what="the agent's socket")
        if self.jvm.poll() is not None:
            check(False, f"{part}: the JVM runs with cpu={MODE} (exit {self.jvm.returncode}: "
                  f"{self.err().strip()[-300:]})")
            return
        if not (wait_for(lambda: os.path.exists(ready) or self.jvm.poll() is not None, 60)
                and os.path.exists(ready)):
            check(False, f"{part}: the workload is READY ({self.err().strip()[-300:]})")
            return
        if MODE == "async":
            why = async_refused(settled_status(wd.base), self.err())
            if why:
                self.stop()
                skip(f"cpu=async refused on JDK {java_version()}: {why}")
        self.before()
        # A thread the agent finds after it started is charged its CPU so far
        # at its first read, and an idle thread is read 1 tick in 10 (the
        # tick lengthened by the budget): the window starts once the waiting
        # threads' start-up is counted (their CPU above 0), or after 10 s.
        end, n = time.time() + 10, 0
        while True:
            n += 1
            a = snapshot(wd.base, wd.file(f"before{n}"))
            rows = [thread_row(read_csv(os.path.join(a["out"], "threads.csv"))[1], t)
                    if os.path.exists(os.path.join(a["out"], "threads.csv")) else None
                    for t in waiting]
            if a["rc"] != 0 or all(r and ms(r) > 0 for r in rows) or time.time() > end:
                break
            time.sleep(0.5)
        check(a["rc"] == 0, f"{part}: a recording before the window ({a['rc']}: {a['err'][-200:]})")
        self.cpu0, self.threads0 = read_cpu(a["out"])
        self.proc0_ms = proc_cpu_ms(self.jvm.pid)
        t0 = time.time()
        touch(go)
        done = wait_for(lambda: os.path.exists(facts) or self.jvm.poll() is not None, window_s + 120,
                        what=f"{part}'s truth") and os.path.exists(facts)
        self.window_s = time.time() - t0
        check(done, f"{part}: the workload did its part and wrote its truth "
              f"({self.window_s:.1f} s; {self.err().strip()[-200:]})")
        if not done:
            return
        self.truth = read_facts(facts)
        t1 = time.time()
        b = snapshot(wd.base, wd.file("after"))
        self.sync_s = time.time() - t1
        self.proc_ms = proc_cpu_ms(self.jvm.pid)
        check(b["rc"] == 0, f"{part}: a recording after the window ({b['rc']}: {b['err'][-200:]})")
        check(self.jvm.poll() is None, f"{part}: the JVM is alive ({self.err().strip()[-300:]})")
        self.cpu1, self.threads1 = read_cpu(b["out"])
        self.ok = True

    def before(self):
        """What to check once READY, before the window (a hook)."""

    def err(self):
        with open(self.err_path) as f:
            return f.read()

    def stop(self):
        stop_jvm(self.jvm)
        self.jerr.close()
        self.wd.cleanup()

    def show(self):
        print(f"threads.csv ({len(self.threads1)} rows), the busiest:")
        for t in sorted(self.threads1, key=ms, reverse=True)[:8]:
            print(f"  {t['thread'][:24]:<24} {t['state']:<14} {ms(t):9.1f} ms {t['samples']:>6} samples")


def busy_ok(p, what):
    truth = p.truth["busy.cpu_ns"] / 1e6
    got = total_ms(of_thread(p.cpu1, "busy-worker")) - total_ms(of_thread(p.cpu0, "busy-worker"))
    err = got / truth - 1 if truth else 1
    print(f"FIGURE: cpu={MODE} {what}: busy-worker sampled {got:.0f} ms of {truth:.0f} ms ({err:+.1%})")
    check(abs(err) <= 0.10, f"{what}: busy-worker's sampled CPU {got:.0f} ms within 10% of its "
          f"{truth:.0f} ms ({err:+.1%})")


# --- a busy and an idle thread ---
p = Part("busy-idle", [3], 3, ["idle-worker"])
try:
    if p.ok:
        p.show()
        busy_ok(p, "busy-idle")
        n0, n1 = samples_of(p.cpu0, "idle-worker"), samples_of(p.cpu1, "idle-worker")
        check(n1 - n0 == 0, f"idle-worker gets no CPU samples in the window ({n1 - n0}; "
              f"{n0} before it, from its start)")
        print_rows(of_thread(p.cpu1, "idle-worker"), 4)
        t0, t1 = thread_row(p.threads0, "idle-worker"), thread_row(p.threads1, "idle-worker")
        check(t1 is not None, "threads.csv lists idle-worker")
        if t0 and t1:
            check("WAITING" in t1["state"].upper(), f"idle-worker's state says WAITING ({t1['state']})")
            check(ms(t1) - ms(t0) < 1.0, f"idle-worker's CPU in threads.csv does not grow "
                  f"({ms(t0):.2f} -> {ms(t1):.2f} ms; the VM says {p.truth['idle.cpu_ns'] / 1e6:.2f} ms)")
finally:
    p.stop()

# --- a thread that starts and ends inside the window ---
p = Part("start-end", [1], 2)
try:
    if p.ok:
        p.show()
        truth = p.truth["burst.cpu_ns"] / 1e6
        t = thread_row(p.threads1, "burst-worker")
        check(thread_row(p.threads0, "burst-worker") is None, "burst-worker is not there before it starts")
        check(t is not None, f"threads.csv lists burst-worker after it ended "
              f"({[x['thread'] for x in p.threads1][:10]})")
        if t:
            check(abs(ms(t) - truth) <= 0.10 * truth + 20, f"threads.csv: burst-worker's CPU "
                  f"{ms(t):.0f} ms within 10% (+20 ms) of its {truth:.0f} ms (state {t['state']})")
        rows = of_thread(p.cpu1, "burst-worker")
        got = total_ms(rows)
        print(f"FIGURE: cpu={MODE} start-end: burst-worker sampled {got:.0f} ms of {truth:.0f} ms")
        check(abs(got - truth) <= 0.10 * truth + 20, f"cpu.csv: burst-worker's stacks hold {got:.0f} ms, "
              f"within 10% (+20 ms) of its {truth:.0f} ms")
        check(any(r["frame"].startswith("CpuThreadsWorkload.spin:") for r in rows),
              f"its stacks are in CpuThreadsWorkload.spin ({[r['frame'] for r in rows][:4]})")
finally:
    p.stop()

# --- thousands of short-lived threads ---
p = Part("short-lived", [5000, 100], 30)
try:
    if p.ok:
        truth = p.truth["short.cpu_ns"] / 1e6
        short = [r for r in p.cpu1 if r["thread"].startswith("short-")]
        got = total_ms(short)
        shorts = [t for t in p.threads1 if t["thread"].startswith("short-")]
        print(f"FIGURE: cpu={MODE} short-lived: 5000 threads in {p.window_s:.1f} s, {truth:.0f} ms of "
              f"their CPU; sampled {got:.0f} ms in {len(short)} cpu.csv rows; threads.csv "
              f"{len(p.threads1)} rows ({len(shorts)} short-*); the recording after took {p.sync_s:.1f} s")
        check(p.sync_s < 30, f"the agent answers a recording at once after ({p.sync_s:.1f} s)")
        check(got <= 1.10 * truth + 20, f"the short threads' sampled CPU {got:.0f} ms is no more than "
              f"they used ({truth:.0f} ms, +10% +20 ms)")
        # past the agent's thread cap the short threads share one record: the
        # window's total over every thread is bounded by the process's too
        window = total_ms(p.cpu1) - total_ms(p.cpu0)
        proc = p.proc_ms - p.proc0_ms
        print(f"FIGURE: cpu={MODE} short-lived: sampled over the window {window:.0f} ms, "
              f"the process's CPU from /proc {proc:.0f} ms")
        check(window <= 1.05 * proc + 20, f"the sampled CPU over the window {window:.0f} ms no more "
              f"than the process's ({proc:.0f} ms, +5% +20 ms)")
        grand = total_ms(p.cpu1)
        check(grand <= 1.05 * p.proc_ms, f"cpu.csv's grand total {grand:.0f} ms no more than the "
              f"process's CPU so far from /proc ({p.proc_ms:.0f} ms, +5%)")
        check(all(frame_ok(r["frame"]) for r in short), "the short threads' frames are named")
finally:
    p.stop()


# --- a thread RUNNABLE in a blocking native read ---
class NativeRead(Part):
    def before(self):
        dump = jcmd(self.jvm.pid, "Thread.print")
        block = dump.split('"native-reader"', 1)[-1].split("\n\n", 1)[0]
        check("java.lang.Thread.State: RUNNABLE" in block and "Native Method" in block,
              f"jcmd Thread.print: native-reader is RUNNABLE in a native method "
              f"({block.strip().splitlines()[1:3]})")


p = NativeRead("native-read", [2], 2, ["native-reader"])
try:
    if p.ok:
        p.show()
        busy_ok(p, "native-read")
        n0, n1 = samples_of(p.cpu0, "native-reader"), samples_of(p.cpu1, "native-reader")
        check(n1 - n0 == 0, f"native-reader gets no CPU samples in the window ({n1 - n0}; {n0} "
              f"before it)")
        print_rows(of_thread(p.cpu1, "native-reader"), 4)
        t = thread_row(p.threads1, "native-reader")
        # RUNNABLE to the JVM; the agent may say it is in native code
        check(t is not None and t["state"].upper() in ("RUNNABLE", "NATIVE"),
              f"threads.csv lists native-reader RUNNABLE or NATIVE ({t['state'] if t else None})")
        check(p.truth["reader.runnable"] == 1, "the VM says RUNNABLE too")
finally:
    p.stop()
finish()
