"""A heap snapshot belongs to the agent run that marked it. Its sampled
objects name their sites by the run's trace and class ids, and a detach
followed by a new attach starts a new run whose ids start again and name other
sites. In a real terminal (tmux), on SitesWorkload:

- H H takes a snapshot; the allocation tree (1) gets its HEAP OBJ column;
- `heaptop control detach`, then a new load of the agent (jcmd
  JVMTI.agent_load, the same socket path): the TUI reconnects and syncs the
  new run, and the tree drops HEAP OBJ (the old run's sites would be joined
  to the new run's ids otherwise);
- phase 2 under the new run, then a second snapshot: the Compare screen's
  survivors view (8, v) says the two snapshots are of two agent runs and
  joins nothing.

The truth the viewer did not compute: which agent run is which, from the
test's own detach and load.
"""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

need_jcmd()
wd = Workdir("tuiheaprun")
f1, go, f2 = wd.file("facts1"), wd.file("go"), wd.file("facts2")
jvm = start_jvm("SitesWorkload", [f1, go, f2, 50_000, 120], f"ipc={wd.base},interval=4k",
                ["-Xmx512m"])
t = None
try:
    check(wait_for(lambda: os.path.exists(f1) or jvm.poll() is not None, 120, 0.1)
          and jvm.poll() is None, "SitesWorkload ran phase 1")
    t = Tmux("tuiheaprun", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=170, rows=45)
    check(t.wait_for("SitesWorkload") is not None, "the TUI is connected")
    t.keys("H")  # asks; H again answers yes
    t.keys("H")
    check(t.wait_for("sampled objects: their sites in the tree", 60) is not None,
          "the first snapshot is read")
    t.keys("1")
    check(t.wait_for("HEAP OBJ", 20) is not None, "the tree has HEAP OBJ for this run")

    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "detach"], capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0, f"control detach ({p.stderr.strip()})")
    check(wait_for(lambda: not os.path.exists(wd.base + ".ctl"), 10), "the agent is detached")
    out = jcmd(jvm.pid, "JVMTI.agent_load", AGENT, f'"ipc={wd.base},interval=4k"')
    check("return code: 0" in out and wait_socket(wd.base, 10),
          f"the agent is loaded again: a new run ({out.strip()})")

    s = t.wait_until(lambda x: "SitesWorkload" in x and "HEAP OBJ" not in x, 30)
    check(s is not None, "after the new run syncs, the tree drops the old snapshot's HEAP OBJ "
          f"({[l for l in (s or t.screen()).splitlines() if 'HEAP OBJ' in l][:1]})")

    # the new run samples phase 2, so its snapshot has samples of its own to show
    touch(go)
    check(wait_for(lambda: os.path.exists(f2) or jvm.poll() is not None, 120, 0.1)
          and jvm.poll() is None, "SitesWorkload ran phase 2 under the new run")
    t.keys("H")
    t.keys("H")
    check(t.wait_for("sampled objects: their sites in the tree", 60) is not None,
          "the second snapshot is read, with the new run's samples")
    t.keys("8")
    t.keys("v")
    s = t.wait_for("two agent runs", 20)
    check(s is not None, "the survivors view says the snapshots are of two runs "
          f"({(s or t.screen()).strip().splitlines()[:4]})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    end_tui(t, jvm, wd)
finish()
