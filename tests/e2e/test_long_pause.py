"""Stop-the-world pauses of seconds (a full collection of a big heap) are not
a deaf socket: while the JVM is stopped the agent's collector thread cannot
answer or publish (its JNI calls wait for the pause to end), so the
watchdog's probes fail, but restarting the listeners then only cuts every
viewer's connection (a snapshot being followed, a request in flight) and
writes a false "nng issue #1518" into the JVM's log. The watchdog counts a
failed probe only when the collector turned over during it.

The workload (tests/java/PauseWorkload.java) stops the JVM for four seconds
or more, twice, with samples in hand each time; a viewer records throughout.
The truths: the pauses' lengths the workload measured (the premise: longer
than the watchdog's two probes), the JVM's own stderr (no listener
restarted) and the viewer's recording of the whole run."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

# two failed probes in a row (1 s for the request's answer, 1.5 s for a
# stream message, a second apart) raised the alarm: a pause of 4 s did
PAUSE_MS = 4000
wd = Workdir("pause")
facts = wd.file("facts")
# the heap verification makes each collection of a few million nodes last
# seconds: a long pause without a heap of gigabytes
jvm = start_jvm("PauseWorkload", [facts, PAUSE_MS, 2, 4_000_000, 40_000_000],
                agent_opts=f"ipc={wd.base}", gc="SerialGC",
                jvm_flags=["-Xmx1g", "-Xms1g", "-XX:+UnlockDiagnosticVMOptions",
                           "-XX:+VerifyBeforeGC"])
check(wait_agent(jvm, wd.base), "the agent listens")
rec = wd.file("rec")
viewer = subprocess.Popen([HEAPTOP, "record", "--ipc", wd.base, "--out", rec],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 240,
               what="the workload's pauses"), "the workload made its pauses")
f = read_facts(facts) if os.path.exists(facts) else {}
check(f.get("pause_max_ms", 0) >= PAUSE_MS,
      f"the premise: a pause stopped the JVM {PAUSE_MS} ms or more ({f.get('pause_ms')} .. "
      f"{f.get('pause_max_ms')} ms)")
viewer.wait(timeout=60)
_, verr = viewer.communicate()
check(viewer.returncode == 0 and os.path.exists(os.path.join(rec, "sites.csv")),
      f"the viewer recorded the run to its end ({verr.strip()[-160:]})")
check(jvm.wait(timeout=60) == 0, f"the JVM ran to its end (exit {jvm.poll()})")
_, err = jvm.communicate()
said = [l for l in err.splitlines() if l.startswith("heaptop:")]
check(not [l for l in said if "restarted the" in l or "deleted or replaced" in l],
      f"no listener was restarted through the pauses: {said[:3]}")
wd.cleanup()
finish()
