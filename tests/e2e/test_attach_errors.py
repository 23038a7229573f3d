"""Every way an attach by pid cannot work is one line naming what is wrong and a
non-zero exit, and the JVM is left as it was: no such process, not a JVM,
attach disabled (on the command line, or where only its perf data shows it),
a stopped JVM, a JVM that never answers (within --timeout), an agent file
the JVM cannot load (its own reply quoted), bad agent options and a missing
--agent (refused before anything is attached), another user's JVM (as a
non-root user: run heaptop as that user; as root: heaptop attaches as that
user and goes on as it). JDK < 11 cannot be tested here (only JDK 17 and 25
are installed)."""
import pwd
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("attach-errors")
ENV = {**os.environ, "XDG_RUNTIME_DIR": wd.path, "TERM": "xterm"}
os.mkdir(os.path.join(wd.path, "heaptop"), 0o700)


def run(argv, env=None, timeout=60, preexec=None):
    t0 = time.time()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env or ENV,
                       stdin=subprocess.DEVNULL, preexec_fn=preexec)
    return p.returncode, p.stderr.strip(), time.time() - t0


def refused(pid_or_args, rc_want, *needles, what, tui=True, attaching=False, extra=()):
    """heaptop record (and the TUI) refuse with one line holding every needle;
    with attaching=True the one error line follows the 'attaching' line, with
    None it may (a JVM still starting is waited for after that line)."""
    args = pid_or_args if isinstance(pid_or_args, list) else [str(pid_or_args)]
    cmds = {"heaptop record": [HEAPTOP, "record", *args, "--out", wd.file("out"), *extra]}
    if tui:
        cmds["heaptop"] = [HEAPTOP, *args, *extra]
    for name, argv in cmds.items():
        rc, err, took = run(argv)
        lines = err.splitlines()
        said_attaching = len(lines) == 2 and lines[0].startswith(f"{name}: attaching to pid")
        ok = (rc == rc_want and lines and lines[-1].startswith(name + ":")
              and all(n in lines[-1] for n in needles)
              and (len(lines) == 1 if attaching is False else
                   said_attaching if attaching else len(lines) == 1 or said_attaching))
        check(ok, f"{name} {what}: exit {rc} in {took:.2f} s: {' / '.join(lines)}")
    return took


def agentless(*flags, argfile=None, settle=1.0, **kw):
    cmd = [JAVA, *flags]
    if argfile:
        cmd.append("@" + argfile)
    cmd += ["-cp", JAR, "HeaptopDemo"]
    jvm = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    stop_at_exit(jvm)
    check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{jvm.pid}/maps").read(), 20),
          f"a JVM without the agent runs ({' '.join(flags) or 'no flags'}{' @argfile' if argfile else ''})")
    time.sleep(settle)  # past its start: these cases are not about a starting JVM
    return jvm


def has_agent(pid):
    return "libheaptop.so" in open(f"/proc/{pid}/maps").read()


# --- no such process; not a JVM ---
gone = subprocess.Popen(["true"])
gone.wait()
refused(gone.pid, 1, f"no process with pid {gone.pid}", what="<a pid that no longer runs>")
sleeper = subprocess.Popen(["sleep", "60"])
refused(sleeper.pid, 1, f"process {sleeper.pid} (sleep) is not a Java VM", what="<sleep>")
sleeper.kill()
sleeper.wait()

# --- options and --agent are checked before anything is attached ---
jvm = agentless()
refused(jvm.pid, 2, "--interval", "'3q'", what="--interval 3q", extra=("--interval", "3q"))
refused(jvm.pid, 2, "unknown option 'bogus'", what="--agent-opts bogus=1",
        extra=("--agent-opts", "bogus=1"))
refused(jvm.pid, 2, "'depth'", what="--agent-opts depth=0", extra=("--agent-opts", "depth=0"))
refused(jvm.pid, 2, "agent library /nonexistent/libheaptop.so", "No such file",
        what="--agent missing", extra=("--agent", "/nonexistent/libheaptop.so"))
check(not has_agent(jvm.pid), "nothing was attached by the refused commands")

# --- an agent file the JVM cannot load: its own reply, quoted ---
notagent = wd.file("notagent.so")
with open(notagent, "w") as f:
    f.write("not a shared library\n" * 400)
refused(jvm.pid, 1, "could not load", notagent, "the JVM replied:", "was not loaded",
        what="--agent <not a library>", tui=False, attaching=True, extra=("--agent", notagent))
check(not has_agent(jvm.pid) and jvm.poll() is None, "the JVM runs on without the agent")

# --- stopped: refused at once, nothing left pending for when it resumes ---
os.kill(jvm.pid, signal.SIGSTOP)


def proc_state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


# the signal is delivered asynchronously: a command run before the JVM's
# state is T meets a JVM still running, which sends it the attach request
check(wait_for(lambda: proc_state(jvm.pid) == "T", 10), "the JVM is stopped (state T)")
took = refused(jvm.pid, 1, "is stopped (state T)", "kill -CONT", what="<a stopped JVM>")
check(took < 3, f"a stopped JVM is refused within the timeout ({took:.2f} s)")
os.kill(jvm.pid, signal.SIGCONT)
time.sleep(1.5)
check(jvm.poll() is None and not has_agent(jvm.pid), "resumed, it runs on without the agent")
out, _ = stop_jvm(jvm)
check("Full thread dump" not in out, "and it never got a SIGQUIT (no thread dump)")

# --- attach disabled on the command line: refused before any signal ---
jvm = agentless("-XX:+DisableAttachMechanism")
refused(jvm.pid, 1, "-XX:+DisableAttachMechanism", f"-agentpath:{os.path.realpath(AGENT)}",
        what="<-XX:+DisableAttachMechanism>")
out, _ = stop_jvm(jvm)
check("Full thread dump" not in out, "it got no SIGQUIT (no thread dump in its output)")

# --- disabled where only its perf data shows it (an @argfile) ---
argfile = wd.file("args")
with open(argfile, "w") as f:
    f.write("-XX:+DisableAttachMechanism\n")
jvm = agentless(argfile=argfile)
refused(jvm.pid, 1, f"pid {jvm.pid} (HeaptopDemo) has the attach mechanism disabled (its perf "
        "data says so", what="<disabled in @argfile>", tui=False, attaching=None)
stop_jvm(jvm)

# --- a JVM that never answers: disabled where heaptop cannot see it (an
# @argfile, no perf data): SIGQUIT, no socket, the timeout's message in time ---
with open(argfile, "w") as f:
    f.write("-XX:+DisableAttachMechanism\n-XX:-UsePerfData\n")
jvm = agentless(argfile=argfile, settle=2.5)  # older than a JVM whose perf data may yet come
took = refused(jvm.pid, 1, "did not open its attach socket", "within 2000 ms",
               what="<a JVM that never answers>", tui=False, attaching=True,
               extra=("--timeout", "2000"))
check(2.0 <= took < 4.0, f"it gave up after its --timeout 2000 ms ({took:.2f} s)")
check(jvm.poll() is None, "the JVM still runs")
stop_jvm(jvm)

# --- another user's JVM ---
if os.geteuid() != 0:
    print("not root: the other-user cases need root to start a JVM as nobody; skipped")
    wd.cleanup()
    finish()
nobody = pwd.getpwnam("nobody")
other = pwd.getpwnam("daemon")
shared = tempfile.mkdtemp(prefix="heaptop-attach-users-")
os.chmod(shared, 0o755)
# --out is the user's own directory (a 0777 one is refused: others could
# replace the files): daemon's for daemon, root's for root, who goes on as
# nobody and still writes its files as root (outdir.h, the keeper)
outdir = os.path.join(shared, "out")
os.mkdir(outdir, 0o700)
os.chown(outdir, nobody.pw_uid, nobody.pw_gid)
daemon_out = os.path.join(shared, "daemon-out")
os.mkdir(daemon_out, 0o700)
os.chown(daemon_out, other.pw_uid, other.pw_gid)



jvm = agentless(cwd="/tmp", preexec_fn=as_user(nobody))
env = {k: v for k, v in ENV.items() if k != "XDG_RUNTIME_DIR"}
rc, err, _ = run([HEAPTOP, "record", str(jvm.pid), "--out", daemon_out], env=env,
                 preexec=as_user(other))
check(rc == 1 and len(err.splitlines()) == 1 and
      f"pid {jvm.pid} belongs to user nobody; run heaptop as nobody (or as root)" in err,
      f"a non-root user on another user's JVM: exit {rc}: {err}")
check(not has_agent(jvm.pid), "nothing was attached")
# root's files are root's though it goes on as nobody: a directory of
# nobody's is refused before anything is attached, naming both
rc, err, _ = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", outdir], env=env)
check(rc == 2 and len(err.splitlines()) == 1 and "belongs to user nobody, not to root" in err,
      f"root on nobody's JVM, --out a directory of nobody's: refused in one line: exit {rc}: {err}")
check(not has_agent(jvm.pid), "nothing was attached")
# root: the attach runs as nobody (a forked child), then heaptop goes on as nobody
root_out = os.path.join(shared, "root-out")
os.mkdir(root_out, 0o700)
rc, err, _ = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "2", "--out", root_out, "--top",
                  "0"], env=env)
check(rc == 0 and f"pid {jvm.pid} runs as user nobody: heaptop goes on as nobody" in err,
      f"root attaches to nobody's JVM and records: exit {rc}: {err.strip()[-300:]}")
check(has_agent(jvm.pid), "the agent is loaded in nobody's JVM")
sites = read_out(root_out)["sites"]
check(len(sites) > 0, f"the recording has sites ({len(sites)})")
check(os.stat(os.path.join(root_out, "sites.csv")).st_uid == 0,
      "the files were written as root, who ran heaptop")
# root then finds that agent again: control reaches it (and can detach it), and
# a second record reuses it rather than attaching again
rc, err, _ = run([HEAPTOP, "control", str(jvm.pid), "status"], env=env)
check(rc == 0, f"root: control PID reaches the agent it attached to nobody's JVM ({err.strip()[-200:]})")
outdir2 = os.path.join(shared, "rec2")
os.mkdir(outdir2, 0o700)
rc, err, _ = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", outdir2, "--top", "0"],
                 env=env)
check(rc == 0 and "attaching" not in err, f"root: a second record reuses it ({rc}: {err.strip()[-400:]})")
rc, err, _ = run([HEAPTOP, "control", str(jvm.pid), "detach"], env=env)
check(rc == 0, f"root: control PID detach ({err.strip()[-200:]})")
stop_jvm(jvm)
shutil.rmtree(shared, ignore_errors=True)

wd.cleanup()
finish()
