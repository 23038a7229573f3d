"""A quick request to the agent never waits behind heavy work, in a real
terminal (tmux) against a real JVM. BigHeap builds a heap of 3 M objects;
the TUI takes a heap snapshot of it (H, H), and while it reads the snapshot
(seconds: the status line says "heap snapshot: ...") p pauses sampling. The
truth is the agent's own state, read from outside by `heaptop control
status` ("sampling paused"): it must change within 3 s of p, while the
snapshot is still being read (before, p waited in the one job queue until
the snapshot was read)."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux, status_line  # noqa: E402

need_tmux()

OBJECTS = 3_000_000
wd = Workdir("quickjobs")
facts = wd.file("facts")
jvm = start_jvm("BigHeap", [facts, OBJECTS, 600], agent_opts=f"ipc={wd.base}",
                jvm_flags=["-Xmx1500m"])
check(wait_socket(wd.base), "agent socket appears")
check(wait_for(lambda: os.path.exists(facts), 120), "BigHeap built its heap")


def sampling():
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=30)
    m = re.search(r"sampling (\w+)", p.stdout)
    return m.group(1) if m else None


t = None
try:
    t = Tmux("quickjobs", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=120, rows=40)
    check(t.wait_for("[live]", 30) is not None, "the TUI connects")
    check(sampling() == "on", "sampling is on to begin with")
    t.take_snapshot()
    # the snapshot is being read (not written: while the JVM writes it the
    # agent refuses what needs the VM): the heavy runner's job shows on the
    # status line with how far it got
    s = t.wait_until(lambda x: "heap snapshot" in status_line(x) and "%" in status_line(x), 120)
    check(s is not None, f"the snapshot is being read ({status_line(t.screen()).strip()[:80]})")
    t.keys("p", pause=0)
    asked = time.time()
    paused = done = None  # seconds after p: sampling paused, the snapshot read
    while time.time() - asked < 180 and (paused is None or done is None):
        if paused is None and sampling() == "paused":
            paused = time.time() - asked
        # the line shows the quick job itself while it waits past 150 ms for
        # the agent ("pause sampling"): that is not the snapshot read
        line = status_line(t.screen())
        if done is None and "heap snapshot" not in line and "pause sampling" not in line:
            done = time.time() - asked
        time.sleep(0.02)
    check(paused is not None and paused <= 3 and done is not None and paused < done,
          f"p paused sampling {paused if paused is None else round(paused, 2)} s after it was "
          f"pressed (at most 3 s), before the snapshot was read "
          f"({done if done is None else round(done, 2)} s)")
    check(done is not None, "the snapshot is read in the end")
    t.keys("q")
finally:
    end_tui(t, jvm, wd)
finish()
