"""An 80x24 terminal, in tmux against a real JVM: class names come before
numbers (java.lang.String and java.lang.StringBuilder both whole, numeric
columns narrowed or dropped instead), drops stays on the header, and the unit
key 'u' keeps every value inside its column, in every unit, on both list
screens, at 80x24 and at 120x40, before and after a mark (growth can be
negative)."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import Listing, value  # noqa: E402
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuinarrow")
jvm = start_jvm("LeakWorkload", [150], agent_opts=f"ipc={wd.base},interval=32k",
                jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")
t = Tmux("tuinarrow", f"{HEAPTOP} --ipc {wd.base}", cols=80, rows=24)


def listing(pred, timeout=15):
    got = [None]

    def ok(s):
        got[0] = Listing(s)
        return got[0].title_y is not None and len(got[0].rows) > 0 and pred(got[0])
    t.wait_until(ok, timeout)
    return got[0]


UNITS = ["auto", "B", "KiB", "MiB"]


def units_aligned(where):
    """Press u through all four units; every cell must sit in its column."""
    for k, unit in enumerate(UNITS):
        L = listing(lambda l: len(l.rows) >= 3 and (unit != "B" or " B " in t.screen()))
        bad = L.aligned() if L else [("no listing", "")]
        lines = t.screen().rstrip("\n").split("\n")
        wide = [l for l in lines if len(l) > t_cols[0]]
        check(not bad and not wide, f"{where}, unit {unit}: every value fits its column"
              + (f" (first misfit: {bad[0][0]!r} in {bad[0][1]!r})" if bad else "")
              + (f" (a line wider than the terminal: {wide[0]!r})" if wide else ""))
        t.keys("u", pause=0)
        nxt = UNITS[(k + 1) % 4]
        t.wait_until(lambda s: (nxt == "auto") or f" {nxt} " in s, 5)


def telemetry_misfits():
    """Byte figures of the telemetry screen that do not end under NOW, MIN, MAX."""
    lines = t.screen().split("\n")
    ty = next((i for i, l in enumerate(lines) if l.startswith("MEASURE")), None)
    if ty is None:
        return ["no telemetry screen"]
    m = re.search(r" (NOW) +(MIN) +(MAX) *$", lines[ty])
    if not m:
        return [lines[ty]]
    ends = [m.end(1), m.end(2), m.end(3)]
    bad = []
    for l in lines[ty + 1:]:
        if l.startswith(("Heap used", "Heap committed", "Alloc rate")):
            m = re.search(r"(\S+ \S+) +(\S+ \S+) +(\S+ \S+) *$", l)
            if not m or [m.end(1), m.end(2), m.end(3)] != ends:
                bad.append(l)
    return bad


t_cols = [80]
try:
    check(t.wait_for("LeakWorkload.", 30) is not None, "the tree shows the workload")
    t.keys("2", pause=0)

    def names_in(l):
        return {r["name"] for r in l.rows}
    L = listing(lambda l: {"java.lang.String", "java.lang.StringBuilder"} <= names_in(l))
    names = names_in(L) if L else set()
    check({"java.lang.String", "java.lang.StringBuilder"} <= names,
          f"80x24 classes: String and StringBuilder whole ({sorted(names)[:6]})")
    check(L is not None and L.has("BYTES") and L.has("LIVE B"),
          f"80x24 classes: bytes and live kept ({[c[0] for c in L.columns] if L else None})")
    header = t.screen().split("\n")[1]
    check("drops " in header, f"80x24: drops on the header ({header.strip()!r})")
    # big numbers first: a column of 10-digit byte counts in unit B
    L = listing(lambda l: value(l.rows[0], "BYTES") >= 2 ** 30, 60)
    check(L is not None and L.rows and value(L.rows[0], "BYTES") >= 2 ** 30, "a class past 1 GiB")
    units_aligned("80x24 classes")
    t.keys("1", pause=0)
    L = listing(lambda l: "CALL TREE" in t.screen())
    check(L is not None and L.name_x <= 80 - 40, f"80x24 tree: names keep 40 columns ({L.name_x if L else None})")
    units_aligned("80x24 tree")
    # with a mark: diff and growth columns come in (growth may be negative)
    t.keys("b", pause=0)
    check(t.wait_for("MARK running", 10) is not None, "a mark")
    t.keys("G", pause=0)
    L = listing(lambda l: l.sorted == ("GROWTH B", "v"))
    check(L is not None and L.has("GROWTH B"), "80x24 tree: the sorted GROWTH B column is shown")
    units_aligned("80x24 tree with a mark")
    t.keys("2", pause=0)
    listing(lambda l: "CLASS" in t.screen())
    units_aligned("80x24 classes with a mark")
    # the telemetry screen's NOW/MIN/MAX columns, in every unit
    t.keys("3", pause=0)
    t.wait_for("MEASURE", 10)
    for unit in UNITS:
        bad = t.wait_until(lambda s: not telemetry_misfits(), 5) is None
        check(not bad, f"80x24 telemetry, unit {unit}: figures under their titles"
              + (f" ({telemetry_misfits()[0]!r})" if bad else ""))
        t.keys("u", pause=0)
    t.keys("2", pause=0)
    t.resize(120, 40)
    t_cols[0] = 120
    units_aligned("120x40 classes with a mark")
    t.keys("1", pause=0)
    listing(lambda l: "CALL TREE" in t.screen())
    units_aligned("120x40 tree with a mark")
    t.keys("q", pause=0)
finally:
    t.kill()
    jvm.kill()
    jvm.communicate()
wd.cleanup()
finish()
