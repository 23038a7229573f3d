"""The header says when LIVE rests on few samples (a user's 207 MB live set
estimated from 18 live samples came out 31% low), in a real terminal (tmux)
against a real JVM: LiveWorkload keeps 50,000 byte[2000] (about 100 MB, its
facts file says exactly how much) and drops as many, then collects.

- at interval=8m the live set is about 12 samples: the header's second line
  (always there: no line comes and goes with it) says "LIVE: N samples,
  +-X%" with N below 100, X one standard error of a total from N samples
  (100/sqrt(N), rounded), and N within 4 standard errors of what the kept
  bytes give (a Poisson count of mean kept_bytes / interval, a truth the
  workload made);
- at interval=64k (about 1,600 live samples) it says nothing of the kind."""
import math
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

FEW = re.compile(r"LIVE: (\d+) samples?, (?:\u00b1|\+-)(\d+)%")

wd = Workdir("tuilivefew")
t = None
jvm = None
try:
    for interval, label in ((8 << 20, "8m"), (64 << 10, "64k")):
        base = os.path.join(wd.path, label)
        go, facts = wd.file(f"go-{label}"), wd.file(f"facts-{label}")
        jvm = start_jvm("LiveWorkload", [go, facts], agent_opts=f"ipc={base},interval={label},budget=off",
                        jvm_flags=["-Xmx512m"])
        check(wait_socket(base), f"{label}: agent socket appears")
        t = Tmux(f"tuilivefew-{label}", f"{HEAPTOP} --ipc {base}", cols=120, rows=30)
        check(t.wait_for("[live]", 30) is not None, f"{label}: the TUI connects")
        touch(go)
        check(wait_for(lambda: os.path.exists(facts), 120), f"{label}: the workload kept its set and collected")
        f = read_facts(facts)
        # the goodbye carries the last sweep: what LIVE rests on in the end
        s = t.wait_for("[JVM exited]", 60)
        check(s is not None, f"{label}: the JVM exited and said goodbye")
        line1 = (s or "").split("\n")[1]
        m = FEW.search(line1)
        if interval == 8 << 20:
            check(m is not None, f"{label}: the header says LIVE rests on few samples ({line1!r})")
            if m:
                n, pct = int(m.group(1)), int(m.group(2))
                lam = int(f["keep.retained_bytes"]) / interval
                check(0 < n < 100 and pct == round(100 / math.sqrt(n)),
                      f"{label}: {n} samples, one standard error {pct}% (100/sqrt(n))")
                check(abs(n - lam) <= 4 * math.sqrt(lam) + 2,
                      f"{label}: {n} live samples against {lam:.1f} expected from the kept bytes")
        else:
            check(m is None, f"{label}: many live samples, nothing said ({m.group(0) if m else ''})")
        jvm.wait(timeout=30)
        t.kill()
        t = None
finally:
    end_tui(t, jvm, wd)
finish()
