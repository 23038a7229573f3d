"""`--ipc PATH | PID` means the same to the TUI, `record` and `control` (one
resolver, tui/target.c): every wrong target is one line naming what is wrong,
a non-zero exit, at once (the TUI used to sit at [connecting] forever); stale
socket files are removed and said so; PATH.ctl and PATH.events mean PATH."""
import shutil
import socket
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

wd = Workdir("target")
ENV = {**os.environ, "XDG_RUNTIME_DIR": wd.path}  # default socket paths inside wd
DEFAULT_DIR = os.path.join(wd.path, "heaptop")
os.mkdir(DEFAULT_DIR, 0o700)
COMMANDS = {
    "heaptop": lambda target: [HEAPTOP, *target],
    "heaptop record": lambda target: [HEAPTOP, "record", *target, "--out", wd.file("out")],
    "heaptop control": lambda target: [HEAPTOP, "control", *target, "status"],
}


def run(argv):
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=ENV,
                           stdin=subprocess.DEVNULL)
        rc, err, run.out = p.returncode, p.stderr.strip(), p.stdout
    except subprocess.TimeoutExpired as e:
        rc, err, run.out = None, f"(still running after 60 s) {e.stderr or ''}", ""
    return rc, err, time.time() - t0


def each_command(target, rc_want, *needles, name=None, before=None, after=None, only=None):
    """Every command (or those `only` names) refuses `target` with one line
    holding every needle. "At once" is that line, not a time: a command that
    waited for an agent would end in its timeout's message ('did not answer')
    or, the TUI, not at all."""
    for cmd, argv in COMMANDS.items():
        if only and cmd not in only:
            continue
        if before:
            before()
        rc, err, took = run(argv(target))
        ok = (rc == rc_want and len(err.splitlines()) == 1 and err.startswith(cmd + ":")
              and all(n in err for n in needles))
        check(ok, f"{cmd} {name or ' '.join(target)}: exit {rc} in {took:.2f} s: {err}")
        if after:
            after()


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


# Not a process id at all.
for bad in ("99999999999999999999", "12ab", "0"):
    each_command([bad], 2, f"'{bad}' is not a process id")

# No such process.
gone = dead_pid()
each_command([str(gone)], 1, f"no process with pid {gone}", name="<a pid that no longer runs>")

# A process that is not a JVM (this test).
each_command([str(os.getpid())], 1, f"process {os.getpid()} (", "is not a Java VM",
             name="<this python>")

# A JVM without heaptop's agent: heaptop and heaptop record attach to it
# (test_attach.py); heaptop control does not, and says so and how to start it
# with the agent.
plain = start_jvm("StressWorkload", [1, 600000, 0])  # killed below
check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{plain.pid}/maps").read(), 20), "a JVM without the agent runs")
each_command([str(plain.pid)], 1, f"pid {plain.pid} (java) is a JVM without heaptop's agent",
             "heaptop control does not", f"-agentpath:{os.path.realpath(AGENT)}",
             name="<a JVM without the agent>", only=("heaptop control",))
plain.kill()
plain.communicate()

# A JVM whose agent uses its own socket path, named by pid: heaptop finds the
# path on the JVM's command line and connects there.
jvm = start_jvm("StressWorkload", [1, 600000, 0], agent_opts=f"ipc={wd.base}")  # killed below
check(wait_socket(wd.base), "agent socket appears")
rc, err, _ = run([HEAPTOP, "control", str(jvm.pid), "status"])
check(rc == 0 and f"ipc={wd.base}" in run.out,
      f"control PID reaches an agent started with ipc=PATH ({err or run.out.splitlines()[0]})")

# PATH.ctl and PATH.events mean PATH.
for suffix in (".ctl", ".events"):
    rc, err, _ = run([HEAPTOP, "control", "--ipc", wd.base + suffix, "status"])
    check(rc == 0 and f"pid {jvm.pid}, main StressWorkload" in run.out,
          f"control --ipc PATH{suffix} reaches the agent ({err or run.out.splitlines()[0]})")
if shutil.which("tmux"):
    t = Tmux(f"target-{os.getpid()}", f"{HEAPTOP} --ipc {wd.base}.events")
    try:
        check(t.wait_for("[live]", 15) is not None, "the TUI with --ipc PATH.events connects")
        t.keys("q")
    finally:
        t.kill()

# --ipc at a regular file, and a regular file where PATH.ctl should be.
plainfile = wd.file("notes.txt")
touch(plainfile)
each_command(["--ipc", plainfile], 1, "is a regular file, not a socket")
touch(wd.file("fake.ctl"))
each_command(["--ipc", wd.file("fake")], 1, f"{wd.file('fake.ctl')} is a regular file, not a socket")

# Nothing at PATH (yet): an error, unless the TUI is told to --wait.
each_command(["--ipc", wd.file("nobody")], 1, f"no heaptop agent at {wd.file('nobody')}", "-agentpath:")
rc, err, _ = run([HEAPTOP, "--ipc", wd.file("nobody")])
check("--wait" in err, f"the TUI says --wait would wait: {err}")
# --wait does not wait for what cannot come: a pid that no longer runs
rc, err, took = run([HEAPTOP, "--wait", str(gone)])
check(rc == 1 and f"no process with pid {gone}" in err, f"heaptop --wait on a dead pid exits ({took:.2f} s): {err}")

# Socket files left at a pid's default path by a JVM that no longer runs:
# removed, and said so, by each command.
stale = dead_pid()
stale_base = os.path.join(DEFAULT_DIR, str(stale))


def leave_stale_files():
    for suffix in (".ctl", ".events"):
        if os.path.exists(stale_base + suffix):
            os.unlink(stale_base + suffix)  # (only if the previous command left them)
        s = socket.socket(socket.AF_UNIX)
        s.bind(stale_base + suffix)  # bound, never listening, closed: what SIGKILL leaves
        s.close()


def stale_files_gone():
    check(not os.path.exists(stale_base + ".ctl") and not os.path.exists(stale_base + ".events"),
          "  and the stale files are gone")


each_command([str(stale)], 1, f"removed stale socket files left by pid {stale}, which no longer runs",
             name="<stale files of a dead pid>", before=leave_stale_files, after=stale_files_gone)

jvm.kill()
jvm.communicate()
wd.cleanup()
finish()
