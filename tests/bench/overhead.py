"""CPU-time overhead of the heaptop agent, side by side with JFR's allocation
profiling, on an allocation-heavy multi-threaded Java benchmark.

Wall time on shared 2-core machines swings by +-10%, so the figure is CPU time
(user+sys of the JVM process, from wait4), median over interleaved runs: every
round runs each configuration once, in shuffled order. heaptop configurations
run with a `heaptop record` viewer attached (its own CPU is not counted), which
also gives the exact number of samples the agent took.

Usage: python3 tests/bench/overhead.py BUILD_DIR [--runs 10] [--iterations N]
Prints a table and the figures README.md quotes."""
import argparse
import csv
import os
import random
import statistics
import subprocess
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--runs", type=int, default=10)
ap.add_argument("--iterations", type=int, default=150_000_000)
ap.add_argument("--threads", type=int, default=2)
args = ap.parse_args()

jar = os.path.join(args.build, "tests", "heaptop-tests.jar")
agent = os.path.join(args.build, "agent", "libheaptop.so")
heaptop = os.path.join(args.build, "tui", "heaptop")
work = tempfile.mkdtemp(prefix="heaptop-bench-")
os.chmod(work, 0o700)
JVM = ["java", "-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"]
BENCH = ["-cp", jar, "AllocBench", str(args.threads), str(args.iterations)]

CONFIGS = {
    "no agent": [],
    "empty callback (JEP 331 floor)": ["empty"],
    "heaptop default (512k, live)": ["agent", ""],
    "JFR settings=profile": ["jfr"],
    "heaptop interval=16k (live)": ["agent", "interval=16k"],
}


def run(name, spec, n):
    cmd = list(JVM)
    base = None
    if spec and spec[0] == "agent":
        base = os.path.join(work, f"a{n}")
        opts = f"ipc={base}" + (f",{spec[1]}" if spec[1] else "")
        cmd.append(f"-agentpath:{agent}={opts}")
    elif spec and spec[0] == "empty":
        cmd.append(f"-agentpath:{os.path.join(args.build, 'tests', 'libheaptop_empty_agent.so')}")
    elif spec and spec[0] == "jfr":
        cmd.append(f"-XX:StartFlightRecording:settings=profile,filename={work}/r{n}.jfr")
    t0 = time.time()
    p = subprocess.Popen(cmd + BENCH, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    viewer = None
    if base:
        for _ in range(200):
            if os.path.exists(base + ".ctl"):
                break
            time.sleep(0.01)
        out = os.path.join(work, f"v{n}")
        viewer = subprocess.Popen([heaptop, "record", "--ipc", base, "--out", out, "--top", "0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.time() - t0
    samples = dropped = None
    if viewer:
        viewer.wait(timeout=60)
        with open(os.path.join(out, "telemetry.csv"), newline="") as f:
            last = list(csv.DictReader(f))[-1]
        samples, dropped = int(last["samples"]), int(last["dropped"])
    return ru.ru_utime + ru.ru_stime, wall, samples, dropped


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
print(f"AllocBench {args.threads} threads x {args.iterations} iterations, {args.runs} interleaved runs each")
print(f"{'configuration':<32} {'CPU s (median)':>14} {'vs no agent':>12} {'wall s':>8} {'samples':>10} {'dropped':>8}")
for name, rs in results.items():
    cpu = statistics.median(x[0] for x in rs)
    wall = statistics.median(x[1] for x in rs)
    s = [x[2] for x in rs if x[2] is not None]
    d = [x[3] for x in rs if x[3] is not None]
    print(f"{name:<32} {cpu:>14.2f} {100 * (cpu / base_cpu - 1):>+11.1f}% {wall:>8.2f} "
          f"{(statistics.median(s) if s else 0):>10.0f} {(statistics.median(d) if d else 0):>8.0f}")
small = results["heaptop interval=16k (live)"]
extra = statistics.median(x[0] for x in small) - base_cpu
samp = statistics.median(x[2] for x in small)
print(f"\ncost per sample (interval=16k, stack + intern + tag + collector + publish): "
      f"{1e9 * extra / samp:.0f} ns CPU ({samp:.0f} samples, +{extra:.2f} s CPU)")
