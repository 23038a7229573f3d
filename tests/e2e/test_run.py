"""heaptop's launch mode: `heaptop record ... -- java ...` and `heaptop run --
java ...` start a real JVM (tests/java/ConsoleWorkload) under the agent.
record: the workload's known site is recorded, its exit code printed, its
stdout and stderr in the log file in the order printed; --seconds stops the
program. run, in a real terminal (tmux): the live screens, the output on the
Console screen (stderr marked) and never on the others, the exit code in the
header once it exits; q while it runs asks, s stops it (gone), l leaves it
running (alive after heaptop exits, still writing its log). Errors: no --,
nothing after --, bad agent options: one line, non-zero, nothing started; a
program that is not java and starts no JVM: said so; java exiting at once:
its own error line is shown."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

wd = Workdir("run")
os.environ["XDG_RUNTIME_DIR"] = wd.path  # the private socket directories go here
os.environ["TMPDIR"] = wd.path           # and the default log files
JAVA_CMD = [JAVA, f"-XX:+Use{GC}", "-cp", JAR]
TICK = f"ConsoleWorkload.main:{site_line('ConsoleWorkload.java', 'tick')}"
KNOWN = ["console-out line 1", "console-err line 1", "console-out line 2",
         "console-err line 2", "console-out line 3", "console-err line 3"]
started = []  # pids of programs started by heaptop: killed at the end whatever happens
terminals = []


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def lines_of(path):
    with open(path) as f:
        return f.read().split("\n")


def record(*args, timeout=120):
    p = subprocess.run([HEAPTOP, "record", *args], capture_output=True, text=True,
                       timeout=timeout)
    for m in re.finditer(r"started pid (\d+)", p.stderr):
        started.append(int(m.group(1)))
    return p


try:
    # --- record until the program exits by itself ---
    out = wd.file("rec1")
    p = record("--out", out, "--top", "0", "--", *JAVA_CMD, "ConsoleWorkload", "3000", "7")
    print(p.stderr)
    check(p.returncode == 0, f"record -- java: exit 0 (got {p.returncode})")
    check("the program (pid" in p.stderr and "exited with code 7" in p.stderr,
          "record prints the program's exit code (7)")
    check("stopping pid" not in p.stderr, "a program that exits by itself is not stopped")
    sites = read_out(out)["sites"]
    tick = [s for s in sites if s["frame"] == TICK and s["class"] == "long[]"]
    check(tick and float(tick[0]["est_bytes"]) > 1e6, f"sites.csv has the known site {TICK}")
    logs = glob.glob(os.path.join(out, "heaptop-run-*.log"))
    check(len(logs) == 1 and logs[0] in p.stderr, "the log is a new file in --out, named on stderr")
    got = [l for l in lines_of(logs[0]) if l.startswith("console-")] if logs else []
    check(got == KNOWN + ["console-out done"],
          f"stdout and stderr are in the log in the order printed (got {got})")

    # --- --seconds ends the recording and stops the program ---
    out2 = wd.file("rec2")
    p = record("--seconds", "2", "--out", out2, "--top", "0", "--log", wd.file("two.log"),
               "--", *JAVA_CMD, "ConsoleWorkload", "120000", "0")
    check(p.returncode == 0, "record --seconds 2 -- java: exit 0")
    pid = started[-1] if started else 0
    check(pid and not alive(pid), "--seconds: the program is stopped when the recording ends")
    check("stopping pid" in p.stderr and "exited with code 143" in p.stderr,
          "--seconds: it was stopped with SIGTERM (code 143)")
    check("console-out line 1" in open(wd.file("two.log")).read(), "--log FILE holds the output")

    # --- errors: one line, non-zero, nothing started ---
    def refused(args, needle, what):
        before = set(glob.glob(os.path.join(wd.path, "heaptop-run-*.log")))
        p = subprocess.run([HEAPTOP, *args], capture_output=True, text=True, timeout=60)
        after = set(glob.glob(os.path.join(wd.path, "heaptop-run-*.log")))
        lines = p.stderr.strip().split("\n")
        check(p.returncode != 0 and len(lines) == 1 and needle in lines[0] and before == after
              and "started pid" not in p.stderr,
              f"{what}: one line naming it, non-zero exit, nothing started ({p.stderr.strip()!r})")

    refused(["run", *JAVA_CMD, "ConsoleWorkload"], "put the program after --", "run without --")
    refused(["run", "--"], "nothing after --", "run with nothing after --")
    refused(["record", "--seconds", "1", "--"], "nothing after --", "record with nothing after --")
    # not java: taken for a script that starts java (test_run_script); one that
    # starts none ends before any JVM listens, and says so
    p = record("--out", wd.file("rec-true"), "--", "/bin/true")
    check(p.returncode != 0 and "'/bin/true' is not java" in p.stderr and
          "exited with code 0 before any JVM it started listened" in p.stderr,
          f"record -- /bin/true: no JVM came, non-zero exit, said so ({p.stderr.strip()!r})")
    refused(["run", "--agent-opts", "depth=banana", "--", *JAVA_CMD, "ConsoleWorkload"],
            "depth", "run with bad agent options")
    refused(["record", "--interval", "-5", "--", *JAVA_CMD, "ConsoleWorkload"], "--interval",
            "record with a bad interval")

    # --- java exits at once: its own error line ---
    p = record("--out", wd.file("rec3"), "--", *JAVA_CMD, "NoSuchMainClass")
    check("exited with code 1" in p.stderr and "its last lines:\n  Error: Could not find or load "
          "main class NoSuchMainClass" in p.stderr,
          f"a missing main class: its exit code and java's own error line ({p.stderr.strip()!r})")
    p = record("--out", wd.file("rec4"), "--", JAVA, "-XX:+NoSuchFlagAtAll", "-cp", JAR,
               "ConsoleWorkload", "1000", "0")
    check(p.returncode != 0 and "exited with code 1 before its agent listened" in p.stderr
          and "Unrecognized VM option 'NoSuchFlagAtAll'" in p.stderr
          and "recording" not in p.stderr,
          f"java exiting before its agent listens: non-zero, java's own line ({p.stderr.strip()!r})")

    if not shutil.which("tmux"):
        print("no tmux: the TUI part is skipped")
        finish()

    def run_tui(name, *java_args):
        """heaptop run in tmux; the program's pid from the header once live."""
        log = wd.file(f"{name}.log")
        cmd = " ".join([f"env XDG_RUNTIME_DIR={wd.path} TMPDIR={wd.path}", HEAPTOP, "run",
                        "--log", log, "--", *JAVA_CMD, *java_args])
        t = Tmux(f"run-{name}-{os.getpid()}", cmd + f" 2>{wd.file(name + '.err')}; sleep 60")
        terminals.append(t)
        s = t.wait_for("[live]", timeout=60)
        m = re.search(r"pid (\d+)", s or "")
        pid = int(m.group(1)) if m else 0
        if pid:
            started.append(pid)
        return t, pid, log

    # --- the Console; never on the other screens; the exit code ---
    stop = wd.file("stop1")
    t, pid, log = run_tui("console", "ConsoleWorkload", "120000", "5", stop)
    check(pid > 0, "heaptop run: the live screen of the program")
    s = t.wait_for("ConsoleWorkload.main", timeout=30)
    check(s is not None, "the tree shows the program's allocations")
    wait_for(lambda: "console tick 5" in open(log).read(), timeout=30)
    for key in ["1", "2", "3"]:
        t.keys(key, pause=0.8)
        s = t.screen()
        check("console" not in s, f"screen {key}: none of the program's output on it")
    t.keys("7", pause=0.8)
    s = t.wait_for("console tick", timeout=10)
    check(s is not None and "OUTPUT" in s, "7: the Console shows the program's output")
    t.keys("Home", pause=0.8)
    s = t.screen()
    rows = [l.rstrip() for l in s.split("\n") if "console-" in l]
    check(rows[:6] == ["  console-out line 1", "! console-err line 1", "  console-out line 2",
                       "! console-err line 2", "  console-out line 3", "! console-err line 3"],
          f"the Console: the known lines in order, stderr marked ! (got {rows[:6]})")
    t.keys("\\", pause=0.3)
    t.text("err")
    t.keys("Enter", pause=0.8)
    s = t.screen()
    check("console-out" not in s and s.count("! console-err line") == 3,
          "the Console's filter keeps the matching lines")
    touch(stop)
    s = t.wait_for("program exited with code 5", timeout=30)
    check(s is not None, "the header says the program exited with code 5")
    t.keys("1", pause=0.8)
    check("ConsoleWorkload.main" in t.screen(), "after the exit the tree is still browsable")
    t.keys("q", pause=1.5)
    err = open(wd.file("console.err")).read()
    check("exited with code 5" in err and "pid" in err,
          "q after the exit: heaptop quits at once and says the exit code")
    t.kill()

    # --- q while it runs: s stops it ---
    t, pid, log = run_tui("stop", "ConsoleWorkload", "120000", "0")
    t.keys("q", pause=0.8)
    check("still runs: s stops it" in t.screen(), "q while the program runs asks first")
    t.keys("Escape", pause=0.8)
    check(alive(pid) and "[live]" in t.screen(), "Esc: the question goes, heaptop and the program stay")
    t.keys("q", pause=0.5)
    t.keys("s", pause=0.5)
    check(wait_for(lambda: pid and not alive(pid), timeout=15), "q, s: the program is gone")
    wait_for(lambda: "the program (pid" in open(wd.file("stop.err")).read(), timeout=10)
    check("exited with code 143" in open(wd.file("stop.err")).read(),
          "q, s: heaptop says it stopped it (SIGTERM)")
    t.kill()

    # --- q while it runs: l leaves it running ---
    t, pid, log = run_tui("leave", "ConsoleWorkload", "120000", "0")
    t.keys("q", pause=0.5)
    t.keys("l", pause=0.5)
    check(wait_for(lambda: "left pid" in open(wd.file("leave.err")).read(), timeout=10),
          "q, l: heaptop exits saying it left the program running")
    t.kill()  # the terminal it ran in is gone too
    size = os.path.getsize(log)
    time.sleep(1.5)
    check(pid and alive(pid), "q, l: the program still runs after heaptop exits")
    check(os.path.getsize(log) > size, "q, l: it keeps writing its log")
finally:
    for pid in started:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for t in terminals:
        t.kill()
    wd.cleanup()
finish()
