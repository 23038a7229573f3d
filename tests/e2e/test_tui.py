"""The interactive TUI in a real terminal (tmux) against a real JVM: screens,
folding, hot spots, a filter with '!' excludes, sorting, a mark around a known
phase checked through the CSV export, telemetry, help, resize to 80x24 and back,
and a clean quit that restores the terminal."""
import glob
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tui")
go, done = wd.file("go"), wd.file("done")
jvm = start_jvm("PhaseWorkload", [go, done], agent_opts=f"ipc={wd.base},budget=off", jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")
after = wd.file("after")
t = Tmux("tui", f"sh -c '{HEAPTOP} --ipc {wd.base} --out {wd.path}; echo EXIT=$? > {after}; "
                f"stty -a >> {after}'")
try:
    s = t.wait_for("[live]")
    check(s is not None, "the TUI connects and shows [live]")
    # A frame of the workload (the header shows the bare main class at once,
    # before the first sample has arrived).
    s = t.wait_for("PhaseWorkload.")
    check(s is not None and "CALL TREE" in s, "screen 1: the allocation tree")
    check("F10" in s.splitlines()[-1] and "Quit" in s.splitlines()[-1], "key bar on the last line")
    check("SortBy" in s.splitlines()[-1] and "Tree" in s.splitlines()[-1],
          f"the tree's key bar has its sort and tree keys: {s.splitlines()[-1]}")
    check("pid " in s and "Heap[" in s, "header with pid and heap bar")
    # the mouse on the tree: click a row, then the wheel
    lines = t.screen().split("\n")
    title_y = next(i for i, l in enumerate(lines) if "CALL TREE" in l)
    nrows = len([l for l in lines[title_y + 1:] if "%" in l])
    check(nrows >= 2, f"the tree opens with its hot path unfolded ({nrows} rows)")
    check(t.selected_row() == title_y + 1, "the first row is selected")
    t.click(30, title_y + 2)
    check(t.wait_until(lambda _: t.selected_row() == title_y + 2, 5) is not None,
          f"a click selects a row ({t.selected_row()})")
    t.click(30, title_y + 2, button=64)  # wheel up
    check(t.wait_until(lambda _: t.selected_row() == title_y + 1, 5) is not None,
          "the wheel moves the selection")
    # unfold everything below the first row, then fold it again
    t.keys("Home")
    t.keys("*")
    s = t.screen()
    check("PhaseWorkload.steady" in s, "unfolded: PhaseWorkload.steady visible")
    rows_open = len([l for l in s.splitlines() if "%" in l])
    t.keys("-")
    s = t.screen()
    rows_closed = len([l for l in s.splitlines() if "%" in l])
    check(rows_closed < rows_open, f"folding hides rows ({rows_open} -> {rows_closed})")
    # incremental search finds a folded node and unfolds its way to it; n repeats
    t.keys("Home")
    t.keys("-", pause=0.5)
    t.keys("/")
    t.text("steady")
    t.keys("Enter", pause=0.5)
    sel = t.selected_row()
    s = t.screen().split("\n")
    check(sel is not None and "PhaseWorkload.steady" in s[sel], "'/' jumps to the match, unfolding")
    t.keys("n", pause=0.5)
    sel2 = t.selected_row()
    check(sel2 is not None and "steady" in t.screen().split("\n")[sel2], "'n' goes on to a match")
    # units, freeze
    t.keys("u", pause=0.5)
    check(re.search(r"\d B ", t.screen()) is not None, "'u' switches the units to bytes")
    t.keys("u")
    t.keys("u")
    t.keys("u", pause=0.5)
    t.keys("f", pause=0.5)
    check("FROZEN" in t.screen(), "'f' freezes the display")
    t.keys("f", pause=0.5)
    check("FROZEN" not in t.screen(), "'f' again thaws it")
    # the sampling interval, sent to the agent
    t.keys("i")
    t.text("256k")
    t.keys("Enter", pause=0.5)
    s = t.wait_for("interval 256 KiB", 5)
    check(s is not None, "'i' sets the agent's sampling interval (header shows 256 KiB)")
    def uptime():
        m = re.search(r"up (\d+):(\d+):(\d+)", t.screen())
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) if m else -1

    # 2^54 KiB is 2^64 bytes: it used to wrap to 0 (every allocation sampled)
    up0 = uptime()
    t.keys("i")
    t.text("18014398509481984k")
    t.keys("Enter", pause=0.3)
    s = t.screen()
    status = s.rstrip("\n").split("\n")[-2]
    check("interval unchanged" in status and "too large" in status and "2g-1" in status,
          f"an interval past the agent's maximum is refused: {status.strip()}")
    # two telemetry records later the agent's interval (shown from telemetry) is unchanged
    check(wait_for(lambda: uptime() >= up0 + 2, 10), "telemetry goes on after the refusal")
    s = t.screen()
    check("interval 256 KiB" in s, "the agent's interval is unchanged (header still 256 KiB)")
    t.keys("i")
    t.text("512k")
    t.keys("Enter", pause=0.5)
    # hot spots
    t.keys("t")
    s = t.wait_for("HOT SPOTS")
    check(s is not None and "PhaseWorkload.steady" in s, "hot spots: allocating frames at the top")
    t.keys("t")
    # a frame filter with an exclude
    t.keys("\\")
    t.text("!steady")
    t.keys("Enter", pause=1.0)
    t.keys("Home")
    t.keys("*", pause=0.5)
    s = t.screen()
    check("frame filter: !steady" in s, "the active filter shows in the header")
    check("PhaseWorkload.steady" not in s, "'!steady' excludes the steady frames")
    t.keys("\\")
    t.keys("C-u")
    for _ in range(10):
        t.keys("BSpace", pause=0.05)
    t.keys("Enter", pause=0.8)
    # classes screen, sort by another column and back
    t.keys("2")
    s = t.wait_for("byte[]")
    check(s is not None and "CLASS" in s, "screen 2: classes")
    title_before = [l for l in s.splitlines() if "CLASS" in l][0]
    t.keys(">")
    s = t.screen()
    title_after = [l for l in s.splitlines() if "CLASS" in l][0]
    check(title_before != title_after and "INSTv" in title_after.replace(" ", ""),
          f"'>' sorts by the next column ({title_after.split()[:3]})")
    t.keys("<")
    # Enter on a class opens its allocation tree; Esc comes back to all classes
    t.keys("Home")
    t.keys("Enter", pause=1.0)
    s = t.screen()
    check("CALL TREE" in s and "class: " in s, "Enter on a class opens the tree of that class")
    t.keys("Escape", pause=0.8)
    check("class: " not in t.screen(), "Esc shows all classes again")
    t.keys("2", pause=0.8)
    # the mouse: click a row, click a column title, wheel, click the key bar
    lines = t.screen().split("\n")
    title_y = next(i for i, l in enumerate(lines) if "CLASS" in l and "BYTES" in l)
    t.click(lines[title_y].index("INST") + 2, title_y)
    check(t.wait_until(lambda s: "INSTv" in s.replace(" ", ""), 5) is not None,
          "a click on a title sorts by it")
    t.click(lines[title_y].index("BYTES") + 2, title_y)
    t.wait_until(lambda s: "BYTESv" in s.replace(" ", ""), 5)
    t.click(1, len(lines) - 2)  # F1 on the key bar
    check(t.wait_for("this help (q, Esc or any other key returns)", 5) is not None,
          "a click on F1 in the key bar opens help")
    t.keys("x")
    # a mark around the known phase
    t.keys("b", pause=0)
    s = t.wait_for("MARK running", 5) or t.screen()
    check("MARK running" in s, "begin mark: a running marker in the header")
    touch(go)
    check(wait_for(lambda: os.path.exists(done), 60), "the phase ran")
    time.sleep(1.5)  # the agent publishes every 100 ms; the TUI rebuilds every 500 ms
    t.keys("E", pause=1.0)
    s = t.screen()
    check("MARK ended" in s, "end mark")
    t.keys("e", pause=1.0)
    exports = [f for f in glob.glob(os.path.join(wd.path, "heaptop-classes-*.csv"))
               if not f.endswith(".summary.csv")]
    check(len(exports) == 1, f"'e' exported the classes screen ({exports})")
    if exports:
        _, rows, raw = read_csv(exports[0])
        check(raw[0] == ["class", "est_bytes", "est_instances", "live_est_bytes",
                         "live_est_instances", "young_est_bytes", "diff_bytes", "diff_instances",
                         "growth_bytes", "samples", "live_samples", "young_samples",
                         "over_bound"], "export header")
        blob = [r for r in rows if r["class"] == "PhaseWorkload$Blob"]
        n = int(open(done).read())
        if blob:
            diff = float(blob[0]["diff_instances"])
            err = diff / n - 1
            check(abs(err) < 0.10, f"mark diff {diff:.0f} instances within 10% of the phase's {n} "
                  f"({err:+.1%})")
            byte = [r for r in rows if r["class"] == "byte[]"]
            check(byte and float(byte[0]["diff_bytes"]) < float(byte[0]["est_bytes"]),
                  "classes outside the phase count only their marked part")
        else:
            check(False, "PhaseWorkload$Blob in the export")
    # telemetry and help
    t.keys("3")
    s = t.wait_for("Heap used")
    check(s is not None and any(c in s for c in "▁▂▃▄▅▆▇█"), "screen 3: telemetry with sparklines")
    bar = t.screen().splitlines()[-1]
    check("SortBy" not in bar and "Tree" not in bar and "Quit" in bar,
          f"the telemetry's key bar shows no key that does nothing there (sort, tree): {bar}")
    t.keys("?")
    s = t.wait_for("this help")
    for _ in range(4):  # the help is longer than the terminal: it scrolls, a page at a time
        if s is None or "Marks (diff and growth" in s:
            break
        t.keys("NPage")
        s = t.wait_for("Marks (diff and growth", 2) or t.screen()
    s = s if s is not None and "Marks (diff and growth" in s else None
    check(s is not None, "help lists the keys")
    t.keys("x")
    check("Marks (diff and growth" not in t.screen(), "any key leaves help")
    # the tree screen exports one row per node, each naming its parent's row
    t.keys("1")
    t.keys("e", pause=1.0)
    trees = [f for f in glob.glob(os.path.join(wd.path, "heaptop-tree-*.csv"))
             if not f.endswith(".summary.csv")]
    if trees:
        _, rows, raw = read_csv(trees[0])
        check(raw[0][:5] == ["id", "parent", "depth", "kind", "name"] and len(rows) > 3,
              "tree export")
        ids = {r["id"]: r for r in rows}
        check(all(r["parent"] == "0" or (r["parent"] in ids and int(r["parent"]) < int(r["id"])
                  and int(ids[r["parent"]]["depth"]) + 1 == int(r["depth"])) for r in rows),
              "tree export rows name their parent row")
    else:
        check(False, "'e' exported the tree screen")
    # resize to 80x24 and back
    t.resize(80, 24)
    s = t.screen()
    lines = s.rstrip("\n").split("\n")
    check(len(lines) == 24 and "F10" in lines[-1], "80x24: key bar still on the last line")
    check(all(len(l) <= 80 for l in lines), "80x24: nothing wider than the terminal")
    t.keys("?")
    s = t.screen()
    check("-- lines 1-" in s and "q F10" not in s, "80x24: help says there is more")
    pages = 0
    while "q F10" not in s and pages < 40:  # the help's length grows with the screens
        t.keys("NPage")
        pages += 1
        s = t.screen()
    check("q F10" in s and pages > 0, f"80x24: the rest of the help scrolls into view "
          f"({pages} pages down)")
    t.keys("x")
    t.resize(120, 40)
    s = t.screen()
    check("CALL TREE" in s, "back to 120x40")
    # a g suffix (last: HotSpot keeps each thread's next sample point, drawn at
    # 1 GiB, until it is reached, so a later phase would go unsampled)
    t.keys("i")
    t.text("1g")
    t.keys("Enter", pause=0.5)
    s = t.wait_for("interval 1024 MiB", 5)
    check(s is not None, "'i' takes a g suffix (header shows 1024 MiB)")
    t.keys("q", pause=1.0)
    check(wait_for(lambda: os.path.exists(after), 10), "q quits")
    text = open(after).read() if os.path.exists(after) else ""
    check("EXIT=0" in text, "exit code 0")
    check(" icanon" in text and " echo" in text, "the terminal is restored (icanon, echo)")
finally:
    t.kill()
    jvm.kill()
    jvm.communicate()
wd.cleanup()
finish()
