"""By hand, not in CI: drag mode on real programs with the filter on their
whole code base (issue 25): FOP, Xalan, Jython and H2 from
../shared/workloads (their README; JAVA_OPTS goes right after `java`).

For each program:
- correctness: one run under the agent with drag=<its packages> and
  -Xverify:all: exit 0, no VerifyError (nor any other Error naming
  heaptop/Drag) in what it printed, and fingerprint.sh's output identical to
  a run without the agent;
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
wl = os.path.abspath(args.workloads)
names = [n for n in FILTERS if not args.only or n in args.only.split(",")]
work = tempfile.mkdtemp(prefix="heaptop-drag-programs-")
os.chmod(work, 0o700)


def run(name, opts):
    """(exit code, wall s, stderr, fingerprint) of one run of NAME."""
    env = dict(os.environ, JAVA_OPTS=opts, BENCH_QUIET="1")
    t = time.monotonic()
    p = subprocess.run([os.path.join(wl, f"{name}.sh")], env=env, capture_output=True, text=True,
                       timeout=900)
    wall = time.monotonic() - t
    fp = subprocess.run([os.path.join(wl, "fingerprint.sh"), name], capture_output=True,
                        text=True, timeout=120)
    return p.returncode, wall, p.stdout + p.stderr, fp.stdout.strip()


def agent_opts(n, drag):
    base = os.path.join(work, f"s{n}")
    return f"-agentpath:{agent}=ipc={base},interval=64k,live=on" + (f",drag={drag}" if drag else "")


bad = []
k = 0
for name in names:
    rc0, w0, out0, fp0 = run(name, "")
    k += 1
    rc1, w1, out1, fp1 = run(name, agent_opts(k, FILTERS[name]) + " -Xverify:all")
    verify = [l for l in out1.splitlines() if "VerifyError" in l or "heaptop/Drag" in l
              or "ClassFormatError" in l]
    ok = rc0 == 0 and rc1 == 0 and not verify and fp0 == fp1
    print(f"{name}: drag={FILTERS[name]} -Xverify:all: exit {rc1}, "
          f"{'no VerifyError' if not verify else verify[:3]}, fingerprint "
          f"{'identical' if fp0 == fp1 else f'DIFFERS ({fp0!r} vs {fp1!r})'}", flush=True)
    heap = [l for l in out1.splitlines() if l.startswith("heaptop")]
    for l in heap[-5:]:
        print(f"  {l}")
    if not ok:
        bad.append(name)
    times = {"no agent": [], "agent": [], "agent + drag": []}
    for _ in range(args.rounds):
        for cfg in times:
            k += 1
            opts = "" if cfg == "no agent" else agent_opts(k, FILTERS[name] if "drag" in cfg else "")
            rc, w, out, fp = run(name, opts)
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
