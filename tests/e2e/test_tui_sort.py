"""Sorting the allocation tree and hunting a leak, in tmux against a real JVM:
LeakWorkload keeps every object it allocates at one site while another thread
allocates far more that dies young.

- F6, < >, I and a click on a column title sort the tree (top-down and hot
  spots), children by the same column at every level, the sorted column
  marked in the title row;
- without a mark the DIFF and GROWTH columns are blank on both list screens
  and in their exports;
- 'e' typed right after the key of a screen (one write: heaptop reads both
  before it redraws) exports that screen's rows, built, not its model as it
  was before the key (empty on a first visit);
- after Begin, G sorts by GROWTH B (live bytes now minus at Begin) and puts
  the leak first on the class screen and in hot spots, where by bytes it
  is not first."""
import glob
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import Listing, siblings_sorted, value  # noqa: E402
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuisort")
jvm = start_jvm("LeakWorkload", [150], agent_opts=f"ipc={wd.base},interval=32k",
                jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")
# wide enough for every column: blank ones (no mark) are the first to go
t = Tmux("tuisort", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=200, rows=40)
leak_line = site_line("LeakWorkload.java", "leak")


def listing(pred=lambda l: True, timeout=15):
    """The list screen once pred(listing) holds (or the last one seen)."""
    got = [None]

    def ok(s):
        got[0] = Listing(s)
        got[0].title = s.split("\n")[got[0].title_y] if got[0].title_y is not None else ""
        return got[0].title_y is not None and len(got[0].rows) > 0 and pred(got[0])
    t.wait_until(ok, timeout)
    return got[0]


def exports(kind):
    """Finished exports: data files whose .summary.csv is written (it comes
    last; the data file exists, empty, from the moment it is opened)."""
    sums = sorted(f for f in glob.glob(os.path.join(wd.path, f"heaptop-{kind}-*.summary.csv"))
                  if os.path.getsize(f) > 0)
    return [f[:-len(".summary.csv")] + ".csv" for f in sums]


try:
    check(t.wait_for("LeakWorkload.", 30) is not None, "the tree shows the workload's frames")
    # --- no mark: diff and growth blank on both screens and in both exports
    # the key and 'e' typed ahead in one write; the title tells the screens
    # apart (the tree's rows would pass for the classes' before '2' is drawn)
    for screen, key, title in (("tree", "1", "CALL TREE"), ("classes", "2", " CLASS")):
        before = len(exports(screen))
        t.run("send-keys", "-t", "t", "-l", key + "e")
        L = listing(lambda l: title in l.title and len(l.rows) > 3)
        check(title in L.title, f"{screen}: on screen ({L.title.strip()[:80]})")
        check(L.has("DIFF B") and L.has("GROWTH B"),
              f"{screen}: DIFF B and GROWTH B columns ({[c[0] for c in L.columns]})")
        check(all(r.get("DIFF B", "") == "" and r.get("GROWTH B", "") == "" for r in L.rows),
              f"{screen}: without a mark they are blank")
        check(wait_for(lambda: len(exports(screen)) > before, 10), f"{screen}: exported")
        _, rows, _ = read_csv(exports(screen)[-1])
        odd = [r for r in rows if r["diff_bytes"] != "" or r["growth_bytes"] != ""]
        check(rows and not odd, f"{screen} export: diff and growth empty without a mark "
              f"({len(rows)} rows, {len(odd)} with figures: {odd[:2]})")
        if screen == "classes":
            # the classes on screen (all loaded long before) are in the file
            shown = {r["name"] for r in L.rows}
            missing = shown - {r["class"] for r in rows}
            check(not missing, f"classes export: the rows the screen shows ({len(rows)} rows; "
                  f"missing {sorted(missing)[:3]})")

    # --- item 1: sorting the tree
    t.keys("1", "t", pause=0)
    L = listing(lambda l: "HOT SPOTS" in t.screen() and len(l.rows) >= 3)
    check(L.sorted == ("BYTES", "v"), f"hot spots sorted by bytes at first ({L.sorted})")
    top = L.rows[0]["name"]
    check(not top.startswith(f"LeakWorkload.leak:{leak_line}"),
          f"by bytes the leak is not first ({top})")
    t.keys(">", pause=0)
    L = listing(lambda l: l.sorted == ("INST", "v"))
    check(L.sorted == ("INST", "v"), f"'>' sorts the tree by the next column ({L.sorted})")
    ok, why = siblings_sorted(L, "INST")
    check(ok, f"rows by instances, largest first {why}")
    t.keys("I", pause=0)
    L = listing(lambda l: l.sorted == ("INST", "^"))
    ok, why = siblings_sorted(L, "INST", descending=False)
    check(L.sorted == ("INST", "^") and ok, f"'I' reverses ({L.sorted}) {why}")
    t.keys("<", pause=0)
    L = listing(lambda l: l.sorted == ("BYTES", "v"))
    check(L.sorted == ("BYTES", "v"), f"'<' goes back to bytes, largest first ({L.sorted})")
    t.keys("F6", pause=0)
    L = listing(lambda l: l.sorted == ("INST", "v"))
    check(L.sorted == ("INST", "v"), f"F6 sorts by the next column ({L.sorted})")
    # a click on a title sorts by it, a second click reverses; at every level
    t.keys("Home", "*", pause=0)
    L = listing(lambda l: len(l.rows) > 12)
    live = next((c for c in L.columns if c[0] == "LIVE B"), None)
    check(live is not None, "the tree has a LIVE B column")
    check(any(c[0] == "LIVE I" for c in L.columns), "the tree has a LIVE I column")
    live = live or ("LIVE B", "", 0, 12)
    t.click(live[3] - 2, L.title_y)
    L = listing(lambda l: l.sorted == ("LIVE B", "v"))
    ok, why = siblings_sorted(L, "LIVE B")
    nested = len({r["indent"] for r in L.rows})
    check(L.sorted == ("LIVE B", "v") and ok and nested >= 3,
          f"a click on LIVE B sorts by it, children too ({nested} levels) {why}")
    t.click(live[3] - 2, L.title_y)
    L = listing(lambda l: l.sorted == ("LIVE B", "^"))
    ok, why = siblings_sorted(L, "LIVE B", descending=False)
    check(L.sorted == ("LIVE B", "^") and ok, f"a second click reverses {why}")
    t.keys("t", pause=0)
    L = listing(lambda l: "CALL TREE" in t.screen())
    ok, why = siblings_sorted(L, "LIVE B", descending=False)
    check(L.sorted == ("LIVE B", "^") and ok, f"the top-down tree keeps the order {why}")

    # --- item 2: a mark, then G
    t.keys("b", pause=0)
    check(t.wait_for("MARK running", 10) is not None, "b begins a mark")
    t.keys("2", pause=0)

    def entry_grew(l):
        e = [r for r in l.rows if r["name"] == "LeakWorkload$Entry"]
        return l.has("GROWTH B") and e and value(e[0], "GROWTH B") > 0
    L = listing(entry_grew, 40)
    check(entry_grew(L), "the leaking class's GROWTH B rises after Begin")
    by_bytes = [r["name"] for r in L.rows]
    check(by_bytes and by_bytes[0] != "LeakWorkload$Entry",
          f"by bytes the leaking class is not first ({by_bytes[:3]})")
    t.keys("G", pause=0)
    L = listing(lambda l: l.sorted == ("GROWTH B", "v"))
    check(L.sorted == ("GROWTH B", "v") and L.rows[0]["name"] == "LeakWorkload$Entry",
          f"G: classes by growth, the leak first ({[r['name'] for r in L.rows[:3]]})")
    check("sorted by GROWTH B" in t.screen(), "G says what it sorted by")
    t.keys("1", pause=0)
    check(t.wait_for("CALL TREE", 10) is not None, "back on the top-down tree")
    t.keys("t", pause=0)
    check(t.wait_for("HOT SPOTS", 10) is not None, "hot spots")
    t.keys("G", pause=0)
    L = listing(lambda l: l.sorted == ("GROWTH B", "v") and "HOT SPOTS" in t.screen())
    first = L.rows[0]["name"] if L.rows else ""
    check(L.sorted == ("GROWTH B", "v") and first.startswith(f"LeakWorkload.leak:{leak_line}"),
          f"G: hot spots by growth, the leaking site first ({first})")
    t.keys("q", pause=0)
finally:
    t.kill()
    jvm.kill()
    jvm.communicate()
wd.cleanup()
finish()
