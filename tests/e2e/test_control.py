"""Control requests against a live JVM: status, set interval (checked by the
sample rate that follows, against the VM's own count of allocated bytes),
pause (no samples while the VM allocates), resume; a resent request (same id)
is answered from memory, not run twice; a malformed request gets an ERROR reply
and the agent carries on. No fixed sleeps: every wait is for a condition."""
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
    m = re.search(r"^samples (\d+)", out, re.M)  # not "CPU samples"
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
stop = wd.file("stop")
# The workload runs until the test stops it, however long the test takes.
jvm = start_jvm("StressWorkload", [2, 600000, 0, stop], agent_opts=f"ipc={wd.base},budget=off")
check(wait_socket(wd.base), "agent socket appears")
check(wait_for(lambda: samples() > 0, 60, what="a first telemetry record with samples"),
      "the agent answers status with samples")
rc, out = ctl("status")
check(rc == 0 and "interval 524288 bytes" in out and "sampling on" in out and "StressWorkload" in out,
      f"status: {out.strip()}")
snaps = 0


def telemetry():
    global snaps
    snaps += 1
    return snapshot(wd.base, wd.file(f"snap{snaps}"))


def rate_at(interval, want):
    """Samples per allocated byte (both exact, from the agent's telemetry)
    over rows taken while `interval` was in force, once `want` samples were
    taken there: ((samples, bytes), rows used)."""
    got = (0, 0)

    def enough():
        nonlocal got
        tel = telemetry()["telemetry"]
        # a row whose previous row had the interval too: a span entirely at it
        span = [t for p, t in zip(tel, tel[1:]) if int(p["interval"]) == interval == int(t["interval"])]
        if span:
            first = tel[tel.index(span[0]) - 1]
            got = (int(span[-1]["samples"]) - int(first["samples"]),
                   int(span[-1]["alloc_bytes"]) - int(first["alloc_bytes"]))
        return got[0] >= want
    wait_for(enough, 90, step=0.2, what=f"{want} samples at interval {interval}")
    return got


# The interval must change what is sampled, not only the stored value: the
# sample rate per allocated byte is 1/I for objects much smaller than I
# (StressWorkload's are at most 4 KiB: at 64 KiB their p = 1 - exp(-s/I) is
# at most 3% below s/I), so 512k -> 64k multiplies it by 8.
n512, b512 = rate_at(524288, 400)
rc, out = ctl("interval", "64k")
check(rc == 0 and "interval set to 65536" in out, f"interval 64k: {out.strip()}")
check(wait_for(lambda: "interval 65536 bytes" in ctl("status")[1], 30,
               what="status showing the new interval"), "status shows the new interval")
n64, b64 = rate_at(65536, 3000)
if n512 and b512 and n64 and b64:
    ratio = (n64 / b64) / (n512 / b512)
    tol = 4 * math.sqrt(1 / n512 + 1 / n64) + 0.03
    print(f"at 512k: {n512} samples in {b512} bytes (1 per {b512 / n512:.0f}); "
          f"at 64k: {n64} in {b64} (1 per {b64 / n64:.0f})")
    check(abs(ratio / 8 - 1) <= tol, f"the sample rate follows the interval: x{ratio:.2f} from 512k "
          f"to 64k, expected x8 within {tol:.1%} (4 SE + 3% for object size)")
    check(abs((n64 / b64) * 65536 - 1) <= 4 / math.sqrt(n64) + 0.03,
          f"at 64k one sample per {b64 / n64:.0f} allocated bytes (expected ~65536)")
else:
    check(False, "sample rates measured at both intervals")
rc, out = ctl("interval", "3g")
check(rc == 2 and "too large" in out and "2g-1" in out,
      f"an interval the JVM cannot take is refused before asking: {out.strip()}")
reply = raw_request(msg(3, 31337, struct.pack("<Q", 3 << 30)))  # the agent checks it too
check(struct.unpack("<H", reply[6:8])[0] == ERROR and b"out of range" in reply,
      "the agent refuses 3g itself")


def paused_span(start_ms, bytes_wanted):
    """Telemetry rows after agent time start_ms, once the VM has allocated
    bytes_wanted over them."""
    rows = []

    def enough():
        nonlocal rows
        rows = [t for t in telemetry()["telemetry"] if int(t["t_ms"]) > start_ms]
        return len(rows) >= 2 and int(rows[-1]["alloc_bytes"]) - int(rows[0]["alloc_bytes"]) >= bytes_wanted
    wait_for(enough, 90, step=0.2, what=f"{bytes_wanted} bytes allocated while paused")
    return rows


rc, out = ctl("pause")
check(rc == 0 and "paused" in out, f"pause: {out.strip()}")
since = int(telemetry()["summary"][0]["start_ms"])  # agent time after the pause took effect
# Enough allocation that sampling at 64k would have taken ~3000 samples.
rows = paused_span(since, 3000 * 65536)
if len(rows) >= 2:
    a, b = int(rows[0]["samples"]), int(rows[-1]["samples"])
    alloc = int(rows[-1]["alloc_bytes"]) - int(rows[0]["alloc_bytes"])
    check(a > 0 and a == b, f"no samples while paused ({a} -> {b} while {alloc} bytes were allocated)")
else:
    check(False, "telemetry while paused")
rc, out = ctl("resume")
check(rc == 0 and "resumed" in out, f"resume: {out.strip()}")
b = samples()
check(wait_for(lambda: samples() > b + 500, 60, what="samples after resume"),
      f"sampling again after resume ({b} -> {samples()})")

# REQ resends a request after a reconnect: the same id must not run twice.
reply = raw_request(msg(PAUSE, 424242))
check(struct.unpack("<H", reply[6:8])[0] == ACK, "raw pause acknowledged")
ctl("resume")
reply = raw_request(msg(PAUSE, 424242))  # the "resend"
check(struct.unpack("<H", reply[6:8])[0] == ACK, "the resend gets the remembered answer")
d = samples()
check(wait_for(lambda: samples() > d + 500, 60, what="samples after the resent pause"),
      f"the resent pause did not run again: sampling goes on ({d} -> {samples()})")
check("sampling on" in ctl("status")[1], "status says sampling is on")

# status says the state as of now, not as of the last telemetry reading (up
# to a second old: before the sync ended with a HELLO, 7 of 10 said "on"
# right after a pause). Five rounds, so a right answer by luck cannot pass.
said = []
for _ in range(5):
    ctl("pause")
    said.append(re.search(r"sampling (\w+)", ctl("status")[1]).group(1))
    ctl("resume")
    said.append(re.search(r"sampling (\w+)", ctl("status")[1]).group(1))
check(said == ["paused", "on"] * 5, f"status right after pause/resume says so each time ({said})")

reply = raw_request(b"\x00" * 7)
check(len(reply) >= 20 and struct.unpack("<H", reply[6:8])[0] == ERROR, "garbage gets an ERROR reply")
reply = raw_request(msg(3, 5, b"\x01"))  # SET_INTERVAL with a truncated body
check(struct.unpack("<H", reply[6:8])[0] == ERROR and b"malformed" in reply, "truncated body refused")
rc, out = ctl("status")
check(rc == 0, "the agent still answers")
touch(stop)
jvm.communicate(timeout=60)

# The default socket path: `heaptop control PID` finds an agent started without ipc=.
stop2 = wd.file("stop2")
jvm = start_jvm("StressWorkload", [1, 600000, 0, stop2], agent_opts="")
p = None


def default_status():
    global p
    p = subprocess.run([HEAPTOP, "control", str(jvm.pid), "status"], capture_output=True,
                       text=True, timeout=30)
    return p.returncode == 0


wait_for(default_status, 60, step=0.1, what="heaptop control PID status answering")
check(p.returncode == 0 and f"pid {jvm.pid}" in p.stdout, f"heaptop control PID finds the default path: {p.stdout.strip()[:60]}")
touch(stop2)
jvm.communicate(timeout=60)
wd.cleanup()
finish()
