"""The agent listens on TCP only when asked (listen=[HOST:]PORT), on loopback
unless an address is given, and viewers reach it with `--ipc tcp://HOST:PORT
--key BASE.key` (test_tcp_key: what a peer without the key gets).
The truths: the kernel's own table of listening sockets (/proc/net/tcp and
tcp6, matched to the JVM's descriptors by inode), the workload's source, and
the JVM's stderr, which names every viewer that came in over TCP."""
import re
import socket
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from ports import free_pair  # noqa: E402

wd = Workdir("tcp")


def listening(pid):
    """(address, port) of every TCP socket the process listens on."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            m = re.match(r"socket:\[(\d+)\]", os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
        if m:
            inodes.add(m.group(1))
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                    addr, port = cols[1].split(":")
                    out.append((addr, int(port, 16)))
    return out


def ctl(target, *words, key=None):
    key = key or (["--key", wd.base + ".key"] if target.startswith("tcp://") else [])
    return subprocess.run([HEAPTOP, "control", "--ipc", target, *key, *words],
                          capture_output=True, text=True, timeout=60)


# 1. Not asked: no TCP at all.
stop1 = wd.file("stop1")
plain = start_jvm("StressWorkload", [1, 600000, 0, stop1], agent_opts=f"ipc={wd.base}p")
check(wait_agent(plain, wd.base + "p"), "an agent without listen= starts")
check(listening(plain.pid) == [], f"without listen= the JVM listens on no TCP port "
      f"({listening(plain.pid)})")
touch(stop1)
plain.communicate(timeout=60)

# 2. Asked: loopback, PORT and PORT+1, and viewers get the same data.
port, _ = free_pair()
stop2 = wd.file("stop2")
jvm = start_jvm("StressWorkload", [1, 600000, 0, stop2], agent_opts=f"ipc={wd.base},listen={port}")
check(wait_agent(jvm, wd.base), "an agent with listen=PORT starts")
check(wait_for(lambda: len(listening(jvm.pid)) == 2, 10), "it listens on two TCP ports")
socks = sorted(listening(jvm.pid), key=lambda x: x[1])
check(socks == [("0100007F", port), ("0100007F", port + 1)],
      f"on 127.0.0.1 only, at {port} (control) and {port + 1} (stream): {socks}")
url = f"tcp://127.0.0.1:{port}"
p = ctl(url, "status")
check(p.returncode == 0 and f"listen=127.0.0.1:{port}" in p.stdout and f"pid {jvm.pid}" in p.stdout,
      f"control over TCP answers, and its options say listen ({p.stdout.strip()[:160]} "
      f"{p.stderr.strip()})")
out = wd.file("rec")
r = subprocess.run([HEAPTOP, "record", "--ipc", f"tcp://localhost:{port}", "--key", wd.base + ".key",
                    "--seconds", "2", "--out", out, "--top", "0"], capture_output=True, text=True,
                   timeout=60)
sites = read_csv(os.path.join(out, "sites.csv"))[1] if r.returncode == 0 else []
check(any(s["frame"].startswith("StressWorkload.work:") for s in sites),
      f"record over TCP gets the workload's sites ({r.returncode}: {r.stderr.strip()[-160:]})")
check(ctl(f"tcp://127.0.0.1:{port + 7}", "status").returncode == 1,
      "a port nobody listens on: an error, non-zero exit")
p = ctl("tcp://10.0.0.1.5:80", "status")
check(p.returncode == 2 and "not a TCP endpoint" in p.stderr,
      f"a malformed endpoint: one line naming it ({p.stderr.strip()})")

# 3. Its port taken: the JVM runs, says so, and local viewers still connect.
stop3 = wd.file("stop3")
busy = start_jvm("StressWorkload", [1, 600000, 0, stop3],
                 agent_opts=f"ipc={wd.base}b,listen=127.0.0.1:{port}")
check(wait_agent(busy, wd.base + "b"), "a second agent asked for the same port starts")
p = ctl(wd.base + "b", "status")
check(p.returncode == 0, f"and answers on its local socket ({p.returncode}: {p.stderr.strip()[-300:]})")
check(f"TCP: not listening: cannot listen on tcp://127.0.0.1:{port}" in p.stdout,
      f"heaptop control status says TCP is not listening, and why ({p.stdout.strip()[-200:]})")
touch(stop3)
_, err = busy.communicate(timeout=60)
check(f"cannot listen on tcp://127.0.0.1:{port}" in err and "can still connect" in err,
      f"it says the port was taken ({[l for l in err.splitlines() if 'heaptop' in l][:2]})")

touch(stop2)
_, err = jvm.communicate(timeout=60)
said = [l for l in err.splitlines() if "heaptop" in l]
check(any("listening on tcp://127.0.0.1:" in l and "prove they hold the key" in l for l in said),
      f"the JVM's log says it listens on TCP, for whom ({said[:1]})")
check(sum("connected over TCP from 127.0.0.1" in l for l in said) >= 2,
      f"and names each viewer that came over TCP ({len(said)} lines)")
wd.cleanup()
finish()
