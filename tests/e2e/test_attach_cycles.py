"""Attach, connect and disconnect fifty times against one JVM that was started
without the agent, with one detach halfway: the JVM's threads, descriptors and
RSS do not grow past a stated bound, and there is never a second agent
instance. A cycle is `heaptop record PID --seconds 1` (it attaches when no
agent runs, else connects), which must record the workload's own site, or a
`heaptop control PID status` (connect, sync, disconnect). The
truths: /proc/PID/{task,fd,status} of the JVM, which the agent does not
compute, and the workload's source lines.

Bounds, stated: after the first cycle (the agent loaded, the JVM's attach
listener up), later cycles may add no thread, at most 2 descriptors (nng's
reconnect timing) and at most 24 MiB of RSS (the heap the workload churns
moves RSS by a few MiB either way; an agent leaking a sync's buffers would add
far more over 50 syncs)."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

CYCLES = 50
wd = Workdir("cycles")
stop = wd.file("stop")
jvm = start_jvm("StressWorkload", [1, 900000, 0, stop], jvm_flags=["-Xmx256m", "-Xms256m", "-XX:+AlwaysPreTouch"])


def threads():
    return len(os.listdir(f"/proc/{jvm.pid}/task"))


def agent_threads():
    names = []
    for t in os.listdir(f"/proc/{jvm.pid}/task"):
        try:
            with open(f"/proc/{jvm.pid}/task/{t}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return sorted(n for n in names if n.startswith("heaptop"))


def fds():
    return len(os.listdir(f"/proc/{jvm.pid}/fd"))


def rss_kib():
    with open(f"/proc/{jvm.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cycle(i):
    """A recording every tenth cycle and wherever an attach is due (the first,
    the one after the detach); a connect, sync and disconnect otherwise
    (`control PID status`), so fifty cycles take seconds, not minutes."""
    if i % 10 and i not in (1, CYCLES // 2 + 1):
        p = subprocess.run([HEAPTOP, "control", str(jvm.pid), "status"], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0 or f"pid {jvm.pid}" not in p.stdout:
            print(f"cycle {i}: rc {p.returncode}: {p.stderr.strip()[-300:]}")
            return False
        return True
    out = wd.file(f"c{i}")
    p = subprocess.run([HEAPTOP, "record", str(jvm.pid), "--seconds", "1", "--out", out, "--top",
                        "0"], capture_output=True, text=True, timeout=120)
    ok = p.returncode == 0 and os.path.exists(os.path.join(out, "sites.csv"))
    sites = read_csv(os.path.join(out, "sites.csv"))[1] if ok else []
    ok = ok and any(s["frame"].startswith("StressWorkload.work:") for s in sites)
    if not ok:
        print(f"cycle {i}: rc {p.returncode}: {p.stderr.strip()[-600:]}")
    return ok


# The JVM is up once it has written its perf data file (what the chooser reads).
perf = f"/tmp/hsperfdata_{__import__('pwd').getpwuid(os.geteuid()).pw_name}/{jvm.pid}"
check(wait_for(lambda: os.path.exists(perf), 30), "the JVM starts")
check(cycle(1), "cycle 1 attaches and records the workload's site")
base_threads, base_fds, base_rss = threads(), fds(), rss_kib()
one = agent_threads()
check(len(one) == 3, f"one agent instance: its collector, CPU sampler and watchdog threads ({one})")
failed = 0
for i in range(2, CYCLES + 1):
    if i == CYCLES // 2 + 1:
        p = subprocess.run([HEAPTOP, "control", str(jvm.pid), "detach"], capture_output=True,
                           text=True, timeout=30)
        check(p.returncode == 0, f"the detach before cycle {i} ({p.stderr.strip()[-120:]})")
        check(wait_for(lambda: not agent_threads(), 10), "the detach ends the agent's threads")
    if not cycle(i):
        failed += 1
    if agent_threads() != one:
        check(False, f"cycle {i}: still one agent instance ({agent_threads()})")
        break
check(failed == 0, f"every cycle connects, and records the site when it records "
      f"({failed} of {CYCLES - 1} failed)")
check(wait_for(lambda: threads() <= base_threads, 10),
      f"threads: {threads()} after {CYCLES} cycles, {base_threads} after the first")
check(wait_for(lambda: fds() <= base_fds + 2, 10),
      f"descriptors: {fds()} after {CYCLES} cycles, {base_fds} after the first (bound +2)")
grown = rss_kib() - base_rss
check(grown <= 24 * 1024, f"RSS: {grown / 1024:+.1f} MiB over {CYCLES - 1} cycles (bound +24 MiB)")
print(f"figures: {CYCLES} cycles (attach once, detach once, re-attach once): threads "
      f"{base_threads} -> {threads()}, descriptors {base_fds} -> {fds()}, RSS "
      f"{base_rss / 1024:.1f} -> {rss_kib() / 1024:.1f} MiB")
check(jvm.poll() is None, "the JVM runs on")
touch(stop)
jvm.communicate(timeout=60)
check(jvm.returncode == 0, f"and exits normally ({jvm.returncode})")
wd.cleanup()
finish()
