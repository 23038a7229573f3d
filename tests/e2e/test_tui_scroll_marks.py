"""Scroll marks on every list, and no row left hidden above (as a user saw:
"the top row byte[] (236 MiB) was hidden with no sign of rows above, and I
thought it had vanished").

tests/java/ClassesWorkload.java allocates arrays of 60 element types, then
holds still: the classes screen (2) lists more classes than the terminal
shows. In tmux, at 120x30:

- the classes screen: the title row says how many rows are below and none
  above; PgDn: rows above; End: the rows above and the rows shown are all
  the rows, as many as the rows below and the rows shown at the top;
- a class filter that keeps every class (!zzzz) adds a header line while
  the cursor is on the list's last row (the list loses a row at the top);
  once cleared, the list's first row is the biggest class again (the first
  row before the filter: the figures hold still), and nothing is marked
  above;
- the heap classes screen (4) of a snapshot (H H), with hundreds of
  classes: below at the top, above after PgDn; the same on the dominator
  tree (5), its first rows unfolded when they do not fill the screen."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import Listing  # noqa: E402
from tmux import Tmux  # noqa: E402

need_tmux()

ABOVE = re.compile(r"[\^\u25b2] (\d+) above")
BELOW = re.compile(r"[v\u25bc] (\d+) below")
wd = Workdir("scrollmarks")
ready = wd.file("ready")
jvm = start_jvm("ClassesWorkload", [ready, 600], f"ipc={wd.base},interval=16k")
stop_at_exit(jvm)
t = None


def marks(line):
    """(rows above, rows below) a title row says, 0 when it says nothing."""
    a, b = ABOVE.search(line or ""), BELOW.search(line or "")
    return (int(a.group(1)) if a else 0, int(b.group(1)) if b else 0)


def classes(s):
    """The classes screen: (its title row, its rows' names)."""
    lst = Listing(s or "")
    if lst.title_y is None:
        return "", []
    return (s.splitlines()[lst.title_y], [r["name"] for r in lst.rows])


def heap_title(s, needle):
    """The title row of a heap screen: the line holding needle."""
    return next((l for l in (s or "").splitlines() if needle in l), "")


try:
    check(wait_for(lambda: os.path.exists(ready) or jvm.poll() is not None, 120, 0.1,
                   what="ClassesWorkload's allocations")
          and jvm.poll() is None, "ClassesWorkload allocated its 60 classes")
    t = Tmux("scrollmarks", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=120, rows=30)
    check(t.wait_for("CALL TREE", 30) is not None, "the TUI is up")
    t.keys("2")
    s = t.wait_until(lambda s: "[]" in "".join(classes(s)[1][:1]) and marks(classes(s)[0])[1] > 0,
                     30)
    title, names = classes(s)
    check(s is not None, f"the classes screen, longer than the screen ({title.strip()})")
    above, below = marks(title)
    check(below > 0 and above == 0, f"at the top: {below} below, nothing above ({title.strip()})")
    shown = len(names)
    t.keys("NPage")
    s = t.wait_until(lambda s: marks(classes(s)[0])[0] > 0, 10)
    check(s is not None, f"after PgDn the title row says rows are above ({classes(t.screen())[0].strip()})")
    t.keys("End")
    s = t.wait_until(lambda s: marks(classes(s)[0])[1] == 0 and marks(classes(s)[0])[0] > 0, 10)
    title, names = classes(s or t.screen())
    check(s is not None and marks(title)[0] + len(names) == below + shown,
          f"at the end: {marks(title)[0]} above and {len(names)} shown, "
          f"as {below} below and {shown} shown at the top")

    # No row hidden above: the cursor on the last row shown; a filter's
    # header line comes and goes
    t.keys("Home")
    s = t.wait_until(lambda s: marks(classes(s)[0])[0] == 0, 10)
    title, names = classes(s or t.screen())
    biggest, n = names[0] if names else None, len(names)
    print(f"the first row: {biggest}; {n} rows shown")
    for _ in range(n - 1):
        t.keys("Down", pause=0.05)
    t.keys("\\", pause=0)
    t.text("!zzzz")
    t.keys("Enter")
    s = t.wait_for("class filter: !zzzz", 10)
    check(s is not None, "a class filter that keeps every class adds a header line")
    t.keys("\\", pause=0)
    t.keys("C-u")
    t.keys("Enter")
    s = t.wait_until(lambda s: "class filter" not in s and classes(s)[1], 10)
    check(s is not None, "the filter is cleared")
    s = t.wait_until(lambda s: classes(s)[1][:1] == [biggest], 5)
    title, names = classes(t.screen())
    check(biggest and s is not None, f"after the filter is cleared the first row is the biggest "
                                     f"class again ({names[:1]}, expected {biggest})")
    check(marks(title)[0] == 0, f"and nothing is marked above ({title.strip()})")

    # the heap classes of a snapshot, and its dominator tree
    t.take_snapshot()
    check(t.wait_for("heap snapshot:", 120) is not None, "a heap snapshot is read")
    t.keys("4")
    s = t.wait_until(lambda s: marks(heap_title(s, "INSTANCES"))[1] > 0, 20)
    title = heap_title(s or t.screen(), "INSTANCES")
    check(s is not None and marks(title)[0] == 0,
          f"heap classes: rows below, none above ({title.strip()})")
    t.keys("NPage")
    s = t.wait_until(lambda s: marks(heap_title(s, "INSTANCES"))[0] > 0, 10)
    check(s is not None, "heap classes: after PgDn rows are above "
                         f"({heap_title(t.screen(), 'INSTANCES').strip()})")
    t.keys("5")
    s = t.wait_for("dominator tree", 20)
    for _ in range(6):  # unfold the first rows until the tree is longer than the screen
        if marks(heap_title(t.screen(), "dominator tree"))[1]:
            break
        t.keys("+")
        t.keys("Down")
    s = t.wait_until(lambda s: marks(heap_title(s, "dominator tree"))[1] > 0, 10)
    check(s is not None, "dominators: rows below "
                         f"({heap_title(t.screen(), 'dominator tree').strip()})")
    t.keys("NPage")
    s = t.wait_until(lambda s: marks(heap_title(s, "dominator tree"))[0] > 0, 10)
    check(s is not None, "dominators: after PgDn rows are above")
    t.keys("q", pause=0)
finally:
    end_tui(t, jvm, wd, stop=True)
finish()
