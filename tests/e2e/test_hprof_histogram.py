"""The heap analyser against the JVM's own count: HeapWorkload builds a known
heap and stands still; `jcmd GC.heap_dump -all=false` (live objects, after a
full GC) is read by `heaptop heap`, and its histogram.csv must equal
`jcmd GC.class_histogram` for every class: instances and bytes. HPROF stores
no sizes, so the bytes test the shallow sizes heaptop computes (tui/heap/
reader/layout.c, graph/class_sizes.c) against the VM's own, in each object layout: the default
flags (compressed oops), -XX:-UseCompressedOops, and on JDK 25
-XX:+UseCompactObjectHeaders. The layout is not told to heaptop: it must infer
it from the dump, and say which.

A quiet moment is proven, not assumed: a histogram before the dump and one
after must agree (objects only phantom-reachable can still be on their way out
through the Cleaner); otherwise the three are taken again.

With class data sharing on (the default), the archived heap holds mirrors of
classes not loaded yet: the histogram counts them as java.lang.Class, the dump
writes a CLASS DUMP only for loaded classes. So the exact checks run with
-Xshare:off, and a run with the default flags checks every class but
java.lang.Class exactly, and that one as at most the histogram's.

JDK 25 fills gaps in the heap with arrays of jdk.internal.vm.FillerElement,
which the histogram counts under that name and the dump writes as int[]: the
truth folds them into [I."""
import collections
import re
import csv
import shutil
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from java_names import java_names  # noqa: E402

need_jcmd()

FILLER = "[Ljdk.internal.vm.FillerElement;"


def histogram(pid):
    """(instances, bytes) by class name as Java writes it (heaptop's
    spelling: int[], not the histogram's [I), filler arrays counted as int[]
    (see above)."""
    return java_names(class_histogram(pid, rename={FILLER: "[I"}))


def fillers(pid):
    """The histogram's filler arrays: (instances, bytes)."""
    return class_histogram(pid).get(FILLER, (0, 0))


def analyse(path, wd):
    """heaptop heap's histogram.csv as {class: (instances, bytes)}, and what
    it printed."""
    out = wd.file("csv")
    p = subprocess.run([HEAPTOP, "heap", path, "--out", out], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"heaptop heap {path}: {p.stderr.strip()[-300:]}")
    c = collections.defaultdict(lambda: (0, 0))
    for r in read_csv(os.path.join(out, "histogram.csv"))[1]:
        i, b = c[r["class"]]
        c[r["class"]] = (i + int(r["instances"]), b + int(r["shallow_bytes"]))
    return dict(c), p.stdout


def run(name, flags, exact_class, layout):
    wd = Workdir("hprof")
    facts = wd.file("facts")
    jvm = start_jvm("HeapWorkload", [facts, 120], jvm_flags=["-Xmx256m", *flags])
    try:
        built = wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 60)
        built = built and jvm.poll() is None
        check(built, f"{name}: the workload built its heap")
        if not built:
            jvm.kill()
            print(jvm.communicate()[1][-400:])
            return
        f = read_facts(facts)
        jcmd(jvm.pid, "VM.version")  # the attach listener starts before any count
        for attempt in range(1, 4):
            dump = wd.file(f"heap{attempt}.hprof")
            before = histogram(jvm.pid)
            out = jcmd(jvm.pid, "GC.heap_dump", "-all=false", dump)
            after = histogram(jvm.pid)
            filled = fillers(jvm.pid)
            if before == after:
                break
            moved = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            print(f"{name}: attempt {attempt}: the heap moved during the dump ({moved[:5]}): again")
        check(before == after, f"{name}: a quiet moment: the histograms before and after the dump "
              f"agree (attempt {attempt})")
        counts, summary = analyse(dump, wd)
        print(summary.strip())
        check(os.path.getsize(dump) > 0, f"{name}: jcmd wrote the dump ({out.strip().splitlines()[-1][-60:]})")
        check(f"layout: {layout} (inferred" in summary,
              f"{name}: heaptop inferred the layout '{layout}' from the dump")
        names = set(after) | set(counts)
        zero = (0, 0)
        wrong = [k for k in sorted(names) if counts.get(k, zero) != after.get(k, zero)
                 and (exact_class or k != "java.lang.Class")]
        check(not wrong, f"{name}: instances and bytes of every one of {len(names)} classes "
              f"equal the histogram's" + ("" if exact_class else " (java.lang.Class apart)") +
              "".join(f"\n     {k}: dump {counts.get(k, zero)}, histogram {after.get(k, zero)}"
                      for k in wrong[:20]))
        if not exact_class:
            k = "java.lang.Class"
            check(0 < counts[k][0] <= after[k][0], f"{name}: java.lang.Class in the dump "
                  f"({counts[k][0]}) at most the histogram's ({after[k][0]}, archived mirrors "
                  f"included)")
        # JDK 19+: the fillers the dump writes as int[] nothing refers to,
        # said apart; exactly the histogram's FillerElement[] in this live
        # dump without class data sharing
        m = re.search(r"unreachable int\[\]: (\d+) objects, (\d+) bytes", summary)
        if java_version() >= 19:
            check(m is not None and (int(m.group(1)), int(m.group(2))) == filled,
                  f"{name}: the unreachable int[] heaptop reports are the JVM's fillers: "
                  f"{m and m.group(0)}, histogram {FILLER} {filled}")
        else:
            check(m is None, f"{name}: no filler line before JDK 19")
        node, ring = counts.get("HeapWorkload$Node", zero), counts.get("HeapWorkload$Ring", zero)
        check(node[0] == f["nodes"] and ring[0] == f["ring"],
              f"{name}: the workload's own objects: {node[0]} nodes, {ring[0]} ring links (it "
              f"made {f['nodes']} and {f['ring']})")
        lam = [k for k in counts if k.startswith("HeapWorkload$$Lambda")]
        check(len(lam) == 1 and "/0x" in lam[0], f"{name}: the lambda's hidden class named as "
              f"the histogram names it ({lam})")
    finally:
        jvm.kill()
        jvm.wait()
        wd.cleanup()


if java_version() >= 24:
    run("no CDS, compact headers", ["-Xshare:off", "-XX:+UseCompactObjectHeaders"], True,
        "compact headers")
    run("no CDS", ["-Xshare:off"], True, "compressed oops")
else:
    run("no CDS", ["-Xshare:off"], True, "compressed oops")
    run("no CDS, uncompressed oops", ["-Xshare:off", "-XX:-UseCompressedOops"], True,
        "uncompressed oops")
    run("default", [], False, "compressed oops")
finish()
