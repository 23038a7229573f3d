"""The allocation sites of heap objects: the agent marks its live sampled
objects in the dumps it takes, and the analysis joins them with the dominator
tree.

tests/java/SitesWorkload.java allocates at two known sites and keeps a known
share of each (its FACTS), then, on the go signal, grows site A alone:

- `heaptop record --heap` after each phase writes heap_sites.csv: per site
  (class and stack), the estimated objects in the heap and the bytes they
  retain. The truth: the kept counts from FACTS; an ANode or BNode's size
  from `jcmd GC.class_histogram` (bytes / instances of its class); its
  array's size from the array's length (16-byte header, compressed class
  pointers, 8-byte alignment: the JVM's defaults here). Each kept ANode
  retains itself and its byte[] (nothing else refers to the array); the
  estimates must be within 15%.
- The marker moves no figure: a dump with it and one without (`heapdump
  --plain`), taken one after the other of a JVM that allocates nothing, give
  the same objects, bytes, classes and references, the same histogram.csv,
  the same dominators (class, shallow and retained bytes, in order) and the
  same paths from GC roots.
- The sampled objects are named without a connection: `heaptop heap` on the
  kept dump writes the same heap_sites.csv rows, from the session the dump
  carries.
- Survivors: `heaptop heap DUMP1 DUMP2` joins the two dumps' sampled objects
  by sample serial (survivors.csv). The new ones (allocated after DUMP1,
  alive in DUMP2) are site A's: its ANodes and byte[]s estimated within 15%
  of kept_a2 - kept_a1, and no BNode or long[] of site B is new. The kept
  ones (alive in both) are phase 1's: kept_a1 ANodes and kept_b1 BNodes
  within 15%. None is freed: what a live dump holds of either site stays
  held. A plain dump as A joins nothing and says why.
- The same in the terminal: `heaptop open DUMP1 DUMP2`, `v` on the Compare
  screen shows the survivors by site, site A's first, with the new objects
  survivors.csv gives, and its export is survivors.csv's rows as shown.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_jcmd()
wd = Workdir("heap-sites")
f1, go, f2 = wd.file("facts1"), wd.file("go"), wd.file("facts2")
ROUNDS = 200_000
jvm = start_jvm("SitesWorkload", [f1, go, f2, ROUNDS, 120], f"ipc={wd.base},interval=4k",
                ["-Xmx1g"])


def align8(n):
    return (n + 7) // 8 * 8


def record_heap(out):
    """`heaptop record --heap --keep`: (the dump's path, heap_sites.csv rows)."""
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--heap",
                        "--keep", "--out", out], capture_output=True, text=True, timeout=300)
    m = re.search(r"kept the heap dump (\S+)", p.stderr)
    check(p.returncode == 0 and m and os.path.exists(os.path.join(out, "heap_sites.csv")),
          f"record --heap wrote heap_sites.csv into {os.path.basename(out)} "
          f"({p.returncode}: {p.stderr.strip()[-300:]})")
    if not m or not os.path.exists(os.path.join(out, "heap_sites.csv")):
        return None, []
    return m.group(1), read_csv(os.path.join(out, "heap_sites.csv"))[1]


def site(rows, cls, frame):
    """The rows of cls allocated in frame (one per stack: phase 2 calls the
    same allocating frame from another line of main), summed."""
    got = [r for r in rows if r["class"] == cls and r["frame"].startswith(frame)]
    if not got:
        return None
    keys = ("samples_in_heap", "heap_est_instances", "heap_est_retained_bytes",
            "live_est_bytes")
    return {k: sum(float(r[k]) for r in got) for k in keys} | {"stacks": len(got)}


def near(est, truth, tol=0.15):
    return truth > 0 and abs(est - truth) / truth <= tol


def check_site(rows, cls, frame, kept, each, what):
    r = site(rows, cls, frame)
    check(r is not None, f"{what}: heap_sites.csv has {cls} at {frame}")
    if not r:
        return
    n, ret = r["heap_est_instances"], r["heap_est_retained_bytes"]
    check(near(n, kept), f"{what}: {cls} at {frame}: {n:,.0f} objects estimated in the heap, "
          f"{kept:,} kept ({(n - kept) / kept:+.1%}, {r['samples_in_heap']:.0f} samples, "
          f"{r['stacks']} stacks)")
    check(near(ret, kept * each), f"{what}: {cls} at {frame}: {ret:,.0f} bytes retained, "
          f"truth {kept * each:,} ({(ret - kept * each) / (kept * each):+.1%})")
    check(r["live_est_bytes"] > 0, f"{what}: the agent's live bytes beside it "
          f"({r['live_est_bytes']:,.0f})")


def heap_files(dump, out):
    p = subprocess.run([HEAPTOP, "heap", dump, "--out", out, "--paths", "SitesWorkload$BNode"],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"heaptop heap {os.path.basename(dump)} ({p.stderr.strip()[-200:]})")
    return p.stdout


try:
    check(wait_for(lambda: os.path.exists(f1) or jvm.poll() is not None, 120, 0.1,
                   what="phase 1") and jvm.poll() is None, "SitesWorkload ran phase 1")
    facts = read_facts(f1)
    hist = class_histogram(jvm.pid)
    a_node = hist["SitesWorkload$ANode"][1] // hist["SitesWorkload$ANode"][0]
    b_node = hist["SitesWorkload$BNode"][1] // hist["SitesWorkload$BNode"][0]
    a_arr, b_arr = align8(16 + 992), align8(16 + 8 * 126)
    print(f"sizes: ANode {a_node}, byte[992] {a_arr}, BNode {b_node}, long[126] {b_arr}; "
          f"kept {facts}")

    dump1, rows1 = record_heap(wd.file("rec1"))
    check_site(rows1, "SitesWorkload$ANode", "SitesWorkload.allocA", facts["kept_a1"],
               a_node + a_arr, "phase 1")
    check_site(rows1, "byte[]", "SitesWorkload.allocA", facts["kept_a1"], a_arr, "phase 1")
    check_site(rows1, "SitesWorkload$BNode", "SitesWorkload.allocB", facts["kept_b1"],
               b_node + b_arr, "phase 1")
    check_site(rows1, "long[]", "SitesWorkload.allocB", facts["kept_b1"], b_arr, "phase 1")
    top = rows1[0] if rows1 else {}
    check(top.get("class") in ("SitesWorkload$ANode", "byte[]", "java.lang.Object[]"),
          f"the site retaining most comes first ({top.get('class')} at {top.get('frame')})")

    # the same rows from the dump alone: its marker carries the names
    if dump1:
        out = heap_files(dump1, wd.file("alone"))
        check("sampled by heaptop's agent" in out, "heaptop heap says the dump has samples")
        alone = read_csv(wd.file("alone/heap_sites.csv"))[1]
        key = lambda r: (r["class"], r["stack"], r["heap_est_retained_bytes"])  # noqa: E731
        check(sorted(map(key, alone)) == sorted(map(key, rows1)),
              f"heaptop heap on the dump alone names the same {len(rows1)} sites")

    # the marker moves no figure: plain and marked dumps of a quiet JVM
    dumps = []
    for flags in (["--plain"], []):
        p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "heapdump", "--keep", *flags],
                           capture_output=True, text=True, timeout=300)
        m = re.search(r"written: (\S+)", p.stdout)
        dumps.append(m.group(1) if m else None)
        check(m and (("sampled objects marked" in p.stdout) == (not flags)),
              f"heapdump {' '.join(flags) or '(marked)'}: {p.stdout.strip().splitlines()[-2:]}")
    if all(dumps):
        outs = [heap_files(d, wd.file(f"cmp{i}")) for i, d in enumerate(dumps)]
        check("sampled by" not in outs[0] and "sampled by" in outs[1],
              "only the marked dump has samples")
        # the GC roots are left out: a thread's frames and JNI locals (the
        # record that came before, the attach listener) may differ by one
        first = lambda s: re.sub(r", \d+ GC roots", "", s.splitlines()[0].split(": ", 1)[1])  # noqa: E731
        check(first(outs[0]) == first(outs[1]), f"the same objects, bytes, classes and "
              f"references ({first(outs[0])} | {first(outs[1])})")
        h = [open(wd.file(f"cmp{i}/histogram.csv")).read() for i in range(2)]
        check(h[0] == h[1], "histogram.csv is the same with the marker and without")
        doms = [[(r["class"], r["shallow_bytes"], r["retained_bytes"])
                 for r in read_csv(wd.file(f"cmp{i}/dominators.csv"))[1]] for i in range(2)]
        check(doms[0] == doms[1], f"dominators.csv: the same {len(doms[0])} objects, classes and "
              f"retained sizes in the same order")
        paths = [sorted(r["path"] for r in read_csv(wd.file(f"cmp{i}/paths.csv"))[1])
                 for i in range(2)]
        paths = [[re.sub(r"0x[0-9a-f]+", "", p) for p in ps] for ps in paths]
        check(paths[0] == paths[1] and len(paths[0]) == 1000,
              f"paths.csv: the same paths from GC roots to {len(paths[0])} BNodes")

    # phase 2: site A grows, B does not
    touch(go)
    check(wait_for(lambda: os.path.exists(f2) or jvm.poll() is not None, 120, 0.1,
                   what="phase 2") and jvm.poll() is None, "SitesWorkload ran phase 2")
    facts2 = read_facts(f2)
    dump2, rows2 = record_heap(wd.file("rec2"))
    check_site(rows2, "SitesWorkload$ANode", "SitesWorkload.allocA", facts2["kept_a2"],
               a_node + a_arr, "phase 2")
    check_site(rows2, "SitesWorkload$BNode", "SitesWorkload.allocB", facts2["kept_b2"],
               b_node + b_arr, "phase 2")

    # survivors between the phase 1 and phase 2 dumps, matched by serial
    if dump1 and dump2:
        p = subprocess.run([HEAPTOP, "heap", dump1, dump2, "--out", wd.file("surv")],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0 and "survivors:" in p.stdout,
              f"heaptop heap DUMP1 DUMP2 ({p.returncode}: {p.stdout.strip().splitlines()[-2:]} "
              f"{p.stderr.strip()[-200:]})")
        surv = read_csv(wd.file("surv/survivors.csv"))[1] if p.returncode == 0 else []

        def total(cls, frame, col):
            return sum(float(r[col]) for r in surv
                       if r["class"] == cls and r["frame"].startswith(frame))

        grew = facts2["kept_a2"] - facts["kept_a1"]
        for cls in ("SitesWorkload$ANode", "byte[]"):
            n = total(cls, "SitesWorkload.allocA", "new_est_instances")
            check(near(n, grew), f"survivors: {n:,.0f} {cls} of site A new since dump 1, "
                  f"{grew:,} kept in phase 2 ({(n - grew) / grew:+.1%})")
        for cls in ("SitesWorkload$BNode", "long[]"):
            n = total(cls, "SitesWorkload.allocB", "new_samples")
            check(n == 0, f"survivors: no {cls} of site B is new since dump 1 ({n:.0f} samples)")
        for cls, frame, kept in (("SitesWorkload$ANode", "SitesWorkload.allocA", facts["kept_a1"]),
                                 ("SitesWorkload$BNode", "SitesWorkload.allocB", facts["kept_b1"])):
            n = total(cls, frame, "kept_est_instances")
            check(near(n, kept), f"survivors: {n:,.0f} {cls} alive in both dumps, {kept:,} kept "
                  f"in phase 1 ({(n - kept) / kept:+.1%})")
            freed = total(cls, frame, "freed_samples")
            check(freed == 0, f"survivors: no {cls} freed between the dumps ({freed:.0f})")
        lead = surv[0] if surv else {}
        check(lead.get("frame", "").startswith("SitesWorkload.allocA"),
              f"survivors: the most new bytes are site A's ({lead.get('class')} at "
              f"{lead.get('frame')})")
    if dump1 and dump2 and surv:
        out = wd.file("tui-out")
        os.makedirs(out)
        t = Tmux("tuisurv", f"{HEAPTOP} open {dump1} {dump2} --out {out}", cols=170, rows=40)
        try:
            check(t.wait_for("->  B:", 60) is not None, "heaptop open DUMP1 DUMP2: Compare")
            t.keys("v")
            sc = t.wait_for("ALLOCATED AT", 10) or ""
            lines = [x for x in sc.splitlines() if "SitesWorkload.alloc" in x]
            first = lines[0].split() if lines else []
            lead_new = float(surv[0]["new_est_instances"])
            check(first and "SitesWorkload.allocA" in lines[0] and
                  abs(float(first[0]) - lead_new) <= 1,
                  f"v: the survivors by site, site A's first with {lead_new:,.0f} new objects "
                  f"as survivors.csv says ({lines[:1]})")
            check(not any("allocB" in x and x.split()[0] != "0" for x in lines),
                  "v: site B has no new objects on screen")
            t.keys("e")
            check(wait_for(lambda: glob.glob(os.path.join(out, "heaptop-survivors-*.summary.csv")),
                           20), "e in the survivors view writes heaptop-survivors-*.csv")
            files = [x for x in glob.glob(os.path.join(out, "heaptop-survivors-*.csv"))
                     if not x.endswith(".summary.csv")]
            got = read_csv(files[0])[1] if files else []
            if got[:3] != surv[:3]:
                print("tui", got[:3], "\ncli", surv[:3])
            check(len(got) == len(surv) and got[:3] == surv[:3],
                  f"the export holds survivors.csv's {len(surv)} rows ({len(got)})")
        finally:
            t.kill()
    if dump2 and dumps and dumps[0]:
        p = subprocess.run([HEAPTOP, "heap", dumps[0], dump2, "--out", wd.file("surv-plain")],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0 and "survivors: none joined: a snapshot without heaptop's marker"
              in p.stdout, f"a plain dump as A joins no sample and says why "
              f"({p.stdout.strip().splitlines()[-2:]})")
finally:
    jvm.kill()
    jvm.wait()
    wd.cleanup()
finish()
