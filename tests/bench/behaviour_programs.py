"""The Behaviour ranking (object-group reference graph, docs/behaviour.md) on
real programs heaptop did not write, in the manner of the paper's Table 3:
Debian's FOP 2.8 and Jython 2.7.3 (../shared/workloads/fop.sh, jython.sh),
each dumped at its peak.

For each program: the workload runs; a dump of its live objects is taken
(`jcmd PID GC.heap_dump`, a full GC first, as the paper's walk after a GC)
every --every seconds until it ends, and the biggest is kept (the paper kept
the sample at the peak). `heaptop heap` then analyses it twice, with
--scc literal (the default) and --scc none, and this prints from the CSV
files it wrote (behaviour.csv, behaviour_edges.csv, histogram.csv):
- the top 10 by MCC beside the top 10 by shallow size (the histogram, as
  Eclipse MAT's list in the paper), with branches and coverage at t1 against
  the number of referrer nodes (the paper's "MAT branches": every parent);
- the largest Cycle_N (its classes and bytes);
- the overcount factor MD_ROOT / reachable bytes, and for the top 10 and
  30 the estimate MD + MC against the exact retained size;
- the paper's claims: C1 (the lists overlap in part and rank differently),
  C2 (a few branches cover most: String), C3 (branches above DR 80%), C4
  (some shallow top-10 node has no branch at t1: filtered).
Not a CI test: it runs two real programs for a minute. Figures go in
docs/behaviour.md with the date and the commit.

Usage: python3 tests/bench/behaviour_programs.py BUILD_DIR [--only fop,jython]
       [--every 1.0] [--keep DIR [--reuse]]
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--only", default="fop,jython")
ap.add_argument("--every", type=float, default=1.0, help="seconds between dumps")
ap.add_argument("--keep", default=None, help="keep the peak dumps and CSV files here")
ap.add_argument("--reuse", action="store_true",
                help="with --keep: analyse the peak dumps kept there by an earlier run")
args = ap.parse_args()

HERE = os.path.dirname(os.path.abspath(__file__))
WL = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "workloads"))
HEAPTOP = os.path.join(os.path.abspath(args.build), "tui", "heaptop")
JAVA_HOME = os.environ.get("BENCH_JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
JCMD = os.path.join(JAVA_HOME, "bin", "jcmd")
work = args.keep or tempfile.mkdtemp(prefix="heaptop-behaviour-programs-")
os.makedirs(work, exist_ok=True)


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def find_java(pid):
    """The java process under the workload's shell (pid itself or a child)."""
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/comm") as f:
                if f.read().strip() == "java":
                    return p
        except OSError:
            pass
        todo += children(p)
    return None


def peak_dump(name):
    """Run the workload, dump it every --every seconds, keep the biggest."""
    script = os.path.join(WL, f"{name}.sh")
    proc = subprocess.Popen(["bash", script], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    best, best_size, taken = os.path.join(work, f"{name}-peak.hprof"), 0, 0
    tmp = os.path.join(work, f"{name}-now.hprof")
    jvm = None
    deadline = time.time() + 600
    while proc.poll() is None and time.time() < deadline:
        if jvm is None:
            jvm = find_java(proc.pid)
            if jvm is None:
                time.sleep(0.05)
                continue
            time.sleep(args.every)  # the program's start is not its peak
        if os.path.exists(tmp):
            os.unlink(tmp)
        r = subprocess.run([JCMD, str(jvm), "GC.heap_dump", tmp], capture_output=True, text=True,
                           timeout=300)
        if r.returncode == 0 and os.path.exists(tmp):
            taken += 1
            size = os.path.getsize(tmp)
            if size > best_size:
                os.replace(tmp, best)
                best_size = size
        time.sleep(args.every)
    err = proc.stderr.read()
    if proc.wait() != 0:
        raise SystemExit(f"behaviour_programs: {name}.sh failed: {err.strip()[-300:]}")
    if not best_size:
        raise SystemExit(f"behaviour_programs: no dump of {name} was taken")
    return best, best_size, taken


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def analyse(name, dump, scc):
    out = os.path.join(work, f"{name}-{scc}")
    t0 = time.monotonic()
    r = subprocess.run([HEAPTOP, "heap", dump, "--out", out, "--scc", scc],
                       capture_output=True, text=True, timeout=1800)
    secs = time.monotonic() - t0
    if r.returncode != 0:
        raise SystemExit(f"behaviour_programs: heaptop heap {scc}: {(r.stderr or r.stdout)[-300:]}")
    nodes = read_csv(os.path.join(out, "behaviour.csv"))
    edges = read_csv(os.path.join(out, "behaviour_edges.csv"))
    hist = read_csv(os.path.join(out, "histogram.csv"))
    return nodes, edges, hist, secs, r.stdout


def mb(b):
    return f"{int(float(b)) / 1048576:.2f}"


def report(name, scc, nodes, edges, hist, secs):
    by_name = {n["node"]: n for n in nodes}
    parents = {}
    for e in edges:
        if e["from"] != e["to"]:
            parents.setdefault(e["to"], set()).add(e["from"])
    member_of = {}
    for n in nodes:
        if n["node"].startswith("Cycle_"):
            for c in n["classes"].split(";"):
                member_of[c] = n["node"]
    total = sum(int(n["mc_bytes"]) for n in nodes)
    md_root = sum((float(by_name[e["to"]]["md_bytes"]) + int(by_name[e["to"]]["mc_bytes"])) *
                  float(e["dr"]) for e in edges if e["from"] == "ROOT" and e["kept"] == "1"
                  and e["to"] in by_name)
    cycles = [n for n in nodes if n["node"].startswith("Cycle_")]
    big = max(cycles, key=lambda n: int(n["mc_bytes"]), default=None)
    print(f"\n## {name}, scc={scc}: {len(nodes)} nodes, {len(edges)} edges, "
          f"{mb(total)} MB reachable, overcount MD_ROOT/T = {md_root / total:.3f}, "
          f"heaptop heap {secs:.1f} s")
    if big:
        cls = big["classes"].split(";")
        print(f"largest cycle node: {big['node']}, {len(cls)} classes, {big['units']} units, "
              f"{mb(big['mc_bytes'])} MB ({100 * int(big['mc_bytes']) / total:.1f}% of the heap): "
              f"{'; '.join(cls[:8])}{' ...' if len(cls) > 8 else ''}")
    print(f"{'#':>2} {'by MCC':<44} {'MC MB':>7} {'MD MB':>7} {'br':>3} {'cover':>6} {'refs':>5}"
          f"   {'by shallow size':<44} {'MB':>7} {'node rank':>9} {'br':>3} {'refs':>5}")
    top = nodes[:10]
    shallow = sorted(hist, key=lambda h: -int(h["shallow_bytes"]))[:10]
    for i in range(10):
        left = right = ""
        if i < len(top):
            n = top[i]
            left = (f"{n['node'][:44]:<44} {mb(n['mc_bytes']):>7} {mb(n['md_bytes']):>7} "
                    f"{n['branches']:>3} {100 * float(n['coverage']):5.0f}% "
                    f"{len(parents.get(n['node'], ())):>5}")
        if i < len(shallow):
            h = shallow[i]
            n = by_name.get(h["class"])
            where = n["rank"] if n else member_of.get(h["class"], "-")
            right = (f"{h['class'][:44]:<44} {mb(h['shallow_bytes']):>7} {where:>9} "
                     f"{(n['branches'] if n else '-'):>3} "
                     f"{(len(parents.get(h['class'], ())) if n else '-'):>5}")
        print(f"{i + 1:>2} {left:<78}   {right}")
    # the paper's claims
    top_names = {n["node"] for n in top}
    sh_names = {h["class"] for h in shallow}
    print(f"C1: {len(top_names & sh_names)} of 10 in both lists")
    s = by_name.get("java.lang.String")
    if s:
        print(f"C2: java.lang.String: {s['branches']} branches at t1 covering "
              f"{100 * float(s['coverage']):.0f}%, against {len(parents.get('java.lang.String', ()))} "
              f"referrer nodes")
    else:
        print(f"C2: java.lang.String is inside {member_of.get('java.lang.String', '?')}")
    drs = [float(e["dr"]) for e in edges if e["to"] in top_names and e["kept"] == "1"
           and float(e["dr"]) >= 0.1]
    if drs:
        print(f"C3: branches of the top 10 at DR >= 0.1: {len(drs)}, of them at DR >= 0.8: "
              f"{sum(d >= 0.8 for d in drs)} (min DR {min(drs):.2f})")
    for k in (10, 30):  # where the paper's averaging holds: the estimate against the truth
        r = sorted((float(n["md_bytes"]) + int(n["mc_bytes"])) / int(n["retained_bytes"])
                   for n in nodes[:k] if int(n["retained_bytes"]))
        if r:
            print(f"(MD + MC) / exact retained, top {k}: median {r[len(r) // 2]:.2f}, within 1.5x "
                  f"{sum(1 / 1.5 <= v <= 1.5 for v in r)} of {len(r)}, highest {r[-1]:.1f}")
    flagged = [h["class"] for h in shallow if by_name.get(h["class"], {}).get("flagged") == "1"]
    print(f"C4: shallow top-10 classes with no branch at t1 (filtered): "
          f"{', '.join(flagged) if flagged else 'none'}")


for name in [w.strip() for w in args.only.split(",") if w.strip()]:
    kept = os.path.join(work, f"{name}-peak.hprof")
    if args.reuse and os.path.exists(kept):
        dump, size, taken = kept, os.path.getsize(kept), "kept"
    else:
        dump, size, taken = peak_dump(name)
    print(f"# {name}: the biggest of {taken} dumps, {size / 1048576:.0f} MB")
    for scc in ("literal", "none"):
        nodes, edges, hist, secs, _ = analyse(name, dump, scc)
        report(name, scc, nodes, edges, hist, secs)
    if not args.keep:
        os.unlink(dump)
if not args.keep:
    shutil.rmtree(work, ignore_errors=True)
sys.stdout.flush()
