"""live=off: no sampled object is tracked, so no row has LIVE or YOUNG figures
and nothing is counted as untracked (that is for objects past the tracking
cap), while the allocation estimates are what they are with tracking on. The
workload is test_live's: a site that keeps a quarter of its 200,000 objects
through three collections, which live=on reports as LIVE (test_live)."""
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("liveoff")
r = run_recorded(wd, "LiveWorkload", "interval=64k,live=off", jvm_flags=["-Xmx1g"])
check(r["jvm_rc"] == 0 and r["rec_rc"] == 0, f"JVM and record exit 0 ({r['rec_err'][-200:]})")
sites, facts = r["sites"], r["facts"]
check(len(sites) > 0 and len(facts) > 0, "sites and facts written")
tracked = [s for s in sites if int(s["live_samples"]) or int(s["young_samples"])
           or float(s["live_est_bytes"] or 0) or float(s["young_est_bytes"] or 0)]
check(not tracked, f"no row has LIVE or YOUNG figures ({len(tracked)} of {len(sites)} rows do: "
      f"{[(s['frame'], s['live_samples'], s['young_samples']) for s in tracked[:3]]})")
classes = [c for c in r["classes"] if float(c["live_est_bytes"] or 0) or float(c["young_est_bytes"] or 0)]
check(not classes, f"no class has LIVE or YOUNG figures ({len(classes)})")
tel = r["telemetry"]
check(len(tel) > 0 and all(int(t["untracked"]) == 0 for t in tel),
      f"nothing counted as untracked ({tel[-1]['untracked'] if tel else 'no telemetry'})")
summ = r["summary"]
check(len(summ) == 1 and "live=off" in summ[0]["options"], "summary.csv shows live=off")
keep = [s for s in sites if s["frame"] == f"LiveWorkload.keepSome:{site_line('LiveWorkload.java', 'keep')}"
        and s["class"] == "byte[]"]
check(len(keep) == 1, "the kept site is recorded")
if keep and facts:
    n, est = int(keep[0]["samples"]), float(keep[0]["est_instances"])
    se = count_rel_se(n, 2016, 64 * 1024)
    err = est / facts["keep.count"] - 1
    check(abs(err) <= 4 * se, f"allocation estimates stand: est_instances {est:.0f} within 4 SE "
          f"({4 * se:.1%}) of the {facts['keep.count']} allocated ({err:+.2%})")
wd.cleanup()

# heaptop control status says so while the JVM runs.
wd = Workdir("liveoff2")
stop = wd.file("stop")
jvm = start_jvm("StressWorkload", [1, 600000, 0, stop], agent_opts=f"ipc={wd.base},live=off")
check(wait_agent(jvm, wd.base), "agent socket appears")
out = ""


def status():
    global out
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=60)
    out = p.stdout
    return p.returncode == 0 and "samples" in out


wait_for(status, 60, what="status with samples")
check("live tracking off" in out and "live " not in out.replace("live tracking off", ""),
      f"status says live tracking is off and gives no live totals: {out.strip()}")

# Its dumps are still marked, with no sample: the marker's session names the
# run, so two of them join (nothing, truly) instead of being taken for dumps
# of no agent. Before the empty marker, survivors said "without heaptop's marker".
dumps = []
for _ in range(2):
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "heapdump", "--keep"],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"heap dump \d+ written: (\S+)", p.stdout)
    check(p.returncode == 0 and m, f"heap dump with live=off ({(p.stdout + p.stderr).strip()[-200:]})")
    if m:
        dumps.append(m.group(1))
if len(dumps) == 2:
    p = subprocess.run([HEAPTOP, "heap", *dumps, "--out", wd.file("heap")], capture_output=True,
                       text=True, timeout=300)
    said = [l for l in p.stdout.splitlines() if l.startswith("survivors:")]
    check(p.returncode == 0 and said and "none joined" not in said[0] and
          said[0].startswith("survivors: 0 sampled objects"),
          f"two live=off dumps of one run join, with no sample: {said or p.stdout[-300:]}")
    rows = read_csv(wd.file("heap/survivors.csv"))[1] if p.returncode == 0 else None
    check(rows == [], f"survivors.csv has no row ({rows})")
touch(stop)
jvm.communicate(timeout=60)
for d in dumps:
    os.unlink(d)
wd.cleanup()
finish()
