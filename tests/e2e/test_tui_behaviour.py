"""The Behaviour screen (the object-group reference graph's nodes ranked by
MCC, docs/behaviour.md) in a real tmux, on a dump `jcmd GC.heap_dump` wrote
of tests/java/BehaviourHeap.java, opened with `heaptop open`:

- its first rows (rank, node, units, objects, MC, branches, retained, the
  flag) are behaviour.csv's that `heaptop heap` writes for the same dump;
- t1 changes live: ']' up to 0.35 takes BehaviourHeap$Leaf (held a third
  each by ElemA, ElemB and ElemC: DR 1/3 from each) from 3 branches to 0 and
  flags it '!', and BehaviourHeap$Shared (DR 3/4 from ElemA, 1/4 from ElemB)
  from 2 branches to 1, as `heaptop heap --t1 0.35` counts them;
- Enter on Shared opens its hourglass: ElemA above it with DR 0.750, the
  way up to ROOT unfolded, and ElemB (DR 0.25) appears there once '[' takes
  t1 below 0.25;
- C shows Shared's class on the heap classes screen (the class filter set to
  it), r one of its objects in the reference browser;
- e writes heaptop-behaviour-*.csv: behaviour.csv's columns and rows for the
  rows shown."""
import glob
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

JCMD = need_jcmd()

wd = Workdir("tuibhv")
facts_path = wd.file("facts")
dump = wd.file("bhv.hprof")
jvm = start_jvm("BehaviourHeap", [facts_path, 120], jvm_flags=["-Xmx128m"])
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "BehaviourHeap built its heap")
    p = subprocess.run([JCMD, str(jvm.pid), "GC.heap_dump", dump], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(dump), f"jcmd wrote the dump ({p.stdout[-100:]})")
finally:
    jvm.kill()
    jvm.wait()


def cli_csv(name, *args):
    """behaviour.csv of `heaptop heap` on the dump with args: rows by node."""
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "heap", dump, "--out", out, *args], capture_output=True,
                       text=True, timeout=180)
    check(p.returncode == 0, f"heaptop heap {' '.join(args)} ({p.stderr[-200:]})")
    return read_csv(os.path.join(out, "behaviour.csv"))[1]


ref = cli_csv("cli")
ref35 = {r["node"]: r for r in cli_csv("cli35", "--t1", "0.35")}
by_node = {r["node"]: r for r in ref}
LEAF, SHARED = "BehaviourHeap$Leaf", "BehaviourHeap$Shared"
check(by_node[LEAF]["branches"] == "3" and by_node[SHARED]["branches"] == "2" and
      ref35[LEAF]["branches"] == "0" and ref35[LEAF]["flagged"] == "1" and
      ref35[SHARED]["branches"] == "1",
      "heaptop heap counts Leaf's 3 and Shared's 2 branches at t1 0.1, 0 and 1 at 0.35")

# rank units objects MC B MD B MCC %HEAP BR COVER RETAINED B flag node
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+) B\s+(\d+) B\s+(\S+)\s+(\S+)%\s+(\d+)\s+"
                 r"(\S+)%\s+(\d+) B ([ !]) (\S.*?)\s*$")


def rows_of(screen):
    """The ranking's rows on screen: dicts by column, node without a
    Cycle_N's classes."""
    out = []
    for ln in (screen or "").splitlines():
        m = ROW.match(ln)
        if m:
            out.append({"rank": m[1], "units": m[2], "objects": m[3], "mc_bytes": m[4],
                        "branches": m[8], "retained_bytes": m[10],
                        "flagged": "1" if m[11] == "!" else "0",
                        "node": m[12].split(" {")[0], "label": m[12]})
    return out


def row(screen, node):
    r = [x for x in rows_of(screen) if x["node"] == node]
    return r[0] if r else None


out = wd.file("out")
os.makedirs(out)
t = Tmux("tuibhv", f"{HEAPTOP} open {dump} --out {out}", cols=160, rows=45)
try:
    check(t.wait_for("RETAINED>=", 90) is not None, "heaptop open: the heap classes screen")
    t.keys("9")
    t.keys("Tab")
    s = t.wait_for("overcount", 20)
    check(s is not None and "t1 0.10" in s and "scc=literal count=distinct" in s,
          "Tab after duplicates: the Behaviour screen, t1 0.10, scc=literal count=distinct")
    t.keys("u")  # bytes in B: the figures exact, as in the CSV
    s = t.wait_until(lambda x: len(rows_of(x)) >= 10, 10)
    shown = rows_of(s)
    cols = ("rank", "node", "units", "objects", "mc_bytes", "branches", "retained_bytes",
            "flagged")
    same = [all(a[k] == b[k] for k in cols) for a, b in zip(shown[:10], ref[:10])]
    check(len(shown) >= 10 and all(same),
          "the first 10 rows are behaviour.csv's (rank, node, units, objects, MC, branches, "
          f"retained, flag): {[(a['rank'], a['node']) for a in shown[:10]]} against "
          f"{[(b['rank'], b['node']) for b in ref[:10]]}")
    cyc = [r for r in ref if r["node"].startswith("Cycle_") and
           "BehaviourHeap$CycA" in r["classes"]]
    check(cyc and f"{cyc[0]['node']} {{BehaviourHeap$CycA, BehaviourHeap$CycB}}" in (s or "") or
          cyc and cyc[0]["rank"] > shown[-1]["rank"],
          f"a Cycle_N row names its classes ({cyc[:1]})")

    # --- the class filter, then t1 up to 0.35, live
    t.keys("\\")
    t.keys("C-u")
    t.text("BehaviourHeap$")
    t.keys("Enter")
    s = t.wait_until(lambda x: row(x, LEAF) and row(x, SHARED), 10)
    leaf, shared = row(s, LEAF), row(s, SHARED)
    check(leaf and leaf["branches"] == "3" and leaf["flagged"] == "0" and shared and
          shared["branches"] == "2", f"filtered: Leaf 3 branches, Shared 2 ({leaf}, {shared})")
    for _ in range(5):
        t.keys("]")
    s = t.wait_until(lambda x: "t1 0.35" in x and row(x, LEAF) and row(x, LEAF)["branches"] == "0",
                     10)
    leaf, shared = row(s, LEAF), row(s, SHARED)
    check(s is not None and leaf["flagged"] == "1" and shared["branches"] ==
          ref35[SHARED]["branches"] == "1",
          f"t1 0.35: Leaf 0 branches and flagged, Shared 1, as heaptop heap --t1 0.35 "
          f"({leaf}, {shared})")

    # --- the hourglass of Shared
    t.keys("/")
    t.text("Shared")
    t.keys("Enter")
    t.keys("Enter")
    s = t.wait_for("Forward: who keeps BehaviourHeap$Shared alive", 10) or ""
    up = [ln for ln in s.splitlines() if "<- BehaviourHeap$ElemA" in ln]
    check(up and " 0.750 " in up[0] and "<- ROOT" in s and "Backward: what" in s,
          f"Enter: Shared's hourglass, ElemA above it at DR 0.750, the way up to ROOT "
          f"({up[:1]})")
    check("<- BehaviourHeap$ElemB" not in s, "ElemB (DR 0.25) is not above it at t1 0.35")
    for _ in range(3):
        t.keys("[")
    s = t.wait_until(lambda x: "t1 0.20" in x and "<- BehaviourHeap$ElemB" in x, 10) or ""
    up = [ln for ln in s.splitlines() if "<- BehaviourHeap$ElemB" in ln]
    check(up and " 0.250 " in up[0], f"t1 0.20: ElemB joins it at DR 0.250 ({up[:1]})")

    # --- to its class, and to one of its objects
    t.keys("Escape")
    t.keys("C")
    s = t.wait_until(lambda x: "RETAINED>=" in x and "(1 classes" in x, 10) or ""
    check(any(ln.rstrip().endswith(" " + SHARED) for ln in s.splitlines()),
          f"C: the heap classes screen filtered to {SHARED} "
          f"({[ln for ln in s.splitlines() if 'classes' in ln][:1]})")
    t.keys("9")
    t.keys("Tab")
    t.wait_until(lambda x: "overcount" in x and row(x, SHARED), 10)
    t.keys("r")
    s = t.wait_for(f"{SHARED} @0x", 10)
    check(s is not None and "Referenced by" in s, "r: one of its objects in the reference browser")

    # --- export what the ranking shows (filter cleared, t1 back at 0.10)
    t.keys("9")
    t.keys("Tab")
    t.keys("\\")
    t.keys("C-u")
    t.keys("Enter")
    t.keys("[")
    t.keys("[")
    s = t.wait_until(lambda x: "t1 0.10" in x and len(rows_of(x)) >= 10, 10)
    check(s is not None, "'[' twice: t1 back at 0.10, every node listed")
    t.keys("e")
    check(wait_for(lambda: glob.glob(os.path.join(out, "heaptop-behaviour-*.summary.csv")), 20),
          "e writes heaptop-behaviour-*.csv")
    files = [x for x in glob.glob(os.path.join(out, "heaptop-behaviour-*.csv"))
             if not x.endswith(".summary.csv")]
    head, got, _ = read_csv(files[0]) if files else ([], [], [])
    differ = [(a, b) for a, b in zip(got, ref) if a != b]
    check(list(head) == ["rank", "node", "classes", "units", "objects", "mc_bytes", "md_bytes",
                         "mcc", "branches", "coverage", "retained_bytes", "flagged"] and
          len(got) == len(ref) and not differ,
          f"the export is behaviour.csv's columns and rows ({len(got)} rows, {len(ref)} in "
          f"heaptop heap's; first that differs: {differ[:1]})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    t.kill()
    wd.cleanup()
finish()
