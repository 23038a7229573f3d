"""CPU-time overhead of the heaptop agent, side by side with JFR's allocation
profiling, on an allocation-heavy multi-threaded Java benchmark.

Wall time on shared 2-core machines swings by +-10%, so the figure is CPU time
(user+sys of the JVM process, from wait4), median over interleaved runs: every
round runs each configuration once, in shuffled order. heaptop configurations
run with a `heaptop record` viewer attached (its own CPU is not counted), which
also gives the exact number of samples the agent took.

Usage: python3 tests/bench/overhead.py BUILD_DIR [--runs 10] [--iterations N] [--depth D]
(--depth D allocates D calls deep, as framework-heavy code does: stack walking
costs per frame, so this is the case where it weighs most.)
Prints a table and the figures docs/benchmarks.md quotes.

--check (for CI, ctest label `bench`): 5 interleaved rounds of no agent, the
bare JVMTI floor (empty callback + GetStackTrace) and heaptop, both at 4k so
that samples dominate, one allocating thread; fails when heaptop's CPU cost
above no agent is more than --max-ratio (2.5) times the floor's. The cost of
each configuration is its least CPU time over the rounds: a busy machine only
ever adds time, so the least is the steadiest figure on a shared machine. The
CPU is that of the allocating part (AllocBench's own reading): the JVM's
start-up, pre-touching the heap, moved the whole JVM's least by 0.6 s in one
CI run, which read 3.14x there against 1.5x on the allocating part.
Measured: 1.28 at 16k on a quiet machine (Figures), 1.85-1.95 at 4k on this
2-core machine under other test runs (heaptop's collector thread suffers
most from sharing the cores). 2.5 leaves that noise room and still fails
when heaptop's own per-sample work (a quarter to an equal share of the
floor's) grows several times."""
import argparse
import csv
import os
import pwd
import random
import statistics
import subprocess
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--runs", type=int, default=None, help="rounds (10; 5 with --check)")
ap.add_argument("--iterations", type=int, default=None,
                help="per thread (150,000,000; 20,000,000 with --check)")
ap.add_argument("--threads", type=int, default=None, help="allocating threads (2; 1 with --check)")
ap.add_argument("--depth", type=int, default=0)
ap.add_argument("--quick", action="store_true",
                help="only no agent, the JVMTI floor, heaptop default, budget=off and JFR (no 16k runs)")
ap.add_argument("--fixed", action="store_true",
                help="what does not grow with samples: heaptop at 32m with and without a viewer, "
                     "an empty agent with heaptop's capabilities and GC events")
ap.add_argument("--only", default=None,
                help="comma-separated parts of configuration names to run ('no agent' always runs)")
ap.add_argument("--check", action="store_true",
                help="pass/fail: heaptop's cost at 16k against the JVMTI floor's, same rounds")
ap.add_argument("--max-ratio", type=float, default=2.5)
args = ap.parse_args()
if args.runs is None:
    args.runs = 5 if args.check else 10
if args.iterations is None:
    args.iterations = 20_000_000 if args.check else 150_000_000
if args.threads is None:
    args.threads = 1 if args.check else 2

jar = os.path.join(args.build, "tests", "heaptop-tests.jar")
agent = os.path.join(args.build, "agent", "libheaptop.so")
heaptop = os.path.join(args.build, "tui", "heaptop")
work = tempfile.mkdtemp(prefix="heaptop-bench-")
os.chmod(work, 0o700)
JVM = [os.environ.get("JAVA", "java"), "-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"]
BENCH = ["-cp", jar, "AllocBench", str(args.threads), str(args.iterations), "0", str(args.depth)]

CONFIGS = {
    "no agent": [],
    "empty callback (JEP 331 floor)": ["empty"],
    "empty + GetStackTrace (JVMTI floor)": ["empty", "stack"],
    "heaptop default (budget 1%, live)": ["agent", ""],
    "heaptop budget=off (fixed 512k)": ["agent", "budget=off"],
    "heaptop default, attached": ["attach", ""],
    "heaptop default, no viewer": ["agent", "", "noviewer"],
    "JFR settings=profile": ["jfr"],
    "heaptop interval=16k (live)": ["agent", "interval=16k"],
    "empty callback, 16k": ["empty", "interval=16384"],
    "empty + GetStackTrace, 16k": ["empty", "interval=16384,stack"],
    "heaptop interval=4k (live)": ["agent", "interval=4k"],
    "empty + GetStackTrace, 4k": ["empty", "interval=4096,stack"],
}
FIXED = {
    "no agent": [],
    "heaptop interval=32m (viewer)": ["agent", "interval=32m"],
    "heaptop interval=32m, no viewer": ["agent", "interval=32m", "noviewer"],
    "empty + heaptop's caps, 32m": ["empty", "interval=33554432,caps"],
}


def run(name, spec, n):
    cmd = list(JVM)
    base = None
    if spec and spec[0] == "agent":
        base = os.path.join(work, f"a{n}")
        opts = f"ipc={base}" + (f",{spec[1]}" if spec[1] else "")
        cmd.append(f"-agentpath:{agent}={opts}")
    elif spec and spec[0] == "empty":
        opts = f"={spec[1]}" if len(spec) > 1 else ""
        cmd.append(f"-agentpath:{os.path.join(args.build, 'tests', 'libheaptop_empty_agent.so')}{opts}")
    elif spec and spec[0] == "jfr":
        cmd.append(f"-XX:StartFlightRecording:settings=profile,filename={work}/r{n}.jfr")
    t0 = time.time()
    wfile = os.path.join(work, f"w{n}")
    with open(wfile, "w") as wout:
        p = subprocess.Popen(cmd + BENCH, stdout=wout, stderr=subprocess.DEVNULL)
    viewer = None
    if spec and spec[0] == "attach":
        # started without the agent; `heaptop record PID` attaches it as soon as
        # the JVM has written its perf data (it is up), and is the viewer
        perf = f"/tmp/hsperfdata_{pwd.getpwuid(os.geteuid()).pw_name}/{p.pid}"
        end = time.time() + 60
        while time.time() < end and not os.path.exists(perf) and p.poll() is None:
            time.sleep(0.005)
        out = os.path.join(work, f"v{n}")
        viewer = subprocess.Popen([heaptop, "record", str(p.pid), "--out", out, "--top", "0"]
                                  + (["--agent-opts", spec[1]] if spec[1] else []),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if base and "noviewer" not in spec:
        # the socket, or the JVM gone (a short run on a busy machine): no fixed wait
        end = time.time() + 60
        while time.time() < end and not os.path.exists(base + ".ctl") and p.poll() is None:
            time.sleep(0.01)
        out = os.path.join(work, f"v{n}")
        viewer = subprocess.Popen([heaptop, "record", "--ipc", base, "--out", out, "--top", "0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.time() - t0
    window = None  # the allocating part's process CPU (AllocBench prints it)
    with open(wfile) as f:
        for word in f.read().split():
            if word.startswith("window_cpu_ns="):
                window = int(word.split("=")[1]) / 1e9
    samples = dropped = None
    if viewer:
        _, verr = viewer.communicate(timeout=60)
        try:
            with open(os.path.join(out, "telemetry.csv"), newline="") as f:
                last = list(csv.DictReader(f))[-1]
            samples, dropped = int(last["samples"]), int(last["dropped"])
        except (OSError, IndexError):
            print(f"  (no viewer figures for this run: {verr.strip()[-120:]})", flush=True)
    return ru.ru_utime + ru.ru_stime, wall, samples, dropped, window


CHECKED = ("no agent", "empty + GetStackTrace, 4k", "heaptop interval=4k (live)")
if args.fixed:
    CONFIGS = FIXED  # noqa
elif args.check:
    CONFIGS = {k: v for k, v in CONFIGS.items() if k in CHECKED}  # noqa
else:
    CONFIGS = {k: v for k, v in CONFIGS.items() if "4k" not in k}
if args.quick:
    CONFIGS = {k: v for k, v in CONFIGS.items()
               if "16k" not in k and "empty callback (" not in k}
if args.only:
    want = [w.strip() for w in args.only.split(",") if w.strip()]
    CONFIGS = {k: v for k, v in CONFIGS.items()  # noqa
               if k == "no agent" or any(w in k for w in want)}
results = {k: [] for k in CONFIGS}
n = 0
for r in range(args.runs):
    order = list(CONFIGS.items())
    random.shuffle(order)
    for name, spec in order:
        n += 1
        results[name].append(run(name, spec, n))
    print(f"round {r + 1}/{args.runs} done", flush=True)

base_cpu = statistics.median(x[0] for x in results["no agent"])
print()
print(f"AllocBench {args.threads} threads x {args.iterations} iterations, stack depth +{args.depth}, "
      f"{args.runs} interleaved runs each")
print(f"{'configuration':<36} {'CPU s (median)':>14} {'vs no agent':>12} {'wall s':>8} {'samples':>10} {'dropped':>8}")
for name, rs in results.items():
    cpu = statistics.median(x[0] for x in rs)
    wall = statistics.median(x[1] for x in rs)
    s = [x[2] for x in rs if x[2] is not None]
    d = [x[3] for x in rs if x[3] is not None]  # (None: the viewer came too late)
    print(f"{name:<36} {cpu:>14.2f} {100 * (cpu / base_cpu - 1):>+11.1f}% {wall:>8.2f} "
          f"{(statistics.median(s) if s else 0):>10.0f} {(statistics.median(d) if d else 0):>8.0f}")
def print_paired(field):
    """Each configuration's median over rounds of results[.][field] over that
    round's no-agent run, with quartiles."""
    for name, rs in results.items():
        if name == "no agent":
            continue
        ratios = sorted(x[field] / b[field] for x, b in zip(rs, results["no agent"]))
        q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
        print(f"  {name:<36} {100 * (statistics.median(ratios) - 1):+5.1f}%   "
              f"(quartiles {100 * (q1 - 1):+.1f}% .. {100 * (q3 - 1):+.1f}%)")


# Paired figure: each round ran every configuration once, back to back, so the
# ratio to that round's no-agent run cancels slow drifts in the machine's speed.
print(f"\npaired (median over rounds of CPU / that round's no-agent CPU):")
print_paired(0)
# The same, over the allocating part alone (AllocBench's own reading of the
# process's CPU from its threads' start to their end): a JVM's start-up and
# exit are fixed costs, and pre-touching the heap alone swung by a second of
# kernel time between runs here; what a sample costs is all inside the window.
if all(x[4] is not None for rs in results.values() for x in rs):
    print(f"\npaired, the allocating part only (no agent: median "
          f"{statistics.median(x[4] for x in results['no agent']):.2f} CPU s):")
    print_paired(4)
if args.check:
    # the allocating part's CPU where AllocBench gave it: what a sample costs is
    # all inside it, and the JVM's start-up outside it swung the whole figure's
    # least by 0.6 s (no agent: least 4.34 s, median 4.94 s) in a CI run that
    # read 3.14x on whole JVMs and 1.5x on the allocating part
    W = 4 if all(x[4] is not None for k in CHECKED for x in results[k]) else 0
    what = "the allocating part's CPU" if W == 4 else "CPU"
    least = {k: min(x[W] for x in results[k]) for k in CHECKED}
    n, f, h = (least[k] for k in CHECKED)
    samples = [x[2] for x in results["heaptop interval=4k (live)"] if x[2] is not None] or [0]
    drops = [x[3] for x in results["heaptop interval=4k (live)"] if x[3] is not None] or [0]
    ratio = (h - n) / (f - n) if f > n else float("inf")
    print(f"\ncheck: least {what} over {args.runs} rounds: no agent {n:.2f} s, JVMTI floor at 4k {f:.2f} s "
          f"({f / n - 1:+.0%}), heaptop at 4k {h:.2f} s ({h / n - 1:+.0%}, {min(samples)} samples, "
          f"{max(drops)} dropped)")
    print(f"check: heaptop's cost / the JVMTI floor's: {ratio:.2f} (at most {args.max_ratio})")
    ok = True
    # the floor must cost enough for the ratio to mean something: judged on
    # its paired median over the rounds, the steadier figure (the least CPU
    # of each configuration, taken apart, read +9.1% once in CI against a
    # paired +12.4%)
    floor = statistics.median(x[W] / b[W] - 1 for x, b in
                              zip(results[CHECKED[1]], results[CHECKED[0]]))
    if floor < 0.10:
        print(f"check: FAIL the floor's cost (paired {floor:+.1%}) is too small to compare against")
        ok = False
    if not max(samples):
        print("check: FAIL no viewer saw heaptop take samples")
        ok = False
    if ratio > args.max_ratio:
        print(f"check: FAIL heaptop costs {ratio:.2f}x the JVMTI floor (at most {args.max_ratio})")
        ok = False
    print("check: ok" if ok else "check: FAILED")
    raise SystemExit(0 if ok else 1)
if args.quick or args.fixed or args.only:
    raise SystemExit(0)
# CPU of each configuration as base x its paired median ratio: the paired
# figure is the steadier one on a shared machine.
med = {k: base_cpu * statistics.median(x[0] / b[0] for x, b in zip(rs, results["no agent"]))
       for k, rs in results.items()}
samp16 = statistics.median(x[2] for x in results["heaptop interval=16k (live)"])
samp512 = statistics.median(x[2] for x in results["heaptop budget=off (fixed 512k)"])
# Per-sample costs from the 16k runs, where samples dominate the difference.
# The empty agents take as many samples as heaptop (same workload, same mean
# interval), so heaptop's count serves for all three.
floor_ns = 1e9 * (med["empty callback, 16k"] - base_cpu) / samp16
stack_ns = 1e9 * (med["empty + GetStackTrace, 16k"] - med["empty callback, 16k"]) / samp16
own_ns = 1e9 * (med["heaptop interval=16k (live)"] - med["empty + GetStackTrace, 16k"]) / samp16
total_ns = floor_ns + stack_ns + own_ns
print(f"\ncost per sample, from the paired 16k figures ({samp16:.0f} samples):")
print(f"  JVM's SampledObjectAlloc event (empty callback)  {floor_ns:6.0f} ns")
print(f"  JVMTI GetStackTrace                               {stack_ns:6.0f} ns")
print(f"  heaptop's own (intern, class, weak ref, queue,")
print(f"    collector, live sweep, publish to a viewer)     {own_ns:6.0f} ns")
print(f"  total                                             {total_ns:6.0f} ns")
print(f"\nat the default interval, fixed ({samp512:.0f} samples), samples x cost per sample:")
for name, ns in (("JVM event", floor_ns), ("+ GetStackTrace", floor_ns + stack_ns),
                 ("+ heaptop's own", total_ns)):
    print(f"  {name:<16} {samp512 * ns / 1e9:5.2f} s CPU = {100 * samp512 * ns / 1e9 / base_cpu:4.2f}% of "
          f"{base_cpu:.2f} s")
