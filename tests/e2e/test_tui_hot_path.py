"""The tree keeps the hot path of the data as it is now unfolded, in tmux
against a real JVM: TakeoverWorkload allocates through a start-up path first
and, once told to, through another path that takes over. The tree opens on the
start-up path; after the takeover the new hot path is unfolded down to its
allocating frame and the start-up path is folded. Once the user folds
something, the fold state is theirs: the data no longer unfolds anything."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuihot")
go = wd.file("go")
jvm = start_jvm("TakeoverWorkload", [go, 240], agent_opts=f"ipc={wd.base}", jvm_flags=["-Xmx256m"])
stop_at_exit(jvm)
check(wait_socket(wd.base), "agent socket appears")
t = Tmux("tuihot", f"{HEAPTOP} --ipc {wd.base}", cols=120, rows=40)
startup = f"TakeoverWorkload.parseDescriptors:{site_line('TakeoverWorkload.java', 'startup')}"
serve = f"TakeoverWorkload.renderResponse:{site_line('TakeoverWorkload.java', 'serve')}"
serve_top = f"TakeoverWorkload.main:{site_line('TakeoverWorkload.java', 'serve_call')}"
startup_top = f"TakeoverWorkload.main:{site_line('TakeoverWorkload.java', 'startup_call')}"


def share(s, frame):
    """The % of the tree row of a frame, or None when it is not on screen."""
    for line in s.split("\n"):
        if frame in line:
            m = re.search(r"(\d+\.\d)%", line)
            return float(m.group(1)) if m else None
    return None


def uptime(s):
    m = re.search(r"up (\d+):(\d+):(\d+)", s or "")
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) if m else -1


try:
    s = t.wait_for(startup, 40)
    check(s is not None, f"the tree opens on the start-up path, unfolded to {startup}")
    # start-up runs alone for a few seconds, as a program's start does
    check(t.wait_until(lambda s: uptime(s) >= 4, 30) is not None, "start-up ran 4 s")
    touch(go)
    # the serving path takes over: its share passes 60% (the bytes start-up
    # allocated before stay in the tree)
    s = t.wait_until(lambda s: (share(s, serve_top) or 0) > 60, 120)
    check(s is not None, f"the serving path takes over ({serve_top} above 60%)")
    # and within a few rebuilds (one a second) it is what is unfolded
    s = t.wait_until(lambda s: serve in s and startup not in s, 15)
    last = t.screen()
    check(s is not None,
          f"after the takeover the hot path is unfolded down to {serve} and the start-up "
          f"path folded: {[l.strip() for l in last.split(chr(10)) if 'TakeoverWorkload' in l]}")
    # the user folds: from then on the fold state is theirs
    t.keys("Home")
    sel = t.selected_row()
    row = t.screen().split("\n")[sel] if sel is not None else ""
    check(serve_top in row, f"Home: the cursor on the hot path's first row ({row.strip()})")
    t.keys("-")
    s = t.screen()
    check(serve not in s, "'-' folds it: its frames are hidden")
    up0 = uptime(s)
    # several rebuilds later (the header's clock goes on) it stays folded
    s = t.wait_until(lambda s: uptime(s) >= up0 + 4, 20)
    check(s is not None and serve not in s and startup not in s,
          "the user's fold stays: the data no longer unfolds the hot path")
    t.keys("q", pause=0)
finally:
    end_tui(t, jvm, stop=True)
wd.cleanup()
finish()
