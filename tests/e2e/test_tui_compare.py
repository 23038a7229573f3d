"""The Compare screen in a real terminal (tmux), on tests/java/CompareHeap.java,
which holds two known heap states one after the other:

- `heaptop open A.hprof B.hprof` on two `jcmd GC.heap_dump`s (one per state)
  opens on the Compare screen, the growing class (CompareHeap$Grower,
  +GROW instances) first; the class filter narrows it to the workload's
  classes; I reverses the order (the biggest shrink, CompareHeap$Shrinker,
  first); 'e' exports the rows as shown with the figures `heaptop heap A B`
  writes in compare.csv;
- with one snapshot only (`heaptop open B`) the screen says how to get a
  second, which for files is heaptop open A B, not H;
- on a live JVM under the agent: a snapshot taken with H, then, after the
  program grew, a second one: the Compare screen has the first as A, the
  second as B, the growing class first with its known delta;
- marks: m on the Compare screen makes b and E take a snapshot each; E's
  is compared with b's (the growing class first); b and E pressed at once:
  E's waits for b's to be written; m again turns it off;
- `heaptop open A B` with a B that is not a dump exits 1 with one line
  naming it."""
import glob
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()
need_jcmd()


def rows_of(screen):
    """The Compare screen's rows: (inst_a, inst_b, delta, class) in order."""
    out = []
    for ln in (screen or "").splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+)\s+([+-]?\d+)\s+.*\s(\S+)\s*$", ln)
        if m and "INST A" not in ln:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
    return out


wd = Workdir("tuicmp")
facts_path, go = wd.file("facts"), wd.file("go")
jvm = start_jvm("CompareHeap", [facts_path, go, 120], jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "CompareHeap built state A")
    f = read_facts(facts_path)
    dump_a, dump_b = wd.file("a.hprof"), wd.file("b.hprof")
    jcmd(jvm.pid, "GC.heap_dump", dump_a)
    touch(go)
    check(wait_for(lambda: os.path.exists(facts_path + ".b") or jvm.poll() is not None, 60)
          and jvm.poll() is None, "CompareHeap built state B")
    jcmd(jvm.pid, "GC.heap_dump", dump_b)
    jvm.kill()
    jvm.wait()

    out = wd.file("out")
    os.makedirs(out)
    t = Tmux("tuicmp", f"{HEAPTOP} open {dump_a} {dump_b} --out {out}", cols=150, rows=45)
    s = t.wait_for("A: a.hprof  ->  B: b.hprof", 60)
    check(s is not None, "heaptop open A B: the Compare screen in front, A and B named")
    r = rows_of(s)
    grow = ("CompareHeap$Grower", f["growers_a"], f["growers_a"] + f["grow"], f"+{f['grow']}")
    check(r and (r[0][3], r[0][0], r[0][1], r[0][2]) == grow,
          f"the growing class first, {grow[1]} -> {grow[2]} ({r[:2]})")

    t.keys("\\")
    t.text("CompareHeap$")
    t.keys("Enter")
    s = t.wait_until(lambda x: "(5 of " in x, 10)
    r = rows_of(s)
    check([x[3] for x in r] == ["CompareHeap$Grower", "CompareHeap$Fresh", "CompareHeap$Steady",
                                "CompareHeap$Gone", "CompareHeap$Shrinker"],
          f"filtered to the workload's five classes, the biggest growth first "
          f"({[x[3] for x in r]})")
    t.keys("I")
    s = t.wait_until(lambda x: "+/-BYTES ^" in x, 10)
    r = rows_of(s)
    shrink = ("CompareHeap$Shrinker", f["shrinkers_a"], f["shrinkers_a"] - f["shrink"],
              f"-{f['shrink']}")
    check(r and (r[0][3], r[0][0], r[0][1], r[0][2]) == shrink,
          f"I reverses: the biggest shrink first ({r[:1]})")

    t.keys("e")
    check(wait_for(lambda: glob.glob(os.path.join(out, "heaptop-compare-*.summary.csv")), 20),
          "e writes heaptop-compare-*.csv")
    files = [x for x in glob.glob(os.path.join(out, "heaptop-compare-*.csv"))
             if not x.endswith(".summary.csv")]
    got = read_csv(files[0])[1] if files else []
    cli = wd.file("cli")
    p = subprocess.run([HEAPTOP, "heap", dump_a, dump_b, "--out", cli], capture_output=True,
                       text=True, timeout=120)
    ref = {x["class"]: x for x in read_csv(os.path.join(cli, "compare.csv"))[1]} \
        if p.returncode == 0 else {}
    check([x["class"] for x in got][:1] == ["CompareHeap$Shrinker"] and len(got) == 5 and
          all(x == ref.get(x["class"]) for x in got),
          f"the export holds the rows as shown, with heaptop heap A B's figures "
          f"({[x['class'] for x in got]})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
    t.kill()

    # --- one snapshot only
    t = Tmux("tuicmp1", f"{HEAPTOP} open {dump_b}", cols=150, rows=45)
    check(t.wait_for("RETAINED>=", 60) is not None, "heaptop open B: the heap classes")
    t.keys("8")
    s = t.wait_for("one snapshot only", 10)
    check(s is not None and "heaptop open A.hprof B.hprof" in s and "press H for" not in s
          and "H takes" not in s,
          "with one snapshot the Compare screen says how to get a second: from dump files, "
          "heaptop open A B (H is not offered as a key that works here)")
    # a jcmd dump carries no samples, and none will come: screens 1 and 2 say so
    for key, screen in (("1", "tree"), ("2", "classes")):
        t.keys(key)
        s = t.wait_for("no allocation samples", 10)
        check(s is not None and "no samples yet" not in s,
              f"on a jcmd dump the {screen} screen says it has no samples (not 'no samples yet')")
    t.kill()

    bad = wd.file("bad.hprof")
    with open(bad, "w") as fh:
        fh.write("not a dump\n")
    p = subprocess.run([HEAPTOP, "open", dump_a, bad], capture_output=True, text=True, timeout=30)
    check(p.returncode == 1 and p.stderr.startswith(f"heaptop open: {bad}: ") and
          "not an HPROF file" in p.stderr and len(p.stderr.splitlines()) == 1,
          f"heaptop open A B with a B that is not a dump: exit 1, one line naming it "
          f"({p.stderr.strip()[:120]})")
finally:
    end_tui(t, jvm)

# --- live: two snapshots taken with H, the first becomes A
wd2 = Workdir("tuicmplive")
facts2, go2 = wd2.file("facts"), wd2.file("go")
jvm = start_jvm("CompareHeap", [facts2, go2, 120], agent_opts=f"ipc={wd2.base}",
                jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_socket(wd2.base) and wait_for(lambda: os.path.exists(facts2), 60),
          "live: CompareHeap under the agent built state A")
    f = read_facts(facts2)
    t = Tmux("tuicmplive", f"{HEAPTOP} --ipc {wd2.base}", cols=150, rows=45)
    check(t.wait_for("[live]", 20) is not None, "live: connected")
    t.take_snapshot()
    check(t.wait_for("RETAINED>=", 60) is not None, "live: the first snapshot is read")
    t.keys("8")
    s = t.wait_for("one snapshot only", 10)
    check(s is not None and "H takes a second" in s and "heaptop open A.hprof" not in s,
          "live: with the first only, the Compare screen asks for a second (H, the marks), "
          "not for dump files")
    touch(go2)
    check(wait_for(lambda: os.path.exists(facts2 + ".b"), 60), "live: CompareHeap built state B")
    t.take_snapshot()
    check(t.wait_for("RETAINED>=", 60) is not None, "live: the second snapshot is read")
    t.keys("8")
    s = t.wait_for("  ->  B: ", 10)
    r = rows_of(s)
    grow = ("CompareHeap$Grower", f["growers_a"], f["growers_a"] + f["grow"], f"+{f['grow']}")
    check(r and (r[0][3], r[0][0], r[0][1], r[0][2]) == grow,
          f"live: the Compare screen has the first snapshot as A, the second as B, the growing "
          f"class first ({r[:2]})")
    t.keys("q")
finally:
    end_tui(t, jvm, wd2)

# --- live: m on the Compare screen, then b and E take the two snapshots
wd3 = Workdir("tuicmpmark")
facts3, go3 = wd3.file("facts"), wd3.file("go")
jvm = start_jvm("CompareHeap", [facts3, go3, 120], agent_opts=f"ipc={wd3.base}",
                jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_socket(wd3.base) and wait_for(lambda: os.path.exists(facts3), 60),
          "marks: CompareHeap under the agent built state A")
    f = read_facts(facts3)
    t = Tmux("tuicmpmark", f"{HEAPTOP} --ipc {wd3.base}", cols=150, rows=45)
    check(t.wait_for("[live]", 20) is not None, "marks: connected")
    t.keys("8")
    t.keys("m")
    check(t.wait_for("marks take heap snapshots", 10) is not None, "marks: m turns them on")
    t.keys("b")
    s = t.wait_for("RETAINED>=", 60)
    check(s is not None and "MARK running" in s,
          "marks: b begins the mark and takes a snapshot, read into the heap screens"
          + ("" if s else f" (the status line: {t.status_line()})"))
    touch(go3)
    check(wait_for(lambda: os.path.exists(facts3 + ".b"), 60), "marks: CompareHeap built state B")
    t.keys("E")
    s = t.wait_for("  ->  B: ", 60)
    r = rows_of(s)
    grow = ("CompareHeap$Grower", f["growers_a"], f["growers_a"] + f["grow"], f"+{f['grow']}")
    check(s is not None and "MARK ended" in s and r and
          (r[0][3], r[0][0], r[0][1], r[0][2]) == grow,
          f"marks: E ends the mark, takes the second snapshot and brings up the Compare "
          f"screen, b's against E's, the growing class first ({r[:1]})"
          + ("" if s else f" (the status line: {t.status_line()})"))
    # b and E at once: E's snapshot waits for b's to be written, then is taken
    t.keys("b", "E")
    s = t.wait_for("A: heap-%d-3.hprof  ->  B: heap-%d-4.hprof" % (jvm.pid, jvm.pid), 60)
    check(s is not None and "MARK ended" in s,
          "marks: b and E pressed at once: E's snapshot waits for b's, then the Compare "
          "screen compares them")
    t.keys("m")
    check(t.wait_for("marks take no heap snapshots", 10) is not None, "marks: m again: off")
    t.keys("b")
    check(t.wait_for("MARK running", 10) is not None, "marks: b begins a mark")
    # a snapshot kept (H, K): the agent numbers dumps 1, 2, ... and b and E
    # took four, so this one is the fifth unless the last b took one too
    dumps = wd3.base + ".dumps"
    kept = lambda: [x for x in os.listdir(dumps) if x.endswith(".hprof")] \
        if os.path.isdir(dumps) else []
    t.keys("H")
    check(t.wait_for("H: take it", 10) is not None, "marks: H asks, as it always does")
    t.keys("K")
    check(wait_for(lambda: kept(), 60) and kept()[0].endswith("-5.hprof"),
          f"marks: off, b took no snapshot: the one H then K keeps is the fifth ({kept()})")
    t.keys("q")
finally:
    end_tui(t, jvm, wd3)
wd.cleanup()
finish()
