"""A viewer killed with SIGKILL mid-stream: the JVM and the agent carry on, and
a new viewer syncs the whole run, including what happened before it came and
while no viewer was connected. The truth: PhaseWorkload's own count of the
Blob objects its phase allocates (BLOBS), against the new viewer's estimate
for that site, within four standard errors of the sampling."""
import signal
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("vkill")
go, done = wd.file("go"), wd.file("done")
jvm = start_jvm("PhaseWorkload", [go, done], agent_opts=f"ipc={wd.base},budget=off")
check(wait_agent(jvm, wd.base), "the agent listens")
phase_line = site_line("PhaseWorkload.java", "phase")

first = Viewer(wd.base, wd.file("first"), "--top", "0")
check(first.connected(60), "a first viewer syncs and follows the stream")
touch(go)  # the phase starts while the first viewer streams ...
time.sleep(0.3)  # (the stimulus: kill it mid-phase, whatever it is doing)
first.signal(signal.SIGKILL)
first.finish(30)
check(wait_for(lambda: os.path.exists(done), 120), "the phase ends with no viewer connected")
blobs = int(open(done).read())
check(jvm.poll() is None, "the JVM carries on")

snap = snapshot(wd.base, wd.file("second"))
check(snap["rc"] == 0, f"a new viewer syncs ({snap['err'].strip()[-160:]})")
sites = snap.get("sites", [])
rows = [s for s in sites if s["frame"] == f"PhaseWorkload.phase:{phase_line}"]
check(len(rows) == 1, "the new viewer has the phase's site")
if rows:
    est, n = float(rows[0]["est_instances"]), int(rows[0]["samples"])
    size = float(rows[0]["est_bytes"]) / est if est else 0
    tol = 4 * count_rel_se(n, size)
    check(abs(est / blobs - 1) <= tol,
          f"the new viewer's count covers the whole phase: {est:.0f} of {blobs} Blobs "
          f"({est / blobs - 1:+.2%}, 4 SE = {tol:.1%}, {n} samples)")
jvm.kill()
jvm.communicate()
wd.cleanup()
finish()
