"""`heaptop record` stopped with Ctrl-C (SIGINT) still writes all its files,
synced with the agent at that moment, and exits 0; the JVM runs on. MarkWorkload
allocates a phase of exactly COUNT objects at interval=0 (JDK 17 without
TLABs), so the file must hold exactly that many."""
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

COUNT = 30_000
flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
wd = Workdir("sigint")
jvm = start_jvm("MarkWorkload", [wd.path, COUNT], agent_opts=f"ipc={wd.base},interval=0",
                jvm_flags=flags)
check(wait_agent(jvm, wd.base), "agent socket appears")
out = wd.file("out")
rec = Viewer(wd.base, out, "--top", "5")
check(rec.connected(60), "record connected")
touch(wd.file("go1"))
check(wait_for(lambda: os.path.exists(wd.file("done1")), 120, what="the workload's phase"),
      "the workload allocated its phase")
rec.signal(signal.SIGINT)
rc, stdout, err = rec.finish(60)
check(rc == 0, f"record exits 0 on Ctrl-C ({rc})")
check("stopped (interrupted)" in err, f"record says it was interrupted: {err.strip()[-200:]}")
for name in ("sites.csv", "classes.csv", "telemetry.csv", "summary.csv"):
    check(os.path.exists(os.path.join(out, name)) and f"wrote {os.path.join(out, name)}" in err,
          f"{name} written and named")
check("Top allocation sites" in stdout, "the top sites are printed")
r = read_out(out)
frame = f"MarkWorkload.phase:{site_line('MarkWorkload.java', 'item')}"
rows = [s for s in r["sites"] if s["frame"] == frame and s["class"] == "MarkWorkload$Item"]
got = sum(int(s["samples"]) + int(s["dropped"]) for s in rows)
check(len(rows) == 1 and got == COUNT, f"sites.csv holds the phase: {got} of {COUNT} objects")
check(len(r["telemetry"]) > 0 and len(r["summary"]) == 1, "telemetry and summary rows written")
# The JVM does not notice: it answers and runs another phase.
p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True, text=True,
                   timeout=60)
check(p.returncode == 0, "the agent still answers after record's Ctrl-C")
touch(wd.file("go2"))
check(wait_for(lambda: os.path.exists(wd.file("done2")), 120, what="a second phase"),
      "the workload runs on")
touch(wd.file("stop"))
jvm.communicate(timeout=60)
check(jvm.returncode == 0, f"the JVM exits 0 ({jvm.returncode})")
wd.cleanup()
finish()
