"""The way to every screen when there are more screens than number keys, in
a real terminal (tmux) against a real JVM. F2 lists every screen of the Tab
order with its number key and title (the registry's screens: the truth is
the help's list of screens, which names each with its key); Down to one and
Enter brings it to the front; Esc returns to the screen the list was opened
from; Tab goes round all of them and comes back, S-Tab goes the other way."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuiscreens")
jvm = start_jvm("QuietWorkload", [600_000, wd.file("stop")], agent_opts=f"ipc={wd.base},live=off",
                jvm_flags=["-Xmx128m"])
check(wait_socket(wd.base), "agent socket appears")
t = None
try:
    t = Tmux("tuiscreens", f"{HEAPTOP} --ipc {wd.base}", cols=120, rows=40)
    check(t.wait_for("[live]", 30) is not None, "the TUI connects")
    # the help names the screens the number keys bring up:
    # "Tab, 1 2 ... 9 allocation tree, classes, ..." (wrapped)
    t.keys("F1")
    s = t.wait_for("Moving", 10) or ""
    block = s.split("Screens", 1)[-1].split("Moving", 1)[0]
    helptext = " ".join(block.split())
    m = re.search(r"Tab, ((?:\d )+)(.*?) F2 ", helptext)
    keys = m.group(1).split() if m else []
    titles = [x.strip() for x in m.group(2).split(",")] if m else []
    check(len(keys) >= 9 and len(keys) == len(titles), f"the help lists the screens ({keys})")
    t.keys("Escape")
    t.keys("3")
    check(t.wait_for("MEASURE", 10) is not None, "3: the telemetry screen")

    t.keys("F2")
    s = t.wait_for("Enter opens it", 10) or ""
    listed = re.findall(r"^\s+(\d?)\s+(\S.*?)\s*$", s.split("Enter opens it", 1)[-1], re.M)
    listed = [(k, x) for k, x in listed if not x.startswith(("F1", "Help"))][:len(titles) + 5]
    check(len(keys) >= 9 and [k for k, _ in listed][:len(keys)] == keys
          and [x for _, x in listed][:len(titles)] == titles,
          f"F2 lists every screen with its key, in the Tab order ({listed[:3]}... against "
          f"{list(zip(keys, titles))[:3]}...)")
    # Home, Down: the second screen (classes); Enter opens it
    t.keys("Home")
    t.keys("Down")
    t.keys("Enter")
    check(t.wait_until(lambda x: "CLASS" in x and "Enter opens it" not in x, 10) is not None,
          "Down, Enter: the second screen of the list (classes) is in front")
    t.keys("F2")
    t.wait_for("Enter opens it", 10)
    t.keys("Escape")
    check(t.wait_until(lambda x: "CLASS" in x and "Enter opens it" not in x, 10) is not None,
          "Esc closes the list: back on the classes screen")

    # Tab goes round every screen of the list (F2's: with a number key or
    # without) once and comes back
    t.keys("1")
    t.wait_for("CALL TREE", 10)
    seen = 0
    for _ in range(len(listed)):
        t.keys("Tab")
        seen += 1
        if t.wait_until(lambda x: "CALL TREE" in x, 1) is not None:
            break
    check(len(titles) >= 9 and seen == len(listed),
          f"Tab comes back to the tree after {seen} screens ({len(listed)})")
    t.keys("BTab")
    t.keys("BTab")
    t.keys("BTab")
    t.keys("BTab")  # tree -> duplicates -> compare -> console -> refs ... back by four
    t.keys("Tab")
    t.keys("Tab")
    t.keys("Tab")
    t.keys("Tab")
    check(t.wait_until(lambda x: "CALL TREE" in x, 5) is not None,
          "S-Tab four times and Tab four times: the tree again")
    t.keys("q")
finally:
    end_tui(t, jvm, wd)
finish()
