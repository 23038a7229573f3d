"""A refused viewer must not turn the sample stream off for the viewers after it.

nng 1.5.2 reports the removal of a pipe the agent refused in ADD_PRE although it
never reported it added; the agent used to count that removal, its viewer count
went negative and it stopped publishing sample events for everyone. Needs root
to run a viewer as another user; skipped (77) otherwise."""
import re
import shutil
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

# Open the door on purpose: only the agent's peer-uid check is left to refuse.
os.chmod(wd.path, 0o755)
for suffix in (".ctl", ".events"):
    os.chmod(wd.base + suffix, 0o666)
binary = wd.file("heaptop")
shutil.copy(HEAPTOP, binary)
os.chmod(binary, 0o755)


def record(label):
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file(label), "--seconds", "2",
                        "--top", "0"], capture_output=True, text=True, timeout=60)
    m = re.search(r"(\d+) sample events received", p.stderr)
    return p.returncode, int(m.group(1)) if m else -1, p.stderr.strip()


rc, before, err = record("before")
check(rc == 0 and before > 0, f"a viewer before any refusal receives sample events ({before})")

for i in range(2):
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "record",
                        "--ipc", wd.base, "--out", "/tmp", "--timeout", "1500", "--top", "0"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode != 0, f"viewer {i + 1} running as uid 65534 is refused")

for i in range(2):
    rc, n, err = record(f"after{i}")
    check(rc == 0 and n > 0, f"legitimate viewer {i + 1} after the refusals receives sample events "
                             f"({n}; {err.splitlines()[0] if err else ''})")

jvm.kill()
_, err = jvm.communicate()
check("refused a viewer running as uid 65534" in err, "the agent says it refused uid 65534")
wd.cleanup()
finish()
