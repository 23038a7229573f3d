"""The Behaviour screen (docs/behaviour.md) on a heap snapshot taken live
with H in a real tmux, not opened from a file (test_tui_behaviour does that):
tests/java/BehaviourHeap under the agent, the viewer attached, H H, and once
the snapshot is read, Tab after 9. Against figures this test computes from
`jcmd GC.class_histogram`'s bytes per class and BehaviourHeap's known
structure (as test_behaviour_heap does, expected() below is its):

- the workload's nodes (the filter "BehaviourHeap$") come in the order of
  their MCC, MC, name: Holder first, ..., with increasing ranks;
- MC as the screen writes it (KiB, one decimal) is the histogram's bytes of
  Holder, Leaf, Shared and the cycle node, within the display's rounding;
  after u (bytes in B) exactly; MD of Holder and ElemA (Leaf / 3 +
  Shared x SHARED_A / (SHARED_A + SHARED_B)) within the display's rounding;
- the CycA <-> CycB object cycles are one row "Cycle_N {BehaviourHeap$CycA,
  BehaviourHeap$CycB}";
- Enter on Shared opens its hourglass: ElemA above it at DR SHARED_A /
  (SHARED_A + SHARED_B) and ElemB at SHARED_B / (...), both above t1 0.10,
  the way up to ROOT."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import parse  # noqa: E402
from tmux import Tmux  # noqa: E402

need_tmux()
need_jcmd()
P = "BehaviourHeap$"
MINE = ["Root", "Holder[]", "Holder", "ElemA", "ElemB", "ElemC", "Leaf", "Shared", "CycA",
        "CycB", "ListNode"]
CYCLE = f"{P}CycA;{P}CycB"


def jname(c):
    """The histogram's name of one of the workload's classes."""
    return f"[L{P}{c[:-2]};" if c.endswith("[]") else P + c


def expected(hist, f):
    """{node: dict(mc, md, mcc)} for the workload's nodes (scc=literal,
    count=distinct) from the histogram's bytes and the structure: as
    test_behaviour_heap.expected computes them."""
    b = {c: hist[jname(c)][1] for c in MINE}
    H, SA, SB = f["holders"], f["shared_a"], f["shared_b"]
    SH = SA + SB
    nodes = {P + c: {"mc": b[c], "md": 0.0} for c in MINE if c not in ("CycA", "CycB")}
    nodes[CYCLE] = {"mc": b["CycA"] + b["CycB"], "md": 0.0}
    dr = {("Holder[]", "Holder"): 1.0, ("Root", "Holder[]"): 1.0, ("Root", "ListNode"): 1.0}
    for e in ("ElemA", "ElemB", "ElemC"):
        dr[("Holder", e)] = 1.0
        dr[(e, "Leaf")] = H / (3 * H)
    dr[("ElemA", "Shared")] = SA / SH
    dr[("ElemB", "Shared")] = SB / SH
    dr = {(P + a, P + c): v for (a, c), v in dr.items()}
    dr[(P + "Holder", CYCLE)] = 1.0
    # MD children first
    for c in ["Leaf", "Shared", "ElemA", "ElemB", "ElemC", "Holder", "ListNode", "Holder[]",
              "Root"]:
        nodes[P + c]["md"] = sum((nodes[k]["md"] + nodes[k]["mc"]) * v
                                 for (p, k), v in dr.items() if p == P + c)
    for x in nodes.values():
        x["mcc"] = x["mc"] * (x["md"] + x["mc"])
    return nodes, dr


# RANK UNITS OBJECTS MC MD MCC %HEAP BR COVER RETAINED EST/RET ! NODE; the
# byte columns as the screen writes them ("12.3 KiB", "900 B")
SIZE = r"(-?\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB))"
ROW = re.compile(rf"^\s*(\d+)\s+(\S+)\s+(\S+)\s+{SIZE}\s+{SIZE}\s+(\S+)\s+(\S+)%\s+(\d+)\s+"
                 rf"(\S+)%\s+{SIZE}\s+(\S+) ([ !]) (\S.*?)\s*$")


def rows_of(screen):
    """The ranking's rows on screen: rank, node (a Cycle_N as its classes
    joined by ';', as the CSV's classes), the whole label, MC's cell."""
    out = []
    for ln in (screen or "").splitlines():
        m = ROW.match(ln)
        if not m:
            continue
        label = m[13]
        c = re.fullmatch(r"Cycle_\d+ \{(.*)\}", label)
        out.append({"rank": int(m[1]), "node": c[1].replace(", ", ";") if c else label,
                    "label": label, "mc": m[4], "md": m[5]})
    return out


def mine_rows(screen):
    return [r for r in rows_of(screen) if r["node"].startswith(P)]


def within_display(cell, want):
    """cell ("12.3 KiB", "900 B") is want bytes as the screen rounds it: to
    half of its last digit."""
    got = parse("RETAINED", cell)
    num = cell.split()[0]
    unit = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}[cell.split()[1]]
    step = (10 ** -len(num.split(".")[1]) if "." in num else 1) * unit
    return got is not None and abs(got - want) <= step / 2 + 1e-9


wd = Workdir("tuibhvlive")
facts_path = wd.file("facts")
jvm = start_jvm("BehaviourHeap", [facts_path, 300], agent_opts=f"ipc={wd.base},live=off",
                jvm_flags=["-Xmx128m"])
t = None
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60,
                   what="BehaviourHeap building its heap") and jvm.poll() is None,
          "BehaviourHeap built its heap")
    check(wait_agent(jvm, wd.base), "the agent listens")
    f = read_facts(facts_path)
    hist = class_histogram(jvm.pid)
    check(all(hist.get(jname(c), (0, 0))[0] for c in MINE),
          f"the histogram has every class of the workload "
          f"({[c for c in MINE if jname(c) not in hist]} missing)")
    want, dr = expected(hist, f)
    order = sorted(want, key=lambda k: (-want[k]["mcc"], -want[k]["mc"], k))

    t = Tmux("tuibhvlive", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=170, rows=45)
    check(t.wait_for("[live]", 30) is not None, "the viewer is attached")
    t.take_snapshot()
    check(t.wait_for("RETAINED>=", 60) is not None, "H H: the live snapshot is read")
    t.keys("9")
    t.keys("Tab")
    s = t.wait_for("overcount", 20)
    check(s is not None and "t1 0.10" in s and "scc=literal count=distinct" in s,
          "Tab after 9: the Behaviour screen of the live snapshot, t1 0.10, "
          "scc=literal count=distinct")
    t.keys("\\")
    t.keys("C-u")
    t.text(P)
    t.keys("Enter")
    # the filter applied: every row shown is the workload's
    s = t.wait_until(lambda x: len(mine_rows(x)) >= len(order) and
                     len(mine_rows(x)) == len(rows_of(x)), 10) or t.screen()
    shown = mine_rows(s)
    names = [r["node"] for r in shown]
    check(names == order and [r["rank"] for r in shown] == sorted(r["rank"] for r in shown),
          f"the workload's nodes ranked by MCC: {[k.replace(P, '') for k in order]} "
          f"(screen: {[(r['rank'], r['node'].replace(P, '')) for r in shown]})")

    by = {r["node"]: r for r in shown}
    for node in (P + "Holder", P + "Leaf", P + "Shared", CYCLE):
        r = by.get(node)
        check(r is not None and within_display(r["mc"], want[node]["mc"]),
              f"{node.replace(P, '')}: MC {r and r['mc']} on screen is the histogram's "
              f"{want[node]['mc']} B")
    for node in (P + "Holder", P + "ElemA"):
        r = by.get(node)
        check(r is not None and within_display(r["md"], want[node]["md"]),
              f"{node.replace(P, '')}: MD {r and r['md']} on screen is the "
              f"{want[node]['md']:.1f} B the structure gives")
    cyc = by.get(CYCLE)
    check(cyc is not None and re.fullmatch(rf"Cycle_\d+ \{{{re.escape(P)}CycA, "
                                           rf"{re.escape(P)}CycB\}}", cyc["label"]),
          f"the CycA <-> CycB cycles are one Cycle_N row naming both ({cyc and cyc['label']})")
    check(not any(r["node"] in (P + "CycA", P + "CycB") for r in shown),
          "no row of CycA or CycB alone")

    # u: bytes in B, MC exact
    t.keys("u")
    s = t.wait_until(lambda x: (r := {y["node"]: y for y in mine_rows(x)}.get(P + "Holder"))
                     and r["mc"].endswith(" B"), 10) or ""
    by = {r["node"]: r for r in mine_rows(s)}
    got = {n.replace(P, ""): by.get(n, {}).get("mc") for n in (P + "Holder", P + "Shared")}
    check(all(by.get(n, {}).get("mc") == f"{want[n]['mc']} B"
              for n in (P + "Holder", P + "Shared")),
          f"u: MC in bytes is the histogram's exactly: Holder {want[P + 'Holder']['mc']}, "
          f"Shared {want[P + 'Shared']['mc']} (screen: {got})")

    # Enter on Shared: its parents ElemA and ElemB with their DR
    t.keys("/")
    t.text("Shared")
    t.keys("Enter")
    t.wait_until(lambda x: f"node: {P}Shared" in x, 10)
    t.keys("Enter")
    s = t.wait_for(f"Forward: who keeps {P}Shared alive", 10) or ""
    for parent in ("ElemA", "ElemB"):
        v = dr[(P + parent, P + "Shared")]
        up = [ln for ln in s.splitlines() if ln.rstrip().endswith(f"<- {P}{parent}")]
        check(up and f" {v:.3f} " in up[0],
              f"Shared's hourglass: {parent} above it at DR {v:.3f} ({up[:1]})")
    check("<- ROOT" in s, "the way up to ROOT")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    end_tui(t, jvm, wd)
finish()
