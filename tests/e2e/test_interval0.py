"""interval=0 samples every allocation: the counted site's samples are exact.

Measured: JDK 17's HotSpot skips about a quarter of TLAB allocations at interval
0 (JDK 25 does not); with -XX:-UseTLAB JDK 17 is exact. So the check runs on the
configured JDK without TLABs, and on a JDK 25 as it is when one is installed."""
import glob
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import harness  # noqa: E402
from harness import *  # noqa: E402,F403

configs = [(harness.JAVA, ["-XX:-UseTLAB"])]
for j in sorted(glob.glob("/usr/lib/jvm/*25*/bin/java")):
    configs.append((j, []))
    break

for java, flags in configs:
    harness.JAVA = java
    label = f"{java} {' '.join(flags)}".strip()
    wd = Workdir("interval0")
    r = run_recorded(wd, "Interval0Workload", "interval=0", jvm_flags=flags)
    check(r["jvm_rc"] == 0, f"[{label}] JVM exit code 0 ({r['jvm_err'][-300:]})")
    check(r["rec_rc"] == 0, f"[{label}] heaptop record exit code 0 ({r['rec_err'][-300:]})")
    frame = f"Interval0Workload.counted:{site_line('Interval0Workload.java', 'counted')}"
    rows = [s for s in r["sites"] if s["frame"] == frame and s["class"] == "java.lang.Object[]"]
    count = r["facts"].get("counted.count")
    check(len(rows) == 1, f"[{label}] counted site {frame} found")
    if rows:
        check(int(rows[0]["samples"]) == count, f"[{label}] samples {rows[0]['samples']} == true count {count}")
        check(float(rows[0]["est_instances"]) == count, f"[{label}] est_instances exact at interval=0")
    tel = r["telemetry"]
    check(tel and int(tel[-1]["dropped"]) == 0, f"[{label}] no samples dropped on this short run")
    wd.cleanup()
finish()
