"""How a session ended, in a real terminal (tmux) against real JVMs: one label
for each cause, the same in the header (line 0, on the right) and on the
status line once its messages have passed.

- a JVM that dies of OutOfMemoryError with its leak still reachable
  (KeptOomWorkload: the launcher's DestroyJavaVM cannot allocate its Thread,
  so no VM death comes; the agent's exit hook says goodbye): "JVM exited",
  never "gone";
- a JVM that ends normally: "JVM exited";
- kill -9: "JVM gone without a goodbye";
- `heaptop control detach`: "agent detached", and the JVM goes on;
- under `heaptop run`, a program killed by signal 9: "program was killed by
  signal 9 (Killed)"; one that exits by itself with code 0: "program exited
  with code 0" (the goodbye came first, the code wins once it is known)."""
import re
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux, status_line  # noqa: E402

need_tmux()


def ended_as(t, label, what, timeout=60):
    """The header's label on the right of line 0, then the status line saying
    the same once the messages before it have passed."""
    s = t.wait_until(lambda x: x.split("\n")[0].rstrip().endswith(f"[{label}]"), timeout)
    first = (s or t.screen()).split("\n")[0].rstrip()
    check(s is not None, f"{what}: the header says [{label}] ({first[-40:]!r})")
    s = t.wait_until(lambda x: f"[{label}]" in status_line(x), 20)
    check(s is not None, f"{what}: the status line says [{label}] too "
          f"({status_line(t.screen()).strip()[:80]!r})")
    return s


def tui_on(name, base, what):
    """Once the agent at base listens, heaptop on it in a terminal, live."""
    check(wait_socket(base), f"{what}: agent socket appears")
    t = Tmux(f"tuiexit-{name}", f"{HEAPTOP} --ipc {base}", cols=120, rows=30)
    check(t.wait_for("[live]", 30) is not None, f"{what}: the TUI connects")
    return t


wd = Workdir("tuiexit")
t = None
jvm = None
try:
    # --- OutOfMemoryError with the leak kept: no VM death, still a goodbye
    go = wd.file("go")
    base = os.path.join(wd.path, "oom")
    jvm = start_jvm("KeptOomWorkload", [go], agent_opts=f"ipc={base},interval=256k",
                    jvm_flags=["-Xmx64m"])
    t = tui_on("oom", base, "OOM")
    touch(go)
    _, err = jvm.communicate(timeout=120)
    check("OutOfMemoryError" in err, f"OOM: the JVM died of OutOfMemoryError ({err.strip()[-120:]!r})")
    ended_as(t, "JVM exited", "OOM")
    check("gone" not in t.screen().split("\n")[0], "OOM: the header never says gone")
    t.kill()

    # --- a normal exit
    base = os.path.join(wd.path, "quiet")
    stop = wd.file("stop")
    jvm = start_jvm("QuietWorkload", [600_000, stop], agent_opts=f"ipc={base}")
    t = tui_on("quiet", base, "exit")
    touch(stop)
    jvm.wait(timeout=60)
    ended_as(t, "JVM exited", "exit")
    t.kill()

    # --- kill -9: no goodbye
    base = os.path.join(wd.path, "killed")
    jvm = start_jvm("QuietWorkload", [600_000, wd.file("never")], agent_opts=f"ipc={base}")
    t = tui_on("kill", base, "kill -9")
    jvm.kill()
    jvm.wait()
    ended_as(t, "JVM gone without a goodbye", "kill -9")
    t.kill()

    # --- a detach: the agent says goodbye, the JVM runs on
    base = os.path.join(wd.path, "detach")
    jvm = start_jvm("QuietWorkload", [600_000, wd.file("never")], agent_opts=f"ipc={base}")
    t = tui_on("detach", base, "detach")
    p = subprocess.run([HEAPTOP, "control", "--ipc", base, "detach"], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 0, f"detach: heaptop control detach ({p.stderr.strip()[:100]})")
    ended_as(t, "agent detached", "detach")
    check(jvm.poll() is None, "detach: the JVM runs on")
    jvm.kill()
    jvm.wait()
    t.kill()

    # --- heaptop run: the program's own end, by its wait status
    stop = wd.file("stop-run")
    t = Tmux("tuiexit-run", f"{HEAPTOP} run --out {wd.path} -- {JAVA} -cp {JAR} QuietWorkload "
             f"600000 {stop}", cols=120, rows=30)
    s = t.wait_for("[live]", 60)
    check(s is not None, "run: the TUI shows the program")
    touch(stop)
    ended_as(t, "program exited with code 0", "run, exit 0")
    t.keys("q")
    t.kill()
    t = Tmux("tuiexit-run9", f"{HEAPTOP} run --out {wd.path} -- {JAVA} -cp {JAR} QuietWorkload "
             f"600000 {wd.file('never')}", cols=120, rows=30)
    s = t.wait_for("[live]", 60)
    m = re.search(r"pid (\d+)", s or "")
    check(m is not None, "run: the header names the program's pid")
    if m:
        os.kill(int(m.group(1)), signal.SIGKILL)
        ended_as(t, "program was killed by signal 9 (Killed)", "run, kill -9")
    t.keys("q")
    t.kill()
    t = None
finally:
    end_tui(t, jvm, wd)
finish()
