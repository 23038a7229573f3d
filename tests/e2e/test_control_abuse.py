"""A client that misbehaves on the control socket gets an error reply or is
dropped; the agent keeps serving everyone else and the JVM keeps running.
Raw SP connections (nng's IPC framing: an 8-byte handshake, then frames of a
type byte, a big-endian u64 length and the data) send what heaptop never
would: a request far past the agent's 64 KiB limit, a frame cut short, a
flood of requests whose replies are never read, hundreds of idle connections.
After each, a well-behaved `heaptop control status` must answer promptly, and
the workload's samples keep coming (the truth: the JVM's own allocation, as
the agent's counters show it to a second client)."""
import re
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

with open(os.path.join(os.path.dirname(__file__), "..", "..", "common", "protocol.h")) as f:
    VERSION = int(re.search(r"#define HT_PROTOCOL_VERSION (\d+)", f.read()).group(1))
MAGIC, HELLO = 0x504F5448, 1

wd = Workdir("abuse")
stop = wd.file("stop")
jvm = start_jvm("StressWorkload", [1, 600000, 0, stop], agent_opts=f"ipc={wd.base}")
check(wait_agent(jvm, wd.base), "the agent listens")


def status():
    """(seconds taken, samples) from a well-behaved client."""
    t = time.time()
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=60)
    m = re.search(r"^samples (\d+)", p.stdout, re.M)  # not "CPU samples"
    return time.time() - t, (int(m.group(1)) if p.returncode == 0 and m else None)


def sp_connect():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(wd.base + ".ctl")
    s.sendall(bytes([0, ord("S"), ord("P"), 0, 0, 0x30, 0, 0]))  # REQ0
    got = b""
    while len(got) < 8:
        chunk = s.recv(8 - len(got))
        if not chunk:
            break
        got += chunk
    return s


def request(req_id, body):
    frame = struct.pack(">I", 0x80000000 | req_id) + body
    return b"\x01" + struct.pack(">Q", len(frame)) + frame


def hello(seq):
    return struct.pack("<IHHIQ", MAGIC, VERSION, HELLO, 0, seq)


def dropped(s, timeout=10):
    """The agent closed this connection (EOF or reset) within timeout."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def still_serving(what, before):
    """Answered at once, and the counts move on (telemetry is read once a second)."""
    took, samples = status()
    check(samples is not None and took < 1.0,
          f"{what}: another client is answered at once ({took:.2f} s)")
    later = [samples]

    def moved():
        later[0] = status()[1]
        return later[0] is not None and before is not None and later[0] > before
    check(wait_for(moved, 5, step=0.2), f"{what}: the agent still counts the JVM's samples "
          f"({before} -> {later[0]})")
    return later[0]


check(wait_for(lambda: (status()[1] or 0) > 0, 60), "the workload is sampled")
n = status()[1]

# 1. A request sixteen times past the limit: the connection is dropped.
s = sp_connect()
try:
    s.sendall(request(1, b"\x00" * (1 << 20)))
except (BrokenPipeError, ConnectionResetError):
    pass
check(dropped(s), "an oversized request: the agent drops the connection")
s.close()
n = still_serving("after an oversized request", n)

# 2. A frame announced at 100 bytes that stops after 10, then silence.
s = sp_connect()
s.sendall(b"\x01" + struct.pack(">Q", 100) + b"\x00" * 10)
n = still_serving("with a frame cut short pending", n)
s.close()

# 3. Garbage where the handshake belongs.
s = socket.socket(socket.AF_UNIX)
s.connect(wd.base + ".ctl")
s.sendall(b"GET / HTTP/1.1\r\n\r\n")
check(dropped(s), "a bad handshake: the agent drops the connection")
s.close()

# 4. A flood: 20,000 requests on one connection, no reply ever read.
s = sp_connect()
s.settimeout(0.5)
sent = 0
start = time.time()
try:
    for i in range(20000):
        s.sendall(request(i + 1, hello(i + 1)))
        sent += 1
except (socket.timeout, BrokenPipeError, ConnectionResetError):
    pass
print(f"flood: {sent} requests sent in {time.time() - start:.1f} s")
n = still_serving("during a flood of unread requests", n)
time.sleep(0.5)
n = still_serving("still during the flood", n)
s.close()
n = still_serving("after the flood", n)

# 5. Hundreds of idle connections.
idle = []
for _ in range(300):
    try:
        idle.append(sp_connect())
    except OSError:
        break
check(len(idle) == 300, f"300 idle connections are accepted ({len(idle)})")
n = still_serving("with 300 idle connections open", n)
for s in idle:
    s.close()
n = still_serving("after they close", n)

check(jvm.poll() is None, "the JVM keeps running")
touch(stop)
jvm.communicate(timeout=60)
check(jvm.returncode == 0, f"and ends normally ({jvm.returncode})")
wd.cleanup()
finish()
