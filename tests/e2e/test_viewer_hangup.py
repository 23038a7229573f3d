"""A viewer that hangs up mid-handshake while the JVM is stopped wedges an nng
1.5.2 listener (nng issue #1518): later viewers connect but get no answer. The
agent's watchdog must notice and restart the listener, so viewers work again:
the agent must say it restarted a listener, and afterwards a viewer must get
both its answers (control) and the stream (stream messages read)."""
import signal
import socket
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("hangup")
stop = wd.file("stop")
err_path = wd.file("jvm.err")
err_file = open(err_path, "w")
jvm = start_jvm("StressWorkload", [1, 600000, 5, stop], agent_opts=f"ipc={wd.base}",
                stdout=subprocess.DEVNULL, stderr=err_file)


def agent_said():
    with open(err_path) as f:
        return f.read()


def status_ok():
    return subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                          text=True, timeout=30).returncode == 0


check(wait_socket(wd.base), "agent socket appears")
check(wait_for(status_ok, 60, what="the agent answering status"), "the agent serves viewers")


def all_stopped():
    """Every thread of the JVM is stopped (state T): SIGSTOP reaches threads
    one by one, and a listener still running accepts the hang-up while the
    peer is alive, which wedges nothing."""
    try:
        tasks = os.listdir(f"/proc/{jvm.pid}/task")
        return tasks and all(open(f"/proc/{jvm.pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0]
                             in "Tt" for t in tasks)
    except OSError:
        return False


def hang_up():
    jvm.send_signal(signal.SIGSTOP)
    check(wait_for(all_stopped, 30, what="the JVM stopped"), "the JVM is stopped")
    for suffix, proto in ((".ctl", 0x30), (".events", 0x21)):
        s = socket.socket(socket.AF_UNIX)
        s.connect(wd.base + suffix)
        s.send(bytes([0, ord("S"), ord("P"), 0, 0, proto, 0, 0]))  # SP header, then gone
        s.close()
    jvm.send_signal(signal.SIGCONT)


# The wedge is nng's race, not ours: a hang-up that nng happens to take in its
# stride wedges nothing, so the cycle is repeated (at most 5 times) until the
# agent reports a restart; an agent that never restarts fails every time.
start = time.time()
restarted = False
for cycle in range(1, 6):
    hang_up()
    if wait_for(lambda: "heaptop: restarted the" in agent_said(), 15,
                what=f"the agent restarting a listener (hang-up {cycle})"):
        restarted = True
        break
check(restarted,
      f"the watchdog restarted a deaf listener {time.time() - start:.1f} s after the first "
      f"hang-up (hang-ups: {cycle}): "
      f"{[l for l in agent_said().splitlines() if 'restarted' in l]}")
# After the restart a viewer is served: control answers and the stream flows
# (both listeners may have been wedged; the watchdog restarts each in turn).
attempts, p, events = 0, None, 0


def served():
    global attempts, p, events
    attempts += 1
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file(f"o{attempts}"),
                        "--seconds", "2",
                        "--top", "0", "--timeout", "2000"], capture_output=True, text=True, timeout=60)
    m = re.search(r"(\d+) stream messages received", p.stderr)
    events = int(m.group(1)) if m else 0
    return p.returncode == 0 and "time is up" in p.stderr and events > 0


check(wait_for(served, 60, step=0.1, what="a viewer getting answers and the stream"),
      f"a viewer is served after the restart: answers and {events} stream messages "
      f"(attempt {attempts}: {p.stderr.strip()[-160:] if p else ''})")
if p and p.returncode == 0:
    _, tel, _ = read_csv(wd.file(f"o{attempts}/telemetry.csv"))
    check(len(tel) >= 2, "the viewer got telemetry")
touch(stop)
jvm.communicate(timeout=60)
err_file.close()
print("agent said:", [l for l in agent_said().splitlines() if l.startswith("heaptop:")])
check(jvm.returncode == 5, f"the JVM's exit code is its own ({jvm.returncode})")
check("fatal error" not in agent_said().lower(), "no JVM crash")
wd.cleanup()
finish()
