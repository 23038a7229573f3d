"""The TUI's life around the JVM's: started before the JVM with --wait it
connects by itself; when the JVM exits the data stays (marked "JVM exited") and can still
be filtered and exported; when an agent comes back at the same path it
reconnects. Also: monochrome with NO_COLOR and on a vt100."""
import glob
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("tuilife")
t = Tmux("tuilife", f"{HEAPTOP} --ipc {wd.base} --wait --out {wd.path}")
try:
    s = t.wait_for("[connecting]", 10)
    check(s is not None and "no heaptop agent at" in s, "before the JVM, with --wait: waiting, and says why")
    jvm = start_jvm("StressWorkload", [2, 5000, 0], agent_opts=f"ipc={wd.base}")
    s = t.wait_for("[live]", 15)
    check(s is not None, "connects by itself once the JVM is up")
    pid1 = re.search(r"pid (\d+)", s).group(1) if s else None
    jvm.communicate(timeout=60)
    s = t.wait_for("[JVM exited]", 15)
    check(s is not None, "the header says the JVM exited")
    check(s is not None and "StressWorkload" in s, "the data stays on screen")
    t.keys("\\")
    t.text("Stress")
    t.keys("Enter", pause=1.0)
    t.keys("Home")
    t.keys("*", pause=0.6)
    s = t.screen()
    check("frame filter: Stress" in s and "StressWorkload.work" in s, "still filterable after exit")
    t.keys("2", pause=0.8)
    t.keys("e", pause=1.0)
    files = [f for f in glob.glob(os.path.join(wd.path, "heaptop-classes-*.csv"))
             if not f.endswith(".summary.csv")]
    check(len(files) == 1 and len(read_csv(files[0])[1]) > 0, "still exportable after exit")
    jvm2 = start_jvm("StressWorkload", [1, 20000, 0], agent_opts=f"ipc={wd.base}")
    s = t.wait_for("[live]", 20)
    pid2 = re.search(r"pid (\d+)", s).group(1) if s else None
    check(s is not None and pid2 != pid1, f"reconnects to the new agent at the same path ({pid1} -> {pid2})")
    t.keys("q")
    t.kill()

    # Monochrome: no colour escape sequences, still readable and usable.
    for env in ("NO_COLOR=1", "TERM=vt100"):
        m = Tmux("tuimono", f"env {env} {HEAPTOP} --ipc {wd.base}", cols=100, rows=30)
        s = m.wait_for("[live]", 15)
        raw = m.screen(colors=True)
        check(s is not None and not re.search(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)", raw),
              f"{env}: no colours")
        m.keys("3", pause=0.8)
        check("Heap used" in m.screen(), f"{env}: screens still work")
        m.keys("q")
        m.kill()
    jvm2.kill()
    jvm2.communicate()
finally:
    t.kill()
wd.cleanup()
finish()
