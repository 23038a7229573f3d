"""Drag mode's control (issue 25) against real JVMs run with -Xverify:all and
-Xcheck:jni: drag= at start-up instruments the filter's classes (Item's four
instance methods and Sub's two overrides: 6 methods in 2 classes, counted by
the agent), samples of them are tracked (at most 8 per class at once) and
their deaths counted; `heaptop control drag off` puts the classes back and
the JVM runs on; `drag dragctl.Item` on the running JVM instruments 1 class,
4 methods; refusals (a bad filter, the JDK's own packages, live=off: in the
agent and as drag= with live=off) are one line each and exit 2. The
workload checks its own sums on every round (a rewrite that breaks a method
makes it exit 3) and must exit 0 at the end. Every wait has a deadline."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403

FLAGS = ["-Xverify:all", "-Xcheck:jni"]


def ctl(base, *words):
    p = subprocess.run([HEAPTOP, "control", "--ipc", base, *words], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def drag_line(base):
    rc, out, err = ctl(base, "status")
    m = re.search(r"^drag mode .*$", out, re.M)
    return m.group(0) if m else ""


def state(base):
    """status's drag line as numbers, or None when off."""
    m = re.search(r"drag mode on: filter (\S+), (\d+) classes, (\d+) methods instrumented, "
                  r"skipped (\d+) .* (\d+) classes failed; samples (\d+) tracked (\d+) "
                  r"untracked (\d+), (\d+) tracked now", drag_line(base))
    if not m:
        return None
    keys = ["classes", "methods", "skipped_long", "failed", "samples", "tracked", "untracked",
            "tracking"]
    d = dict(zip(keys, map(int, m.groups()[1:])))
    d["filter"] = m.group(1)
    return d


def progress(path):
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def runs_on(path, what):
    """The workload's round counter moves on (it writes every 20000 rounds)."""
    at = progress(path)
    check(wait_for(lambda: progress(path) > at, 60, what=what), what)


wd = Workdir("drag-control")
prog, stop = wd.file("progress"), wd.file("stop")
jvm = stop_at_exit(start_jvm("dragctl.DragControlWorkload", [prog, stop],
                             agent_opts=f"ipc={wd.base},budget=off,interval=64k,drag=dragctl.",
                             jvm_flags=FLAGS))
check(wait_socket(wd.base), "agent socket appears")

# --- on from the start (drag=)
check(wait_for(lambda: (state(wd.base) or {}).get("methods") == 6, 60,
               what="drag= instruments Item and Sub"),
      f"drag= at start-up: 2 classes, 6 methods: {drag_line(wd.base)}")
s = state(wd.base) or {}
check(s.get("classes") == 2 and s.get("filter") == "dragctl." and s.get("failed") == 0,
      f"the state names the filter, 2 classes, none failed: {s}")
check(wait_for(lambda: (state(wd.base) or {}).get("tracked", 0) >= 20, 90,
               what="20 samples tracked"), "samples of Item and Sub are tracked")
s = state(wd.base) or {}
check(s.get("tracking", 99) <= 16, f"at most 8 slots per class are in use: {s.get('tracking')}")
check(s.get("tracked", 0) + s.get("untracked", 0) <= s.get("samples", 0),
      f"tracked + untracked <= samples: {s}")
# the FIFO drops objects all the time: deaths free slots, so tracking goes on
t0 = s.get("tracked", 0)
check(wait_for(lambda: (state(wd.base) or {}).get("tracked", 0) >= t0 + 16, 90,
               what="16 more tracked"),
      "slots are freed at death and taken again (more tracked than slots exist)")
runs_on(prog, "the JVM runs on with drag mode on")

# --- off on the running JVM
rc, out, err = ctl(wd.base, "drag", "off")
check(rc == 0 and "drag mode off" in out, f"drag off: rc {rc}: {out.strip()} {err.strip()}")
check(drag_line(wd.base) == "drag mode off", f"status after off: {drag_line(wd.base)}")
runs_on(prog, "the JVM runs on after drag off")

# --- on again with another filter
rc, out, err = ctl(wd.base, "drag", "dragctl.Item")
check(rc == 0 and re.search(r"drag mode on: 1 classes instrumented", out),
      f"drag dragctl.Item: rc {rc}: {out.strip()} {err.strip()}")
s = state(wd.base) or {}
check(s.get("classes") == 1 and s.get("methods") == 4 and s.get("filter") == "dragctl.Item",
      f"status: 1 class, 4 methods, the new filter: {s}")
runs_on(prog, "the JVM runs on with Item alone instrumented")

# --- refusals: one line each, exit 2; the agent stays as it was
for words, want in [(["drag", "java.util."], "JDK"), (["drag", "a::b"], "empty prefix"),
                    (["drag"], "prefixes"), (["drag", "org/h2"], "no class-name prefix")]:
    rc, out, err = ctl(wd.base, *words)
    check(rc == 2 and err.count("\n") == 1 and want in err and not out,
          f"{' '.join(words)}: refused in one line, exit 2: rc {rc}: {err.strip()}")
s = state(wd.base) or {}
check(s.get("filter") == "dragctl.Item", f"a refusal changes nothing: {s.get('filter')}")

rc, out, err = ctl(wd.base, "drag", "off")
check(rc == 0, "drag off again")
runs_on(prog, "the JVM runs on after the second off")
touch(stop)
try:
    jvm.wait(timeout=60)
except subprocess.TimeoutExpired:
    pass
out, err = jvm.communicate(timeout=30) if jvm.poll() is not None else ("", "")
check(jvm.returncode == 0, f"the workload's sums held and it exited 0: rc {jvm.returncode} "
      f"{err.strip()[-400:]}")
check("VerifyError" not in err and "FATAL ERROR" not in err and "WARNING in native method" not in
      err, "no VerifyError, no -Xcheck:jni warning")

# --- live=off: the agent refuses drag mode in one line
base2 = wd.file("off")
jvm2 = stop_at_exit(start_jvm("dragctl.DragControlWorkload", [wd.file("p2"), wd.file("s2")],
                              agent_opts=f"ipc={base2},budget=off,live=off", jvm_flags=FLAGS))
check(wait_socket(base2), "live=off agent socket appears")
rc, out, err = ctl(base2, "drag", "dragctl.")
check(rc == 2 and err.count("\n") == 1 and "live" in err,
      f"drag with live=off: refused by the agent in one line, exit 2: rc {rc}: {err.strip()}")
check(drag_line(base2).startswith("drag mode off"), f"status says off: {drag_line(base2)}")
touch(wd.file("s2"))
jvm2.wait(timeout=60)

# --- drag= with live=off: the agent refuses to load, one line
jvm3 = start_jvm("dragctl.DragControlWorkload", [wd.file("p3"), wd.file("s3")],
                 agent_opts=f"ipc={wd.file('x')},live=off,drag=dragctl.")
out, err = jvm3.communicate(timeout=60)
lines = [ln for ln in err.splitlines() if "heaptop" in ln]
check(jvm3.returncode != 0 and len(lines) == 1 and "needs live=on" in lines[0],
      f"drag= with live=off refused in one line: {lines}")

wd.cleanup()
finish()
