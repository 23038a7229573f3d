"""By hand, not in CI: drag mode on real programs with the filter on their
whole code base (issue 25): FOP, Xalan, Jython and H2 from
../shared/workloads (their README; JAVA_OPTS goes right after `java`).

For each program:
- correctness: one run under the agent with drag=<its packages> and
  -Xverify:all: exit 0, no VerifyError (nor any other Error naming
  heaptop/Drag) in what it printed, and fingerprint.sh's output identical to
  a run without the agent; during it, `heaptop control status` every 0.5 s:
  its last drag line (classes and methods instrumented, what was left alone,
  samples, tracked and untracked) is printed, and with it the first
  exception or Error the program printed, if any;
- cost: ROUNDS interleaved rounds of three runs, wall time of the script:
  no agent, the agent without drag mode, the agent with drag=<its packages>;
  medians, and drag's over the agent's without it (the figure docs/drag.md
  states: at most 2x).
The agent runs with interval=64k,live=on (drag needs live tracking) and a
control socket in a private directory.

Usage: python3 tests/bench/drag_programs.py BUILD_DIR [--workloads DIR]
       [--only fop,h2] [--rounds 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

FILTERS = {
    "fop": "org.apache.fop.:org.apache.xmlgraphics.:org.apache.batik.:org.apache.commons.io.:"
           "org.apache.commons.logging.",
    "xalan": "org.apache.xalan.:org.apache.xml.:org.apache.xpath.",
    "jython": "org.python.",
    "h2": "org.h2.",
}

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--workloads", default=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                    "shared", "workloads"))
ap.add_argument("--only", default=None)
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()
agent = os.path.abspath(os.path.join(args.build, "agent", "libheaptop.so"))
heaptop = os.path.abspath(os.path.join(args.build, "tui", "heaptop"))
wl = os.path.abspath(args.workloads)
names = [n for n in FILTERS if not args.only or n in args.only.split(",")]
work = tempfile.mkdtemp(prefix="heaptop-drag-programs-")
os.chmod(work, 0o700)


def drag_line(base):
    """The drag line of `heaptop control --ipc BASE status`, or None."""
    try:
        p = subprocess.run([heaptop, "control", "--ipc", base, "status"], capture_output=True,
                           text=True, timeout=10, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    return next((ln for ln in p.stdout.splitlines() if ln.startswith("drag mode")), None)


def run(name, opts, base=None):
    """(exit code, wall s, output, fingerprint, last drag line) of one run of NAME; the
    agent's status polled while it runs when BASE is given."""
    env = dict(os.environ, JAVA_OPTS=opts, BENCH_QUIET="1")
    t = time.monotonic()
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen([os.path.join(wl, f"{name}.sh")], env=env, stdout=out,
                             stderr=subprocess.STDOUT, text=True)
        last = None
        while p.poll() is None:
            if time.monotonic() - t > 900:
                p.kill()
            if base and os.path.exists(base + ".ctl"):
                last = drag_line(base) or last
            time.sleep(0.5)
        wall = time.monotonic() - t
        out.seek(0)
        text = out.read()
    fp = subprocess.run([os.path.join(wl, "fingerprint.sh"), name], capture_output=True,
                        text=True, timeout=120)
    return p.returncode, wall, text, fp.stdout.strip(), last


def agent_opts(n, drag):
    base = os.path.join(work, f"s{n}")
    return f"-agentpath:{agent}=ipc={base},interval=64k,live=on" + (f",drag={drag}" if drag else "")


bad = []
k = 0
for name in names:
    rc0, w0, out0, fp0, _ = run(name, "")
    k += 1
    rc1, w1, out1, fp1, drag = run(name, agent_opts(k, FILTERS[name]) + " -Xverify:all",
                                   os.path.join(work, f"s{k}"))
    verify = [l for l in out1.splitlines() if "VerifyError" in l or "heaptop/Drag" in l
              or "ClassFormatError" in l]
    ok = rc0 == 0 and rc1 == 0 and not verify and fp0 == fp1
    print(f"{name}: drag={FILTERS[name]} -Xverify:all: exit {rc1}, "
          f"{'no VerifyError' if not verify else verify[:3]}, fingerprint "
          f"{'identical' if fp0 == fp1 else f'DIFFERS ({fp0!r} vs {fp1!r})'}", flush=True)
    heap = [l for l in out1.splitlines() if l.startswith("heaptop")]
    for l in heap[-5:]:
        print(f"  {l}")
    print(f"  last status: {drag or 'no drag line (the program ended before one was read)'}")
    thrown = [l for l in out1.splitlines() if "Exception" in l or "Error" in l]
    if thrown:
        print(f"  first exception or error it printed: {thrown[0][:300]}")
    if not ok:
        bad.append(name)
    times = {"no agent": [], "agent": [], "agent + drag": []}
    for _ in range(args.rounds):
        for cfg in times:
            k += 1
            opts = "" if cfg == "no agent" else agent_opts(k, FILTERS[name] if "drag" in cfg else "")
            rc, w, out, fp, _ = run(name, opts)
            if rc != 0 or fp != fp0:
                bad.append(f"{name} ({cfg}): exit {rc}, fingerprint {fp!r}")
            times[cfg].append(w)
    med = {c: statistics.median(v) for c, v in times.items()}
    print(f"{name}: wall s, median of {args.rounds} interleaved: "
          + ", ".join(f"{c} {m:.2f} ({min(times[c]):.2f}-{max(times[c]):.2f})" for c, m in med.items())
          + f"; drag / agent {med['agent + drag'] / med['agent']:.2f}x, "
            f"drag / no agent {med['agent + drag'] / med['no agent']:.2f}x", flush=True)
print("all good" if not bad else f"FAILED: {bad}")
sys.exit(1 if bad else 0)
