"""Control requests against a live JVM: status, set interval, pause, resume; a
resent request (same id) is answered from memory, not run twice; a malformed
request gets an ERROR reply and the agent carries on."""
import socket
import struct
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

MAGIC, PAUSE, RESUME, ACK, ERROR = 0x504F5448, 4, 5, 18, 19
# The protocol version the agent speaks, from the header both ends build with.
with open(os.path.join(os.path.dirname(__file__), "..", "..", "common", "protocol.h")) as f:
    VERSION = int(re.search(r"#define HT_PROTOCOL_VERSION (\d+)", f.read()).group(1))


def ctl(*words):
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, *words], capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stdout + p.stderr


def samples():
    rc, out = ctl("status")
    m = re.search(r"samples (\d+)", out)
    return int(m.group(1)) if m else -1


def raw_request(payload):
    """One request over a raw SP connection (nng IPC framing); returns the reply body."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(wd.base + ".ctl")
    s.send(bytes([0, ord("S"), ord("P"), 0, 0, 0x30, 0, 0]))
    s.recv(8)
    frame = struct.pack(">I", 0x80000001) + payload
    s.send(b"\x01" + struct.pack(">Q", len(frame)) + frame)
    head = b""
    while len(head) < 9:
        head += s.recv(9 - len(head))
    n = struct.unpack(">Q", head[1:])[0]
    body = b""
    while len(body) < n:
        body += s.recv(n - len(body))
    s.close()
    return body[4:]  # drop the REQ id


def msg(mtype, seq, body=b""):
    return struct.pack("<IHHIQ", MAGIC, VERSION, mtype, len(body), seq) + body


wd = Workdir("control")
jvm = start_jvm("StressWorkload", [2, 25000, 0], agent_opts=f"ipc={wd.base},budget=off")
check(wait_socket(wd.base), "agent socket appears")
time.sleep(1.5)
rc, out = ctl("status")
check(rc == 0 and "interval 524288 bytes" in out and "sampling on" in out and "StressWorkload" in out,
      f"status: {out.strip()}")
rc, out = ctl("interval", "64k")
check(rc == 0 and "interval set to 65536" in out, f"interval 64k: {out.strip()}")
time.sleep(1.2)
rc, out = ctl("status")
check("interval 65536 bytes" in out, "status shows the new interval")
rc, out = ctl("interval", "3g")
check(rc == 2 and "too large" in out and "2g-1" in out,
      f"an interval the JVM cannot take is refused before asking: {out.strip()}")
reply = raw_request(msg(3, 31337, struct.pack("<Q", 3 << 30)))  # the agent checks it too
check(struct.unpack("<H", reply[6:8])[0] == ERROR and b"out of range" in reply,
      "the agent refuses 3g itself")
rc, out = ctl("pause")
check(rc == 0 and "paused" in out, f"pause: {out.strip()}")
time.sleep(1.5)
a = samples()
time.sleep(2.0)
b = samples()
check(a > 0 and a == b, f"no samples while paused ({a} -> {b})")
rc, out = ctl("resume")
check(rc == 0 and "resumed" in out, f"resume: {out.strip()}")
time.sleep(2.0)
c = samples()
check(c > b, f"sampling again after resume ({b} -> {c})")

# REQ resends a request after a reconnect: the same id must not run twice.
reply = raw_request(msg(PAUSE, 424242))
check(struct.unpack("<H", reply[6:8])[0] == ACK, "raw pause acknowledged")
ctl("resume")
reply = raw_request(msg(PAUSE, 424242))  # the "resend"
check(struct.unpack("<H", reply[6:8])[0] == ACK, "the resend gets the remembered answer")
time.sleep(1.5)
d = samples()
time.sleep(1.5)
e = samples()
check(e > d, f"the resent pause did not run again: sampling goes on ({d} -> {e})")

reply = raw_request(b"\x00" * 7)
check(len(reply) >= 20 and struct.unpack("<H", reply[6:8])[0] == ERROR, "garbage gets an ERROR reply")
reply = raw_request(msg(3, 5, b"\x01"))  # SET_INTERVAL with a truncated body
check(struct.unpack("<H", reply[6:8])[0] == ERROR and b"malformed" in reply, "truncated body refused")
rc, out = ctl("status")
check(rc == 0, "the agent still answers")
jvm.kill()
jvm.communicate()

# The default socket path: `heaptop control PID` finds an agent started without ipc=.
jvm = start_jvm("StressWorkload", [1, 15000, 0], agent_opts="")
p = None
for _ in range(100):
    p = subprocess.run([HEAPTOP, "control", str(jvm.pid), "status"], capture_output=True,
                       text=True, timeout=30)
    if p.returncode == 0:
        break
    time.sleep(0.1)
check(p.returncode == 0 and f"pid {jvm.pid}" in p.stdout, f"heaptop control PID finds the default path: {p.stdout.strip()[:60]}")
jvm.kill()
jvm.communicate()
wd.cleanup()
finish()
