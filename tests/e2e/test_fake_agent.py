"""A viewer trusts only its own user's agent: another local user who squats
the socket directory, or serves a socket some other way, or an agent that
names a file that is not its dump, makes no viewer read or remove anything.
The attacker is a second local user the test creates (harness.LocalUser)
running tests/e2e/fake_agent --evil, which answers like an agent and reports
every heap dump asked for as written at the victim's file. The victim is this
test's user (root on CI). Needs root."""
import shutil
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_root("the attacker is a second local user")
mallory = LocalUser("htm")
wd = Workdir("fake-agent")
tools = wd.file("tools")  # the attacker's copy of the fake agent
os.mkdir(tools)
os.chmod(wd.path, 0o755)
os.chmod(tools, 0o755)
FAKE = os.path.join(tools, "fake_agent")
shutil.copy(os.environ["HEAPTOP_FAKE_AGENT"], FAKE)
os.chmod(FAKE, 0o755)
out = wd.file("out")
os.mkdir(out, 0o700)


def victim_file(name="precious.txt"):
    """A file of the victim's that a fooled viewer would remove."""
    path = wd.file(name)
    with open(path, "w") as f:
        f.write("the victim's precious data\n")
    os.chmod(path, 0o600)
    return path


def intact(path):
    try:
        with open(path) as f:
            return f.read() == "the victim's precious data\n"
    except OSError:
        return False


class Fake:
    """fake_agent --evil at endpoint, as user (a LocalUser) or as the victim."""

    def __init__(self, endpoint, pid, victim, user=None, cwd=None):
        args = [FAKE, "--evil", endpoint, str(pid), victim, "60"]
        kw = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
        self.p = user.popen(args, **kw) if user else subprocess.Popen(args, **kw)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()
        check(wait_for(lambda: any("listening" in l for l in self.lines), 10,
                       what=f"the fake agent at {endpoint}"), f"a fake agent listens at {endpoint}")

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line.strip())

    def answered(self):
        return [l for l in self.lines if l.startswith("fake_agent: answered")]

    def stop(self):
        self.p.kill()
        self.p.wait()


def record(*args, env=None):
    p = subprocess.run([HEAPTOP, "record", *args, "--out", out, "--timeout", "3000"],
                       capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stderr.strip()


def has_agent(pid):
    with open(f"/proc/{pid}/maps") as f:
        return "libheaptop" in f.read()


jvm = subprocess.Popen([JAVA, "-cp", JAR, "HeaptopDemo"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
stop_at_exit(jvm)
check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{jvm.pid}/maps").read(), 30),
      "the victim's JVM runs, without the agent")

# --- 1. the default socket directory squatted before the victim's first use
xdg = wd.file("xdg")  # stands in for /tmp: root's, sticky, open to all
os.mkdir(xdg)
os.chmod(xdg, 0o1777)
env = dict(os.environ, XDG_RUNTIME_DIR=xdg)
squat = os.path.join(xdg, "heaptop")
p = mallory.run(["sh", "-c", f"mkdir {squat} && chmod 777 {squat}"])
check(p.returncode == 0, f"the attacker made {squat}, mode 777")
victim = victim_file()
fake = Fake(f"{squat}/{jvm.pid}", 4242, victim, user=mallory)
rc, err = record(str(jvm.pid), "--seconds", "2", "--heap", env=env)
check(rc != 0 and f"belongs to user {mallory.name}" in err,
      f"record PID --heap in a squatted directory is refused, naming its owner ({err[-300:]})")
check(intact(victim), "the file the fake agent named as its dump is still there")
check(not fake.answered(), f"the fake agent was asked nothing ({fake.answered()[:3]})")
check(not has_agent(jvm.pid), "nothing was attached to the JVM meanwhile")
fake.stop()

# --- 2. a socket file of the victim's, in the victim's private directory,
# served by the attacker's process: the peer's credentials give it away. (The
# attacker binds a relative path in her own directory; root moves the socket
# files into the victim's directory and makes them the victim's: a listener
# bound to a relative name is taken to listen wherever that name is, target.c.)
mine = wd.file("mine")
os.mkdir(mine, 0o700)
theirs = os.path.join(xdg, "m")  # the attacker's own directory
p = mallory.run(["sh", "-c", f"mkdir -m 700 {theirs}"])
fake = Fake("agent", 4242, victim, user=mallory, cwd=theirs)
for suffix in (".ctl", ".events"):
    os.rename(f"{theirs}/agent{suffix}", f"{mine}/agent{suffix}")
    os.chown(f"{mine}/agent{suffix}", 0, 0)
rc, err = record("--ipc", f"{mine}/agent", "--seconds", "1", "--heap")
check(rc != 0 and f"runs as user {mallory.name}" in err,
      f"a socket served by another user's process is refused ({err[-300:]})")
check(intact(victim), "the victim's file is still there")
check(not fake.answered(), f"the fake agent was asked nothing ({fake.answered()[:3]})")
fake.stop()
for suffix in (".ctl", ".events"):
    os.unlink(f"{mine}/agent{suffix}")

# --- 3. a socket at a JVM's default path, served by another process of the
# same user: the peer's pid gives it away
xdg2 = wd.file("xdg2")
os.mkdir(xdg2, 0o700)
os.mkdir(os.path.join(xdg2, "heaptop"), 0o700)
env2 = dict(os.environ, XDG_RUNTIME_DIR=xdg2)
fake = Fake(f"{xdg2}/heaptop/{jvm.pid}", 4242, victim)
rc, err = record(str(jvm.pid), "--seconds", "1", "--heap", env=env2)
check(rc != 0 and f"served by pid {fake.p.pid}, not by pid {jvm.pid}" in err,
      f"an agent that is not the pid asked for is refused ({err[-300:]})")
check(intact(victim), "the victim's file is still there")
check(not fake.answered(), f"the fake agent was asked nothing ({fake.answered()[:3]})")
fake.stop()

# --- 4. an agent that answers (the victim's own process, at an --ipc path)
# but names a file that is not its dump
base = os.path.join(mine, "agent")
for what, victim, expect in (
        ("any file", victim_file(), "not the name an agent of pid 4242 gives"),
        ("a file with a dump's name, elsewhere", victim_file("heap-4242-1.hprof"),
         "cannot open the dump directory"),
        ("a symlink in the dump directory", None, "it is a symbolic link")):
    reported = victim
    if victim is None:  # the agent's own dump directory, with a planted link
        victim = victim_file()
        os.mkdir(base + ".dumps", 0o700)
        reported = base + ".dumps/heap-4242-1.hprof"
        os.symlink(victim, reported)
    fake = Fake(base, 4242, reported)
    rc, err = record("--ipc", base, "--seconds", "1", "--heap")
    check(rc != 0 and expect in err, f"a dump reported at {what} is not read ({err[-300:]})")
    check(intact(victim), f"... and not removed ({what})")
    check(any("HEAP_DUMP_REQ" in l for l in fake.answered()),
          "(the fake agent was asked for the dump)")
    fake.stop()
os.unlink(base + ".dumps/heap-4242-1.hprof")
os.rmdir(base + ".dumps")

# --- 5. the TUI's H, H against the same agent
victim = victim_file()
fake = Fake(base, 4242, victim)
t = Tmux("fakeagent", f"{HEAPTOP} --ipc {base} --out {out}", cols=250, rows=30)
try:
    check(t.wait_for("Innocent", 20), "the TUI shows the agent's hello")
    t.take_snapshot()
    said = t.wait_for("which is not the name an agent", 20)
    check(said, f"H, H: the TUI says the reported dump is not read ({t.status_line()[:200]})")
    check(intact(victim), "H, H: the victim's file is still there")
finally:
    t.kill()
    fake.stop()

stop_jvm(jvm)
wd.cleanup()
finish()
