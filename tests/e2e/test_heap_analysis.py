"""The heap analyser's figures on a known heap (tests/java/KnownHeap.java),
against truths heaptop did not compute:

- retained sizes: the Big object is held by one static field and holds only
  its array and primitive nodes, so its retained size is the sum of the
  bytes `jcmd GC.class_histogram` gives for those three classes; the ring's
  head retains every RingNode (their histogram bytes); both read from
  `heaptop heap`'s histogram.csv (a class's retained size) and
  dominators.csv (the Big object's row and its immediate dominator: the
  KnownHeap class object, whose static field holds it);
- paths to GC roots: every lapsed listener's path goes from a root through
  the class KnownHeap$EventBus, its static LISTENERS, the ArrayList's
  elementData, to the listener;
- a Java frame root, wherever a path starts at one, names its thread and
  frame (test_heap_paths has the object only a frame holds);
- a dump written with `jcmd GC.heap_dump -gz=1` gives the same files;
- missing, truncated, corrupt and non-HPROF files are refused with a message
  naming what was wrong and a non-zero exit, before any file is written."""
import collections
import gzip
import shutil
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

need_jcmd()


def histogram(pid):
    return class_histogram(pid)


def heap(path, out, *extra):
    return subprocess.run([HEAPTOP, "heap", path, "--out", out, *extra], capture_output=True,
                          text=True, timeout=300)


wd = Workdir("heapan")
facts_path = wd.file("facts")
jvm = start_jvm("KnownHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
try:
    built = wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
    check(built and jvm.poll() is None, "KnownHeap built its heap")
    f = read_facts(facts_path)
    jcmd(jvm.pid, "VM.version")
    for attempt in range(1, 4):
        dump, dumpgz = wd.file(f"k{attempt}.hprof"), wd.file(f"k{attempt}.hprof.gz")
        before = histogram(jvm.pid)
        jcmd(jvm.pid, "GC.heap_dump", dump)
        jcmd(jvm.pid, "GC.heap_dump", "-gz=1", dumpgz)
        after = histogram(jvm.pid)
        if before == after:
            break
    check(before == after, f"a quiet moment around the dumps (attempt {attempt})")
    with open(dumpgz, "rb") as g:
        check(g.read(2) == b"\x1f\x8b", "jcmd -gz=1 wrote a gzip file")

    out = wd.file("out")
    p = heap(dump, out, "--paths", "KnownHeap$Listener")
    print(p.stdout.strip())
    check(p.returncode == 0, f"heaptop heap read the dump ({p.stderr.strip()[-200:]})")
    hist = {r["class"]: r for r in read_csv(os.path.join(out, "histogram.csv"))[1]}
    doms = read_csv(os.path.join(out, "dominators.csv"))[1]

    def jbytes(*classes):
        return sum(after.get(c, [0, 0])[1] for c in classes)

    big_truth = jbytes("KnownHeap$Big", "[LKnownHeap$BigNode;", "KnownHeap$BigNode")
    big_rows = [r for r in doms if r["class"] == "KnownHeap$Big"]
    check(len(big_rows) == 1 and int(big_rows[0]["retained_bytes"]) == big_truth,
          f"the Big object retains {big_truth} bytes, the histogram's bytes of its three classes "
          f"(heaptop: {[r['retained_bytes'] for r in big_rows]})")
    check(int(hist["KnownHeap$Big"]["retained_bytes"]) == big_truth,
          "histogram.csv: KnownHeap$Big's retained bytes are the same")
    by_id = {r["object_id"]: r for r in doms}
    parent = by_id.get(big_rows[0]["parent_id"]) if big_rows else None
    check(parent is not None and parent["class"] == "java.lang.Class(KnownHeap)",
          f"the Big object's immediate dominator is the class KnownHeap, whose static field "
          f"holds it ({parent and parent['class']})")
    arr = [r for r in doms if r["class"] == "KnownHeap$BigNode[]"]
    check(len(arr) == 1 and int(arr[0]["retained_bytes"]) ==
          jbytes("[LKnownHeap$BigNode;", "KnownHeap$BigNode") and
          arr[0]["parent_id"] == big_rows[0]["object_id"],
          "the node array retains itself and the nodes, and the Big object dominates it")
    ring_truth = jbytes("KnownHeap$RingNode")
    check(int(hist["KnownHeap$RingNode"]["retained_bytes"]) == ring_truth and
          int(hist["KnownHeap$RingNode"]["instances"]) == f["ring_nodes"],
          f"the ring of {f['ring_nodes']}: its head retains every node, {ring_truth} bytes "
          f"(heaptop: {hist['KnownHeap$RingNode']['retained_bytes']})")
    shallow_ok = all(int(hist[c]["shallow_bytes"]) == after[c][1] for c in
                     ("KnownHeap$Big", "KnownHeap$BigNode", "KnownHeap$RingNode",
                      "KnownHeap$Listener", "java.lang.String"))
    check(shallow_ok, "shallow bytes of the workload's classes equal the histogram's")

    paths = read_csv(os.path.join(out, "paths.csv"))[1]
    check(len(paths) == min(1000, f["listeners"]),
          f"paths.csv has a path for each of the first 1000 listeners ({len(paths)})")
    want = ("java.lang.Class(KnownHeap$EventBus) -static LISTENERS-> java.util.ArrayList "
            "-elementData-> java.lang.Object[] -[")
    good = [r for r in paths if r["path"].startswith("root(") and want in r["path"]
            and r["path"].endswith("-> KnownHeap$Listener")]
    check(len(good) == len(paths) and paths,
          f"every listener's path runs from a root through EventBus.LISTENERS' elementData "
          f"(e.g. {paths[0]['path'] if paths else None})")

    # GC roots in words: wherever a path starts at a Java frame, the root
    # names its thread and frame. Which root a shortest path starts at is the
    # run's (main's String[] args is held by a JNI handle as well): the case
    # the dump guarantees, an object only a frame holds, is test_heap_paths'
    outs = wd.file("outs")
    p = heap(dump, outs, "--paths", "java.lang.String")
    spaths = [r["path"] for r in read_csv(os.path.join(outs, "paths.csv"))[1]] \
        if p.returncode == 0 else []
    frames = [x for x in spaths if x.startswith("root(Java frame")]
    named = [x for x in frames if re.match(
        r'root\(Java frame: thread "[^"]+" at [\w.$]+\([\w.]+:\d+\)\) ', x)]
    check(p.returncode == 0 and named == frames,
          f"every path from a Java frame root names its thread and frame ({len(frames)}: "
          f"{[x[:90] for x in frames if x not in named][:2] or [x[:90] for x in frames[:1]]})")
    outgz = wd.file("outgz")
    p = heap(dumpgz, outgz)
    same = p.returncode == 0 and \
        read_csv(os.path.join(outgz, "histogram.csv"))[2] == \
        read_csv(os.path.join(out, "histogram.csv"))[2]
    check(same, f"the -gz=1 dump gives the same histogram.csv ({p.stderr.strip()[-200:]})")

    # bad input: a message naming what is wrong, exit 1, nothing written
    with open(dump, "rb") as fh:
        data = fh.read()
    cases = {
        "missing": (wd.file("nope.hprof"), "cannot open"),
        "truncated": (wd.file("cut.hprof"), "truncated"),
        "not hprof": (wd.file("text.hprof"), "not an HPROF file"),
        "cut gzip": (wd.file("cut.hprof.gz"), "truncated gzip"),
    }
    with open(cases["truncated"][0], "wb") as fh:
        fh.write(data[: len(data) * 2 // 3])
    with open(cases["not hprof"][0], "w") as fh:
        fh.write("hello, this is not a heap dump\n")
    with open(dumpgz, "rb") as fh:
        gz = fh.read()
    with open(cases["cut gzip"][0], "wb") as fh:
        fh.write(gz[: len(gz) // 2])
    for name, (path, words) in cases.items():
        o = wd.file(f"bad-{name.replace(' ', '-')}")
        p = heap(path, o)
        msg = p.stderr.strip()
        check(p.returncode == 1 and words in msg and len(msg.splitlines()) == 1 and
              not os.path.exists(os.path.join(o, "histogram.csv")),
              f"{name} file: exit {p.returncode}, one line saying '{words}': {msg[:160]}")
    p = heap(dump, wd.file("o2"), "--layout", "bogus")
    check(p.returncode == 2 and "--layout 'bogus'" in p.stderr, "an unknown --layout is refused")
    p = heap(dump, wd.file("o3"), "--paths", "no.such.Class")
    check(p.returncode == 1 and "no instance of that class" in p.stderr,
          "--paths with a class the dump lacks says so")
finally:
    jvm.kill()
    jvm.wait()
    wd.cleanup()
finish()
