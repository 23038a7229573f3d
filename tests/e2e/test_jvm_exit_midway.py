"""The JVM goes away while a viewer is connecting or syncing: the viewer says so
at once and exits, never waits out its whole timeout, never hangs.
- A stopped JVM (SIGSTOP) answers nothing: `record --timeout` ends with the
  timeout's message after about that long.
- A stopped JVM killed while the viewer waits: the viewer notices that nobody
  listens at the socket any more and says the JVM exited, within a second or
  two (before the fix it waited out its 10 s).
- A JVM killed at several moments right after the viewer starts (during
  connect, HELLO, SYNC or the first stream messages): each time the viewer
  exits within a few seconds with a line saying what happened.
- A JVM started without the agent, killed while `record PID` attaches to it."""
import signal
import subprocess
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("midway")
n = 0


def jvm_up():
    global n
    n += 1
    base = wd.file(f"j{n}")
    jvm = start_jvm("StressWorkload", [2, 120000, 0], agent_opts=f"ipc={base}")
    check(wait_agent(jvm, base), f"jvm {n}: the agent listens")
    return jvm, base


def record(base, *extra):
    return subprocess.Popen([HEAPTOP, "record", "--ipc", base, "--out", wd.file(f"o{n}"),
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ended(p, within):
    """(exit code, stderr, seconds) once p ends, or (None, ..) at the deadline."""
    t = time.time()
    try:
        _, err = p.communicate(timeout=within)
        return p.returncode, err, time.time() - t
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return None, err, time.time() - t


# 1. Stopped: the timeout, and its message.
jvm, base = jvm_up()
os.kill(jvm.pid, signal.SIGSTOP)
t = time.time()
rc, err, _ = ended(record(base, "--timeout", "2000"), 30)
took = time.time() - t
check(rc == 1 and "did not answer within 2.0 s" in err and took < 6,
      f"a stopped JVM: the viewer gives up after its timeout ({rc}, {took:.1f} s: "
      f"{err.strip()[-120:]})")
os.kill(jvm.pid, signal.SIGKILL)
jvm.communicate()

# 2. Stopped, then killed while the viewer waits (10 s timeout).
jvm, base = jvm_up()
os.kill(jvm.pid, signal.SIGSTOP)
p = record(base)
time.sleep(1.0)
os.kill(jvm.pid, signal.SIGKILL)
jvm.communicate()
rc, err, took = ended(p, 30)
check(rc == 1 and "exited" in err and took < 3,
      f"a stopped JVM killed while the viewer waits: said within {took:.1f} s (at most 3; the "
      f"timeout is 10): {rc}, {err.strip()[-120:]}")

# 3. Killed at several moments right after the viewer starts.
for delay in (0.0, 0.03, 0.1, 0.3):
    jvm, base = jvm_up()
    p = record(base)
    time.sleep(delay)
    os.kill(jvm.pid, signal.SIGKILL)
    jvm.communicate()
    rc, err, took = ended(p, 15)
    said = [l for l in err.splitlines() if l.startswith("heaptop record:")]
    check(rc in (0, 1) and took < 5,
          f"killed {delay * 1000:.0f} ms after the viewer started: it exits within {took:.1f} s "
          f"(rc {rc})")
    check(any(w in err for w in ("exited", "went away", "JVM gone", "no heaptop agent",
                                 "nobody listens", "stale")),
          f"killed {delay * 1000:.0f} ms in: it says the JVM is gone ({said[-1:]})")

def handles_sigquit(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return (int(line.split()[1], 16) >> (signal.SIGQUIT - 1)) & 1 == 1
    except OSError:
        pass
    return False


# 4. A JVM started without the agent, killed while `heaptop record PID`
# attaches to it: at once, and once the attach has begun.
for delay in (0.0, 0.05, 0.2):
    n += 1
    jvm = start_jvm("StressWorkload", [2, 120000, 0])
    perf = f"/tmp/hsperfdata_{__import__('pwd').getpwuid(os.geteuid()).pw_name}/{jvm.pid}"
    check(wait_for(lambda: os.path.exists(perf), 30), f"jvm {n}: started without the agent")
    # past its start-up (it handles SIGQUIT, as heaptop waits for), so the
    # attach begins at once
    check(wait_for(lambda: handles_sigquit(jvm.pid), 30), f"jvm {n}: it handles SIGQUIT")
    p = subprocess.Popen([HEAPTOP, "record", str(jvm.pid), "--out", wd.file(f"o{n}")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    os.kill(jvm.pid, signal.SIGKILL)
    jvm.communicate()
    rc, err, took = ended(p, 30)
    said = [l for l in err.splitlines() if l.startswith("heaptop record:")]
    check(rc in (0, 1) and took < 12,
          f"killed {delay * 1000:.0f} ms into the attach: the viewer exits within {took:.1f} s "
          f"(rc {rc}: {said[-1:]})")
    check(rc == 0 or any(w in err for w in ("no process", "exited", "went away", "gone",
                                            "did not", "no longer")),
          f"killed {delay * 1000:.0f} ms into the attach: it says what happened ({said[-1:]})")
wd.cleanup()
finish()
