"""The CPU sampler's cost priced inside one run, as overhead_inrun.py prices
allocation sampling: one JVM per configuration alternates phases with the
sampler on and off (`heaptop control --ipc BASE cpu on|async|off`), and each
on-phase's CPU per unit of work is divided by the mean of the off-phases
either side of it; the figure is the median of those ratios, with quartiles.
Across JVMs the same work moves by 3-5% on this 2-core guest
(docs/benchmarks.md, "Why the in-run benchmark"), more than the 0.3% to
resolve.

Configurations (a `heaptop record` viewer attached to each):
- cpu=on at 10 ms on a 2-thread CPU-bound program (CpuSplitWorkload bench:
  two threads in counted loops, no allocation): target at most +0.3%; with
  budget=off, so that the budget cannot lengthen the tick being priced;
- cpu=async at 10 ms on the same program, beside it;
- allocation sampling (the default budget) together with cpu=on at 10 ms on
  AllocBench (2 allocating threads): both switched on and off at once
  (`resume` + `cpu on`, `pause` + `cpu off`), within the 1% budget;
- allocation sampling alone on AllocBench (cpu=off), the same run's reference
  for the line above.

Each line also gives the agent's threads' (heaptop-*, nng:*) share of the
JVM's CPU while on and while off (per-thread schedstat): the part of the cost
the agent's own threads carry (a handshake's walk may run on the target
thread instead, which only the on/off ratio sees).

--check (ctest label bench): 5 cycles of 2 s of the CPU-bound configurations;
fails when heaptop's own share of cpu=on passes 0.45% of the JVM's CPU (the
target is 0.3%; the sampler's CPU less its time inside GetStackTrace,
steady from run to run), when its agent threads pass 3% of the JVM's CPU
while on, or when cpu=on's lower quartile passes --max-on (+4%): three of
its four on-phases each cost more than that. Quiet, this guest reads lower
quartiles of +0.33% to +0.60% (+1.94% once), a CI host +2.41%; ten times the
stacks (cpu_interval=1ms) read +5.65% and fail. The last two are checked only while the rest
of the machine is quiet (/proc/stat: other processes at most 15% of a core,
the host's steal at most 5%): a handshake waits for a target thread that
others' work descheduled, so a busy machine measures itself (beside other
engineers' builds, 137% of a core: +6.31%, lower quartile +3.73%, its
threads 3.12%, heaptop's own share 0.23%; quiet: +1.0% to +1.5%). The
gate is not the median: on CI's shared host one run read on-phases of
+2.4% and +11.9%, a median of +4.4% (the median of four is the mean of the
middle two, so one noisy phase moves it), while its own share was 0.26%.
Measured on this 2-core machine under other engineers' builds (2026-11-26,
JDK 17, 10 cycles): +2.24% (quartiles +1.72% .. +2.48%), its threads 1.87%
of the JVM's CPU while on. cpu=async refused on this JDK is said and left
out.

Usage: python3 tests/bench/cpu_overhead.py BUILD_DIR [--cycles 12] [--phase 2]
       [--warmup 6] [--only NAME,...] [--check] [--max-on 4.0]
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--cycles", type=int, default=None, help="off/on pairs per run (12; 5 with --check)")
ap.add_argument("--phase", type=float, default=2.0, help="seconds per phase")
ap.add_argument("--warmup", type=float, default=6.0, help="seconds with the sampler on first")
ap.add_argument("--interval", default="10ms", help="cpu_interval")
ap.add_argument("--only", default=None, help="comma-separated parts of configuration names")
ap.add_argument("--check", action="store_true", help="pass/fail on the CPU-bound configurations")
ap.add_argument("--max-on", type=float, default=4.0,
                help="--check: cpu=on's lower quartile of cost at most this %%")
ap.add_argument("--max-busy", type=float, default=15.0,
                help="--check: gate the throughput only while the rest of the machine used at "
                     "most this %% of a core")
ap.add_argument("--max-steal", type=float, default=5.0,
                help="--check: and the host stole at most this %% of the guest's CPU")
args = ap.parse_args()
if args.cycles is None:
    args.cycles = 5 if args.check else 12

jar = os.path.join(args.build, "tests", "heaptop-tests.jar")
agent = os.path.join(args.build, "agent", "libheaptop.so")
heaptop = os.path.join(args.build, "tui", "heaptop")
work = tempfile.mkdtemp(prefix="heaptop-cpu-overhead-")
os.chmod(work, 0o700)
JAVA = os.environ.get("JAVA", "java")
JVM = [JAVA, "-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"]
SKIP_NS = 200_000_000  # after a switch: the last samples drain
IV = args.interval

# name: (workload, agent options at load, control words to turn on, to turn off)
CPU_BOUND = ["CpuSplitWorkload", "bench", "2"]
ALLOC = ["AllocBench", "2", "0"]
CONFIGS = {
    f"cpu=on {IV}, 2 CPU-bound threads": (CPU_BOUND, f"cpu=on,cpu_interval={IV},budget=off",
                                         [["cpu", "on"]], [["cpu", "off"]]),
    f"cpu=async {IV}, 2 CPU-bound threads": (CPU_BOUND, f"cpu=async,cpu_interval={IV},budget=off",
                                            [["cpu", "async"]], [["cpu", "off"]]),
    f"allocation (budget 1%) + cpu=on {IV}, AllocBench 2 threads": (
        ALLOC, f"cpu=on,cpu_interval={IV}", [["resume"], ["cpu", "on"]], [["pause"], ["cpu", "off"]]),
    "allocation (budget 1%) alone, AllocBench 2 threads": (
        ALLOC, "cpu=off", [["resume"]], [["pause"]]),
}
if args.check:
    CONFIGS = {k: v for k, v in CONFIGS.items() if "CPU-bound" in k}
if args.only:
    want = [w.strip() for w in args.only.split(",") if w.strip()]
    CONFIGS = {k: v for k, v in CONFIGS.items() if any(w in k for w in want)}


class Refused(Exception):
    pass


def wait_for(cond, what, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return
        time.sleep(0.01)
    raise SystemExit(f"cpu_overhead: {what} did not happen within {seconds} s")


def agent_cpu(pid):
    """(the agent's threads' CPU ns, all threads' CPU ns) of pid from each
    thread's schedstat; the agent's: heaptop-* and nng:*."""
    agent_ns = whole = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue
        whole += ns
        if comm.startswith(("heaptop", "nng:")):
            agent_ns += ns
    return agent_ns, whole


def machine():
    """(busy ns, steal ns, all ns) of the whole machine from /proc/stat: what
    else ran beside the JVM, and what the host took from this guest."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    tick = 1e9 / os.sysconf("SC_CLK_TCK")
    busy = v[0] + v[1] + v[2] + v[5] + v[6]  # user nice system irq softirq
    steal = v[7] if len(v) > 7 else 0
    return busy * tick, steal * tick, sum(v[:8]) * tick


def control(base, words):
    p = subprocess.run([heaptop, "control", "--ipc", base, *words], capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise Refused(f"heaptop control {' '.join(words)}: {(p.stderr or p.stdout).strip()[-300:]}")


def run(name, workload, opts, on_words, off_words, n):
    seconds = args.warmup + 2 * args.cycles * (args.phase + 1) + 60
    base = os.path.join(work, f"a{n}")
    reports = os.path.join(work, f"r{n}")
    errs = os.path.join(work, f"e{n}")
    out = os.path.join(work, f"v{n}")
    cmd = JVM + [f"-agentpath:{agent}=ipc={base},{opts}", "-cp", jar, *workload, str(int(seconds))]
    cmd += ["100"] if workload[0] == "CpuSplitWorkload" else ["0", "100"]
    with open(reports, "w") as rf, open(errs, "w") as ef:
        p = subprocess.Popen(cmd, stdout=rf, stderr=ef)
    viewer = None
    try:
        wait_for(lambda: os.path.exists(base + ".ctl") or p.poll() is not None, "the agent's socket")
        if p.poll() is not None:
            raise Refused(open(errs).read().strip()[-300:])
        viewer = subprocess.Popen([heaptop, "record", "--ipc", base, "--out", out, "--top", "0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: os.path.getsize(reports) > 0, "the workload's first report")
        time.sleep(args.warmup)
        phases, acc = [], {True: [0, 0], False: [0, 0]}
        at = None
        on = True
        m0 = machine()
        for _ in range(2 * args.cycles):
            on = not on
            now = agent_cpu(p.pid)
            if at is not None:  # the phase that ends is the other kind
                for k in range(2):
                    acc[not on][k] += now[k] - at[k]
            at = now
            for w in (on_words if on else off_words):
                control(base, w)
            start = time.monotonic_ns()
            if phases:
                phases[-1][2] = start
            phases.append([on, start, None])
            time.sleep(args.phase)
        phases[-1][2] = time.monotonic_ns()
        now = agent_cpu(p.pid)
        for k in range(2):
            acc[on][k] += now[k] - at[k]
        m1 = machine()
        wall = (phases[-1][2] - phases[0][1]) or 1
        # the rest of the machine while the phases ran: every busy ns but the JVM's
        others = max(0.0, (m1[0] - m0[0]) - (acc[True][1] + acc[False][1]))
        busy = (100 * others / wall, 100 * (m1[1] - m0[1]) / ((m1[2] - m0[2]) or 1))
    finally:
        p.terminate()
        p.wait()
        if viewer:
            viewer.wait(timeout=60)
    rs = []
    with open(reports) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == "r":
                rs.append((int(w[1]), int(w[2]), int(w[3])))
    per_iter = []
    for on, a, b in phases:
        inside = [r for r in rs if a + SKIP_NS <= r[0] <= b]
        if len(inside) < 3 or inside[-1][2] == inside[0][2]:
            raise SystemExit(f"cpu_overhead: a phase of {name} has too few reports ({len(inside)})")
        per_iter.append((on, (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2])))
    ratios = sorted(c / ((per_iter[i - 1][1] + per_iter[i + 1][1]) / 2)
                    for i, (on, c) in enumerate(per_iter) if on and 0 < i < len(per_iter) - 1)
    share = {k: 100 * acc[k][0] / acc[k][1] if acc[k][1] else 0.0 for k in (True, False)}
    info = f"its threads {share[True]:.2f}% of the JVM's CPU while on, {share[False]:.2f}% while off"
    try:
        with open(os.path.join(out, "telemetry.csv"), newline="") as f:
            tel = list(csv.DictReader(f))
        own = [float(r["agent_cpu_pct"]) for r in tel[int(args.warmup) + 1:] if r.get("agent_cpu_pct")]
        if own:
            info += f"; the agent's own reading {max(own):.2f}% at most, median {statistics.median(own):.2f}%"
        # the CPU sampler in ms a second, and of it the JVMTI floor (GetStackTrace):
        # the rest is heaptop's own share, which the 0.3% target is about
        samp = [(float(r["cpu_sampler_ms_per_s"]), float(r["cpu_floor_ms_per_s"]))
                for r in tel[int(args.warmup) + 1:] if r.get("cpu_sampler_ms_per_s")]
        samp = [x for x in samp if x[0] > 0]
        if samp:
            s_med = statistics.median(x[0] for x in samp)
            f_med = statistics.median(x[1] for x in samp)
            jvm_ms = acc[True][1] / 1e6 / (args.cycles * args.phase) if acc[True][1] else 0
            own_pct = 100 * (s_med - f_med) / jvm_ms if jvm_ms else 0
            info += (f"; the CPU sampler {s_med:.2f} ms/s while on, {f_med:.2f} of it in "
                     f"GetStackTrace (the JVMTI floor), heaptop's own {s_med - f_med:.2f} ms/s "
                     f"= {own_pct:.2f}% of the JVM's CPU")
            shares_own[name] = own_pct
    except (OSError, KeyError, ValueError):
        pass
    try:  # the tick in force at the end (the last phase is an on-phase)
        with open(os.path.join(out, "summary.csv"), newline="") as f:
            summ = next(csv.DictReader(f))
        info += f"; tick at the end {summ['cpu_interval_ms']} ms ({summ['cpu_mode']})"
    except (OSError, KeyError, StopIteration):
        pass
    info += f"; beside it, the rest of the machine {busy[0]:.0f}% of a core, steal {busy[1]:.1f}%"
    return ratios, share, info, busy


print(f"{JAVA}; {args.warmup:.0f} s warm-up, then {args.cycles} x ({args.phase:.1f} s off, "
      f"{args.phase:.1f} s on) in one JVM per configuration", flush=True)
print(f"{'configuration':<62} {'on / off':>9}   quartiles")
failed = []
shares_own = {}
for n, (name, (workload, opts, on_words, off_words)) in enumerate(CONFIGS.items()):
    try:
        ratios, share, info, busy = run(name, workload, opts, on_words, off_words, n)
    except Refused as e:
        print(f"{name:<62} not run: {e}", flush=True)
        if "cpu=on" in name and args.check:
            failed.append(f"{name}: {e}")
        continue
    med = 100 * (statistics.median(ratios) - 1)
    q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
    print(f"{name:<62} {med:+8.2f}%   {100 * (q1 - 1):+.2f}% .. {100 * (q3 - 1):+.2f}%  "
          f"({len(ratios)} on-phases)", flush=True)
    print(f"{'':<62} {info}", flush=True)
    if args.check and name.startswith("cpu=on"):
        if busy[0] > args.max_busy or busy[1] > args.max_steal:
            print(f"check: cpu=on's throughput not gated: the machine was busy beside the JVM "
                  f"({busy[0]:.0f}% of a core, at most {args.max_busy:.0f}%; steal {busy[1]:.1f}%, "
                  f"at most {args.max_steal:.0f}%), nor its threads' share (GetStackTrace "
                  f"waits longer for descheduled threads); heaptop's own share still is",
                  flush=True)
        else:
            if 100 * (q1 - 1) > args.max_on:
                failed.append(f"{name} costs {med:+.2f}%, its lower quartile "
                              f"{100 * (q1 - 1):+.2f}% (at most {args.max_on}%)")
            if share[True] > 3.0:
                failed.append(f"{name}: its threads used {share[True]:.2f}% of the JVM's CPU "
                              f"(at most 3%)")
        if name in shares_own and shares_own[name] > 0.45:
            failed.append(f"{name}: heaptop's own share of CPU sampling {shares_own[name]:.2f}% "
                          f"(target 0.3%, checked at 0.45%)")
if args.check:
    for f in failed:
        print(f"check: FAIL {f}")
    print("check: ok" if not failed else "check: FAILED")
    sys.exit(1 if failed else 0)
