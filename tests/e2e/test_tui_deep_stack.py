"""Deep stacks on the tree and the lists' scroll marks, in tmux against a real
JVM: TomcatLikeWorkload allocates under a Tomcat-shaped stack about 60 frames
deep, with long package names, two siblings that differ only in their line and
two leaves that differ only in their method. At 80x24 and at 120x40:
- the deepest frame's method and line can be read on its row, its level
  shown as a number, and the detail lines under the list show the selected
  frame whole (level, full name, source file);
- the two sibling rows are told apart on screen (their lines show);
- s shows names in full and ] scrolls them to their end;
- the list says how many rows are hidden below and, at its end, above;
- a header line that comes and goes (a filter set, then cleared) leaves the
  list where it was: no row is left hidden above."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

SRC = "TomcatLikeWorkload.java"
PKG = "heaptop.tests.tomcatlike.catalina.connector"
wd = Workdir("tuideep")
jvm = start_jvm(f"{PKG}.TomcatLikeWorkload", [280], agent_opts=f"ipc={wd.base},live=off")
stop_at_exit(jvm)
check(wait_socket(wd.base), "agent socket appears")
deepest = f"SessionAttributeListener.attributeAdded:{site_line(SRC, 'deepest')}"
method = deepest.split(".")[-1]
added_call = f"SessionManager.handleRequest:{site_line(SRC, 'added_call')}"
created_call = f"SessionManager.handleRequest:{site_line(SRC, 'created_call')}"


def lines(s):
    return (s or "").rstrip("\n").split("\n")


def title_y(s):
    return next((i for i, l in enumerate(lines(s)) if "CALL TREE" in l), None)


def detail(s):
    """The detail lines under the list, joined, spaces dropped (they wrap
    on dots and spaces): from the 'level N:' line to the status line."""
    ls = lines(s)
    at = next((i for i, l in enumerate(ls) if l.startswith(" level ")), None)
    if at is None:
        return ""
    return "".join(l.strip() for l in ls[at:len(ls) - 2]).replace(" ", "")


def list_rows(s):
    """The list's rows: between the title and the detail lines."""
    ls = lines(s)
    y = title_y(s)
    if y is None:
        return []
    end = next((i for i, l in enumerate(ls) if l.startswith(" level ")), len(ls) - 2)
    return ls[y + 1:end]


def run(cols, rows):
    name = f"tuideep{cols}"
    t = Tmux(name, f"{HEAPTOP} --ipc {wd.base}", cols=cols, rows=rows)
    where = f"{cols}x{rows}"
    try:
        s = t.wait_until(lambda s: "java.lang.Thread.run" in s and title_y(s) is not None, 40)
        check(s is not None, f"{where}: the tree shows the workload")
        # the end of the list, once every path has samples (the smallest has
        # 2% of the bytes): the two handleRequest rows that differ only in
        # their line read apart
        both = [added_call.split(".")[-1], created_call.split(".")[-1]]

        def at_end(s):
            t.keys("End", pause=0.3)
            return all(b in t.screen() for b in both)
        s = t.wait_until(at_end, 30)
        check(s is not None, f"{where}: siblings told apart by their lines ({added_call}, "
                             f"{created_call}): {list_rows(t.screen())[-4:]}")
        t.keys("Home")
        # the list is longer than the screen: it says how much is below
        s = t.wait_until(lambda s: re.search(r"[v\u25bc] (\d+) below", s) is not None, 20)
        shown = list_rows(s)
        below = re.search(r"[v\u25bc] (\d+) below", s or "")
        total = len(shown) + int(below.group(1)) if below else 0
        title = lines(s)[title_y(s) or 0]
        check(below is not None and "below" in title,
              f"{where}: the title row says how many rows are below ({title})")
        check(not re.search(r"[\^\u25b2] \d+ above", s or ""), f"{where}: nothing is marked above")
        # after End: the rows above are all but those shown
        t.keys("End")
        s = t.screen()
        above = re.search(r"[\^\u25b2] (\d+) above", s)
        n_above = int(above.group(1)) if above else -1
        check(n_above == total - len(list_rows(s)) and "above" in lines(s)[title_y(s) or 0],
              f"{where}: after End the title row says how many rows are above ({n_above} of "
              f"{total}, {len(list_rows(s))} shown)")
        # search for the deepest frame: the cursor goes there
        t.keys("Home")
        t.keys("/", pause=0)
        t.text("attributeAdded")
        t.keys("Enter")
        s = t.wait_until(lambda s: "level" in s and "attributeAdded" in
                         lines(s)[t.selected_row() or 0], 10)
        s = s or t.screen()
        sel = t.selected_row()
        row = lines(s)[sel] if sel is not None else ""
        check(method in row, f"{where}: the deepest frame's method and line are read on its row "
                              f"({row.strip()})")
        m = re.search(r"level (\d+):", s or "")
        level = int(m.group(1)) if m else 0
        check(level >= 60, f"{where}: the detail line gives its level, 60 or more ({level})")
        check(level >= 60 and re.search(rf"\s{level}\s+\S", row) is not None,
              f"{where}: a row that deep carries its level as a number")
        whole = f"level{level}:{PKG}.{deepest}({SRC})"
        check(detail(s) == whole, f"{where}: the detail lines show the frame whole "
                                  f"({detail(s)!r}, expected {whole!r})")
        # s: names in full (the package shows); ] scrolls to the end of the deepest
        t.keys("s")
        s = t.screen()
        row = lines(s)[t.selected_row() or 0]
        check(f"{PKG}." in s and "frame names in full" in s,
              f"{where}: s shows names in full ({row.strip()})")
        for _ in range(12):
            t.keys("]", pause=0.1)
        s = t.wait_until(lambda s: method in lines(s)[t.selected_row() or 0], 5)
        row = lines(s)[t.selected_row()] if s else ""
        check(s is not None and ".." in row, f"{where}: ] scrolls a name in full to its end "
                                             f"({row.strip()})")
        t.keys("s")
        # No row hidden above: the cursor on the list's last row; a filter
        # adds a header line (the list loses a row at the top), clearing it
        # takes the line away: the list must show the same first row again
        t.keys("Home")
        n = len(list_rows(t.screen()))
        for _ in range(n - 1):
            t.keys("Down", pause=0.05)
        first = (list_rows(t.screen()) or [""])[0]
        t.keys("\\", pause=0)
        t.text("Thread")
        t.keys("Enter")
        s = t.wait_for("frame filter: Thread", 10)
        check(s is not None, f"{where}: a frame filter that keeps every row adds a header line")
        t.keys("\\", pause=0)
        t.keys("C-u")
        t.keys("Enter")
        s = t.wait_until(lambda s: "frame filter" not in s, 10)
        s = t.wait_until(lambda s: list_rows(s) and list_rows(s)[0].split()[-1:] == first.split()[-1:],
                         10)
        got = list_rows(t.screen())
        check(s is not None, f"{where}: after the filter is cleared the list shows the same first row "
                             f"({got[0].strip() if got else None}, expected {first.strip()})")
        t.keys("q", pause=0)
    finally:
        t.kill()


run(80, 24)
run(120, 40)
stop_jvm(jvm)
wd.cleanup()
finish()
