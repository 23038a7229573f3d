"""The sites in the heap in a real terminal (tmux), on SitesWorkload
(tests/java/SitesWorkload.java: 50,000 ANodes each holding a byte[992] kept
from allocA, 20,000 BNodes each holding a long[126] kept from allocB):

- live: H H takes a snapshot; the status line counts the sampled objects;
  the allocation tree (1) gets HEAP OBJ and RETAINED columns, and R sorts by
  RETAINED: the frame SitesWorkload.phase whose sites are allocA's comes
  first among phase's callers, with about 100,000 objects (50,000 ANodes and
  their 50,000 arrays) within 15%;
- the heap classes' instances of ANode: s puts the sampled ones (*) first,
  and Enter opens one in the reference browser, which shows where it was
  allocated: SitesWorkload.allocA, called from SitesWorkload.phase;
- offline: `heaptop open` on the dump the agent kept (K) shows the same
  tree, with the run's names and live figures, without a JVM.
"""
import glob
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuisites")
f1, go, f2 = wd.file("facts1"), wd.file("go"), wd.file("facts2")
jvm = start_jvm("SitesWorkload", [f1, go, f2, 200_000, 120], f"ipc={wd.base},interval=4k",
                ["-Xmx1g"])
t = None


def count(text):
    """'98k' -> 98000, '1234' -> 1234."""
    m = re.fullmatch(r"([\d.]+)([kMG]?)", text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)] if m else -1


def phase_rows(screen):
    """The tree's rows naming SitesWorkload.phase: [(HEAP OBJ text, line)]."""
    lines = screen.splitlines()
    head = next((i for i, l in enumerate(lines) if "HEAP OBJ" in l), None)
    if head is None:
        return []
    cols = lines[head]
    at = cols.index("HEAP OBJ")
    rows = []
    for line in lines[head + 1:]:
        if "SitesWorkload.phase" in line:
            rows.append((line[:at + len("HEAP OBJ")].split()[-1], line))
    return rows


try:
    check(wait_for(lambda: os.path.exists(f1) or jvm.poll() is not None, 120, 0.1)
          and jvm.poll() is None, "SitesWorkload ran phase 1")
    t = Tmux("tuisites", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=170, rows=45)
    check(t.wait_for("SitesWorkload") is not None, "the TUI is connected")
    t.keys("H")  # asks; K answers yes and keeps the dump, for the offline part
    t.keys("K")
    s = t.wait_for("sampled objects: their sites in the tree", 60)
    check(s is not None, "the snapshot is read, its sampled objects counted "
          f"({(s or t.screen()).strip().splitlines()[-2:]})")
    t.keys("1")
    t.keys("R")
    s = t.wait_until(lambda x: "RETAINEDv" in x and phase_rows(x), 20)
    check(s is not None, "the tree has HEAP OBJ and RETAINED, sorted by RETAINED")
    rows = phase_rows(s or "")
    if rows:
        n = count(rows[0][0])
        print(rows[0][1].rstrip())
        check(abs(n - 100_000) <= 15_000, f"the first phase frame holds about 100,000 heap "
              f"objects: {rows[0][0]} (50,000 ANodes and their byte[]s)")
        check("phase:59" in rows[0][1] or "phase:" in rows[0][1] and n > count(rows[-1][0]),
              "the frame with allocA's sites comes first")

    t.keys("4")
    t.keys("/")
    t.text("ANode")
    t.keys("Enter")
    t.keys("Enter")
    check(t.wait_for("INSTANCE OF SitesWorkload$ANode") is not None, "ANode's instances")
    t.keys("s")
    s = t.wait_for("sampled, then biggest retained first")
    check(s is not None and re.search(r"\*SitesWorkload\$ANode", s),
          "s puts the sampled instances, marked *, first")
    t.keys("Enter")
    s = t.wait_for("Allocated at")
    check(s is not None and re.search(r"SitesWorkload\.allocA:\d+\s*\n\s*<- SitesWorkload\.phase",
                                      s),
          "the reference browser shows where the object was allocated: allocA <- phase")
    t.kill()
    t = None

    dumps = glob.glob(wd.base + ".dumps/*.hprof")
    check(len(dumps) == 1, f"K kept the dump ({dumps})")
    jvm.kill()
    jvm.wait()
    if dumps:
        t = Tmux("tuisites2", f"{HEAPTOP} open {dumps[0]} --out {wd.path}", cols=170, rows=45)
        s = t.wait_for("sampled objects: their sites in the tree", 60)
        check(s is not None, "heaptop open reads the dump and its sampled objects")
        t.keys("1")
        t.keys("R")
        s = t.wait_until(lambda x: "RETAINEDv" in x and phase_rows(x), 20)
        check(s is not None, "offline, the tree has the run's sites with HEAP OBJ and RETAINED")
        if s:
            check("SitesWorkload" in s.splitlines()[0],
                  f"the header names the run's main class ({s.splitlines()[0].strip()[:80]})")
finally:
    end_tui(t, jvm, wd)
finish()
