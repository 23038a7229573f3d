"""The TUI and what it is given: with standard input that is not a terminal (a
file at its end, /dev/null) it says so in one line and exits at once instead
of spinning; `heaptop open` on a dump whose header is good but whose records
are not shows why on the status line and, at q, exits non-zero with the same
line on stderr; --out and open's words are checked before the screen starts."""
import struct
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

wd = Workdir("tuiinput")
# a header heaptop's probe accepts, then a record that claims more than is there
bad = wd.file("cut.hprof")
with open(bad, "wb") as f:
    f.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0))
    f.write(struct.pack(">BII", 0x1C, 0, 1 << 20) + b"\0" * 100)  # HEAP DUMP SEGMENT, cut short

for args in (["open", bad], []):  # a dump, and the chooser
    start = time.time()
    p = subprocess.run([HEAPTOP, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=20, env=dict(os.environ, TERM="xterm"))
    lines = p.stderr.strip().splitlines()
    check(p.returncode != 0 and len(lines) == 1 and "standard input is not a terminal" in lines[0]
          and time.time() - start < 5,
          f"heaptop {' '.join(args[:1])} with stdin at its end: one line, non-zero, at once "
          f"({lines[:2]})")

# --out and open's words are checked before the screen
for args, want in ((["--out", "", "1"], "heaptop: --out: "),
                   (["--out", "/proc/self/fd/0", "1"], "heaptop: --out: "),
                   (["open", "--bogus", bad], "heaptop open: unknown option '--bogus'"),
                   (["open", bad, bad, bad], "heaptop open: ")):
    p = subprocess.run([HEAPTOP, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=20, env=dict(os.environ, TERM="xterm"))
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(want),
          f"heaptop {' '.join(args[:2])}: refused in one line, exit 2 ({lines[:2]})")

err = wd.file("open.err")
t = Tmux("tuiinput", f"{HEAPTOP} open {bad} 2>{err}; echo EXIT $? >>{err}; sleep 30")
try:
    s = t.wait_for("heap snapshot: ", 20)
    check(s is not None and "truncated" in t.status_line(),
          f"the status line says why the dump cannot be read ({t.status_line()[:120]})")
    t.keys("q")
    check(wait_for(lambda: "EXIT" in open(err).read(), 10), "q quits")
    said = open(err).read()
    check("EXIT 1" in said and "heaptop open:" in said and "truncated" in said,
          f"... with exit 1 and the reason on stderr ({said.strip()[-200:]})")
finally:
    t.kill()
wd.cleanup()
finish()
