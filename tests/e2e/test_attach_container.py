"""Attach by pid to a JVM in its own mount, network and pid namespaces (as a
container runs it: its own /tmp, its own /proc/net/unix, pid 1 inside): the
attach socket is found under /proc/PID/root/tmp with the namespace pid, the
agent's sockets are looked for there and checked in the JVM's own
/proc/PID/net/unix, and a second viewer finds the running agent. Needs root
(unshare); skipped (77) otherwise. Not tested: a container with another user
namespace, and an agent path that exists only inside the container (the
agent is put where both sides see it, under /var/tmp)."""
import subprocess
import sys
import tempfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

if os.geteuid() != 0 or not shutil.which("unshare"):
    print("needs root and unshare to start a JVM in its own namespaces; skipped")
    sys.exit(77)

shared = tempfile.mkdtemp(prefix="heaptop-container-", dir="/var/tmp")  # outside the new /tmp
os.chmod(shared, 0o755)
agent, jar = os.path.join(shared, "libheaptop.so"), os.path.join(shared, "tests.jar")
shutil.copy(AGENT, agent)
shutil.copy(JAR, jar)
inner = f"mount -t tmpfs tmpfs /tmp && mount -t proc proc /proc && exec {JAVA} -cp {jar} HeaptopDemo"
box = subprocess.Popen(["unshare", "-m", "-n", "-p", "-f", "--propagation", "private", "sh", "-c",
                        inner], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def java_in_box():
    for t in os.listdir("/proc"):
        if t.isdigit():
            try:
                if (open(f"/proc/{t}/comm").read().strip() == "java" and
                        jar in open(f"/proc/{t}/cmdline").read()):
                    return int(t)
            except OSError:
                pass
    return None


if not wait_for(lambda: java_in_box() is not None, 20):
    print(f"no JVM started in new namespaces ({box.stderr.read().strip()[-300:]}); skipped")
    box.kill()
    sys.exit(77)
pid = java_in_box()
nspid = next(l for l in open(f"/proc/{pid}/status") if l.startswith("NSpid:")).split()[-1]
check(nspid == "1", f"the JVM is pid {pid} here and {nspid} in its own namespace")
env = {**os.environ}
env.pop("XDG_RUNTIME_DIR", None)
out = os.path.join(shared, "out")
p = subprocess.run([HEAPTOP, "record", str(pid), "--seconds", "2", "--out", out, "--top", "0",
                    "--agent", agent], capture_output=True, text=True, timeout=60, env=env)
check(p.returncode == 0 and "attaching to pid" in p.stderr,
      f"record PID attaches into the namespaces and records: exit {p.returncode}: "
      f"{p.stderr.strip()[-300:]}")
sockdir = f"/proc/{pid}/root/tmp/heaptop-0"
check(os.path.exists(f"{sockdir}/1.ctl"), "the agent listens at its own default, /tmp/heaptop-0/1 inside")
sites = read_out(out)["sites"]
check(any(r["frame"].startswith("HeaptopDemo.") for r in sites), f"sites of the demo ({len(sites)})")
time.sleep(2.5)  # older than the stale-socket age: a wrong listener check would remove them now
p = subprocess.run([HEAPTOP, "record", str(pid), "--seconds", "1", "--out", out, "--top", "0"],
                   capture_output=True, text=True, timeout=60, env=env)
check(p.returncode == 0 and "attaching" not in p.stderr and "removed" not in p.stderr,
      f"a second record finds the running agent: exit {p.returncode}: {p.stderr.strip()[:200]}")
check(os.path.exists(f"{sockdir}/1.ctl"), "its socket files are still there")
box.kill()
os.kill(pid, 9)
box.wait()
shutil.rmtree(shared, ignore_errors=True)
finish()
