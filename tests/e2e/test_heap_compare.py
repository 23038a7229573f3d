"""`heaptop heap A.hprof B.hprof --out DIR` on two `jcmd GC.heap_dump`s of
tests/java/CompareHeap.java, one in each of its two known states, against
truths heaptop did not compute:

- compare.csv's instance deltas are the numbers of objects the program
  added and dropped between the dumps (CompareHeap$Grower +GROW, $Shrinker
  -SHRINK, $Steady 0, $Gone only in A, $Fresh only in B);
- its bytes_a and bytes_b are those `jcmd GC.class_histogram` gives at each
  dump (taken around each dump, retried until the heap held still), for the
  workload's classes and for every class both name alike (but
  java.lang.Class: with class data sharing the histogram counts the archived
  mirrors of classes not loaded, which the dump does not hold; and JDK 25's
  filler arrays, which the histogram names jdk.internal.vm.FillerElement[]
  and the dump writes as int[], are counted as int[], as
  test_hprof_histogram does); heaptop names classes as Java does (int[]),
  the histogram's names are turned into those;
- the rows are ordered by the change of bytes, biggest first either way, so
  the growing class leads;
- histogram.csv is B's;
- bad input: a missing B, a B that is not HPROF, a missing A, three files:
  one line naming what (and which file) was wrong, non-zero exit, before any
  file is written."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from java_names import java_names  # noqa: E402

need_jcmd()
RENAME = {"[Ljdk.internal.vm.FillerElement;": "[I"}  # JDK 25's fillers: int[] in the dump


def heap(*args):
    return subprocess.run([HEAPTOP, "heap", *args], capture_output=True, text=True, timeout=300)


def quiet_dump(pid, path):
    """A dump with the histograms just before and after it equal (the heap
    held still): the histogram, or None after three tries."""
    for _ in range(3):
        if os.path.exists(path):
            os.unlink(path)
        before = java_names(class_histogram(pid, rename=RENAME))
        jcmd(pid, "GC.heap_dump", path)
        after = java_names(class_histogram(pid, rename=RENAME))
        if before == after:
            return after
    return None


wd = Workdir("heapcmp")
facts_path, go = wd.file("facts"), wd.file("go")
jvm = start_jvm("CompareHeap", [facts_path, go, 120], jvm_flags=["-Xmx256m"])
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "CompareHeap built state A")
    f = read_facts(facts_path)
    dump_a, dump_b = wd.file("a.hprof"), wd.file("b.hprof")
    hist_a = quiet_dump(jvm.pid, dump_a)
    check(hist_a is not None, "a quiet moment around dump A")
    touch(go)
    check(wait_for(lambda: os.path.exists(facts_path + ".b") or jvm.poll() is not None, 60)
          and jvm.poll() is None, "CompareHeap built state B")
    hist_b = quiet_dump(jvm.pid, dump_b)
    check(hist_b is not None, "a quiet moment around dump B")
    hist_a, hist_b = hist_a or {}, hist_b or {}

    out = wd.file("out")
    p = heap(dump_a, dump_b, "--out", out)
    print(p.stdout.strip())
    check(p.returncode == 0 and "compare.csv" in p.stdout,
          f"heaptop heap A B read both dumps ({p.stderr.strip()[-200:]})")
    header, rows, _ = read_csv(os.path.join(out, "compare.csv")) if p.returncode == 0 \
        else ([], [], [])
    check(header == ["class", "instances_a", "instances_b", "bytes_a", "bytes_b"],
          f"compare.csv's columns ({header})")
    by = {r["class"]: r for r in rows}
    check(len(by) == len(rows), "one row per class name")

    def inst(c):
        r = by.get(c)
        return (int(r["instances_a"]), int(r["instances_b"])) if r else None

    want = {
        "CompareHeap$Grower": (f["growers_a"], f["growers_a"] + f["grow"]),
        "CompareHeap$Shrinker": (f["shrinkers_a"], f["shrinkers_a"] - f["shrink"]),
        "CompareHeap$Steady": (f["steady"], f["steady"]),
        "CompareHeap$Gone": (f["gone"], 0),
        "CompareHeap$Fresh": (0, f["fresh"]),
    }
    for c, (a, b) in want.items():
        check(inst(c) == (a, b), f"{c}: instances {a} -> {b}, delta {b - a:+} (heaptop: {inst(c)})")

    def hbytes(h, c):
        return h.get(c, (0, 0))[1]

    for c in want:
        r = by.get(c, {})
        got = (int(r.get("bytes_a", -1)), int(r.get("bytes_b", -1)))
        truth = (hbytes(hist_a, c), hbytes(hist_b, c))
        check(got == truth, f"{c}: bytes A, B as jcmd GC.class_histogram says: {truth} "
                            f"(heaptop: {got})")
    # every class both name alike: the same bytes and instances at each dump
    both = [c for c in by if (c in hist_a or c in hist_b) and c != "java.lang.Class"]
    wrong = [c for c in both if (int(by[c]["instances_a"]), int(by[c]["bytes_a"]),
                                 int(by[c]["instances_b"]), int(by[c]["bytes_b"])) !=
             (*hist_a.get(c, (0, 0)), *hist_b.get(c, (0, 0)))]
    check(len(both) > 100 and not wrong,
          f"all {len(both)} classes the histograms name too: the same figures "
          f"(differing: {wrong[:5]})")
    missing = [c for c in set(hist_a) | set(hist_b) if c not in by]
    check(not missing, f"every class the histograms list has a row ({missing[:5]})")

    def absd(r):
        return abs(int(r["bytes_b"]) - int(r["bytes_a"]))

    ordered = all(absd(rows[i]) >= absd(rows[i + 1]) for i in range(len(rows) - 1))
    check(ordered and rows and rows[0]["class"] == "CompareHeap$Grower",
          f"rows by the change of bytes, biggest first: the grower leads "
          f"({[r['class'] for r in rows[:3]]})")
    hist = {r["class"]: r for r in read_csv(os.path.join(out, "histogram.csv"))[1]} \
        if p.returncode == 0 else {}
    check(int(hist.get("CompareHeap$Fresh", {}).get("instances", -1)) == f["fresh"],
          "histogram.csv is B's (it lists the class only B has)")

    # bad input: one line naming the file and what was wrong, nothing written
    text = wd.file("text.hprof")
    with open(text, "w") as fh:
        fh.write("hello, this is not a heap dump\n")
    nope = wd.file("nope.hprof")
    cases = [
        ("a missing B", [dump_a, nope], 1, f"heaptop heap: {nope}: hprof: cannot open"),
        ("a B that is not HPROF", [dump_a, text], 1, f"heaptop heap: {text}: hprof: not an HPROF"),
        ("a missing A", [nope, dump_b], 1, f"heaptop heap: {nope}: hprof: cannot open"),
        ("an A that is not HPROF", [text, dump_b], 1, f"heaptop heap: {text}: hprof: not an HPROF"),
        ("three files", [dump_a, dump_b, dump_b], 2, "heaptop heap: give one dump file, or two"),
    ]
    for name, files, rc, words in cases:
        o = wd.file("bad-" + name.replace(" ", "-"))
        p = heap(*files, "--out", o)
        msg = p.stderr.strip()
        first = msg.splitlines()[0] if msg else ""
        one = len(msg.splitlines()) == 1 or rc == 2  # usage follows the line for rc 2
        check(p.returncode == rc and first.startswith(words) and one and
              not os.path.exists(os.path.join(o, "compare.csv")) and
              not os.path.exists(os.path.join(o, "histogram.csv")),
              f"{name}: exit {p.returncode}, '{words}' ({first[:160]})")
finally:
    jvm.kill()
    jvm.wait()
    wd.cleanup()
finish()
