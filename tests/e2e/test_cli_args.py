"""Bad command lines are one line and exit 2, before anything is contacted:
- a surplus argument is refused, naming it: `record PID extra`, `record PID
  12345`, `control PID pause now`, `interval 1m 2m`, `status extra`, `budget
  1% extra`, and the same for every other control command, `heap A B C`,
  `heaptop PID extra`. The PID is this test's own process (not a JVM): the
  surplus must be found before the target is looked at.
- a path with an ESC or a byte that is not UTF-8, echoed in an error line, is
  escaped (\\x1b, \\xff), never written raw to the terminal."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("cli-args")
PID = str(os.getpid())  # runs, and is not a JVM


def heaptop(*args):
    p = subprocess.run([HEAPTOP, *args], capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL, env={**os.environ, "TERM": "xterm"})
    return p.returncode, p.stderr


def surplus(args, extra):
    rc, err = heaptop(*args)
    text = err.decode(errors="replace").strip()
    check(rc == 2 and len(text.splitlines()) == 1 and f"'{extra}'" in text,
          f"heaptop {' '.join(args)}: exit 2, one line naming '{extra}': exit {rc}: {text}")


surplus(["record", PID, "extra"], "extra")
surplus(["record", PID, "12345"], "12345")
surplus(["record", PID, "--seconds", "1", "extra"], "extra")
surplus(["record", "--ipc", wd.file("jvm"), "extra"], "extra")
surplus(["control", PID, "pause", "now"], "now")
surplus(["control", PID, "resume", "now"], "now")
surplus(["control", PID, "interval", "1m", "2m"], "2m")
surplus(["control", PID, "status", "extra"], "extra")
surplus(["control", PID, "budget", "1%", "extra"], "extra")
surplus(["control", PID, "budget", "off", "extra"], "extra")
surplus(["control", PID, "mark", "begin", "extra"], "extra")
surplus(["control", PID, "detach", "extra"], "extra")
surplus(["control", "--ipc", wd.file("jvm"), "status", "extra"], "extra")
surplus([PID, "extra"], "extra")
rc, err = heaptop("heap", "a.hprof", "b.hprof", "c.hprof", "--out", wd.file("o"))
check(rc == 2 and "not more" in err.decode(), f"heap A B C: exit 2: {err.decode().strip()}")

# --- control bytes and non-UTF-8 in paths, echoed escaped ---
odd = os.fsencode(wd.path) + b"/red\x1b[31m\xff"


def escaped(args, what):
    rc, err = heaptop(*args)
    ok = (rc != 0 and len(err.strip().splitlines()) == 1 and b"\x1b" not in err
          and b"\xff" not in err and b"\\x1b[31m\\xff" in err)
    check(ok, f"{what}: the path escaped in one line: exit {rc}: {err!r}")


escaped(["heap", odd + b".hprof", "--out", wd.file("o")], "heap <missing dump with ESC, 0xff>")
with open(odd + b".file", "w"):
    pass
escaped(["heap", wd.file("none.hprof"), "--out", odd + b".file"], "heap --out <a file with ESC>")
escaped(["record", PID, "--out", odd + b".file"], "record --out <a file with ESC>")

wd.cleanup()
finish()
