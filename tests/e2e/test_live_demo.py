"""LIVE on the bundled demo, a program the agent's tests do not steer: request
threads that drop what they allocate at once, a report phase of large arrays,
and a session cache that only grows (the leak). The truths: the demo's own
count of cached sessions (each holds a byte[512] that stays reachable), and the
heap the VM's own GC log says was left after its last collection."""
import math
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("demo")
gclog = wd.file("gc.log")
jvm = start_jvm("HeaptopDemo", [12], agent_opts=f"ipc={wd.base},interval=32k",
                jvm_flags=["-Xmx1g", f"-Xlog:gc:file={gclog}:uptime"])
check(wait_socket(wd.base), "agent socket appears")
out = wd.file("out")
rec = start_record(wd.base, out, "--top", "0")
jout, jerr = jvm.communicate(timeout=120)
rout, rerr = rec.communicate(timeout=60)
check(jvm.returncode == 0 and rec.returncode == 0, f"demo and record ran ({rerr.strip()[-200:]})")
m = re.search(r"demo done: (\d+) sessions cached", jout)
check(m is not None, f"the demo says how many sessions it cached ({jout.strip()[-80:]})")
sessions = int(m.group(1)) if m else 0
_, sites, _ = read_csv(os.path.join(out, "sites.csv"))
state_line = site_line("HeaptopDemo.java", "session_state")
body_line = site_line("HeaptopDemo.java", "body")
state = [s for s in sites if s["frame"] == f"HeaptopDemo$Session.<init>:{state_line}"]
body = [s for s in sites if s["frame"] == f"HeaptopDemo.parseRequest:{body_line}"]
check(len(state) == 1 and len(body) == 1, "the session state and request body sites are found")
if state and body:
    st, bd = state[0], body[0]
    # Every session is still reachable at the end: live and young together are
    # all of them (the youngest were allocated after the last collection).
    held = float(st["live_est_instances"]) + float(st["young_est_instances"])
    n = int(st["live_samples"]) + int(st["young_samples"])
    tol = 4 / math.sqrt(max(n, 1))
    check(abs(held / sessions - 1) <= tol,
          f"leaked session state: LIVE + YOUNG {held:.0f} instances within 4 SE ({tol:.1%}) of "
          f"the {sessions} sessions the demo holds ({held / sessions - 1:+.2%}, {n} samples)")
    check(float(st["live_est_instances"]) >= 0.5 * sessions,
          f"most of the leak is LIVE, proven by a collection ({float(st['live_est_instances']):.0f})")
    # Request bodies die at once: whatever is live of them is a few objects,
    # never the eden full of them that a collection has not looked at yet.
    check(float(bd["live_est_bytes"]) <= 0.001 * float(bd["est_bytes"]),
          f"request bodies: LIVE {float(bd['live_est_bytes']):.0f} bytes of "
          f"{float(bd['est_bytes']):.0f} allocated")
# LIVE summed over every site never exceeds what the VM kept after its last
# collection (the last sweep, at exit, came after it).
after = []
with open(gclog) as f:
    for line in f:
        mm = re.search(r"(\d+)M(?:\(\d+%\))?->(\d+)M", line)
        if mm:
            after.append(int(mm.group(2)) * 1024 * 1024)
total = sum(float(s["live_est_bytes"]) for s in sites)
n_total = sum(int(s["live_samples"]) for s in sites)
young = sum(float(s["young_est_bytes"]) for s in sites)
tol = 4 / math.sqrt(max(n_total, 1))
check(after and total <= after[-1] * (1 + tol) + 1024 * 1024,
      f"LIVE summed over all sites ({total / 2**20:.1f} MiB, YOUNG {young / 2**20:.1f} MiB apart) "
      f"is no more than the heap the VM kept after its last collection "
      f"({after[-1] / 2**20 if after else 0:.0f} MiB)")
wd.cleanup()
finish()
