"""`heaptop control PID detach` leaves the JVM as it was, apart from the loaded
library: sampling stops, the agent's threads end, its socket files go, its
descriptors close, and the program runs on. A later attach (HotSpot's `load`,
here through jcmd) starts the agent afresh, with new options.

The truths the agent did not compute: the JVM's own thread names and
descriptors (/proc/PID/task, /proc/PID/fd), its stderr, and PhaseWorkload's
phases: `Blob` objects are allocated only in a phase the test triggers before
the detach, so a fresh agent must not show them, while the steady `byte[512]`
site goes on and must show."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

JCMD = need_jcmd()
wd = Workdir("detach")
go, done = wd.file("go"), wd.file("done")
jvm = start_jvm("PhaseWorkload", [go, done], agent_opts=f"ipc={wd.base}")
check(wait_agent(jvm, wd.base), "the agent listens")
phase_line = site_line("PhaseWorkload.java", "phase")


def agent_threads():
    """Threads of ours in the JVM: the collector (a Java thread named
    heaptop-collector) and the threads it starts inherit its name."""
    names = []
    for t in os.listdir(f"/proc/{jvm.pid}/task"):
        try:
            with open(f"/proc/{jvm.pid}/task/{t}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return [n for n in names if n.startswith("heaptop")]


def fds():
    return len(os.listdir(f"/proc/{jvm.pid}/fd"))


def record(base_args, name):
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "record", *base_args, "--seconds", "1", "--out", out, "--top",
                        "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"{name}: record exit 0 ({p.stderr.strip()[-200:]})")
    return read_csv(os.path.join(out, "sites.csv"))[1] if p.returncode == 0 else []


def blob_rows(sites):
    return [s for s in sites if s["frame"] == f"PhaseWorkload.phase:{phase_line}"]


touch(go)
check(wait_for(lambda: os.path.exists(done), 120), "the phase ran")
sites = record(["--ipc", wd.base], "before")
check(len(blob_rows(sites)) == 1, "before the detach: the phase's Blob site is recorded")
threads_on = agent_threads()
check(len(threads_on) >= 1, f"the agent runs threads in the JVM ({threads_on})")

# a recording that runs until the stream ends: it must say the agent was
# detached, not that the JVM exited (the JVM runs on)
watcher = Viewer(wd.base, wd.file("watch"))
check(watcher.connected(30), "a record viewer is connected before the detach")
p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "detach"], capture_output=True,
                   text=True, timeout=30)
check(p.returncode == 0 and "detached" in p.stdout,
      f"control detach: exit 0 and says so ({p.returncode}: {p.stdout.strip()} "
      f"{p.stderr.strip()})")
check(wait_for(lambda: not os.path.exists(wd.base + ".ctl") and
               not os.path.exists(wd.base + ".events"), 10), "the socket files are gone")
check(wait_for(lambda: not agent_threads(), 10),
      f"the agent's threads end (left: {agent_threads()})")
check(jvm.poll() is None, "the JVM runs on")
w_rc, _, w_err = watcher.finish(30)
check(w_rc == 0 and "stopped (the agent detached)" in w_err and "JVM exited" not in w_err,
      f"the record viewer says the agent was detached ({w_err.strip().splitlines()[-3:]})")
p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                   text=True, timeout=30)
check(p.returncode != 0 and "no heaptop agent" in p.stderr,
      f"nobody answers at the old socket any more ({p.stderr.strip()})")

# Attach again with other options: a fresh agent at another path.
fresh = wd.file("fresh")
out = jcmd(jvm.pid, "JVMTI.agent_load", AGENT, f'"ipc={fresh},interval=64k"')
check("return code: 0" in out, f"the JVM loads the agent again ({out.strip()})")
check(wait_socket(fresh, 10), "the new agent listens at the new path")
p = subprocess.run([HEAPTOP, "control", "--ipc", fresh, "status"], capture_output=True, text=True,
                   timeout=30)
check(p.returncode == 0 and "interval 65536 bytes" in p.stdout,
      f"the new options apply (interval 64k): {p.stdout.strip()[:200]}")
sites = record(["--ipc", fresh], "after")
steady = [s for s in sites if s["frame"].startswith("PhaseWorkload.steady:")]
check(len(steady) >= 1, "after the new attach: the steady site is sampled again")
check(not blob_rows(sites), "after the new attach: nothing from before the detach (no Blob site)")
check(len(agent_threads()) == len(threads_on),
      f"one agent instance: as many threads as before ({agent_threads()} vs {threads_on})")

# Detach once more, then a load while it runs is a no-op that answers OK.
out = jcmd(jvm.pid, "JVMTI.agent_load", AGENT)
check("return code: 0" in out, f"a load while the agent runs answers OK ({out.strip()})")
check(len(agent_threads()) == len(threads_on), "and starts no second instance")
p = subprocess.run([HEAPTOP, "control", "--ipc", fresh, "detach"], capture_output=True, text=True,
                   timeout=30)
check(p.returncode == 0, "the second detach")
check(wait_for(lambda: not agent_threads(), 10), "after the second detach: no thread of ours")
# The JVM's attach listener keeps a socket of its own open from the first
# jcmd on: count descriptors from here, over one more load and detach.
fds_second = fds()
out = jcmd(jvm.pid, "JVMTI.agent_load", AGENT, f'"ipc={fresh}"')
check("return code: 0" in out and wait_socket(fresh, 10), "a third load listens")
subprocess.run([HEAPTOP, "control", "--ipc", fresh, "detach"], capture_output=True, timeout=30)
check(wait_for(lambda: not agent_threads() and fds() <= fds_second, 10),
      f"a load and a detach leave no thread and no descriptor behind ({fds()} descriptors, "
      f"{fds_second} before)")
check(jvm.poll() is None, "the JVM still runs")
jvm.kill()
_, err = jvm.communicate()
bad = [l for l in err.splitlines() if "heaptop" in l and "detached" not in l]
check(not bad, f"the JVM's stderr has nothing from heaptop but the detach notes ({bad[:3]})")
wd.cleanup()
finish()
