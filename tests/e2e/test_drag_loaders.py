"""Drag mode, class loaders and HotSwap (issue 25), on dragld.DragLoaders
(tests/java/DragLoaders.java) with heaptop-probe.jar for its
Instrumentation:

- a class whose loader passes only java.* to its parent (OSGi, JBoss
  Modules, plugin hosts) cannot see heaptop.Drag: drag mode leaves it alone
  (the injected call would throw NoClassDefFoundError at every call), so
  the program runs its 1000 calls with its normal output, and the state
  counts that class as failed (exactly 1: the other dragld. classes are the
  application loader's);
- a HotSwap made by another agent while drag mode is on (RedefineClasses:
  Swap.get() from returning 1 to returning 2) stands: 2 while on, and still
  2 after drag off.
The program exits 0. Every wait has a deadline."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import control  # noqa: E402

PROBE = os.path.join(os.path.dirname(JAR), "heaptop-probe.jar")

wd = Workdir("drag-loaders")
d = wd.file("d")
os.mkdir(d)
src = os.path.join(d, "src", "dragld")
os.makedirs(src)
with open(os.path.join(src, "Swap.java"), "w") as f:
    f.write("package dragld;\nclass Swap {\n    int get() {\n        return 2;\n    }\n}\n")
javac = os.path.join(os.path.dirname(os.path.realpath(subprocess.run(
    ["sh", "-c", f"command -v {JAVA}"], capture_output=True, text=True).stdout.strip() or JAVA)),
    "javac")
p = subprocess.run([javac, "-d", os.path.join(d, "v2"), os.path.join(src, "Swap.java")],
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 0, f"javac builds Swap v2 ({p.stderr.strip()[-300:]})")
swap2 = os.path.join(d, "v2", "dragld", "Swap.class")

out_path, err_path = wd.file("jvm.out"), wd.file("jvm.err")
cmd = [JAVA, f"-XX:+Use{GC}", f"-agentpath:{AGENT}=ipc={wd.base},interval=64k,live=on",
       f"-javaagent:{PROBE}=dragld.,{os.path.join(d, 'probe')}",
       "-cp", JAR, "dragld.DragLoaders", d, swap2]
jvm = stop_at_exit(subprocess.Popen(cmd, stdout=open(out_path, "w"), stderr=open(err_path, "w"),
                                    text=True))


def out():
    with open(out_path) as f:
        return f.read()


def err():
    with open(err_path) as f:
        return f.read().strip()[-800:]


def failed():
    rc, o, e = control(wd.base, "status")
    m = re.search(r"^drag mode on: .* (\d+) classes failed", o, re.M)
    return int(m.group(1)) if m else None


check(wait_agent(jvm, wd.base), f"the agent listens ({err()})")
check(wait_for(lambda: "ready" in out() or jvm.poll() is not None, 60, what="ready"),
      f"the program is ready ({err()})")
rc, o, e = control(wd.base, "drag", "dragld.")
check(rc == 0, f"drag dragld. accepted (exit {rc}: {(o + e).strip()[-200:]})")
touch(os.path.join(d, "on"))
wait_for(lambda: os.path.exists(os.path.join(d, "swapped")) or jvm.poll() is not None, 60,
         what="the program's HotSwap")
said = out()
check("iso inc=1000" in said, f"the isolated loader's class ran its 1000 calls "
      f"({said.strip()[-300:]!r}; {err()})")
check("swap before=1" in said and "swap on=2" in said,
      f"while drag is on, the HotSwap stands: Swap.get() 1 then 2 ({said.strip()[-300:]!r})")
n = [None]
wait_for(lambda: n.__setitem__(0, failed()) or n[0] == 1, 10, what="failed = 1")
check(n[0] == 1, f"the state counts the isolated loader's class as failed: 1 (got {n[0]})")
check("does not see heaptop.Drag" in err(), f"the agent said why, once ({err()})")
rc, o, e = control(wd.base, "drag", "off")
check(rc == 0, f"drag off accepted (exit {rc}: {(o + e).strip()[-200:]})")
touch(os.path.join(d, "off"))
wait_for(lambda: jvm.poll() is not None, 60, what="the program's end")
check(jvm.poll() == 0, f"the program exits 0 (exit {jvm.poll()}; {err()})")
check("swap off=2" in out(), f"after drag off, the HotSwap stands: Swap.get() 2 "
      f"({out().strip()[-200:]!r})")
stop_jvm(jvm)
wd.cleanup()
finish()
