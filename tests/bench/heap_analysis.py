"""The heap analyser's figures: `heaptop heap DUMP --out DIR` on a dump of
about --objects objects (tests/java/BigHeap.java: groups of eight objects,
~2.25 references an object), against VisualVM's heap library on the same dump.

1. BigHeap builds its heap in a JVM run with -Xlog:safepoint and -Xlog:gc;
   `jcmd PID GC.heap_dump DUMP` writes the dump, three times (the first is
   analysed; the median pause of the three is the --max-pause-ratio check's
   baseline). The JVM's pause for the dump
   is the "HeapDumper" safepoint's Total in the -Xlog:safepoint line: the
   whole VM operation, which on JDK 17 runs the full GC a live dump starts
   with ("Pause Full (Heap Dump Initiated GC)" in -Xlog:gc, reported apart)
   and writes the file; jcmd's wall time adds the attach.
2. `heaptop heap DUMP --out DIR`, --runs times (3): the median wall time (the
   process from fork to exit, as a user waits for it), objects a second
   (objects from heaptop's own first line), CPU, and peak RSS from wait4's
   ru_maxrss. heaptop maps the dump whole (MAP_POPULATE), so its pages are in
   that RSS though they are page cache, not the viewer's memory: the figures
   are given with and without the dump's size, each per object. As a check
   of that subtraction /proc/PID/status is read every 10 ms during the run
   for the peak of RssAnon (memory that is the viewer's own). Duplicate
   groups (objects of one class with the same contents) are part of the
   analysis: the time heaptop says they took, beside the rest of the
   analysis (target: at most half of it), the most memory they held at once
   per object, and, for scale, how many comparisons a naive all-pairs finder
   would make on this heap (n(n-1)/2 objects of a class, summed over the
   classes). The behaviour ranking (behaviour.h, built inside the analysis
   with the default options) is weighed in the same way: its own time, which
   heaptop's "behaviour:" line gives, against the rest of the analysis in the
   same run; and its addition to the peak memory, from as many runs again
   with HEAPTOP_NO_BEHAVIOUR set (the analysis without it), interleaved with
   the others: the median peak RSS with it minus the median without, per
   object (the mapped dump is in both and cancels), and the same for the
   sampled peak RssAnon.
3. Unless --no-visualvm or the library's jar is missing: tests/bench/
   VisualVmHeap.java, compiled into a temp dir, on the same dump (its
   DUMP.hwcache index directory deleted before and after: the library reuses
   it), with -Xmx768m as VisualVM's own launcher gives its JVM
   (/usr/share/visualvm/etc/visualvm.conf; --visualvm-xmx). Its time is the
   driver's total_s (opening the dump to the top 1000 written, without the
   JVM's start), its memory the VmHWM it prints. Compared:
   - the objects both top-1000 lists by retained size (heaptop's
     dominators.csv, VisualVM's OUT.csv) share, by HPROF object id: how many
     have the same retained size, the largest relative difference;
   - each object of heaptop's top 1000 looked up in VisualVM (the driver's
     LOOKUP.csv), which the lists' cut-offs cannot hide: equal retained and
     shallow sizes, and the differences grouped by class with an example
     each (all of them in compare.csv, kept with --keep);
   - every class: instances, shallow bytes and retained bytes of its
     instances taken together (heaptop's histogram.csv, VisualVM's
     JavaClass.getRetainedSizeByClass), which covers the benchmark's own
     million objects, not only the JDK's objects that fill most of a top
     1000 here;
   - the speed ratio (heaptop objects/s / VisualVM's, each with its own
     object count: VisualVM does not count class objects) and the memory
     ratio (VisualVM's peak RSS / heaptop's).
   The two count differently; measured on JDK 17 (docs/benchmarks.md): heaptop's
   shallow sizes are the JVM's (jcmd GC.class_histogram), with injected
   fields and @Contended padding (Thread 368 bytes, Module 56, MemberName
   48), VisualVM's are smaller; VisualVM's class object is 72 bytes and not
   counted in its own retained size; heaptop counts weak and soft referents
   (as Eclipse MAT), VisualVM gives objects reachable only through them a
   retained size of 0; heaptop has an edge from each object to its class, so
   the only instance of an array class retains that class's mirror.

The dump is read from the page cache in every run (it was just written).
Prints one line per run, then one summary block. Exit 0, or 1 when a bound
given on the command line fails:
  --min-objects-per-s X    heaptop's objects a second in its fastest run (load
                           on a shared machine only slows a run down)
  --max-pause-ratio R      heaptop's fastest run at most R times the JVM's
                           own pause to write the dump (median of three):
                           a bound measured against the same machine in the
                           same run, which CI checks
  --max-bytes-per-object Y heaptop's median peak RSS minus the dump's size,
                           per object
  --check                  the behaviour ranking's bounds: at most 25% added
                           to the analysis time (its median time / the rest's)
                           and 24 bytes an object added to the peak RSS (the
                           issue's targets; --max-behaviour-time-ratio and
                           --max-behaviour-bytes-per-object change them)
CI (ctest -L bench, 1 M objects, --no-visualvm): see tests/CMakeLists.txt
for the bounds and docs/benchmarks.md for the spread they were chosen from.

Usage: python3 tests/bench/heap_analysis.py [BUILD_DIR] [--objects N] [--runs R]
       [--xmx SIZE] [--no-visualvm] [--visualvm-xmx SIZE] [--keep DIR] [bounds]
Paths: HEAPTOP_BIN and HEAPTOP_JAR (as ctest sets them), else
BUILD_DIR/tui/heaptop and BUILD_DIR/tests/heaptop-tests.jar; JAVA (java), and
jcmd and javac next to it."""
import argparse
import atexit
import csv
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

VISUALVM_JAR = "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar"
HERE = os.path.dirname(os.path.abspath(__file__))

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("build", nargs="?", default=None, help="build directory (without HEAPTOP_BIN/HEAPTOP_JAR)")
ap.add_argument("--objects", type=int, default=1_000_000, help="objects BigHeap builds (1000000)")
ap.add_argument("--runs", type=int, default=3, help="runs of heaptop heap (3)")
ap.add_argument("--xmx", default=None, help="BigHeap's -Xmx (default: 256m, or 150 bytes an object)")
ap.add_argument("--no-visualvm", action="store_true", help="leave VisualVM's library out")
ap.add_argument("--visualvm-jar", default=VISUALVM_JAR)
ap.add_argument("--visualvm-xmx", default="768m",
                help="VisualVM driver's -Xmx (768m, as VisualVM's launcher); '' for the JVM's default")
ap.add_argument("--keep", default=None, help="keep the dump and the outputs in this directory")
ap.add_argument("--min-objects-per-s", type=float, default=None)
ap.add_argument("--max-bytes-per-object", type=float, default=None)
ap.add_argument("--max-pause-ratio", type=float, default=None,
                help="fail when the fastest run takes longer than this many times the JVM's "
                     "pause to write the dump (median of three dumps, the same run)")
ap.add_argument("--check", action="store_true",
                help="fail when the behaviour ranking adds more than its bounds (25%% of the analysis "
                     "time, 24 bytes an object to the peak)")
ap.add_argument("--max-behaviour-time-ratio", type=float, default=None,
                help="the behaviour build's time / the rest of the analysis's, at most (--check: 0.25)")
ap.add_argument("--max-behaviour-bytes-per-object", type=float, default=None,
                help="peak RSS with the behaviour build minus without, per object, at most (--check: 24)")
args = ap.parse_args()
if args.check:
    if args.max_behaviour_time_ratio is None:
        args.max_behaviour_time_ratio = 0.25
    if args.max_behaviour_bytes_per_object is None:
        args.max_behaviour_bytes_per_object = 24.0


def fail_setup(msg, code=2):
    print(f"{'skipped' if code == 77 else 'heap_analysis'}: {msg}", flush=True)
    sys.exit(code)


def in_build(*parts):
    if not args.build:
        fail_setup("give BUILD_DIR, or set HEAPTOP_BIN and HEAPTOP_JAR")
    return os.path.join(args.build, *parts)


HEAPTOP = os.environ.get("HEAPTOP_BIN") or in_build("tui", "heaptop")
JAR = os.environ.get("HEAPTOP_JAR") or in_build("tests", "heaptop-tests.jar")
JAVA = os.environ.get("JAVA", "java")


def jdk_tool(name):
    real = shutil.which(JAVA)
    if real:
        p = os.path.join(os.path.dirname(os.path.realpath(real)), name)
        if os.path.exists(p):
            return p
    return shutil.which(name)


JCMD = jdk_tool("jcmd")
if not JCMD:
    fail_setup(f"no jcmd next to {JAVA} nor on the PATH", 77)
for p in (HEAPTOP, JAR):
    if not os.path.exists(p):
        fail_setup(f"{p} is missing (build first)")

if args.keep:
    work = os.path.abspath(args.keep)
    os.makedirs(work, exist_ok=True)
else:
    work = tempfile.mkdtemp(prefix="heaptop-heapbench-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)  # the dump is big: gone however this ends
os.chmod(work, 0o700)
MiB = 1 << 20


def jvm_description():
    p = subprocess.run([JAVA, "-version"], capture_output=True, text=True, timeout=60)
    m = re.search(r'version "([^"]+)"', p.stderr)
    return m.group(1) if m else "?"


def proc_status(pid):
    """RssAnon and RssFile of a running process, in bytes (0 once gone)."""
    anon = fil = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = int(line.split()[1]) * 1024
                elif line.startswith("RssFile:"):
                    fil = int(line.split()[1]) * 1024
    except OSError:
        pass
    return anon, fil


def measured(cmd, out_path, timeout, env=None):
    """Run cmd with stdout to out_path; wall time, wait4's rusage, the peak
    RssAnon and RssFile read every 10 ms, the exit status."""
    t0 = time.monotonic()
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    peak_anon = peak_file = 0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - t0 > timeout:
            p.kill()
            _, status, ru = os.wait4(p.pid, 0)
            break
        anon, fil = proc_status(p.pid)
        peak_anon, peak_file = max(peak_anon, anon), max(peak_file, fil)
        time.sleep(0.01)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: keep Popen quiet
    with open(out_path) as f:
        text = f.read()
    return dict(wall=wall, cpu=ru.ru_utime + ru.ru_stime, rss=ru.ru_maxrss * 1024, anon=peak_anon,
                file=peak_file, rc=p.returncode, out=text)


# --- 1. the heap and its dump
xmx = args.xmx or f"{max(256, (args.objects * 150) >> 20)}m"
facts_path = os.path.join(work, "facts")
log_path = os.path.join(work, "jvm.log")
dump = os.path.join(work, "heap.hprof")
for f in (facts_path, log_path, dump):
    if os.path.exists(f):
        os.remove(f)
jvm_version = jvm_description()
big = subprocess.Popen([JAVA, "-XX:+UseG1GC", f"-Xmx{xmx}", f"-Xlog:safepoint=info,gc=info:file={log_path}",
                        "-cp", JAR, "BigHeap", facts_path, str(args.objects), "3600"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
try:
    deadline = time.monotonic() + 60 + args.objects / 100_000
    while not os.path.exists(facts_path) and big.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # BigHeap writes its facts once the heap is built and collected
    if not os.path.exists(facts_path):
        big.kill()
        fail_setup(f"BigHeap did not build its heap: {big.communicate()[0].strip()[-400:]}", 1)
    facts = {}
    with open(facts_path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            facts[k] = int(v)
    # three dumps of the same heap: the JVM's pauses for them are the baseline
    # the check's ratio is taken against (the median); the first is analysed
    for i in range(3):
        into = dump if i == 0 else f"{dump}.{i}"
        t0 = time.monotonic()
        jc = subprocess.run([JCMD, str(big.pid), "GC.heap_dump", into], capture_output=True,
                            text=True, timeout=600)
        if i == 0:
            jcmd_wall = time.monotonic() - t0
        if jc.returncode != 0 or not os.path.exists(into):
            fail_setup(f"jcmd GC.heap_dump failed: {jc.stdout.strip()[-300:]} {jc.stderr.strip()[-300:]}", 1)
        if i:
            os.remove(into)
finally:
    if big.poll() is None:
        big.send_signal(signal.SIGTERM)  # a normal exit, so the log is complete
    try:
        big.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        big.kill()
        big.communicate()
dump_size = os.path.getsize(dump)
pauses_ns, gc_ms = [], None
with open(log_path) as f:
    for line in f:
        m = re.search(r'Safepoint "HeapDumper".*Total: (\d+) ns', line)
        if m:
            pauses_ns.append(int(m.group(1)))
        m = re.search(r"Pause Full \(Heap Dump Initiated GC\).* ([\d.]+)ms", line)
        if m and gc_ms is None:
            gc_ms = float(m.group(1))
pause_ns = pauses_ns[0] if pauses_ns else None  # the analysed dump's
base_ns = sorted(pauses_ns)[len(pauses_ns) // 2] if len(pauses_ns) == 3 else None
print(f"BigHeap: {facts['objects']:,} objects built ({facts['references']:,} references) in "
      f"{facts['build_ms']} ms, -Xmx{xmx}; dump {dump_size / MiB:.1f} MiB, jcmd {jcmd_wall:.2f} s", flush=True)

# --- 2. heaptop heap
HEAD = re.compile(r": (\d+) objects, (\d+) bytes, (\d+) classes, (\d+) GC roots, (\d+) references")
DUPS = re.compile(r"duplicates: (\d+) groups of equal objects \((\d+) objects\) found in ([\d.]+) s of it, "
                  r"([\d.]+) bytes/object at most")
BHV = re.compile(r"behaviour: (\d+) nodes .*?, overcount ([\d.]+), ([\d.]+) s;")
runs, bare = [], []  # bare: the same command without the behaviour build
for r in range(args.runs):
    out_dir = os.path.join(work, f"heaptop-nobhv{r}")
    shutil.rmtree(out_dir, ignore_errors=True)
    m = measured([HEAPTOP, "heap", dump, "--out", out_dir], os.path.join(work, f"heaptop-nobhv{r}.txt"),
                 timeout=600 + args.objects / 10_000, env=dict(os.environ, HEAPTOP_NO_BEHAVIOUR="1"))
    an = re.search(r"analysed in ([\d.]+) s", m["out"])
    if m["rc"] != 0 or not an:
        fail_setup(f"heaptop heap (HEAPTOP_NO_BEHAVIOUR) failed (exit {m['rc']}): {m['out'].strip()[-500:]}", 1)
    m["analysed"] = float(an.group(1))
    left = BHV.search(m["out"])
    if left and int(left.group(1)) > 0:  # else "without" would measure the same as "with"
        fail_setup(f"HEAPTOP_NO_BEHAVIOUR left the behaviour build in ({left.group(0)})", 1)
    bare.append(m)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir = os.path.join(work, f"heaptop{r}")
    shutil.rmtree(out_dir, ignore_errors=True)
    m = measured([HEAPTOP, "heap", dump, "--out", out_dir], os.path.join(work, f"heaptop{r}.txt"),
                 timeout=600 + args.objects / 10_000)
    head = HEAD.search(m["out"])
    if m["rc"] != 0 or not head:
        fail_setup(f"heaptop heap failed (exit {m['rc']}): {m['out'].strip()[-500:]}", 1)
    m["objects"], m["refs"] = int(head.group(1)), int(head.group(5))
    an = re.search(r"analysed in ([\d.]+) s", m["out"])
    m["analysed"] = float(an.group(1)) if an else float("nan")
    dup = DUPS.search(m["out"])
    m["dup_groups"], m["dup_objects"] = (int(dup.group(1)), int(dup.group(2))) if dup else (0, 0)
    m["dup_s"], m["dup_bpo"] = (float(dup.group(3)), float(dup.group(4))) if dup else (float("nan"),) * 2
    bhv = BHV.search(m["out"])
    if not bhv:
        fail_setup(f"heaptop heap said nothing of the behaviour ranking: {m['out'].strip()[-500:]}", 1)
    m["bhv_nodes"], m["overcount"], m["bhv_s"] = int(bhv.group(1)), float(bhv.group(2)), float(bhv.group(3))
    runs.append(m)
    b = bare[-1]
    print(f"heaptop run {r + 1}: {m['wall']:.2f} s wall ({m['analysed']:.2f} s analysed), "
          f"{m['cpu']:.2f} s CPU, peak RSS {m['rss'] / MiB:.1f} MiB, peak RssAnon {m['anon'] / MiB:.1f} MiB, "
          f"RssFile {m['file'] / MiB:.1f} MiB; of the analysis, duplicates {m['dup_s']:.2f} s, behaviour "
          f"{m['bhv_s']:.2f} s; without the behaviour build: {b['analysed']:.2f} s analysed, peak RSS "
          f"{b['rss'] / MiB:.1f} MiB, RssAnon {b['anon'] / MiB:.1f} MiB", flush=True)
objects, refs = runs[0]["objects"], runs[0]["refs"]
wall = statistics.median(m["wall"] for m in runs)
best = min(m["wall"] for m in runs)
rss = statistics.median(m["rss"] for m in runs)
anon = statistics.median(m["anon"] for m in runs)
rate = objects / wall
viewer = rss - dump_size

# --- 3. VisualVM's heap library on the same dump
vv = None
vv_skip = None
if args.no_visualvm:
    vv_skip = "--no-visualvm"
elif not os.path.exists(args.visualvm_jar):
    vv_skip = f"{args.visualvm_jar} is missing (Debian package visualvm)"
elif not jdk_tool("javac"):
    vv_skip = "no javac"
if vv_skip is None:
    cls_dir = os.path.join(work, "visualvm-classes")
    os.makedirs(cls_dir, exist_ok=True)
    jc = subprocess.run([jdk_tool("javac"), "-cp", args.visualvm_jar, "-d", cls_dir,
                         os.path.join(HERE, "VisualVmHeap.java")], capture_output=True, text=True, timeout=300)
    if jc.returncode != 0:
        fail_setup(f"javac VisualVmHeap.java: {jc.stderr.strip()[-500:]}", 1)
    cache = dump + ".hwcache"
    shutil.rmtree(cache, ignore_errors=True)
    vv_csv = os.path.join(work, "visualvm.csv")
    ids_path, lookup_csv = os.path.join(work, "heaptop-top.ids"), os.path.join(work, "visualvm-lookup.csv")
    classes_csv = os.path.join(work, "visualvm-classes.csv")
    with open(os.path.join(work, "heaptop0", "dominators.csv"), newline="") as f, open(ids_path, "w") as o:
        # heaptop writes ids in hex (as on screen); VisualVmHeap reads decimal
        o.writelines(str(int(r["object_id"], 0)) + "\n" for r in csv.DictReader(f))
    cmd = [JAVA] + ([f"-Xmx{args.visualvm_xmx}"] if args.visualvm_xmx else []) + \
        ["-cp", f"{args.visualvm_jar}:{cls_dir}", "VisualVmHeap", dump, vv_csv, ids_path, lookup_csv,
         classes_csv]
    print(f"VisualVM: {' '.join(cmd[:4])} VisualVmHeap ... (minutes at 10 M objects)", flush=True)
    vv = measured(cmd, os.path.join(work, "visualvm.txt"), timeout=7200)
    shutil.rmtree(cache, ignore_errors=True)
    line = re.search(r"visualvm objects=(\d+) classes=(\d+) open_s=([\d.]+) retained_s=([\d.]+) "
                     r"total_s=([\d.]+) peak_heap_mb=([\d.]+) live_heap_mb=([\d.]+) rss_peak_mb=([\d.]+)",
                     vv["out"])
    if vv["rc"] != 0 or not line:
        print(f"VisualVM failed (exit {vv['rc']}): {vv['out'].strip()[-800:]}", flush=True)
        vv_skip, vv = f"the VisualVM run failed (exit {vv['rc']})", None
    else:
        vv.update(objects=int(line.group(1)), classes=int(line.group(2)), open_s=float(line.group(3)),
                  retained_s=float(line.group(4)), total_s=float(line.group(5)), peak_heap=float(line.group(6)),
                  live_heap=float(line.group(7)), hwm=float(line.group(8)) * MiB)
        by_class = re.search(r"by_class_s=([\d.]+)", vv["out"])
        vv["by_class_s"] = float(by_class.group(1)) if by_class else float("nan")
        for extra in vv["out"].strip().splitlines()[1:]:
            if not extra.startswith("visualvm by_class_s="):
                print(f"  {extra}")


def read_rows(path):
    with open(path, newline="") as f:
        # one key for heaptop's hex ids and VisualVM's decimal ones
        return {int(r["object_id"], 0): r for r in csv.DictReader(f)}


def differences(h_rows, v_rows, ids):
    """Of ids (in both): those with equal retained sizes, the largest relative
    difference, and the others grouped by class (class mirrors as one)."""
    equal = [i for i in ids if h_rows[i]["retained_bytes"] == v_rows[i]["retained_bytes"]]

    def rel(i):
        h, v = int(h_rows[i]["retained_bytes"] or 0), int(v_rows[i]["retained_bytes"] or 0)
        return abs(h - v) / max(h, v, 1)

    differ = sorted((i for i in ids if h_rows[i]["retained_bytes"] != v_rows[i]["retained_bytes"]),
                    key=rel, reverse=True)
    kinds = {}
    for i in differ:
        k = h_rows[i]["class"]
        kinds.setdefault("java.lang.Class(...)" if k.startswith("java.lang.Class(") else k, []).append(i)
    return equal, (rel(differ[0]) if differ else 0.0), differ, kinds


def java_name(n):
    """A JVM class name as VisualVM writes it: "[[I" -> "int[][]", "[Ljava.lang.Object;" -> "java.lang.Object[]"."""
    dims = len(n) - len(n.lstrip("["))
    if not dims:
        return n
    e = n[dims:]
    prim = dict(B="byte", C="char", D="double", F="float", I="int", J="long", S="short", Z="boolean")
    return (e[1:-1] if e.startswith("L") and e.endswith(";") else prim.get(e, e)) + "[]" * dims


def class_table(path, name):
    """class -> [instances, shallow bytes, retained bytes], classes of one name (other loaders) summed."""
    t = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = t.setdefault(name(r["class"]), [0, 0, 0])
            for k, col in enumerate(("instances", "shallow_bytes", "retained_bytes")):
                row[k] += int(r[col] or 0)
    return t


agreement = []
if vv:
    h_rows = read_rows(os.path.join(work, "heaptop0", "dominators.csv"))
    v_rows = read_rows(vv_csv)
    common = [i for i in h_rows if i in v_rows]
    equal, worst, _, _ = differences(h_rows, v_rows, common)
    agreement.append(f"the two top-1000 lists (by retained size) share {len(common)} objects; equal retained "
                     f"sizes: {len(equal)} of {len(common)}; largest relative difference {worst * 100:.2f}%")
    for name, mine, other in (("heaptop", h_rows, v_rows), ("VisualVM", v_rows, h_rows)):
        only = [i for i in mine if i not in other]
        if only:
            low = min(int(r["retained_bytes"]) for r in other.values())
            ex = max(only, key=lambda i: int(mine[i]["retained_bytes"]))
            agreement.append(f"  only in {name}'s list: {len(only)} (the other's 1000th retains {low} bytes; "
                             f"the biggest: id {ex} {mine[ex]['class']}, {mine[ex]['retained_bytes']} bytes)")
    # every object of heaptop's list, as VisualVM sizes it
    look = read_rows(lookup_csv) if os.path.exists(lookup_csv) else {}
    found = [i for i in h_rows if i in look and look[i]["class"] != "-"]
    equal, worst, differ, kinds = differences(h_rows, look, found)
    same_shallow = [i for i in found if h_rows[i]["shallow_bytes"] == look[i]["shallow_bytes"]]
    agreement.append(f"heaptop's top {len(h_rows)}, each looked up in VisualVM ({len(found)} found): equal "
                     f"retained sizes {len(equal)}, largest relative difference {worst * 100:.2f}%; equal "
                     f"shallow sizes {len(same_shallow)}")
    h_more = sum(1 for i in differ if int(h_rows[i]["retained_bytes"]) > int(look[i]["retained_bytes"] or 0))
    if differ:
        agreement.append(f"  of the {len(differ)} that differ, heaptop gives more to {h_more}; by class "
                         f"(first: the biggest relative difference):")
    by_count = sorted(kinds.items(), key=lambda kv: -len(kv[1]))
    for n, (k, ids) in enumerate(by_count):
        if n == 12:
            agreement.append(f"    and {len(kinds) - n} more classes ({sum(len(v) for _, v in by_count[n:])} objects)")
            break
        i = ids[0]
        h, v = h_rows[i], look[i]
        dh = int(h["retained_bytes"]) - int(v["retained_bytes"])
        shallow = "same shallow" if h["shallow_bytes"] == v["shallow_bytes"] else \
            f"shallow {h['shallow_bytes']} vs {v['shallow_bytes']}"
        agreement.append(f"    {len(ids)} x {k}: e.g. id {i}, retained {h['retained_bytes']} vs "
                         f"{v['retained_bytes']} ({dh:+d}), {shallow}")
    with open(os.path.join(work, "compare.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["object_id", "class", "heaptop_shallow", "heaptop_retained", "visualvm_shallow",
                    "visualvm_retained"])
        for i, r in h_rows.items():
            v = look.get(i, {})
            w.writerow([i, r["class"], r["shallow_bytes"], r["retained_bytes"], v.get("shallow_bytes", ""),
                        v.get("retained_bytes", "")])
    # every class: instances, shallow bytes and retained bytes of its instances taken together
    h_cls, v_cls = class_table(os.path.join(work, "heaptop0", "histogram.csv"), java_name), \
        class_table(classes_csv, lambda n: n.replace("+0x", "/0x"))  # hidden classes: Lambda$2+0x.. there if os.path.exists(classes_csv) else {}
    both = [c for c in h_cls if c in v_cls]
    same = [sum(1 for c in both if h_cls[c][k] == v_cls[c][k]) for k in range(3)]
    agreement.append(f"by class ({len(both)} classes in both; VisualVM's JavaClass.getRetainedSizeByClass, "
                     f"{vv['by_class_s']:.1f} s more): equal instance counts {same[0]}, shallow bytes {same[1]}, "
                     f"retained bytes {same[2]}; the biggest (heaptop vs VisualVM):")
    for c in sorted(both, key=lambda c: -h_cls[c][1])[:8]:
        h, v = h_cls[c], v_cls[c]
        agreement.append("    " + c + ": " + "; ".join(
            f"{what} {h[k]:,}" + (" same" if h[k] == v[k] else f" vs {v[k]:,}")
            for k, what in enumerate(("instances", "shallow", "retained"))))
    if vv["objects"] != objects:
        agreement.append(f"object counts: heaptop {objects:,}, VisualVM {vv['objects']:,} "
                         f"({objects - vv['objects']:+,}; VisualVM has {vv['classes']} classes)")

# --- the summary
ok = True
checks = []
if args.min_objects_per_s is not None:
    fast = objects / best
    good = fast >= args.min_objects_per_s
    checks.append(f"objects/s in the fastest run {fast / 1e6:.2f} M (at least {args.min_objects_per_s / 1e6:g} M): "
                  + ("ok" if good else "FAIL"))
    ok &= good
if args.max_pause_ratio is not None:
    if base_ns is None:
        checks.append(f"the JVM's pauses for three dumps were not all in its log ({len(pauses_ns)}): FAIL")
        ok = False
    else:
        ratio = best / (base_ns / 1e9)
        good = ratio <= args.max_pause_ratio
        checks.append(f"the fastest run {best:.2f} s is {ratio:.2f}x the JVM's own pause to write the "
                      f"dump ({base_ns / 1e6:.0f} ms, median of 3; at most {args.max_pause_ratio:g}x): "
                      + ("ok" if good else "FAIL"))
        ok &= good
bhv_s = statistics.median(m["bhv_s"] for m in runs)
bhv_rest = statistics.median(m["analysed"] - m["bhv_s"] for m in runs)
bhv_ratio = bhv_s / bhv_rest if bhv_rest > 0 else float("inf")
bare_analysed = statistics.median(m["analysed"] for m in bare)
bare_cpu = statistics.median(m["cpu"] for m in bare)
cpu_share = statistics.median(m["cpu"] for m in runs) / bare_cpu - 1 if bare_cpu > 0 else float("nan")
bhv_rss = (rss - statistics.median(m["rss"] for m in bare)) / objects
bhv_anon = (anon - statistics.median(m["anon"] for m in bare)) / objects
if args.max_behaviour_time_ratio is not None:
    good = bhv_ratio <= args.max_behaviour_time_ratio
    checks.append(f"the behaviour build {bhv_s:.2f} s is {bhv_ratio * 100:.1f}% of the rest of the analysis "
                  f"({bhv_rest:.2f} s; at most {args.max_behaviour_time_ratio * 100:g}%): "
                  + ("ok" if good else "FAIL"))
    ok &= good
if args.max_behaviour_bytes_per_object is not None:
    good = bhv_rss <= args.max_behaviour_bytes_per_object
    checks.append(f"the behaviour build adds {bhv_rss:.1f} bytes/object to the peak RSS (at most "
                  f"{args.max_behaviour_bytes_per_object:g}): " + ("ok" if good else "FAIL"))
    ok &= good
if args.max_bytes_per_object is not None:
    bpo = viewer / objects
    good = bpo <= args.max_bytes_per_object
    checks.append(f"peak RSS minus the dump {bpo:.1f} bytes/object (at most {args.max_bytes_per_object:g}): "
                  + ("ok" if good else "FAIL"))
    ok &= good

walls = sorted(m["wall"] for m in runs)
print(f"""
== heap analysis: BigHeap --objects {args.objects:,}, JDK {jvm_version}, G1 -Xmx{xmx}; {os.path.basename(HEAPTOP)} {HEAPTOP}
dump:     {dump_size / MiB:.1f} MiB ({dump_size / objects:.1f} bytes/object); jcmd GC.heap_dump {jcmd_wall:.2f} s wall
JVM pause for the dump (-Xlog:safepoint, safepoint "HeapDumper" Total): """
      + (f"{pause_ns / 1e6:.0f} ms" if pause_ns is not None else "not found in the log")
      + (f", of which the full GC (-Xlog:gc, Heap Dump Initiated GC) {gc_ms:.0f} ms" if gc_ms is not None else "")
      + (f"; three dumps: {' '.join(f'{p / 1e6:.0f}' for p in pauses_ns)} ms" if len(pauses_ns) > 1 else "")
      + f"""
heaptop:  {objects:,} objects, {refs:,} references ({refs / objects:.2f} an object)
          {f"median of {len(runs)} runs" if len(runs) > 1 else "one run"} {wall:.2f} s wall ({' '.join(f'{w:.2f}' for w in walls)}) = """
      f"""{rate / 1e6:.2f} M objects/s; CPU {statistics.median(m['cpu'] for m in runs):.2f} s
          peak RSS {rss / MiB:.1f} MiB = {rss / objects:.1f} bytes/object; minus the dump's """
      f"""{dump_size / MiB:.1f} MiB: {viewer / MiB:.1f} MiB = {viewer / objects:.1f} bytes/object
          (peak RssAnon, sampled every 10 ms: {anon / MiB:.1f} MiB = {anon / objects:.1f} bytes/object)""")
dup_s = statistics.median(m["dup_s"] for m in runs)
rest_s = statistics.median(m["analysed"] - m["dup_s"] for m in runs)
with open(os.path.join(work, "heaptop0", "histogram.csv"), newline="") as f:
    counts = [int(r["instances"]) for r in csv.DictReader(f)]
pairs = sum(n * (n - 1) // 2 for n in counts)
print(f"duplicates: {runs[0]['dup_groups']:,} groups ({runs[0]['dup_objects']:,} objects) found in {dup_s:.2f} s "
      f"(median), beside {rest_s:.2f} s for the rest of the analysis: {dup_s / rest_s * 100:.0f}% of it "
      f"(target: at most 50%)\n"
      f"          extra memory at its peak (its own arrays, the groups included): {runs[0]['dup_bpo']:.1f} "
      f"bytes/object\n"
      f"          an all-pairs comparison on this heap: {pairs:,} pairs of objects of one class "
      f"(n(n-1)/2 summed over {len(counts)} classes)")
print(f"behaviour: {runs[0]['bhv_nodes']:,} nodes, overcount {runs[0]['overcount']:.3f}; built in {bhv_s:.2f} s "
      f"(median) beside {bhv_rest:.2f} s for the rest of the analysis in the same runs: {bhv_ratio * 100:.1f}% "
      f"(target: at most 25%)\n"
      f"          the analysis without it (HEAPTOP_NO_BEHAVIOUR, {len(bare)} runs interleaved): "
      f"{bare_analysed:.2f} s (median; {statistics.median(m['analysed'] for m in runs) - bare_analysed:+.2f} s "
      f"with it); CPU of the whole command {statistics.median(m['cpu'] for m in runs):.2f} s with it, "
      f"{bare_cpu:.2f} s without: {cpu_share * 100:+.1f}% (a shared machine moves both: "
      f"read them from a quiet one)\n"
      f"          added to the peak: RSS {bhv_rss:+.1f} bytes/object, sampled RssAnon {bhv_anon:+.1f} "
      f"bytes/object (target: at most 24)")
if vv:
    vrate = vv["objects"] / vv["total_s"]
    print(f"""VisualVM: {vv['objects']:,} objects, {vv['total_s']:.1f} s (open {vv['open_s']:.1f} s, retained sizes """
          f"""{vv['retained_s']:.1f} s; the process {vv['wall']:.1f} s with the JVM's start and the lookups below) = """
          f"""{vrate / 1e3:.1f} k objects/s; CPU {vv['cpu']:.1f} s
          peak RSS {vv['hwm'] / MiB:.1f} MiB = {vv['hwm'] / vv['objects']:.1f} bytes/object """
          f"""(-Xmx{args.visualvm_xmx or ' default'}; Java heap peak {vv['peak_heap']:.0f} MB, live after GC """
          f"""{vv['live_heap']:.0f} MB; its cache directory next to the dump is mapped too)
ratios:   speed heaptop/VisualVM {rate / vrate:.1f}x; memory VisualVM/heaptop {vv['hwm'] / rss:.1f}x (peak RSS)""")
    for a in agreement:
        print(f"agreement: {a}" if not a.startswith("  ") else f"         {a}")
else:
    print(f"VisualVM: skipped ({vv_skip})")
for c in checks:
    print(f"check: {c}")
print(("check: ok" if ok else "check: FAILED") if checks else "", end="\n" if checks else "")
sys.exit(0 if ok else 1)
