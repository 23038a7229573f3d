"""The Drag screen in a real terminal (tmux) against a real JVM whose agent
turns drag mode on when the viewer asks (issue 25). DragWorkload allocates
dragwl.Rec at three sites whose drag is known by construction: L (allocL)
used, then held 2 s untouched before it is dropped; P (allocP) dropped at its
last use; V (allocV) never used, held 1 s; System.gc() every 100 ms.

- the screen list reaches the Drag screen, which says drag mode is off and
  how to turn it on (the D key, drag=, heaptop control);
- D opens the prompt; a JDK prefix (java.) is refused before anything is
  sent, with the filter check's line; D, dragwl., Enter turns drag mode on:
  the status line gives the ACK's classes instrumented, the title says on;
- the sites come: L ranks first by DRAG (upper bound), V's row has void
  objects, P's drag per object is far below L's;
- Enter on L: the histogram's fullest bucket is the one that holds L's
  ~2 s (1.28-2.56 s or 2.56-5.12 s), Esc comes back;
- x on L: the allocation tree with L's allocating frame selected, on L's own
  call path; Esc there returns to the Drag screen;
- e exports the sites shown: heaptop-drag-*.csv read back with the csv
  module: the issue's header, L first, its figures consistent (lo <= hi,
  tracked <= samples, void <= samples);
- g: one row per class (dragwl.Rec, naming its sites); x there says a class
  has many sites; e writes one row for the class, frame and stack empty,
  whose samples and drag are its sites' sums (the site export's, taken a
  moment before: only more since); g again: the sites;
- D, empty, Enter: drag mode off, said on the status line and the title."""
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

COLS, ROWS = 160, 44
HEADER = ["class", "frame", "stack", "samples", "tracked", "drag_byte_s_lo", "drag_byte_s_hi",
          "lag_byte_s", "use_byte_s", "void_samples", "truncated"]
L_LINE = site_line("DragWorkload.java", "L")
wd = Workdir("tuidrag")
out = wd.file("out")
os.makedirs(out)
stop = wd.file("stop")
jvm = stop_at_exit(start_jvm("dragwl.DragWorkload",
                             [wd.file("facts"), stop, 120, 100, 100, 40],
                             agent_opts=f"ipc={wd.base},interval=64k"))
check(wait_agent(jvm, wd.base), "agent socket appears")
t = None


def rows_of(s):
    return (s or "").split("\n")


def open_screen(t, title):
    """F2, then Enter on the row of the screen titled `title`."""
    t.keys("F2")
    s = t.wait_for("Enter opens it", 10) or ""
    lines = rows_of(s)
    top = next(i for i, l in enumerate(lines) if "Enter opens it" in l)
    at = next((i for i, l in enumerate(lines) if l.strip().endswith(title)), None)
    check(at is not None, f"the screen list has {title}")
    for _ in range((at or top + 1) - top - 1):
        t.keys("Down")
    t.keys("Enter")


def site_row(s, method):
    return next((l for l in rows_of(s) if f"dragwl.DragWorkload.{method}:" in l), "")


def data_rows(s):
    """The site rows on screen, top to bottom."""
    return [l for l in rows_of(s) if "dragwl.Rec  dragwl.DragWorkload." in l]


def dead_of(row):
    """SAMPLES TRACK% DEAD VOID: the DEAD count of a row (-1: none)."""
    m = re.match(r"\s*(\S+)\s+([\d.]+)%\s+(\S+)\s+(\S+)", row)
    if not m:
        return -1, -1
    num = lambda v: int(float(v[:-1]) * 1000) if v.endswith("k") else int(float(v))  # noqa: E731
    return num(m.group(3)), num(m.group(4))


try:
    t = Tmux("tuidrag", f"{HEAPTOP} --ipc {wd.base} --out {out}", cols=COLS, rows=ROWS)
    check(t.wait_for("DragWorkload", 40) is not None, "the viewer connects")

    # --- off: the screen says how to turn it on ---
    open_screen(t, "drag (memory held after its last use)")
    s = t.wait_until(lambda s: "DRAG  off" in s or "drag mode is off" in s, 20)
    check(s is not None and "D turns it on" in s and "heaptop control PID drag" in s,
          "off, the Drag screen says how to turn drag mode on (D, drag=, heaptop control)")

    # --- the prompt: a JDK prefix refused before it is sent ---
    t.keys("D")
    check(t.wait_for("Drag filter (class-name prefixes, ':' between; empty = off):", 10)
          is not None, "D opens the drag filter prompt")
    t.text("java.")
    t.keys("Enter")
    s = t.wait_for("drag mode unchanged", 10)
    check(s is not None and "names the JDK's own classes" in s,
          "a JDK prefix is refused with the filter check's line")

    # --- on ---
    t.keys("D")
    t.wait_for("Drag filter", 10)
    t.keys("C-u")
    t.text("dragwl.")
    t.keys("Enter")
    s = t.wait_until(lambda s: re.search(r"drag mode on for dragwl\.: (\d+) classes instrumented", s)
                     is not None, 30)
    m = re.search(r"drag mode on for dragwl\.: (\d+) classes instrumented", s or "")
    check(m is not None and int(m.group(1)) >= 1,
          f"the status line gives the agent's ACK: {m.group(0) if m else (s or '')[-200:]!r}")
    s = t.wait_for("DRAG  on: dragwl.", 20)
    check(s is not None, "the title says drag mode is on, with its filter")

    # --- the sites: L first by DRAG, once enough of them died ---
    def ranked(s):
        rows = data_rows(s)
        l_dead = dead_of(site_row(s, "allocL"))[0]
        return len(rows) >= 3 and "allocL" in rows[0] and l_dead >= 20 and \
            dead_of(site_row(s, "allocV"))[1] >= 5
    s = t.wait_until(ranked, 90)
    rows = data_rows(s)
    check(s is not None and rows and "allocL" in rows[0],
          f"L ranks first by DRAG hi: {[r.strip()[:100] for r in rows[:3]]!r}")
    # opened before any row came, the cursor stayed on the first row as they
    # re-sorted (it does not follow the site that was first at the start)
    sel, plain = t.selected_on_screen()
    shown = rows_of(plain)
    check(sel is not None and "allocL" in shown[sel],
          f"the cursor is on the first row, L: {shown[sel].strip()[:80] if sel is not None else None!r}")
    lv = dead_of(site_row(s, "allocV"))
    check(lv[1] >= 5 and lv[1] >= lv[0] * 0.8,
          f"V's dead are void: {site_row(s, 'allocV').strip()[:100]!r}")
    # DRAG/OBJ, the mean drag time of a dead object: L's ~2 s hold, P's at
    # most about a collection's interval (100 ms) after its last use
    def per_obj(row):
        m = re.search(r"\s([\d.]+) (ms|s) dragwl\.Rec", row)
        return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1) if m else -1.0
    pl, pp = per_obj(site_row(s, "allocL")), per_obj(site_row(s, "allocP"))
    check(1.6 <= pl <= 3.0 and 0 <= pp <= 0.5,
          f"DRAG/OBJ: L's {pl} s near its 2 s hold, P's {pp} s near 0 "
          f"({site_row(s, 'allocP').strip()[:100]!r})")
    title = next((r for r in rows_of(s) if "SITE (" in r), "")
    check("DRAG lo-hiv" in title, f"the title row marks DRAG as sorted, largest first: {title[:120]!r}")

    # --- Enter: L's histogram ---
    t.keys("Home")
    t.keys("Enter")
    s = t.wait_for("DRAG TIMES", 10)
    bars = {}
    for line in rows_of(s):
        mm = re.match(r"\s*(<? ?[\d.]+-?[\d.]* m?s|>= [\d.]+ s|< \d+ ms)\s+(\d+)", line)
        if mm:
            bars[mm.group(1).strip()] = int(mm.group(2))
    top = max(bars, key=bars.get) if bars else ""
    check(s is not None and "allocL" in s and len(bars) == 16,
          f"Enter shows L's histogram, 16 buckets: {sorted(bars.items())!r}")
    check(top in ("1.28-2.56 s", "2.56-5.12 s"),
          f"L's fullest bucket holds its ~2 s hold: {top!r} ({bars.get(top)})")
    t.keys("Escape")
    check(t.wait_for("SITE (", 10) is not None, "Esc comes back to the sites")

    # --- x: the allocation tree at L's allocating frame ---
    t.keys("Home")
    t.keys("x")
    t.wait_until(lambda s: "DRAG  on" not in s, 10)
    sel = t.selected_row()
    row = rows_of(t.screen())[sel] if sel is not None else ""
    check(f"DragWorkload.allocL:{L_LINE}" in row,
          f"x selects L's allocating frame in the allocation tree: {row.strip()[:100]!r}")
    t.keys("Escape")
    check(t.wait_for("SITE (", 10) is not None, "Esc in the tree returns to the Drag screen")

    # --- e: the export, read back ---
    open_screen(t, "drag (memory held after its last use)")
    t.wait_for("SITE (", 10)
    t.keys("e")
    done = wait_for(lambda: any(os.path.getsize(f) > 0
                                for f in glob.glob(os.path.join(out, "heaptop-drag-*.summary.csv"))),
                    20)
    files = sorted(glob.glob(os.path.join(out, "heaptop-drag-*[0-9].csv")))
    check(done and files, f"e writes heaptop-drag-*.csv: {files}")
    if files:
        with open(files[-1], newline="") as f:
            raw = list(csv.reader(f))
        body = [dict(zip(raw[0], r)) for r in raw[1:]]
        check(raw[0] == HEADER, f"the issue's header: {raw[0]}")
        check(body and "allocL" in body[0]["frame"] and body[0]["class"] == "dragwl.Rec" and
              body[0]["stack"].startswith(body[0]["frame"]),
              f"L first, class, frame and stack as sites.csv: {body[0] if body else None}")
        ok = all(float(r["drag_byte_s_lo"]) <= float(r["drag_byte_s_hi"]) and
                 int(r["tracked"]) <= int(r["samples"]) and
                 int(r["void_samples"]) <= int(r["samples"]) for r in body)
        check(ok and len(body) >= 3, f"{len(body)} rows, each lo <= hi, tracked, void <= samples")

    # --- g: one row per class, its sites summed; e exports the classes ---
    sites = [r for r in body if r["class"] == "dragwl.Rec"] if files else []
    t.keys("g")
    s = t.wait_for("CLASS (", 10)
    row = next((r for r in rows_of(s or "") if "dragwl.Rec  (" in r), "")
    m = re.search(r"dragwl\.Rec  \((\d+) sites?\)", row)
    check(m is not None and int(m.group(1)) >= len(sites) >= 3,
          f"g: one row for dragwl.Rec naming its {len(sites)} sites: {row.strip()[:120]!r}")
    t.keys("x")
    check(t.wait_for("a class has many sites", 10) is not None, "x on a class says it needs a site")
    t.keys("e")
    done = wait_for(lambda: len(glob.glob(os.path.join(out, "heaptop-drag-*[0-9].csv"))) > len(files),
                    20)
    cfiles = sorted(glob.glob(os.path.join(out, "heaptop-drag-*[0-9].csv")))
    check(done, f"e in the class view writes another file: {cfiles}")
    if done:
        new = [f for f in cfiles if f not in files][0]
        with open(new, newline="") as f:
            raw = list(csv.reader(f))
        crow = [dict(zip(raw[0], r)) for r in raw[1:]]
        rec = [r for r in crow if r["class"] == "dragwl.Rec"]
        hi = sum(float(r["drag_byte_s_hi"]) for r in sites)
        smp = sum(int(r["samples"]) for r in sites)
        check(raw[0] == HEADER and len(rec) == 1 and rec[0]["frame"] == "" and rec[0]["stack"] == "",
              f"one row for the class, frame and stack empty: {crow}")
        # the class row sums its sites (the site export a moment before: only more since;
        # each site's figure was rounded to a whole byte-second there)
        check(rec and smp <= int(rec[0]["samples"]) <= smp * 1.5 + 20 and
              hi - len(sites) <= float(rec[0]["drag_byte_s_hi"]) <= hi * 1.5 + 1e6,
              f"its samples and drag sum its sites' ({smp}, {hi:.0f}): {rec}")
    t.keys("g")
    check(t.wait_for("SITE (", 10) is not None, "g again: the sites")

    # --- off ---
    t.keys("D")
    t.wait_for("Drag filter", 10)
    t.keys("C-u")
    t.keys("Enter")
    s = t.wait_for("drag mode off", 30)
    check(s is not None, "an empty filter turns drag mode off (status line)")
    check(t.wait_for("DRAG  off", 20) is not None, "the title says off")
finally:
    open(stop, "w").close()
    end_tui(t, jvm, wd)
finish()
