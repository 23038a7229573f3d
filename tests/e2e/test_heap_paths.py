"""`heaptop heap --paths` on what a dump guarantees (tests/java/PathsHeap.java):

- an object held only by a local variable of main (PathsHeap$FrameHeld) has
  one GC root, that Java frame: its path is exactly that root, naming the
  thread and the frame (class, method, file and the line main sleeps on), so
  a root described without its thread or frame fails here, whatever other
  roots a run's other objects happen to have;
- an -all dump holds 3,000 garbage PathsHeap$Item made before the 40 kept
  ones (lower addresses): the instances a GC root reaches come first in
  paths.csv (all 40 of them), then garbage said to be unreachable, and the
  summary line counts both;
- object ids are hex as on screen, class names Java's, either spelling of a
  class name (int[] or [I) picks the same instances."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

need_jcmd()


def heap(path, out, *extra):
    return subprocess.run([HEAPTOP, "heap", path, "--out", out, *extra], capture_output=True,
                          text=True, timeout=300)


def paths(out):
    return read_csv(os.path.join(out, "paths.csv"))[1]


wd = Workdir("heappaths")
facts_path = wd.file("facts")
jvm = start_jvm("PathsHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
try:
    built = wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
    check(built and jvm.poll() is None, "PathsHeap built its heap")
    f = read_facts(facts_path)
    all_dump, live_dump = wd.file("all.hprof"), wd.file("live.hprof")
    jcmd(jvm.pid, "GC.heap_dump", "-all", all_dump)  # first: no collection before it
    jcmd(jvm.pid, "GC.heap_dump", live_dump)

    # the frame root, which only that frame can be
    line = site_line("PathsHeap.java", "frame")
    out = wd.file("frame")
    p = heap(live_dump, out, "--paths", "PathsHeap$FrameHeld")
    check(p.returncode == 0, f"heaptop heap --paths PathsHeap$FrameHeld ({p.stderr.strip()[-200:]})")
    rows = paths(out) if p.returncode == 0 else []
    want = (f'root(Java frame: thread "main" at PathsHeap.main(PathsHeap.java:{line})) '
            f'PathsHeap$FrameHeld')
    check(len(rows) == 1 and rows[0]["path"] == want,
          f"the object only main's local holds: its path is that Java frame, naming thread and "
          f"frame: {[r['path'] for r in rows]} (want {want})")
    check(all(re.fullmatch(r"0x[0-9a-f]+", r["object_id"]) for r in rows) and rows,
          f"paths.csv's object ids are hex as on screen ({[r['object_id'] for r in rows]})")

    # reachable instances first in an -all dump
    out = wd.file("items")
    p = heap(all_dump, out, "--paths", "PathsHeap$Item")
    print(p.stdout.strip())
    rows = paths(out) if p.returncode == 0 else []
    garbage = [r for r in rows if r["path"].startswith("(unreachable")]
    check(len(rows) == 1000 and len(garbage) == 1000 - f["kept"],
          f"the -all dump holds the garbage: 1000 rows of {f['garbage'] + f['kept']} instances, "
          f"{len(garbage)} of them unreachable ({len(rows)} rows)")
    reached = [i for i, r in enumerate(rows) if r["path"].startswith("root(")]
    check(reached == list(range(f["kept"])),
          f"the {f['kept']} instances a GC root reaches come first, every one of them "
          f"(rows {reached[:3]}..{reached[-3:] if reached else []})")
    via = ("java.lang.Class(PathsHeap) -static ITEMS-> java.util.ArrayList -elementData-> "
           "java.lang.Object[] -[")
    check(all(via in r["path"] and r["path"].endswith("]-> PathsHeap$Item")
              for r in rows[:f["kept"]]),
          f"their paths run through the static list ({rows[0]['path'] if rows else None})")
    check(f"{f['kept']} of them a GC root reaches" in p.stdout and
          f"of {f['garbage'] + f['kept']} instances" in p.stdout,
          "the summary line counts the instances and those a root reaches")

    # one spelling of class names, either spelling asked
    a, b = wd.file("ints-java"), wd.file("ints-jvm")
    pa, pb = heap(live_dump, a, "--paths", "int[]"), heap(live_dump, b, "--paths", "[I")
    ra = paths(a) if pa.returncode == 0 else []
    rb = paths(b) if pb.returncode == 0 else []
    check(ra and ra == rb and all(r["class"] == "int[]" for r in ra),
          f"--paths int[] and --paths [I pick the same {len(ra)} instances, named int[]")
    hist = [r["class"] for r in read_csv(os.path.join(a, "histogram.csv"))[1]]
    check("int[]" in hist and "java.lang.Object[]" in hist and
          not any(c.startswith("[") for c in hist),
          f"histogram.csv names array classes as Java does ({[c for c in hist if '[' in c][:4]})")
    doms = read_csv(os.path.join(a, "dominators.csv"))[1]
    check(doms and all(re.fullmatch(r"0x[0-9a-f]+", r["object_id"]) and
                       (r["parent_id"] == "" or re.fullmatch(r"0x[0-9a-f]+", r["parent_id"]))
                       for r in doms),
          f"dominators.csv's ids are hex ({doms[0]['object_id'] if doms else None}, parent "
          f"{doms[0]['parent_id'] if doms else None})")
finally:
    jvm.kill()
    jvm.wait()
    wd.cleanup()
finish()
