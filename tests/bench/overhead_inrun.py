"""Sampling's CPU cost priced inside one run: the same JVM alternates phases
with sampling on and off, and each phase's CPU per unit of work is set beside
its neighbours'.

Why: on this 2-core guest the CPU time of whole runs of the same work moves by
±3-5% from one JVM to the next (memory placement, the kernel time of
pre-touching the heap, which alone swung by a second), so interleaved runs need
dozens of rounds to resolve the 1% the CPU budget promises (overhead.py: 40
rounds gave the default +3.3%, 20 rounds +1.8%, one run to the next). Phases
of one JVM share its heap, its compiled code and its threads; what differs is
only whether the JVM calls the sampler.

How: AllocBench runs for a fixed time and prints, every 100 ms, the process's
CPU time and the iterations done (`r NANOTIME CPU_NS ITERATIONS`). After a
warm-up with sampling on (the budget settles its interval), sampling is turned
off and on every --phase seconds: for heaptop by `heaptop control pause` and
`resume` (the event is disabled in the JVM; live tracking and the viewer's
stream go on), for the JVMTI floor (empty callback + GetStackTrace,
tests/bench/empty_agent.c) by its toggle file. A phase's figure is CPU ns per
iteration over its reports (the first 0.2 s after a switch left out); each "on"
phase is divided by the mean of the "off" phases either side of it, which
cancels a slow drift; the figure is the median of those ratios, with quartiles.

heaptop runs with a `heaptop record` viewer attached, as a user would watch it.
What the agent costs whether it samples or not (its threads idle) is outside
this figure; heaptop's line also gives its threads' CPU (heaptop-*, nng:*,
per-thread schedstat) while sampling is off, as a share of the JVM's.

--contended N runs N busy loops (`sh -c 'while :; do :; done'`) beside the JVM for
the whole run, so that its threads and the agent's compete for the cores, as on a
busy host: a new user measured the default at x1.0035 on a quiet machine and x1.047
with both cores kept busy, while the agent reported 0.76% of the process's CPU.

Usage: python3 tests/bench/overhead_inrun.py BUILD_DIR [--cycles 12] [--phase 2]
       [--warmup 8] [--only NAME,...] [--agent-opts OPTS]... [--floor-opts OPTS]...
       [--phases-out FILE] [--contended N]
"""
import argparse
import atexit
import csv
import os
import statistics
import subprocess
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--cycles", type=int, default=12, help="off/on pairs per run")
ap.add_argument("--phase", type=float, default=2.0, help="seconds per phase")
ap.add_argument("--warmup", type=float, default=8.0, help="seconds of sampling before the first phase")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--only", default=None, help="comma-separated parts of configuration names")
ap.add_argument("--agent-opts", action="append", default=[],
                help="also run heaptop with these options (repeatable); 'noviewer' in them: no viewer")
ap.add_argument("--floor-opts", action="append", default=[],
                help="also run tests/bench/empty_agent.c with these options (repeatable), "
                     "such as interval=2097152,stack")
ap.add_argument("--phases-out", default=None,
                help="write each phase (on start_ns end_ns, CLOCK_MONOTONIC) here, to split a profile by")
ap.add_argument("--by-thread", action="store_true",
                help="also split the JVM's CPU per iteration by kind of thread, on against off")
ap.add_argument("--contended", type=int, default=0,
                help="busy loops run beside the JVM for the whole run (a busy host)")
args = ap.parse_args()

hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.contended)]


def stop_hogs():
    for h in hogs:
        h.kill()
        h.wait()


atexit.register(stop_hogs)

jar = os.path.join(args.build, "tests", "heaptop-tests.jar")
agent = os.path.join(args.build, "agent", "libheaptop.so")
empty = os.path.join(args.build, "tests", "libheaptop_empty_agent.so")
heaptop = os.path.join(args.build, "tui", "heaptop")
work = tempfile.mkdtemp(prefix="heaptop-inrun-")
os.chmod(work, 0o700)
JVM = [os.environ.get("JAVA", "java"), "-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"]
SKIP_NS = 200_000_000  # after a switch: the last samples drain, the ring empties

CONFIGS = {
    "heaptop default (budget 1%, live, viewer)": ("heaptop", ""),
    "heaptop budget=off (fixed 512 KiB)": ("heaptop", "budget=off"),
    "JVMTI floor at 512 KiB (empty callback + GetStackTrace)": ("floor", 512 * 1024),
}
for o in args.floor_opts:
    CONFIGS[f"empty agent {o}"] = ("floor", o)
for o in args.agent_opts:
    CONFIGS[f"heaptop {o}"] = ("heaptop", o)
if args.only:
    want = [w.strip() for w in args.only.split(",") if w.strip()]
    CONFIGS = {k: v for k, v in CONFIGS.items() if any(w in k for w in want)}


def wait_for(cond, what, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return
        time.sleep(0.01)
    raise SystemExit(f"overhead_inrun: {what} did not happen within {seconds} s")


def cpu_ns(pid):
    """(the agent's threads, all threads, the agent's threads' wake-ups) of pid:
    ns on a CPU so far and times switched in, from each thread's schedstat. The
    agent's: heaptop's own (heaptop-*) and nng's."""
    agent = whole = wakes = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                st = f.read().split()
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
        whole += int(st[0])
        if comm.startswith(("heaptop", "nng:")):
            agent += int(st[0])
            wakes += int(st[2])
    return agent, whole, wakes


KINDS = (("agent", ("heaptop", "nng:")), ("gc", ("GC Thread", "G1 ", "VM Thread")),
         ("jit", ("C1 Compiler", "C2 Compiler")))


def cpu_by_kind(pid):
    """ns on a CPU so far per kind of thread of pid (schedstat): the agent's,
    the collector's (GC workers, G1's concurrent threads, the VM thread), the
    compilers', and the rest (the application's)."""
    out = {"agent": 0, "gc": 0, "jit": 0, "app": 0}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue
        kind = next((k for k, prefixes in KINDS if comm.startswith(prefixes)), "app")
        out[kind] += ns
    return out


def run(name, kind, opt, n):
    # long enough for every phase and the switches between them; stopped
    # (SIGTERM: the agent says goodbye to its viewer) once the last phase ends
    seconds = args.warmup + 2 * args.cycles * (args.phase + 1) + 60
    cmd = list(JVM)
    base = os.path.join(work, f"a{n}")
    toggle = os.path.join(work, f"off{n}")
    if kind == "heaptop":
        agent_opts = ",".join(w for w in opt.split(",") if w and w != "noviewer")
        cmd.append(f"-agentpath:{agent}=ipc={base}" + (f",{agent_opts}" if agent_opts else ""))
    else:
        fopts = opt if isinstance(opt, str) else f"interval={opt},stack"
        cmd.append(f"-agentpath:{empty}={fopts},toggle={toggle}")
    cmd += ["-cp", jar, "AllocBench", str(args.threads), "0", str(int(seconds)), "0", "100"]
    reports = os.path.join(work, f"r{n}")
    out = os.path.join(work, f"v{n}")
    with open(reports, "w") as rf:
        p = subprocess.Popen(cmd, stdout=rf, stderr=subprocess.DEVNULL)
    viewer = None
    if kind == "heaptop" and "noviewer" not in opt.split(","):
        wait_for(lambda: os.path.exists(base + ".ctl") or p.poll() is not None, "the agent's socket")
        viewer = subprocess.Popen([heaptop, "record", "--ipc", base, "--out", out, "--top", "0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # the agent's threads' CPU while sampling is off: what a loaded agent
    # costs at any interval (waking up, telemetry, the watchdog), which
    # on/off leaves out
    fixed = [0, 0, 0]  # agent threads, all threads: ns while off; the agent's wake-ups
    sampling = [0, 0, 0]  # the same while on
    at = []  # cpu_ns() when the current phase began

    kinds_at = []  # (monotonic ns, cpu_by_kind) at each switch and at the end

    def switch(on):
        if args.by_thread:
            kinds_at.append((time.monotonic_ns(), cpu_by_kind(p.pid)))
        if kind == "heaptop":
            now = cpu_ns(p.pid)
            if at:  # the phase that ends: on when the next is off
                acc = fixed if on else sampling
                for k in range(3):
                    acc[k] += now[k] - at[0][k]
            at[:] = [now]
        if kind == "heaptop":
            subprocess.run([heaptop, "control", "--ipc", base, "resume" if on else "pause"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elif on:
            os.unlink(toggle)
        else:
            open(toggle, "w").close()  # seen within 5 ms, inside SKIP_NS
        return time.monotonic_ns()

    wait_for(lambda: os.path.getsize(reports) > 0, "AllocBench's first report")
    time.sleep(args.warmup)
    phases = []  # (on, start_ns, end_ns)
    on = True
    for _ in range(2 * args.cycles):
        on = not on
        start = switch(on)
        if phases:
            phases[-1] = (phases[-1][0], phases[-1][1], start)
        phases.append((on, start, None))
        time.sleep(args.phase)
    end = time.monotonic_ns()
    phases[-1] = (phases[-1][0], phases[-1][1], end)
    if args.by_thread:
        kinds_at.append((end, cpu_by_kind(p.pid)))
    p.terminate()
    p.wait()
    if args.phases_out:
        with open(args.phases_out, "a") as f:
            for on_, a, b in phases:
                f.write(f"{name}\t{int(on_)}\t{a}\t{b}\n")
    if viewer:
        viewer.wait(timeout=60)
    rs = []
    with open(reports) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == "r":
                rs.append((int(w[1]), int(w[2]), int(w[3])))
    per_iter = []
    for on, a, b in phases:
        inside = [r for r in rs if a + SKIP_NS <= r[0] <= b]
        if len(inside) < 3 or inside[-1][2] == inside[0][2]:
            raise SystemExit(f"overhead_inrun: a phase of {name} has too few reports ({len(inside)})")
        per_iter.append((on, (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2])))
    ratios = []
    for i, (on, c) in enumerate(per_iter):
        if on and 0 < i < len(per_iter) - 1:
            ratios.append(c / ((per_iter[i - 1][1] + per_iter[i + 1][1]) / 2))
    ratios.sort()
    info = ""
    if args.by_thread and len(kinds_at) == len(phases) + 1:
        # CPU per million iterations, by kind of thread, summed over each kind of phase
        tot = {True: {}, False: {}}
        iters = {True: 0, False: 0}
        for i, (on, a, b) in enumerate(phases):
            inside = [r for r in rs if a <= r[0] <= b]
            if len(inside) < 2:
                continue
            iters[on] += inside[-1][2] - inside[0][2]
            for k in kinds_at[i + 1][1]:
                tot[on][k] = tot[on].get(k, 0) + kinds_at[i + 1][1][k] - kinds_at[i][1][k]
        if iters[True] and iters[False]:
            parts = []
            for k in ("app", "gc", "jit", "agent"):
                on_ms = tot[True].get(k, 0) / 1e6 / (iters[True] / 1e6)
                off_ms = tot[False].get(k, 0) / 1e6 / (iters[False] / 1e6)
                parts.append(f"{k} {on_ms:.1f}/{off_ms:.1f}")
            info = "ms per M iterations on/off: " + ", ".join(parts)
    if viewer:
        with open(os.path.join(out, "telemetry.csv"), newline="") as f:
            tel = list(csv.DictReader(f))
        later = tel[int(args.warmup) + 1:]
        ivs = sorted(int(r["interval"]) for r in later)
        busy = [float(r["agent_cpu_pct"]) for r in later if float(r["agent_cpu_pct"]) > 0.2]
        info += (f"{'; ' if info else ''}interval {ivs[len(ivs) // 2] // 1024} KiB, {tel[-1]['samples']} samples, "
                f"agent's own reading {statistics.median(busy) if busy else 0:.2f}% while on")
    if kind == "heaptop" and fixed[1] and sampling[1]:
        # measured: every off phase, every on phase but the last
        on_s, off_s = args.phase * (args.cycles - 1), args.phase * args.cycles
        info += (f"{'; ' if info else ''}its threads (heaptop-*, nng:*) used "
                 f"{100 * sampling[0] / sampling[1]:.2f}% of the JVM's CPU while on "
                 f"({sampling[2] / on_s:.0f} wake-ups/s), {100 * fixed[0] / fixed[1]:.2f}% while off "
                 f"({fixed[2] / off_s:.0f}/s)")
    return ratios, info


print(f"AllocBench {args.threads} threads; {args.warmup:.0f} s warm-up, then {args.cycles} x "
      f"({args.phase:.1f} s off, {args.phase:.1f} s on) in one JVM per configuration"
      + (f"; {args.contended} busy loops beside it" if args.contended else ""), flush=True)
print(f"{'configuration':<58} {'on / off':>9}   quartiles")
for n, (name, (kind, opt)) in enumerate(CONFIGS.items()):
    ratios, info = run(name, kind, opt, n)
    q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
    print(f"{name:<58} {100 * (statistics.median(ratios) - 1):+8.2f}%   "
          f"{100 * (q1 - 1):+.2f}% .. {100 * (q3 - 1):+.2f}%  ({len(ratios)} on-phases)", flush=True)
    if info:
        print(f"{'':<58} {info}", flush=True)
