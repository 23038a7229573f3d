"""A bad agent option stops the JVM from starting, with one line naming it."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

cases = {
    "interval=abc": "'interval'",
    "depth=-1": "'depth'",
    "bogus=1": "'bogus'",
    "live=maybe": "'live'",
    "depth=99999": "'depth'",
}
for opts, name in cases.items():
    p = start_jvm("Interval0Workload", ["-", "/dev/null"], agent_opts=opts)
    out, err = p.communicate(timeout=60)
    check(p.returncode != 0, f"{opts}: the JVM does not start (exit {p.returncode})")
    lines = [l for l in err.splitlines() if l.startswith("heaptop:")]
    check(len(lines) == 1 and name in lines[0], f"{opts}: one stderr line names {name}: {lines}")
    check("expected" in err or "valid options" in err, f"{opts}: the line shows the valid form")
    check("facts" not in out, f"{opts}: the program did not run")

p = start_jvm("Interval0Workload", ["-", "/dev/null"], agent_opts="help")
out, err = p.communicate(timeout=60)
check(all(k in err for k in ("interval=", "depth=", "ipc=", "live=", "help")), "help lists every option")

# An unsafe socket directory is refused too (others could read the heap).
wd = Workdir("badopt")
os.chmod(wd.path, 0o755)
p = start_jvm("Interval0Workload", ["-", "/dev/null"], agent_opts=f"ipc={wd.path}/jvm")
out, err = p.communicate(timeout=60)
check(p.returncode != 0 and "0700" in err, f"a group/world-readable socket directory is refused: {err.splitlines()[:1]}")
wd.cleanup()
finish()
