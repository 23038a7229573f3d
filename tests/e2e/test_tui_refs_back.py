"""The reference browser's way back and its "more" line, in a real terminal
(tmux), on a dump of KnownHeap (tests/java/KnownHeap.java) opened with
`heaptop open`:

- Enter on a reference, then Backspace: the cursor is back on the row it was
  followed from, at the same height on the screen (it used to land on the
  first row);
- the same for a row two levels down (the widget's long[], under the
  listener's owner unfolded with Right): the unfolding is made again and the
  cursor is on that row;
- on a terminal too short for the rows (the path from a GC root, last, runs
  past the bottom), the line under them says how many rows are below, and
  at the end (End) how many are above."""
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()
JCMD = need_jcmd()

wd = Workdir("tuirefs")
facts_path = wd.file("facts")
jvm = start_jvm("KnownHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
t = None


def selected(t):
    """(row index, its text) of the highlighted row."""
    i = t.selected_row()
    return i, (t.screen().split("\n")[i].rstrip() if i is not None else None)


def cursor_to(t, pred, what):
    """Down from the first row until the highlighted row satisfies pred."""
    t.keys("Home")
    for _ in range(60):
        i, text = selected(t)
        if text is not None and pred(text):
            return i, text
        t.keys("Down", pause=0.05)
    check(False, f"the cursor reaches {what}")
    return None, None


def browser_of(t, title):
    return t.wait_until(lambda x: x.split("\n")[2].startswith(title), 10)


def there_and_back(t, title, what):
    """Enter on the highlighted row (its browser titled `title`, checked as
    `what`), then Backspace to the listener's: (row index, text) highlighted then."""
    t.keys("Enter")
    check(browser_of(t, title) is not None, what)
    t.keys("BSpace")
    check(browser_of(t, "KnownHeap$Listener @") is not None, "Backspace: the listener again")
    t.wait_until(lambda x: t.selected_row() is not None, 5)
    return selected(t)


try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "KnownHeap built its heap")
    dump = wd.file("k.hprof")
    p = subprocess.run([JCMD, str(jvm.pid), "GC.heap_dump", dump], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(dump), "jcmd wrote the dump")
    jvm.kill()
    jvm.wait()

    t = Tmux("tuirefs", f"{HEAPTOP} open {dump} --out {wd.path}", cols=80, rows=24)
    check(t.wait_for("RETAINED>=", 60) is not None, "the heap classes screen is in front")
    t.keys("\\")
    t.text("KnownHeap$Listener")
    t.keys("Enter")
    check(t.wait_until(lambda x: "(1 classes" in x, 10) is not None, "filtered to the listeners")
    t.keys("Enter")
    check(t.wait_for("INSTANCE OF KnownHeap$Listener", 10) is not None, "its instances")
    t.keys("Enter")
    check(t.wait_for("Referenced by (", 10) is not None, "the browser on a listener")

    # --- a reference followed and come back from
    i0, row0 = cursor_to(t, lambda x: "-> owner: KnownHeap$Widget" in x, "the listener's owner")
    if row0:
        i1, row1 = there_and_back(t, "KnownHeap$Widget @", "Enter: the widget")
        check((i1, row1) == (i0, row0),
              f"Backspace: the cursor on the row followed, where it was ({i0}: {row0!r}; now {i1}: {row1!r})")

    # --- two levels down: Right unfolds what the widget refers to, then its long[]
    i0, row0 = cursor_to(t, lambda x: "-> owner: KnownHeap$Widget" in x, "the listener's owner")
    if row0:
        t.keys("Right")
        i1, child = cursor_to(t, lambda x: "long[]" in x and x.startswith("+    ->"),
                              "the widget's long[]")
        check(child is not None and row0.startswith("+") and
              t.screen().split("\n")[i0].startswith("-"), f"Right unfolds the row ({child!r})")
        i2, back = there_and_back(t, "long[]", "Enter follows it to the long[]")
        check((i2, back) == (i1, child) and t.screen().split("\n")[i0].startswith("-"),
              f"Backspace: unfolded again, the cursor on the row two levels down "
              f"({i1}: {child!r}; now {i2}: {back!r})")

    # --- rows past the bottom: the line under them says so (ht_list_more)
    t.resize(80, 14)
    t.keys("Home")
    s = t.wait_until(lambda x: re.search(r"(\u25bc|v) \d+ below", x), 10)
    lines = (s or "").split("\n")
    at = next((i for i, ln in enumerate(lines) if re.search(r"(\u25bc|v) \d+ below", ln)), None)
    check(at is not None and not re.sub(r"(\u25bc|v) \d+ below", "", lines[at]).strip(),
          f"a short terminal: the line under the rows says how many are below "
          f"({lines[at] if at is not None else ''!r})")
    t.keys("End")
    s = t.wait_until(lambda x: re.search(r"(\u25b2|\^) \d+ above", x) and " below" not in x, 10)
    check(s is not None, "at the end (End): how many rows are above, none below")
finally:
    end_tui(t, jvm, wd)
finish()
