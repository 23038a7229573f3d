"""The live-object cap: at most 1,000,000 sampled objects are tracked at once;
past that, samples are still counted but not tracked, and telemetry's
`untracked` counts them. CapWorkload keeps 1,200,000 objects of one class
reachable at interval=0 (JDK 17 without TLABs), so every one is sampled: the
site must count all of them, no more than 1,000,000 may be tracked (LIVE +
YOUNG samples, over all sites), and the kept objects that are not tracked must
show up in `untracked`."""
import signal
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

KEEP, CAP = 1_200_000, 1_000_000
flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
wd = Workdir("livecap")
go, facts, stop = wd.file("go"), wd.file("facts"), wd.file("stop")
jvm = start_jvm("CapWorkload", [go, facts, KEEP, stop],
                agent_opts=f"ipc={wd.base},interval=0,buffer=1048576", jvm_flags=["-Xmx512m", *flags])
check(wait_agent(jvm, wd.base), "agent socket appears")
touch(go)
check(wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 180,
               what="the workload keeping its objects") and os.path.exists(facts),
      "the workload keeps its objects")
r = snapshot(wd.base, wd.file("snap"))
# telemetry comes once a second: wait for a record taken after that snapshot,
# so its untracked count covers every sample the snapshot's rows hold
since = int(r["summary"][0]["start_ms"]) if r["summary"] else 0
n = [0]


def newer_telemetry():
    n[0] += 1
    tel = snapshot(wd.base, wd.file(f"snap{n[0]}"))["telemetry"]
    r["telemetry"] = tel
    return tel and int(tel[-1]["t_ms"]) > since


check(wait_for(newer_telemetry, 60, step=0.2, what="a telemetry record after the snapshot"),
      "a telemetry record after the snapshot")
touch(stop)
jvm.communicate(timeout=60)
frame = f"CapWorkload.keep:{site_line('CapWorkload.java', 'kept')}"
rows = [s for s in r["sites"] if s["frame"] == frame and s["class"] == "CapWorkload$Kept"]
check(len(rows) == 1, f"the kept site {frame} is recorded")
tel = r["telemetry"]
check(len(tel) > 0, "telemetry has rows")
if rows and tel:
    k = rows[0]
    samples, dropped = int(k["samples"]), int(k["dropped"])
    tracked_k = int(k["live_samples"]) + int(k["young_samples"])
    tracked = sum(int(s["live_samples"]) + int(s["young_samples"]) for s in r["sites"])
    untracked = int(tel[-1]["untracked"])
    print(f"kept site: {samples} samples, {dropped} dropped, {tracked_k} tracked; all sites "
          f"{tracked} tracked; untracked {untracked}")
    check(samples + dropped == KEEP, f"every kept object is counted ({samples} + {dropped} == {KEEP})")
    check(tracked <= CAP, f"no more than {CAP} samples tracked at once ({tracked})")
    check(tracked >= CAP * 9 // 10, f"tracking went up to the cap ({tracked} >= {CAP * 9 // 10})")
    check(untracked >= samples - tracked_k,
          f"the kept samples not tracked are counted as untracked ({untracked} >= "
          f"{samples} - {tracked_k} = {samples - tracked_k})")
wd.cleanup()
finish()
