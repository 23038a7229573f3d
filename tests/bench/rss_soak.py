"""Agent native memory over a long run: RSS of the same workload with and
without the agent (fixed, pre-touched heap so the heap's RSS is constant), at
default settings, sampled each minute. Prints the difference over time.
Usage: python3 tests/bench/rss_soak.py BUILD_DIR [MINUTES] [--every S] [--check]

--check (for CI, ctest label `bench`, with e.g. --every 10 and 1 minute):
fails when, in the same run, the JVM with the agent takes more than
--max-ratio (1.10) times the RSS of the one without, or its RSS grows from the
second sample to the last by more than the JVM without the agent grew plus
--max-growth-mib (16). Measured: 6.8 MiB above a ~580 MiB JVM (1.01), flat
after minute 3 (docs/benchmarks.md)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("minutes", nargs="?", type=float, default=10)
ap.add_argument("--every", type=float, default=60, help="seconds between samples")
ap.add_argument("--check", action="store_true")
ap.add_argument("--max-ratio", type=float, default=1.10)
ap.add_argument("--max-growth-mib", type=float, default=16)
args = ap.parse_args()
build = args.build
jar = os.path.join(build, "tests", "heaptop-tests.jar")
agent = os.path.join(build, "agent", "libheaptop.so")
d = tempfile.mkdtemp(prefix="heaptop-soak-")
os.chmod(d, 0o700)
flags = ["-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch", "-XX:+UseG1GC"]
samples = max(2, int(args.minutes * 60 / args.every))
secs = int(samples * args.every) + 60  # the workloads outlive the sampling; killed after


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


base = subprocess.Popen([os.environ.get("JAVA", "java"), *flags, "-cp", jar, "AllocBench", "1", "0", str(secs)])
agt = subprocess.Popen([os.environ.get("JAVA", "java"), *flags, f"-agentpath:{agent}=ipc={d}/soak", "-cp", jar,
                        "AllocBench", "1", "0", str(secs)])
# A viewer attached for the whole run, as a user would have, once the agent listens.
end = time.time() + 120
while not os.path.exists(f"{d}/soak.ctl") and agt.poll() is None and time.time() < end:
    time.sleep(0.05)
viewer = subprocess.Popen([os.path.join(build, "tui", "heaptop"), "record", "--ipc", f"{d}/soak",
                           "--out", d, "--top", "0"], stderr=subprocess.DEVNULL)
unit = "minute" if args.every == 60 else "sample"
print(f"{unit:>6} {'no agent MiB':>13} {'agent MiB':>10} {'diff MiB':>9}", flush=True)
rows = []
for m in range(1, samples + 1):
    time.sleep(args.every)  # the sampling cadence of a soak, not a wait for the JVM
    a, b = rss_kb(agt.pid), rss_kb(base.pid)
    rows.append((m, b, a))
    print(f"{m:>6} {b / 1024:>13.1f} {a / 1024:>10.1f} {(a - b) / 1024:>9.1f}", flush=True)
for p in (base, agt):
    p.kill()
    p.wait()
viewer.wait(timeout=60)
first, last = rows[0], rows[-1]
print(f"agent RSS growth from {unit} 1 to {last[0]}: {(last[2] - first[2]) / 1024:+.1f} MiB; "
      f"difference to no agent at the end: {(last[2] - last[1]) / 1024:+.1f} MiB")
if not args.check:
    sys.exit(0)
ok = True
ratio = last[2] / last[1] if last[1] else float("inf")
second = rows[1]
growth = (last[2] - second[2]) / 1024
base_growth = (last[1] - second[1]) / 1024
print(f"check: RSS with the agent / without: {ratio:.3f} (at most {args.max_ratio}); growth from "
      f"{unit} 2: {growth:+.1f} MiB with the agent, {base_growth:+.1f} MiB without "
      f"(at most {args.max_growth_mib:g} MiB more)")
if ratio > args.max_ratio:
    print(f"check: FAIL the agent's JVM takes {ratio:.3f}x the RSS of the one without")
    ok = False
if growth > base_growth + args.max_growth_mib:
    print(f"check: FAIL the agent's JVM grew {growth - base_growth:+.1f} MiB more than the one without")
    ok = False
print("check: ok" if ok else "check: FAILED")
sys.exit(0 if ok else 1)
