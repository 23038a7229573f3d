"""heaptop run and record with a program that starts java itself, as jython,
catalina.sh and many Debian packages do: a shell script written here that runs
java as its child (not exec), with a JAVA_TOOL_OPTIONS of its user's already
set.

- `record -- sh WRAPPER`: one line says the JVMs it starts get the agent
  through JAVA_TOOL_OPTIONS; the JVM watched is the script's java child (its
  pid, not the script's); the workload's known site is recorded; the user's
  own JAVA_TOOL_OPTIONS is kept, the agent after it; the script's exit is
  said.
- `run -- sh WRAPPER` in tmux: the live screen of the java child.
- /usr/bin/jython when installed (it is not by default): `record -- jython
  work.py` records its JVM.
- --log FILE: a symlink is refused in one line, nothing started, the file it
  points to untouched; another user's file is refused; a new log is 0600
  (before: 0644, following the link)."""
import re
import shutil
import stat
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

wd = Workdir("runscript")
os.environ["XDG_RUNTIME_DIR"] = wd.path  # the JVMs' default socket directory, and heaptop's
os.environ["TMPDIR"] = wd.path
TICK = f"ConsoleWorkload.main:{site_line('ConsoleWorkload.java', 'tick')}"
WRAPPER = wd.file("wrapper.sh")
with open(WRAPPER, "w") as f:
    f.write(f"""#!/bin/sh
# a launcher as Debian's are: it finds java and runs it, here as its child
echo "wrapper: JAVA_TOOL_OPTIONS=$JAVA_TOOL_OPTIONS"
"{JAVA}" -XX:+Use{GC} -cp "{JAR}" ConsoleWorkload "$1" 0
echo "wrapper: java exited with $?"
""")
started = []


def record(*args, env=None, timeout=180):
    p = subprocess.run([HEAPTOP, "record", *args], capture_output=True, text=True,
                       timeout=timeout, env=env)
    started.extend(int(m) for m in re.findall(r"started pid (\d+)", p.stderr))
    return p


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


try:
    # --- record -- sh WRAPPER ---
    out = wd.file("rec1")
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-Dheaptop.test=kept")
    p = record("--out", out, "--top", "0", "--log", wd.file("rec1.log"), "--", "sh", WRAPPER,
               "4000", env=env)
    print(p.stderr)
    check(p.returncode == 0, f"record -- sh WRAPPER: exit 0 ({p.returncode})")
    lines = p.stderr.split("\n")
    check(any("'sh' is not java" in l and "JAVA_TOOL_OPTIONS" in l for l in lines),
          "one line says the agent goes through JAVA_TOOL_OPTIONS")
    script = started[-1] if started else 0
    m = re.search(r"watching pid (\d+) \(ConsoleWorkload\), a child's JVM", p.stderr)
    check(m is not None and int(m.group(1)) != script,
          f"the JVM watched is the script's java child, not the script (pid {script}): "
          f"{m.group(0) if m else None}")
    sites = read_out(out)["sites"]
    tick = [s for s in sites if s["frame"] == TICK and s["class"] == "long[]"]
    check(tick and float(tick[0]["est_bytes"]) > 1e6, f"sites.csv has the known site {TICK}")
    log = open(wd.file("rec1.log")).read() if os.path.exists(wd.file("rec1.log")) else ""
    check(re.search(r"wrapper: JAVA_TOOL_OPTIONS=-Dheaptop\.test=kept -agentpath:\S+libheaptop\.so",
                    log) is not None, "the user's JAVA_TOOL_OPTIONS is kept, the agent after it")
    check("wrapper: java exited with 0" in log and "exited with code 0" in p.stderr,
          "the script ran on after its JVM, and its exit is said")

    # --- run -- sh WRAPPER in a terminal ---
    if shutil.which("tmux"):
        err = wd.file("run.err")
        t = Tmux(f"runscript-{os.getpid()}",
                 f"env XDG_RUNTIME_DIR={wd.path} TMPDIR={wd.path} {HEAPTOP} run -- sh {WRAPPER} "
                 f"120000 2>{err}; sleep 60")
        try:
            s = t.wait_for("[live]", timeout=60)
            e = open(err).read() if os.path.exists(err) else ""
            started.extend(int(x) for x in re.findall(r"started pid (\d+)", e))
            m = re.search(r"watching pid (\d+)", e)
            jvm = int(m.group(1)) if m else 0
            check(s is not None and jvm and f"pid {jvm}" in s and "ConsoleWorkload" in s,
                  f"run -- sh WRAPPER: the live screen of its java child (pid {jvm})")
            check("ConsoleWorkload" in cmdline(jvm) and "-cp" in cmdline(jvm),
                  "that pid is the java process")
            s = t.wait_for("ConsoleWorkload.main", timeout=30)
            check(s is not None, "the tree shows its allocations")
            t.keys("q", pause=0.8)
            t.keys("s", pause=0.5)
            check(jvm and wait_for(lambda: not os.path.exists(f"/proc/{jvm}"), 20),
                  "q, s: the program and its JVM are stopped")
        finally:
            t.kill()

    # --- jython, when installed ---
    if shutil.which("jython"):
        work = wd.file("work.py")
        with open(work, "w") as f:
            f.write("import time\nd = {}\nend = time.time() + 4\n"
                    "while time.time() < end:\n    d = dict((i, str(i)) for i in range(10000))\n")
        p = record("--out", wd.file("rec-jython"), "--top", "3", "--", "jython", work,
                   timeout=300)
        check(p.returncode == 0 and "watching pid" in p.stderr and
              len(read_out(wd.file("rec-jython"))["sites"]) > 0,
              f"record -- jython work.py records its JVM ({p.stderr.strip()[-300:]})")
    else:
        print("jython is not installed: that part is skipped (the wrapper above stands for it)")

    # --- --log FILE: no symlink, 0600, the user's own ---
    precious = wd.file("precious.txt")
    with open(precious, "w") as f:
        f.write("keep me\n")
    link = wd.file("log-link")
    os.symlink(precious, link)
    before = len(started)
    p = record("--out", wd.file("rec2"), "--log", link, "--", JAVA, "-cp", JAR, "ConsoleWorkload",
               "1000", "0")
    errl = p.stderr.strip().split("\n")
    check(p.returncode != 0 and len(errl) == 1 and "is a symlink" in errl[0] and
          len(started) == before, f"--log through a symlink: refused in one line, nothing "
          f"started ({p.stderr.strip()!r})")
    check(open(precious).read() == "keep me\n", "the file the link points to is untouched")
    newlog = wd.file("new.log")
    p = record("--out", wd.file("rec3"), "--top", "0", "--log", newlog, "--", JAVA, "-cp", JAR,
               "ConsoleWorkload", "1000", "0")
    check(p.returncode == 0 and os.path.exists(newlog) and
          stat.S_IMODE(os.stat(newlog).st_mode) == 0o600 and "console tick" in open(newlog).read(),
          f"a new --log file is 0600 and holds the output "
          f"({oct(stat.S_IMODE(os.stat(newlog).st_mode)) if os.path.exists(newlog) else None})")
    if os.geteuid() == 0:
        theirs = wd.file("theirs.log")
        with open(theirs, "w") as f:
            f.write("theirs\n")
        os.chown(theirs, 65534, 65534)
        before = len(started)
        p = record("--out", wd.file("rec4"), "--log", theirs, "--", JAVA, "-cp", JAR,
                   "ConsoleWorkload", "1000", "0")
        check(p.returncode != 0 and "belongs to another user" in p.stderr and
              len(started) == before and open(theirs).read() == "theirs\n",
              f"another user's file as --log: refused, left as it was ({p.stderr.strip()!r})")
finally:
    for pid in started:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    wd.cleanup()
finish()
