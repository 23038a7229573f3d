"""The help in a real terminal (tmux) against a real JVM.

The help's own text is what heaptop shows on a terminal wide and tall enough
for every line whole (200x160: no line of the help is longer than 191
columns). At 80x24 and at 120x40 the help, paged through with PgDn by the
"-- lines A-B of N" line under it, must hold the same words in the same
order: a line cut at the right edge loses words or cuts one, which this
sees. No line is wider than the terminal, the pages follow each other with
no line skipped or shown twice, and q, Esc and any other key return to the
screen the help was opened from, with heaptop still running (q used to quit
it although the help said any key returns)."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

MORE = re.compile(r"-- lines (\d+)-(\d+) of (\d+)")

wd = Workdir("tuihelp")
# live=off: no header line comes and goes with the live samples while paging
jvm = start_jvm("QuietWorkload", [600_000, wd.file("stop")], agent_opts=f"ipc={wd.base},live=off", jvm_flags=["-Xmx128m"])
check(wait_socket(wd.base), "agent socket appears")


def body(screen):
    """The help's lines on a screen where it fits whole: from its first
    heading to the last non-blank line above the status line and key bar."""
    lines = screen.rstrip("\n").split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.rstrip() == "Screens"), None)
    if first is None:
        return None
    out = lines[first:-2]
    while out and not out[-1].strip():
        out.pop()
    return out


def paged(t, cols):
    """Every line of the help at this size, page by page (PgDn), by number."""
    got, total = {}, None
    for _ in range(40):
        s = t.screen()
        lines = s.rstrip("\n").split("\n")
        wide = [ln for ln in lines if len(ln) > cols]
        check(not wide, f"{cols} columns: no line wider than the terminal ({wide[:1]})")
        at = next((i for i, ln in enumerate(lines) if MORE.search(ln)), None)
        if at is None:
            return None, lines
        a, b, total = map(int, MORE.search(lines[at]).groups())
        shown = lines[at - (b - a + 1):at]
        for k, ln in enumerate(shown):
            if a + k in got and got[a + k] != ln:
                print(f"line {a + k} differs between two pages: {got[a + k]!r} / {ln!r}")
            got[a + k] = ln
        if b >= total:
            break
        t.keys("NPage")
    missing = [i for i in range(1, (total or 0) + 1) if i not in got]
    check(total and not missing, f"{cols} columns: PgDn shows every line ({len(got)} of {total}, "
          f"missing {missing[:5]})")
    return [got[i] for i in sorted(got)], None


def words(lines):
    return " ".join(lines).split()


source = None
after = wd.file("after")
t = None
try:
    # the help's own text: every line whole on a wide, tall terminal (the help is
    # about 110 lines at 200 columns since the Behaviour glossary)
    t = Tmux("tuihelp-src", f"{HEAPTOP} --ipc {wd.base}", cols=200, rows=160)
    check(t.wait_for("[live]", 30) is not None, "200x160: the TUI connects")
    t.keys("F1")
    s = t.wait_for("Screens", 10)
    source = body(s or "")
    check(source and not MORE.search(s) and any("quit" in ln for ln in source),
          f"200x160: the whole help on one page ({len(source or [])} lines)")
    t.kill()

    for cols, rows in ((80, 24), (120, 40)):
        if os.path.exists(after):
            os.unlink(after)
        t = Tmux(f"tuihelp{cols}", f"sh -c '{HEAPTOP} --ipc {wd.base}; echo EXIT=$? > {after}'",
                 cols=cols, rows=rows)
        check(t.wait_for("[live]", 30) is not None, f"{cols}x{rows}: the TUI connects")
        t.keys("3")
        check(t.wait_for("MEASURE", 10) is not None, f"{cols}x{rows}: the telemetry screen")
        t.keys("F1")
        check(t.wait_for("Screens", 10) is not None, f"{cols}x{rows}: F1 opens the help")
        got, flat = paged(t, cols)
        check(got is not None, f"{cols}x{rows}: the help says which lines it shows "
              f"({(flat or [''])[-3:]})")
        if got is None and flat:  # at least the lines shown: the first page of the help
            got = [ln for ln in (body("\n".join(flat)) or []) if "-- more" not in ln]
            if source:
                n = len(words(got))
                check(words(got) == words(source)[:n], f"{cols}x{rows}: the first page's words "
                      f"whole and in order ({[w for w in words(got) if w not in words(source)][:3]})")
            got = None
        if got is not None and source:
            a, b = words(source), words(got)
            diff = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)
            where = f"word {diff}: {a[diff]!r} shown as {b[diff]!r}" if diff is not None else \
                f"{len(a)} words against {len(b)}"
            check(a == b, f"{cols}x{rows}: every word of the help, whole and in order ({where})")
        # q, Esc and any other key return to the screen it came from; heaptop runs on
        for key in ("q", "Escape", "x"):
            if not MORE.search(t.screen()):  # the first time it is still open
                t.keys("F1")
                t.wait_until(lambda x: MORE.search(x), 10)
            t.keys(key)
            s = t.wait_until(lambda x: "MEASURE" in x and not MORE.search(x), 10)
            check(s is not None and not os.path.exists(after),
                  f"{cols}x{rows}: {key} in the help returns to the telemetry screen, heaptop runs on")
        t.keys("q")
        check(wait_for(lambda: os.path.exists(after), 15), f"{cols}x{rows}: q outside the help quits")
        t.kill()
finally:
    end_tui(t, jvm, wd)
finish()
