"""Agent native memory over a long run: RSS of the same workload with and
without the agent (fixed, pre-touched heap so the heap's RSS is constant), at
default settings, sampled each minute. Prints the difference over time.
Usage: python3 tests/bench/rss_soak.py BUILD_DIR [MINUTES]"""
import os
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
minutes = int(sys.argv[2]) if len(sys.argv) > 2 else 10
jar = os.path.join(build, "tests", "heaptop-tests.jar")
agent = os.path.join(build, "agent", "libheaptop.so")
d = tempfile.mkdtemp(prefix="heaptop-soak-")
os.chmod(d, 0o700)
flags = ["-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch", "-XX:+UseG1GC"]
secs = minutes * 60 + 30


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


base = subprocess.Popen(["java", *flags, "-cp", jar, "AllocBench", "1", "0", str(secs)])
agt = subprocess.Popen(["java", *flags, f"-agentpath:{agent}=ipc={d}/soak", "-cp", jar,
                        "AllocBench", "1", "0", str(secs)])
# A viewer attached for the whole run, as a user would have.
time.sleep(3)
viewer = subprocess.Popen([os.path.join(build, "tui", "heaptop"), "record", "--ipc", f"{d}/soak",
                           "--out", d, "--top", "0"], stderr=subprocess.DEVNULL)
print(f"{'minute':>6} {'no agent MiB':>13} {'agent MiB':>10} {'diff MiB':>9}", flush=True)
rows = []
for m in range(1, minutes + 1):
    time.sleep(60)
    a, b = rss_kb(agt.pid), rss_kb(base.pid)
    rows.append((m, b, a))
    print(f"{m:>6} {b / 1024:>13.1f} {a / 1024:>10.1f} {(a - b) / 1024:>9.1f}", flush=True)
base.wait()
agt.wait()
viewer.wait()
first, last = rows[0], rows[-1]
print(f"agent RSS growth from minute 1 to {last[0]}: {(last[2] - first[2]) / 1024:+.1f} MiB; "
      f"difference to no agent at the end: {(last[2] - last[1]) / 1024:+.1f} MiB")
