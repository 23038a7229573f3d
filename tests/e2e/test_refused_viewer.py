"""A refused viewer must not corrupt the agent's count of viewers.

nng 1.5.2 reports the removal of a pipe the agent refused in ADD_PRE although it
never reported it added; the agent used to count that removal, its viewer count
went negative and it then stopped publishing sample events for everyone. The
count is checked against the truth the test knows: how many viewers it has
running (`heaptop control status` reports the agent's count; control itself is
no viewer). Needs root to run a viewer as another user; skipped (77) otherwise."""
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

if os.geteuid() != 0 or not shutil.which("setpriv"):
    print("not root (or no setpriv): skipped")
    sys.exit(77)

wd = Workdir("refused")
jvm = start_jvm("StressWorkload", [1, 120000, 0], agent_opts=f"ipc={wd.base}")
check(wait_socket(wd.base), "agent socket appears")

peer = wd.file("sp_peer")
shutil.copy(os.environ["HEAPTOP_SP_PEER"], peer)
os.chmod(peer, 0o755)


def viewers():
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=30)
    m = re.search(r"(\d+) viewers", p.stdout)
    return int(m.group(1)) if m else -1


def start_viewer(label):
    return subprocess.Popen([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file(label),
                             "--top", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


check(wait_for(lambda: viewers() == 0, 10), f"no viewer at first ({viewers()})")
first = start_viewer("first")
check(wait_for(lambda: viewers() == 1, 10), f"one viewer counted while one runs ({viewers()})")

# Open the door on purpose, for as long as the refused peers knock: only the
# agent's peer-uid check is left to refuse them. (heaptop itself would not
# even dial into a directory others may enter, trust.h: a bare nng peer
# subscribes to the stream and asks on the control socket instead.)
os.chmod(wd.path, 0o755)
for suffix in (".ctl", ".events"):
    os.chmod(wd.base + suffix, 0o666)
for i in range(2):
    for mode, suffix in (("sub", ".events"), ("req", ".ctl")):
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", peer, mode,
                            f"ipc://{wd.base}{suffix}", "1"], capture_output=True, text=True,
                           timeout=30)
        got = p.stdout.strip()
        check(got.startswith("0 messages") or got.startswith("no reply"),
              f"peer {i + 1} running as uid 65534 gets nothing on {suffix} ({got})")
os.chmod(wd.path, 0o700)

# The refused ones never counted, so their removal must not count either.
check(wait_for(lambda: viewers() == 1, 10), f"still one viewer after the refusals ({viewers()})")
second = start_viewer("second")
check(wait_for(lambda: viewers() == 2, 10), f"a second viewer makes two ({viewers()})")
for v in (first, second):
    v.send_signal(signal.SIGINT)
    _, err = v.communicate(timeout=30)
    check(v.returncode == 0, f"a legitimate viewer ran and stopped ({err.strip()[-100:]})")
check(wait_for(lambda: viewers() == 0, 10), f"none once both left ({viewers()})")

jvm.kill()
_, err = jvm.communicate()
check("refused a viewer running as uid 65534" in err, "the agent says it refused uid 65534")
wd.cleanup()
finish()
