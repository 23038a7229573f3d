"""Nothing on the screen's fixed lines is cut where the cut part matters, in a
real terminal (tmux) against a real JVM, at 80x24 and at 120x40:

- header line 0 ends in a whole word (the JDK version as the JVM gives it,
  or its release part, the uptime, the main class, the pid) or in the sign
  that something was cut, then the state label: never "JD [live]";
- the heap snapshot question keeps what K means ("K: take it and keep the
  file") and the cost it names, each whole on a line (the keys on the key
  bar's line while it is asked);
- the header's snapshot line ends whole, ")" or the sign, never "stay liv";
- the telemetry title closes what it opens ("LAST 31 s (a cell a second)");
- the sparklines are scaled from zero: for threads and loaded classes (counts
  far from zero that barely move) no cell is below level round(7 MIN / MAX)
  of 0-7 and the largest is at the top, so a constant is drawn full height
  like any other (min-max scaling drew the smallest at the bottom, a 0.1%
  change as a full-height step, and a constant mid-height);
- the chooser's one-line header (heaptop with no argument) at 80 columns."""
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

CUT = ("\u2026", "...")
BLOCKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"

p = subprocess.run([JAVA, "-XshowSettings:properties", "-version"], capture_output=True, text=True)
m = re.search(r"java\.vm\.version = (\S+)", p.stderr)
vm = m.group(1) if m else "?"
vm_release = re.split(r"[+\-_]", vm)[0]


def count(text):
    """heaptop's count format: 123, 45k, 6.7M."""
    m = re.fullmatch(r"([\d.]+)([kMG]?)", text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)] if m else None


wd = Workdir("tuicut")
jvm = start_jvm("LeakWorkload", [600], agent_opts=f"ipc={wd.base},interval=64k",
                jvm_flags=["-Xmx256m"])
check(wait_socket(wd.base), "agent socket appears")
t = None
try:
    for cols, rows in ((80, 24), (120, 40)):
        where = f"{cols}x{rows}"
        t = Tmux(f"tuicut{cols}", f"{HEAPTOP} --ipc {wd.base}", cols=cols, rows=rows)
        s = t.wait_for("[live]", 30)
        check(s is not None, f"{where}: the TUI connects")
        line0 = (s or "").split("\n")[0].rstrip()
        words = line0[:line0.rfind("[")].split()
        last = words[-1] if words else ""
        whole = (last in (vm, vm_release, "LeakWorkload", str(jvm.pid)) or last.endswith(CUT)
                 or re.fullmatch(r"\d\d:\d\d:\d\d", last))
        check(whole, f"{where}: header line 0 ends in a whole word or a cut sign ({line0!r})")

        # the heap snapshot question, whole
        t.keys("H")
        s = t.wait_for("not now", 10) or t.screen()
        lines = s.rstrip("\n").split("\n")
        check("K: take it and keep the file" in lines[-1],
              f"{where}: the question says what K does, whole, on the key bar's line "
              f"({lines[-1].strip()!r})")
        check(re.fullmatch(r"snapshot: a full GC, then the JVM stops to write ~[\d.]+ \S+ "
                           r"\(~1 s/150 MB live\)", lines[-2].strip()),
              f"{where}: ... and what a snapshot costs, whole, above it ({lines[-2].strip()!r})")
        t.keys("H")  # take it
        s = t.wait_until(lambda x: "snapshot " in "\n".join(x.split("\n")[2:4]), 90)
        check(s is not None, f"{where}: the snapshot is read and the header names it")
        info = [ln.rstrip() for ln in (s or "").split("\n")[2:4] if "snapshot " in ln]
        tail = info[0][info[0].index("snapshot "):] if info else ""
        check(tail.endswith((")",) + CUT) and "stay liv" not in tail.replace("stay live", ""),
              f"{where}: the snapshot in the header ends whole or with a sign ({tail!r})")

        # the telemetry title and its sparklines
        t.keys("3")
        s = t.wait_until(lambda x: "Loaded classes" in x and "Threads" in x, 15)
        title = next((ln for ln in (s or "").split("\n") if ln.startswith("MEASURE")), "")
        check(re.search(r"MEASURE +LAST \d+ (?:min \d+ )?s(?: \([^()]*\))? +NOW", title),
              f"{where}: the telemetry title is whole ({title!r})")
        # the rows once there are a few seconds of history
        t.wait_until(lambda x: any(ln.startswith("Threads") and
                                   sum(c in BLOCKS for c in ln) >= 5 for ln in x.split("\n")), 30)
        s = t.screen()
        for label in ("Threads", "Loaded classes"):
            ln = next((x for x in s.split("\n") if x.startswith(label)), "")
            cells = [c for c in ln if c in BLOCKS]
            nums = ln.split()[-3:]
            lo, hi = (count(nums[1]), count(nums[2])) if len(nums) == 3 else (None, None)
            if lo is None or not hi:
                check(False, f"{where}: {label} has a minimum and a maximum ({nums})")
                continue
            # from zero, the smallest value's cell is at level round(7 * MIN / MAX), and
            # every other cell at least there; the largest's at the top
            floor = int(7 * lo / hi + 0.5)
            levels = [BLOCKS.index(c) for c in cells]
            check(floor >= 1 and levels and min(levels) >= floor and max(levels) == 7,
                  f"{where}: {label} {lo:g}..{hi:g} is drawn from zero: no cell below level "
                  f"{floor}, the largest at the top ({''.join(cells)!r})")
        t.kill()
        t = None

    # the chooser: no argument, one line of header at 80 columns
    t = Tmux("tuicut-chooser", f"{HEAPTOP}", cols=80, rows=24)
    s = t.wait_until(lambda x: "choose a JVM" in x, 30)
    line0 = (s or "").split("\n")[0].rstrip()
    check(s is not None and line0.endswith((")",) + CUT),
          f"80x24: the chooser's header ends whole or with a sign ({line0!r})")
    t.keys("q")
finally:
    end_tui(t, jvm, wd)
finish()
