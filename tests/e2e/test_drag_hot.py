"""Drag mode's cost guard (issue 25, agent/drag_guard.h) against a real JVM:
dragbench.DragCallBench calls two getters of dragbench.Item each iteration,
about 1e8 calls a second into a class whose tracked objects every call looks
through, ten times the budget (drag_budget=, 1e7 a second for all classes
by default). Its Items live ~15 s (one replaced every 200000 iterations in a
set of 4096), so a tracked one stays tracked unless the guard lets it go.
Within a few seconds the agent marks Item too hot to watch: `control status`
counts 1 class and names it, the JVM's stderr names dragbench.Item, the
objects tracked in it are let go (0 tracked now) and Item's later samples
count as untracked. The mark lasts until drag mode is turned on again: after
`drag off` and `drag dragbench.` Item is found hot again (a second line on
stderr). With drag_budget=off nothing is marked. Every wait has a
deadline."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403


def ctl(base, *words):
    p = subprocess.run([HEAPTOP, "control", "--ipc", base, *words], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def state(base):
    """(untracked, tracked now, classes too hot) from status's drag line, or None."""
    rc, out, err = ctl(base, "status")
    m = re.search(r"^drag mode on: .* untracked (\d+), (\d+) tracked now; (\d+) class(?:es)? too "
                  r"hot to watch$", out, re.M)
    return tuple(map(int, m.groups())) if m else None


def hot(base):
    s = state(base)
    return s[2] if s else -1


wd = Workdir("drag-hot")
errf = open(wd.file("stderr"), "w")
jvm = stop_at_exit(start_jvm("dragbench.DragCallBench", [1, 300, 0, 4096, 200000],
                             agent_opts=f"ipc={wd.base},budget=off,interval=1k,drag=dragbench.",
                             stderr=errf))
check(wait_socket(wd.base), "agent socket appears")

check(wait_for(lambda: hot(wd.base) == 1, 60, step=0.5, what="Item too hot"),
      f"status counts 1 class too hot to watch: {state(wd.base)}")
rc, out, err = ctl(wd.base, "status")
check("too hot to watch: dragbench.Item" in out, f"status names it: {out[-300:]!r}")
with open(wd.file("stderr")) as f:
    said = [ln for ln in f if "too hot to watch" in ln]
check(len(said) == 1 and "class dragbench.Item too hot to watch" in said[0],
      f"the JVM's stderr names dragbench.Item once: {said}")
s = state(wd.base)
check(s is not None and s[1] == 0, f"the objects tracked in Item were let go: {s}")
u0 = s[0] if s else 0
check(wait_for(lambda: (state(wd.base) or (0,))[0] > u0 + 5, 60, step=0.5,
               what="untracked grows"),
      f"Item's later samples count as untracked: {u0} -> {state(wd.base)}")
check((state(wd.base) or (0, 99))[1] == 0, "and none is tracked")

# the mark lasts until drag mode is turned on again: then Item is found hot anew
rc, out, err = ctl(wd.base, "drag", "off")
check(rc == 0, f"drag off: {rc} {err.strip()}")
rc, out, err = ctl(wd.base, "drag", "dragbench.")
check(rc == 0, f"drag dragbench. on the running JVM: {rc} {err.strip()}")


def said():
    with open(wd.file("stderr")) as f:
        return sum("class dragbench.Item too hot to watch" in ln for ln in f)


check(wait_for(lambda: said() == 2, 60, step=0.5, what="Item hot again"),
      f"and Item is found too hot again (a second line): {said()}")
check(wait_for(lambda: hot(wd.base) == 1, 30, step=0.5, what="status hot again"),
      f"status counts it again: {state(wd.base)}")

check(jvm.poll() is None, "the JVM runs on")
stop_jvm(jvm)
errf.close()
with open(wd.file("stderr")) as f:
    err = f.read()
check("FATAL ERROR" not in err and "Exception" not in err, f"no error in the JVM: {err[-500:]}")

# drag_budget=off: the guard never acts
wd2 = Workdir("drag-hot-off")
jvm = stop_at_exit(start_jvm("dragbench.DragCallBench", [1, 300, 0, 4096, 200000],
                             agent_opts=f"ipc={wd2.base},budget=off,interval=1k,drag=dragbench.,"
                                        f"drag_budget=off"))
check(wait_socket(wd2.base), "agent socket appears (drag_budget=off)")
check(wait_for(lambda: (state(wd2.base) or (0, 0))[1] >= 1, 60, step=0.5, what="Items tracked"),
      f"Items are tracked: {state(wd2.base)}")
t_end = time.monotonic() + 4  # four of the guard's checks
while time.monotonic() < t_end and hot(wd2.base) == 0:
    time.sleep(0.5)
check(hot(wd2.base) == 0 and (state(wd2.base) or (0, 0))[1] >= 1,
      f"drag_budget=off: 4 s later none is hot and Items stay tracked: {state(wd2.base)}")
stop_jvm(jvm)
finish()
