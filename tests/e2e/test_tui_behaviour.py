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
- EST/RET beside RETAINED is (MD + MC) / RETAINED of behaviour.csv's row;
  the title counts the nodes "without a branch"; '>' steps the sort keys in
  the columns' order, and NODE puts Cycle_9 before Cycle_10;
- the hourglass shows a node's subtree once: at t1 0.20 Holder is above both
  ElemA and ElemB, unfolded under the first and "(shown above)" under the
  second; Leaf, flagged at t1 0.35, says why (no parent has DR >= 0.35, the
  most 0.333) and that its MD is 0 (it refers to no other node); a node with
  edges the cycle rule dropped (behaviour_edges.csv's kept 0) lists them
  under "Dropped by the cycle rule" with their references and units;
- C shows exactly Holder's class on the heap classes screen (the filter
  "=...Holder": Holder[] not with it), and Esc comes back to Behaviour with
  the filter as it was; r opens ListNode's object of the biggest retained
  size (the list's head, retaining the whole list) and Esc comes back;
- at 80x24 the columns give way to NODE and the foot names the selected
  node whole (a Cycle_N with its classes);
- e writes heaptop-behaviour-*.csv: behaviour.csv's columns and rows for the
  rows shown, and t1, t2, scc, count in its .summary.csv."""
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


def cli_csv(name, *args, edges=False):
    """behaviour.csv of `heaptop heap` on the dump with args: rows by node
    (edges: behaviour_edges.csv's too)."""
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "heap", dump, "--out", out, *args], capture_output=True,
                       text=True, timeout=180)
    check(p.returncode == 0, f"heaptop heap {' '.join(args)} ({p.stderr[-200:]})")
    rows = read_csv(os.path.join(out, "behaviour.csv"))[1]
    return (rows, read_csv(os.path.join(out, "behaviour_edges.csv"))[1]) if edges else rows


def est_ret(r):
    """EST/RET as the screen writes it: (MD + MC) / RETAINED."""
    ret = int(r["retained_bytes"])
    if not ret:
        return "-"
    v, s = (float(r["md_bytes"]) + int(r["mc_bytes"])) / ret, 0
    while v >= 999.5 and s < 4:
        v, s = v / 1000, s + 1
    suffix = ["", "k", "M", "G", "T"][s]
    if s and v < 9.95:
        return f"{v:.1f}{suffix}x"
    if s or v >= 99.5:
        return f"{v:.0f}{suffix}x"
    return f"{v:.1f}x" if v >= 9.995 else f"{v:.2f}x"


ref, ref_edges = cli_csv("cli", edges=True)
ref35 = {r["node"]: r for r in cli_csv("cli35", "--t1", "0.35")}
by_node = {r["node"]: r for r in ref}
LEAF, SHARED = "BehaviourHeap$Leaf", "BehaviourHeap$Shared"
check(by_node[LEAF]["branches"] == "3" and by_node[SHARED]["branches"] == "2" and
      ref35[LEAF]["branches"] == "0" and ref35[LEAF]["flagged"] == "1" and
      ref35[SHARED]["branches"] == "1",
      "heaptop heap counts Leaf's 3 and Shared's 2 branches at t1 0.1, 0 and 1 at 0.35")

# rank units objects MC B MD B MCC %HEAP BR COVER RETAINED B EST/RET flag node
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+) B\s+(\d+) B\s+(\S+)\s+(\S+)%\s+(\d+)\s+"
                 r"(\S+)%\s+(\d+) B\s+(\S+) ([ !]) (\S.*?)\s*$")


def rows_of(screen):
    """The ranking's rows on screen: dicts by column, node without a
    Cycle_N's classes."""
    out = []
    for ln in (screen or "").splitlines():
        m = ROW.match(ln)
        if m:
            out.append({"rank": m[1], "units": m[2], "objects": m[3], "mc_bytes": m[4],
                        "branches": m[8], "retained_bytes": m[10], "est": m[11],
                        "flagged": "1" if m[12] == "!" else "0",
                        "node": m[13].split(" {")[0], "label": m[13]})
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
    s0 = s
    ests = [(a["node"], a["est"], est_ret(b)) for a, b in zip(shown[:10], ref[:10])]
    check(all(got == want for _, got, want in ests),
          f"EST/RET is (MD + MC) / RETAINED of behaviour.csv's row: {ests}")
    nflag = sum(r["flagged"] == "1" for r in ref)
    title = f"{nflag} without a branch (!)" if nflag else "none without a branch"
    check(title in s and "flagged !" not in s, f"the title says '{title}'")
    # '>' steps the sort keys in the columns' order, left to right
    order = []
    for _ in range(11):
        m = re.search(r"by (\S+) [v^]\)", t.screen() or "")
        order.append(m[1] if m else None)
        before = t.screen()
        t.keys(">")
        t.wait_until(lambda x: x != before, 5)
    check(order == ["MCC", "UNITS", "OBJECTS", "MC", "MD", "%HEAP", "BRANCHES", "COVERAGE",
                    "RETAINED", "EST/RET", "NODE"],
          f"'>' steps the sort keys in the columns' order ({order})")
    # round to MCC again; '<' from there: NODE (ascending), Cycle_N in the order of N
    t.wait_until(lambda x: "by MCC v" in x, 10)
    t.keys("<")
    t.keys("\\")
    t.keys("C-u")
    t.text("Cycle_")
    t.keys("Enter")
    s = t.wait_until(lambda x: "by NODE ^" in x and len(rows_of(x)) >= 2, 10) or ""
    ns = [int(r["node"][6:]) for r in rows_of(s) if r["node"].startswith("Cycle_")]
    want_ns = sorted(int(r["node"][6:]) for r in ref if r["node"].startswith("Cycle_"))
    check(len(ns) >= 2 and ns == want_ns[:len(ns)],
          f"NODE sorts Cycle_N by N ({ns[:12]}; {len(want_ns)} cycle nodes)")
    t.keys(">")  # NODE -> MCC
    check(t.wait_until(lambda x: "by MCC v" in x, 10) is not None, "'>' from NODE: MCC again")
    s = s0
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

    # a subtree once: Holder is above both ElemA and ElemB
    holder = [ln for ln in s.splitlines() if "<- " in ln and
              ln.rstrip().endswith("BehaviourHeap$Holder")]
    check(len(holder) == 2 and "- <- BehaviourHeap$Holder" in holder[0] and
          "<- (shown above) BehaviourHeap$Holder" in holder[1],
          f"t1 0.20: Holder unfolded above ElemA, one row '(shown above)' above ElemB ({holder})")

    # --- why Leaf is flagged at t1 0.35, and why its MD is 0
    t.keys("Escape")
    for _ in range(3):
        t.keys("]")
    t.wait_until(lambda x: "t1 0.35" in x and "overcount" in x, 10)
    t.keys("/")
    t.text("Leaf")
    t.keys("Enter")
    t.keys("Enter")
    s = t.wait_for("Forward: who keeps BehaviourHeap$Leaf alive", 10) or ""
    why = [ln for ln in s.splitlines() if ln.startswith("! ")]
    check(why and "! no parent has DR >= 0.35 (the most: 0.333 from BehaviourHeap$Elem" in why[0]
          and "MD 0: it refers to no other node" in why[0],
          f"Leaf's hourglass says why it is flagged and why its MD is 0 ({why})")
    t.keys("Escape")
    for _ in range(3):
        t.keys("[")
    t.wait_until(lambda x: "t1 0.20" in x and "overcount" in x, 10)

    # --- the edges the cycle rule dropped, in the hourglass of a node with few
    dropped = [e for e in ref_edges if e["kept"] == "0" and e["from"] != e["to"]]
    count = {}
    for e in dropped:
        for n in (e["from"], e["to"]):
            count[n] = count.get(n, 0) + 1
    names = {r["node"] for r in ref}
    cand = sorted((c, n) for n, c in count.items()
                  if n in names and not n.startswith("Cycle_") and " [" not in n)
    check(cand, f"behaviour_edges.csv has edges the cycle rule dropped ({len(dropped)})")
    if cand:
        c, node = cand[0]
        t.keys("\\")
        t.keys("C-u")
        t.text("=" + node)
        t.keys("Enter")
        t.wait_until(lambda x: row(x, node) is not None, 10)
        t.keys("Enter")
        t.wait_for(f"who keeps {node} alive", 10)
        t.keys("End")
        s = t.wait_until(lambda x: "Dropped by the cycle rule" in x and "node: " in x, 10) or ""
        mine = [e for e in dropped if node in (e["from"], e["to"])]
        lines = s.splitlines()
        seen = [e for e in mine if any(
            re.search(rf"^\s*{e['refs']}\s+{e['units']}\s+-\s+-\s+"
                      rf"{'<-' if e['to'] == node else '->'} \(dropped by the cycle rule\) "
                      rf"{re.escape(e['from'] if e['to'] == node else e['to'])}(?:\s|$)", ln)
            for ln in lines)]
        check(f"; {c} edge{'s' if c != 1 else ''})" in s and len(seen) == len(mine),
              f"{node}'s hourglass lists its {c} dropped edges with refs and units "
              f"({len(seen)} of {mine[:3]} seen)")
        t.keys("Escape")
        t.keys("\\")
        t.keys("C-u")
        t.text("BehaviourHeap$")
        t.keys("Enter")
        t.wait_until(lambda x: row(x, LEAF) is not None, 10)

    # --- C: exactly Holder's class (not Holder[]); Esc comes back, the filter as it was
    t.keys("/")
    t.text("$Holder")
    t.keys("Enter")
    s = t.wait_until(lambda x: "node: BehaviourHeap$Holder" in x, 10) or ""
    if "node: BehaviourHeap$Holder[]" in s:
        t.keys("n")
        s = t.wait_until(lambda x: re.search(r"node: BehaviourHeap\$Holder\s*$", x, re.M), 10)
    t.keys("C")
    s = t.wait_until(lambda x: "RETAINED>=" in x and "(1 classes" in x, 10) or ""
    check(any(ln.rstrip().endswith(" BehaviourHeap$Holder") for ln in s.splitlines()) and
          "BehaviourHeap$Holder[]" not in s and "=BehaviourHeap$Holder" in s,
          f"C: the heap classes screen filtered to exactly BehaviourHeap$Holder "
          f"({[ln for ln in s.splitlines() if 'classes' in ln][:1]})")
    t.keys("Escape")
    s = t.wait_until(lambda x: "overcount" in x and row(x, LEAF) and row(x, SHARED), 10)
    check(s is not None, "Esc: back on Behaviour, its filter as it was (Leaf and Shared listed)")

    # --- r: ListNode's biggest object, the list's head, which retains the list
    t.keys("/")
    t.text("ListNode")
    t.keys("Enter")
    t.wait_until(lambda x: "node: BehaviourHeap$ListNode" in x, 10)
    t.keys("r")
    s = t.wait_for("BehaviourHeap$ListNode @0x", 10) or ""
    want = by_node["BehaviourHeap$ListNode"]["retained_bytes"]
    check(re.search(rf"retained {want} B", s) and "Referenced by" in s,
          f"r: ListNode's object of the biggest retained size ({want} B, the head) "
          f"{[ln for ln in s.splitlines() if 'retained' in ln][:1]}")
    t.keys("Escape")
    s = t.wait_until(lambda x: "overcount" in x and row(x, LEAF), 10)
    check(s is not None, "Esc on it: back on Behaviour")

    # --- 80x24: the columns give way to NODE, the foot names the node whole
    t.keys("\\")
    t.keys("C-u")
    t.text("CycA")
    t.keys("Enter")
    t.resize(80, 24)
    full = f"node: {cyc[0]['node']} {{BehaviourHeap$CycA, BehaviourHeap$CycB}}" if cyc else "?"
    s = t.wait_until(lambda x: full in x, 10) or ""
    title = [ln.split("NODE")[0] for ln in s.splitlines() if "RETAINED" in ln and "EST/RET" in ln]
    check(title and "OBJECTS" not in title[0] and "UNITS" not in title[0] and
          "%HEAP" not in title[0] and full in s,
          f"80x24: OBJECTS, UNITS, %HEAP give way; the foot says '{full}' ({title[:1]})")
    t.resize(160, 45)

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
    summ = glob.glob(os.path.join(out, "heaptop-behaviour-*.summary.csv"))
    sr = read_csv(summ[0])[1][0] if summ else {}
    check((sr.get("t1"), sr.get("t2"), sr.get("scc"), sr.get("count")) ==
          ("0.10", "0.10", "literal", "distinct"),
          f"its .summary.csv records t1, t2, scc, count ({[sr.get(k) for k in ('t1', 't2', 'scc', 'count')]})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    t.kill()
    wd.cleanup()
finish()
