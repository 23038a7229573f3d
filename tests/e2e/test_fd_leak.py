"""Viewers killed while the JVM is stopped must not leak the JVM's descriptors.

Five times: stop the JVM, start a viewer (it connects into the listeners'
backlog), kill it, continue the JVM. Each dead connection wedges an nng 1.5.2
listener (issue #1518); the watchdog restarts it, and nng leaves the old
listening socket and every connection accepted while it was deaf open. The JVM
must get back to the descriptors it had before, and still serve a viewer."""
import re
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403


def fds(pid):
    out = {}
    for f in os.listdir(f"/proc/{pid}/fd"):
        try:
            out[int(f)] = os.readlink(f"/proc/{pid}/fd/{f}")
        except OSError:
            pass
    return out


def bound_inodes(base):
    """Inodes of the unix sockets bound to the agent's paths: listeners and the
    connections they accepted (the watchdog's own client sockets are unnamed)."""
    paths = {base + ".ctl", base + ".events"}
    inodes = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[7] in paths:
                inodes.add(int(parts[6]))
    return inodes


def agent_sockets(pid, base):
    inodes = bound_inodes(base)
    return sorted(fd for fd, link in fds(pid).items()
                  if link.startswith("socket:[") and int(link[8:-1]) in inodes)


def has_socket(pid):
    try:
        return any(l.startswith("socket:") for l in fds(pid).values())
    except OSError:
        return False


wd = Workdir("fdleak")
jvm = start_jvm("StressWorkload", [1, 300000, 0], agent_opts=f"ipc={wd.base}")
check(wait_socket(wd.base), "agent socket appears")
time.sleep(2)  # the watchdog's first probes have run
base_total = min(len(fds(jvm.pid)) for _ in range(10) if time.sleep(0.1) is None)
# the watchdog's probe, once a second, is accepted for a moment: a third
# socket bound to the paths while it lasts (seen on CI)
wait_for(lambda: len(agent_sockets(jvm.pid, wd.base)) == 2, 10, what="the listeners alone")
base_socks = agent_sockets(jvm.pid, wd.base)
print(f"before: {base_total} descriptors, agent sockets {base_socks}")
check(len(base_socks) == 2, "two listening sockets before the hang-ups")

for i in range(5):
    jvm.send_signal(signal.SIGSTOP)
    v = subprocess.Popen([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file("o"), "--timeout", "1500"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check(wait_for(lambda: has_socket(v.pid), 10), f"cycle {i + 1}: viewer connected into the backlog")
    v.kill()
    v.wait()
    jvm.send_signal(signal.SIGCONT)
    time.sleep(0.5)  # let the JVM run between cycles, as a person would
    print(f"cycle {i + 1}: {len(fds(jvm.pid))} descriptors, agent sockets {agent_sockets(jvm.pid, wd.base)}")

start = time.time()
back = wait_for(lambda: len(agent_sockets(jvm.pid, wd.base)) == 2 and len(fds(jvm.pid)) <= base_total,
                timeout=45, step=0.5)
socks = agent_sockets(jvm.pid, wd.base)
check(back, f"descriptors back to {base_total} ({len(fds(jvm.pid))}) with two agent sockets "
            f"({len(socks)}: {socks}) {time.time() - start:.1f} s after the last SIGCONT")

p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file("last"), "--seconds", "2",
                    "--top", "0", "--timeout", "5000"], capture_output=True, text=True, timeout=60)
rows = read_csv(wd.file("last/sites.csv"))[1] if os.path.exists(wd.file("last/sites.csv")) else []
check(p.returncode == 0 and "time is up" in p.stderr and rows,
      f"a new viewer is served afterwards ({p.stderr.strip().splitlines()[0] if p.stderr else p.returncode})")

jvm.send_signal(signal.SIGTERM)
_, err = jvm.communicate(timeout=60)
print("agent said:", [l for l in err.splitlines() if l.startswith("heaptop:")])
check("fatal error" not in err.lower(), "no JVM crash")
wd.cleanup()
finish()
