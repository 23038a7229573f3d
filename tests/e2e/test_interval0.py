"""interval=0 samples every allocation: the counted site's samples are exact.

Measured: JDK 17's HotSpot skips about a quarter of TLAB allocations at interval
0 (JDK 25 does not); with -XX:-UseTLAB JDK 17 is exact. So the check runs
without TLABs on a JDK older than 21 and as it is on a newer one. ctest runs it
on the configured JDK and, as e2e_test_interval0_jdk25, on a JDK 25 (reported
as skipped when there is none)."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
label = f"JDK {java_version()} {' '.join(flags)}".strip()
wd = Workdir("interval0")
r = run_recorded(wd, "Interval0Workload", "interval=0", jvm_flags=flags)
check(r["jvm_rc"] == 0, f"[{label}] JVM exit code 0 ({r['jvm_err'][-300:]})")
check(r["rec_rc"] == 0, f"[{label}] heaptop record exit code 0 ({r['rec_err'][-300:]})")
frame = f"Interval0Workload.counted:{site_line('Interval0Workload.java', 'counted')}"
rows = [s for s in r["sites"] if s["frame"] == frame and s["class"] == "java.lang.Object[]"]
count = r["facts"].get("counted.count")
check(count is not None, f"[{label}] the workload says how many it allocated")
check(len(rows) == 1, f"[{label}] counted site {frame} found")
if rows and count is not None:
    check(int(rows[0]["samples"]) == count, f"[{label}] samples {rows[0]['samples']} == true count {count}")
    check(float(rows[0]["est_instances"]) == count, f"[{label}] est_instances exact at interval=0")
tel = r["telemetry"]
check(len(tel) > 0 and int(tel[-1]["dropped"]) == 0, f"[{label}] no samples dropped on this short run")
wd.cleanup()
finish()
