"""TCP with a key: an agent started with listen= serves only peers that prove
they hold its key (BASE.key, 0600 beside its sockets). The attacker is a
second local user the test creates (harness.LocalUser): without the key it
gets no reply but a refusal and a stream it cannot read; 1,000 connections it
holds leave the JVM's descriptors within 20 of where they were; a fake agent
on a port makes a viewer with a key neither read nor remove anything; a port
already taken is what `heaptop control status` says. The truths: the JVM's
/proc fd table, the kernel's answers, files' contents, the JVM's stderr. Needs
root."""
import resource
import shutil
import socket
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403
from ports import free_pair  # noqa: E402

need_root("the attacker is a second local user")
mallory = LocalUser("htk")
wd = Workdir("tcpkey")
tools = tempfile.mkdtemp(prefix="heaptop-tcpkey-tools-")  # the attacker may run these
os.chmod(tools, 0o755)
atexit.register(shutil.rmtree, tools, True)
PEER, FAKE = os.path.join(tools, "sp_peer"), os.path.join(tools, "fake_agent")
shutil.copy(os.environ["HEAPTOP_SP_PEER"], PEER)
shutil.copy(os.environ["HEAPTOP_FAKE_AGENT"], FAKE)
os.chmod(PEER, 0o755)
os.chmod(FAKE, 0o755)
KEY = wd.base + ".key"


def ctl(target, *words, key=KEY):
    key = ["--key", key] if key and target.startswith("tcp://") else []
    return subprocess.run([HEAPTOP, "control", "--ipc", target, *key, *words],
                          capture_output=True, text=True, timeout=60)


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


port, _ = free_pair()
url = f"tcp://127.0.0.1:{port}"
stop = wd.file("stop")
jvm = start_jvm("StressWorkload", [1, 100000000, 0, stop], agent_opts=f"ipc={wd.base},listen={port}",
                jvm_flags=["-Xmx96m"])
stop_at_exit(jvm)
err_lines = []
threading.Thread(target=lambda: err_lines.extend(jvm.stderr), daemon=True).start()
check(wait_agent(jvm, wd.base), "an agent with listen= starts")
st = os.stat(KEY)
check(st.st_mode & 0o777 == 0o600 and st.st_uid == os.geteuid(),
      f"it made its key {KEY}, 0600, its user's ({oct(st.st_mode)})")
check(wait_for(lambda: ctl(url, "status").returncode == 0, 10), "a viewer with the key gets in")

# --- without the key: nothing
p = subprocess.run([HEAPTOP, "control", "--ipc", url, "status"], capture_output=True, text=True,
                   timeout=30)
check(p.returncode == 2 and "needs the agent's key" in p.stderr,
      f"heaptop without --key: one line, exit 2 ({p.stderr.strip()})")
wrong = wd.file("wrong.key")
with open(wrong, "w") as f:
    f.write("ab" * 32 + "\n")
os.chmod(wrong, 0o600)
p = ctl(url, "status", key=wrong)
check(p.returncode != 0 and "does not hold this key" in p.stderr,
      f"a wrong key: refused in one line ({p.stderr.strip()[:200]})")
p = mallory.run([PEER, "req", url, "3"])
check(p.stdout.startswith("reply ERROR"), f"a bare peer's hello gets only a refusal ({p.stdout.strip()})")
p = mallory.run([PEER, "sub", f"tcp://127.0.0.1:{port + 1}", "3"])
m = re.match(r"(\d+) messages, (\d+) bytes, (\d+) decoded", p.stdout)
check(m and int(m.group(1)) > 0 and int(m.group(3)) == 0,
      f"a bare subscriber receives the stream sealed: nothing it can decode ({p.stdout.strip()})")
check(wait_for(lambda: any("(stream" in l for l in err_lines), 10),
      "the JVM's log names the stream-only reader too")
for words in (("interval", "0"), ("detach",), ("heapdump",)):
    p = mallory.run([HEAPTOP, "control", "--ipc", url, "--key", "/dev/null", *words])
    check(p.returncode != 0, f"control {' '.join(words)} without the key is refused")
p = ctl(wd.base, "status")
check(p.returncode == 0 and "sampling on" in p.stdout and "interval 0 bytes" not in p.stdout,
      f"... and the agent's settings are unchanged ({p.stdout.splitlines()[2:3]})")

# --- 1,000 connections held by the attacker
before = fds(jvm.pid)
flood = mallory.popen(["/usr/bin/python3", "-c", f"""
import resource, select, socket, time
resource.setrlimit(resource.RLIMIT_NOFILE, (2048, 2048))
held = []
for i in range(1000):
    s = socket.create_connection(("127.0.0.1", {port}))
    s.sendall(bytes([0, 83, 80, 0, 0, 0x30, 0, 0]))  # an SP REQ handshake
    held.append(s)
# until the agent has closed all it will not keep (nng answers each with its
# SP header first, so a connection is counted when it reaches its end)
closed, open_ = 0, set(held)
end = time.time() + 30
while open_ and closed < 1000 - 16 and time.time() < end:
    ready, _, _ = select.select(list(open_)[:900], [], [], 0.2)
    for s in ready:
        if not s.recv(64):
            open_.discard(s)
            closed += 1
admitted = len(open_)
print("held", len(held), "admitted", admitted, "closed", closed, flush=True)
time.sleep(30)
"""], stdout=subprocess.PIPE, text=True)
line = flood.stdout.readline().strip()
m = re.match(r"held (\d+) admitted (\d+) closed (\d+)", line)
check(m and int(m.group(1)) == 1000 and int(m.group(2)) + int(m.group(3)) == 1000,
      f"the attacker opened 1,000 connections, the agent closed all but a few ({line})")
# the pipes it closed are reaped by nng's threads a moment later
settled = wait_for(lambda: fds(jvm.pid) - before <= 20, 15, what="the JVM's descriptors settling")
check(settled, f"while they are held, the JVM's descriptors are within 20 of before "
      f"({before} -> {fds(jvm.pid)})")
check(m and int(m.group(2)) <= 16, "at most 16 were let in")
flood.kill()
flood.wait()
refusals = [l for l in err_lines if "refused a TCP connection" in l]
check(0 < len(refusals) <= 25, f"the log says so in a few lines, not 1,000 ({len(refusals)})")

# --- heap dumps over TCP: at most 4 an hour
took = [ctl(url, "heapdump").returncode for _ in range(5)]
check(took[:4] == [0, 0, 0, 0] and took[4] != 0, f"four dumps over TCP, the fifth refused ({took})")
p = ctl(wd.base, "heapdump")
check(p.returncode == 0, "over the local socket the limit does not apply")
touch(stop)
stop_jvm(jvm)

# --- a fake agent on the port: nothing read or removed
victim = wd.file("precious.txt")
with open(victim, "w") as f:
    f.write("precious\n")
port2, _ = free_pair()
fake = mallory.popen([FAKE, "--evil", f"tcp://127.0.0.1:{port2}", "4242", victim, "30"],
                     stdout=subprocess.PIPE, text=True)
check("listening" in fake.stdout.readline(), "a fake agent listens on a TCP port")
out = wd.file("out")
p = subprocess.run([HEAPTOP, "record", "--ipc", f"tcp://127.0.0.1:{port2}", "--key", wrong,
                    "--seconds", "1", "--heap", "--out", out], capture_output=True, text=True,
                   timeout=60)
check(p.returncode != 0 and "handshake" in p.stderr,
      f"record --heap against it fails at the key's handshake ({p.stderr.strip()[-200:]})")
check(open(victim).read() == "precious\n", "the victim's file is still there")
fake.kill()
fake.wait()

# --- the port taken before the JVM asks for it
port3, _ = free_pair()
squat = mallory.popen([FAKE, "--evil", f"tcp://127.0.0.1:{port3}", "4242", victim, "60"],
                      stdout=subprocess.PIPE, text=True)
check("listening" in squat.stdout.readline(), "the attacker holds a port first")
stop2 = wd.file("stop2")
jvm2 = start_jvm("StressWorkload", [1, 100000000, 0, stop2],
                 agent_opts=f"ipc={wd.base}2,listen={port3}")
stop_at_exit(jvm2)
check(wait_agent(jvm2, wd.base + "2"), "the JVM asked for the same port starts")
p = ctl(wd.base + "2", "status")
check("TCP: not listening" in p.stdout,
      f"heaptop control status says it is not listening on TCP ({p.stdout.strip()[-160:]})")
touch(stop2)
stop_jvm(jvm2)
squat.kill()
squat.wait()
wd.cleanup()
finish()
