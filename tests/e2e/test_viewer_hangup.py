"""A viewer that hangs up mid-handshake while the JVM is stopped wedges an nng
1.5.2 listener (nng issue #1518): later viewers connect but get no answer. The
agent's watchdog must notice and restart the listener, so viewers work again."""
import signal
import socket
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("hangup")
jvm = start_jvm("StressWorkload", [1, 40000, 5], agent_opts=f"ipc={wd.base}")
check(wait_socket(wd.base), "agent socket appears")
time.sleep(1)
jvm.send_signal(signal.SIGSTOP)
for suffix, proto in ((".ctl", 0x30), (".events", 0x21)):
    s = socket.socket(socket.AF_UNIX)
    s.connect(wd.base + suffix)
    s.send(bytes([0, ord("S"), ord("P"), 0, 0, proto, 0, 0]))  # SP header, then gone
    s.close()
jvm.send_signal(signal.SIGCONT)
start = time.time()
ok = False
while time.time() - start < 20 and not ok:
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file("o"), "--seconds", "2",
                        "--top", "0", "--timeout", "2000"], capture_output=True, text=True, timeout=30)
    ok = p.returncode == 0 and "time is up" in p.stderr
check(ok, f"a viewer is served again {time.time() - start:.1f} s after the hang-up")
if ok:
    _, tel, _ = read_csv(wd.file("o/telemetry.csv"))
    check(len(tel) >= 2, "the viewer got telemetry")
jvm.send_signal(signal.SIGTERM)
out, err = jvm.communicate(timeout=60)
print("agent said:", [l for l in err.splitlines() if l.startswith("heaptop:")])
check("fatal error" not in err.lower(), "no JVM crash")
wd.cleanup()
finish()
