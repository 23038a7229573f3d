"""A bad agent option stops the JVM from starting, with one line naming it.
The workload's first act in main is to create a file: a JVM that started
anyway leaves it behind, whatever its exit code."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("badopt")
n = 0


def run(opts):
    """Interval0Workload under `opts`: (exit code, stderr, whether main ran)."""
    global n
    n += 1
    started, facts = wd.file(f"started{n}"), wd.file(f"facts{n}")
    p = start_jvm("Interval0Workload", ["-", facts, started], agent_opts=opts)
    _, err = p.communicate(timeout=60)
    return p.returncode, err, os.path.exists(started)


# The mark works: with good options the program runs and leaves it.
rc, err, ran = run(f"ipc={wd.base},interval=512k")
check(rc == 0 and ran, f"good options: the JVM runs main and leaves its mark (exit {rc}, "
      f"mark {'present' if ran else 'absent'}: {err.strip()[-200:]})")

cases = {
    "interval=abc": "'interval'",
    "depth=-1": "'depth'",
    "bogus=1": "'bogus'",
    "live=maybe": "'live'",
    "depth=99999": "'depth'",
    "buffer=1": "'buffer'",
    "traces=5": "'traces'",
    "listen=99999": "'listen'",
    "listen=1.2.3:7000": "'listen'",
    "listen=example.com:7000": "'listen'",
}
for opts, name in cases.items():
    rc, err, ran = run(f"ipc={wd.base}x,{opts}")
    check(rc != 0, f"{opts}: the JVM exits non-zero (exit {rc})")
    check(not ran, f"{opts}: main never ran (no mark file)")
    lines = [l for l in err.splitlines() if l.startswith("heaptop:")]
    check(len(lines) == 1 and name in lines[0], f"{opts}: one stderr line names {name}: {lines}")
    check("expected" in err or "valid options" in err, f"{opts}: the line shows the valid form")

rc, err, ran = run("help")
check(all(k in err for k in ("interval=", "depth=", "ipc=", "listen=", "live=", "traces=", "buffer=",
                             "help")),
      "help lists every option")
check(rc != 0 and not ran, f"help: the JVM does not run main (exit {rc})")

# An unsafe socket directory is refused too (others could read the heap), but
# it stops heaptop, not the JVM: another user can make one where ours would go
# (test_squatted_dir), so main runs, without the agent.
open_dir = Workdir("badopt-open")
os.chmod(open_dir.path, 0o755)
rc, err, ran = run(f"ipc={open_dir.path}/jvm")
lines = [l for l in err.splitlines() if l.startswith("heaptop:")]
check(rc == 0 and ran and len(lines) == 1 and "0700" in lines[0]
      and "the JVM runs without it" in lines[0] and not os.path.exists(f"{open_dir.path}/jvm.ctl"),
      f"a group/world-readable socket directory is refused in one line, and main runs: {lines[:1]}")
open_dir.cleanup()
wd.cleanup()
finish()
