"""Drops against a truth the agent did not compute. At interval=0 HotSpot offers
every allocation to the agent (on JDK 17 only without TLABs: its TLAB path skips
about a quarter of them), so a site's samples plus the samples of it the agent
dropped must be exactly the number of objects the workload says it allocated
there. A tiny buffer= makes the agent's event queue overflow, so most samples
are dropped: the site's `dropped` column in sites.csv must account for every
one of them. The mixed site allocates two classes at one stack (reflection):
its drops must be counted once, in one of its rows, not in each. (test_stress checks that rows add up to what was drained; that
cannot see a sample lost without being counted.)"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import harness  # noqa: E402
from harness import *  # noqa: E402,F403

flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
wd = Workdir("drops")
r = run_recorded(wd, "Interval0Workload", "interval=0,buffer=64", jvm_flags=flags)
check(r["jvm_rc"] == 0, f"JVM exit code 0 ({r['jvm_err'][-300:]})")
check(r["rec_rc"] == 0, f"heaptop record exit code 0 ({r['rec_err'][-300:]})")
count = r["facts"].get("counted.count")
check(count is not None, "the workload says how many objects it allocated at the site")
frame = f"Interval0Workload.counted:{site_line('Interval0Workload.java', 'counted')}"
rows = [s for s in r["sites"] if s["frame"] == frame and s["class"] == "java.lang.Object[]"]
check(len(rows) == 1, f"one row for the counted site {frame} ({len(rows)})")
tel = r["telemetry"]
check(len(tel) > 0, f"telemetry.csv has rows ({len(tel)})")
if rows and count is not None:
    samples, dropped = int(rows[0]["samples"]), int(rows[0]["dropped"])
    print(f"flags {flags}: site samples {samples} + dropped {dropped} = {samples + dropped}, "
          f"the workload allocated {count}")
    check(dropped > 0, f"buffer=64 makes the agent drop samples of the site ({dropped})")
    check(samples + dropped == count, f"samples + dropped of the site ({samples} + {dropped} = "
          f"{samples + dropped}) == the {count} objects the workload allocated there")
    if tel:
        total = int(tel[-1]["dropped"])
        check(dropped <= total, f"the site's drops ({dropped}) are among the agent's total ({total})")
    summ = r["summary"]
    check(len(summ) == 1 and int(summ[0]["dropped"]) >= dropped,
          f"summary.csv's dropped covers the site's ({summ[0]['dropped'] if summ else None})")
mixed = r["facts"].get("mixed.count")
rows = [s for s in r["sites"]
        if s["frame"].startswith("java.lang.reflect.Array.") and "Interval0Workload.mixed:" in s["stack"]]
classes = sorted({s["class"] for s in rows})
check(classes == ["java.lang.Object[]", "long[]"], f"the mixed site has a row per class ({classes})")
got = sum(int(s["samples"]) + int(s["dropped"]) for s in rows)
dropped = sum(int(s["dropped"]) for s in rows)
check(dropped > 0 and got == mixed,
      f"the mixed site: samples + dropped over its rows ({got}, {dropped} dropped) == the {mixed} "
      f"objects it allocated: each drop counted once")
if tel:
    every = sum(int(s["dropped"]) for s in r["sites"])
    check(every <= int(tel[-1]["dropped"]),
          f"drops over all rows ({every}) are no more than the agent's total ({tel[-1]['dropped']})")
wd.cleanup()
finish()
