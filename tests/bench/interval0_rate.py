"""Samples per second the agent takes and aggregates at interval=0 with a viewer
attached, and the share dropped. Usage: python3 tests/bench/interval0_rate.py BUILD_DIR"""
import csv
import os
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
jar = os.path.join(build, "tests", "heaptop-tests.jar")
work = tempfile.mkdtemp(prefix="heaptop-i0-")
os.chmod(work, 0o700)
base = os.path.join(work, "i0")
secs = 10
p = subprocess.Popen(["java", "-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:-UseTLAB",
                      f"-agentpath:{build}/agent/libheaptop.so=ipc={base},interval=0",
                      "-cp", jar, "AllocBench", "2", "0", str(secs)],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not os.path.exists(base + ".ctl"):
    time.sleep(0.01)
v = subprocess.run([os.path.join(build, "tui", "heaptop"), "record", "--ipc", base, "--out", work,
                    "--top", "0"], capture_output=True, text=True)
p.wait()
with open(os.path.join(work, "telemetry.csv"), newline="") as f:
    tel = list(csv.DictReader(f))
last = tel[-1]
t = int(last["t_ms"]) / 1000
samples, dropped = int(last["samples"]), int(last["dropped"])
print(f"interval=0, AllocBench 2 threads for {secs} s (-XX:-UseTLAB so every allocation is offered):")
print(f"  samples taken {samples} in {t:.1f} s = {samples / t / 1e6:.2f} M/s offered")
print(f"  aggregated {samples - dropped} = {(samples - dropped) / t / 1e6:.2f} M/s; dropped {dropped} "
      f"({dropped / max(samples, 1):.1%})")
