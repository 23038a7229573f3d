"""Sockets are private: a 0700 directory, 0600 sockets, and a viewer running as
another user is refused even when file permissions would let it in. Needs root
to act as another user; skipped (77) otherwise."""
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("privacy")
default_dir = None
jvm = start_jvm("StressWorkload", [1, 20000, 0], agent_opts=f"ipc={wd.base}")
check(wait_socket(wd.base), "agent socket appears")
check(stat.S_IMODE(os.stat(wd.path).st_mode) == 0o700, "socket directory is 0700")
for suffix in (".ctl", ".events"):
    mode = stat.S_IMODE(os.stat(wd.base + suffix).st_mode)
    check(mode == 0o600, f"{suffix} socket is 0600 (got {mode:o})")

if os.geteuid() != 0 or not shutil.which("setpriv"):
    jvm.kill()
    print("skipped: the other-user check needs root and setpriv "
          f"(euid {os.geteuid()}, setpriv {shutil.which('setpriv') or 'missing'})")
    wd.cleanup()
    sys.exit(1 if failures else 77)

# Open the door on purpose: only the agent's peer-uid check is left to refuse.
os.chmod(wd.path, 0o755)
for suffix in (".ctl", ".events"):
    os.chmod(wd.base + suffix, 0o666)
binary, peer = wd.file("heaptop"), wd.file("sp_peer")
shutil.copy(HEAPTOP, binary)
shutil.copy(os.environ["HEAPTOP_SP_PEER"], peer)
os.chmod(binary, 0o755)
os.chmod(peer, 0o755)
as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# heaptop itself trusts no agent in a directory others may enter (trust.h) ...
p = subprocess.run(as_nobody + [binary, "record", "--ipc", wd.base, "--out", "/tmp", "--timeout",
                    "2000", "--top", "0"], capture_output=True, text=True, timeout=30)
check(p.returncode != 0 and "belongs to user root" in p.stderr,
      f"a viewer running as uid 65534 gets nothing ({p.stderr.strip()[:160]})")
# ... so the agent's own check is tried with a bare nng peer, which has none
for suffix in (".ctl", ".events"):
    p = subprocess.run(as_nobody + [peer, "req" if suffix == ".ctl" else "sub",
                                    f"ipc://{wd.base}{suffix}", "2"],
                       capture_output=True, text=True, timeout=30)
    got = p.stdout.strip()
    check(got.startswith("no reply") if suffix == ".ctl" else got.startswith("0 messages"),
          f"a bare peer running as uid 65534 on {suffix} gets nothing ({got})")
jvm.kill()
_, err = jvm.communicate()
check("refused a viewer running as uid 65534" in err, "the agent says it refused uid 65534")
# The agent does not serve in a directory others can enter; the JVM runs on.
p = start_jvm("StressWorkload", [1, 100, 0], agent_opts=f"ipc={wd.base}2")
_, err = p.communicate(timeout=60)
check(p.returncode == 0 and "0700" in err and "the JVM runs without it" in err
      and not os.path.exists(wd.base + "2.ctl"),
      f"an open socket directory is refused at start, and the JVM runs ({err.strip()[-200:]})")
wd.cleanup()
finish()
