"""An attach socket another user left at a JVM's attach path.

HotSpot's attach socket is /tmp/.java_pid<pid>. A JVM killed with SIGKILL
leaves it behind, and pids wrap (pid_max is 32768 on many hosts: the CI
machine reused such a pid within one test run). A new JVM removes its pid's
leftover when it starts, but in sticky /tmp it cannot remove one that another
user owns: root's, at the path of nobody's JVM. Nothing listens there, and
heaptop gave up with "Permission denied" (as nobody, for root) on it. Now
heaptop removes the leftover when it can (as root) and attaches; when it
cannot (as nobody) it names it in one line.

The leftover is made here the way a killed JVM leaves it: a Unix socket bound
at the path and closed, mode 0600, owned by root. A socket something listens
on (another JVM's, where containers share a /tmp) is never removed, whoever
owns it. Needs root (a JVM run as nobody); skipped otherwise.
"""
import atexit
import pwd
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("attach-stale")
ENV = {**os.environ, "XDG_RUNTIME_DIR": wd.path, "TERM": "xterm"}
os.mkdir(os.path.join(wd.path, "heaptop"), 0o700)


def run(argv, env=None, preexec=None):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env or ENV,
                       stdin=subprocess.DEVNULL, preexec_fn=preexec)
    return p.returncode, p.stderr.strip()


# sockets planted here, removed at exit if they are still root's
planted = []


@atexit.register
def remove_planted():
    for p in planted:
        if os.path.lexists(p) and os.lstat(p).st_uid == 0:
            os.unlink(p)


def agentless(**kw):
    jvm = subprocess.Popen([JAVA, "-cp", JAR, "HeaptopDemo"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, **kw)
    stop_at_exit(jvm)
    check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{jvm.pid}/maps").read(), 20),
          "a JVM without the agent runs")
    # past its start: a JVM still starting is another case (waited for)
    user = pwd.getpwuid(os.stat(f"/proc/{jvm.pid}").st_uid).pw_name
    check(wait_for(lambda: os.path.exists(f"/tmp/hsperfdata_{user}/{jvm.pid}"), 20),
          "its perf data is there")
    return jvm


def leave_socket(pid, owner=None, listening=False):
    """What a JVM killed with SIGKILL leaves: its socket, bound and closed.
    listening: kept open and listening instead (another JVM's live socket,
    where containers share a /tmp); returned with the path."""
    path = f"/tmp/.java_pid{pid}"
    if os.path.lexists(path):
        os.unlink(path)
    planted.append(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    if listening:
        s.listen(4)
    else:
        s.close()
    os.chmod(path, 0o600)
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)
    return (path, s) if listening else path


def refused_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return False
    except ConnectionRefusedError:
        return True
    finally:
        s.close()


def has_agent(pid):
    return "libheaptop.so" in open(f"/proc/{pid}/maps").read()


def live_socket(path, uid):
    st = os.lstat(path) if os.path.lexists(path) else None
    return st is not None and st.st_uid == uid and not refused_connect(path)


if os.geteuid() != 0:
    print("not root: the other-owner case needs root to start a JVM as nobody; skipped")
    wd.cleanup()
    sys.exit(77)

# --- root left it, at the path of nobody's JVM ---
nobody = pwd.getpwnam("nobody")
root = pwd.getpwuid(0)



shared = tempfile.mkdtemp(prefix="heaptop-attach-stale-")
os.chmod(shared, 0o755)
# the files are the invoking user's: root's recordings go to a directory of
# root's, nobody's to one of nobody's
outdir = os.path.join(shared, "out")
os.mkdir(outdir, 0o700)
nobody_out = os.path.join(shared, "out-nobody")
os.mkdir(nobody_out)
os.chown(nobody_out, nobody.pw_uid, nobody.pw_gid)
jvm = agentless(cwd="/tmp", preexec_fn=as_user(nobody))
env = {k: v for k, v in ENV.items() if k != "XDG_RUNTIME_DIR"}

# a live socket of root's at the path (another JVM's, where containers share
# a /tmp): never removed
path, listener = leave_socket(jvm.pid, owner=root, listening=True)
rc, err = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", outdir], env=env)
last = err.splitlines()[-1] if err else ""
check(rc == 1 and f"pid {jvm.pid}'s attach socket {path} belongs to root, not to the JVM's user "
      "nobody, and something listens on it: heaptop leaves it" in last,
      f"root leaves a live socket of another user's alone, in one line: exit {rc}: {err}")
check(os.path.lexists(path) and not refused_connect(path), "it is still there, and answers")
check(not has_agent(jvm.pid) and jvm.poll() is None, "nothing was attached; the JVM runs on")

# its listener gone, the socket is a leftover: nobody may not even connect to
# it to tell, and says so
listener.close()
check(refused_connect(path), "the leftover socket refuses connections (nobody listens)")
rc, err = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", nobody_out], env=env,
              preexec=as_user(nobody))
last = err.splitlines()[-1] if err else ""
check(rc == 1 and f"pid {jvm.pid}'s attach socket {path} belongs to root, not to the JVM's user "
      "nobody, and heaptop may not connect to it" in last and "remove it" in last,
      f"nobody cannot tell or remove root's leftover: one line naming it: exit {rc}: {err}")
check(not has_agent(jvm.pid) and jvm.poll() is None, "nothing was attached; the JVM runs on")
check(os.path.lexists(path) and os.lstat(path).st_uid == 0, "and the leftover is still there")

# root may: it removes the leftover and attaches as nobody
rc, err = run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", outdir, "--top", "0"],
              env=env)
check(rc == 0, f"root removes it and attaches as nobody: exit {rc}: {err[-300:]}")
check(has_agent(jvm.pid), "the agent is loaded in nobody's JVM")
check(len(read_out(outdir)["sites"]) > 0, "and the recording has sites")
check(live_socket(path, nobody.pw_uid), "the socket at the path is now nobody's JVM's own")
stop_jvm(jvm)
check(not os.path.lexists(path), "stopped normally, the JVM removed its socket")
shutil.rmtree(shared, ignore_errors=True)

wd.cleanup()
finish()
