"""The heap screens in a real terminal (tmux), on a dump of KnownHeap
(tests/java/KnownHeap.java) opened with `heaptop open`:

- the header says which snapshot is on screen (its time, objects, layout);
- heap classes (4): the class filter narrows it to KnownHeap$Listener with
  the instance count KnownHeap made; Enter lists its instances, Enter on one
  opens the reference browser;
- the reference browser shows the listener's fields, who refers to it (the
  ArrayList's Object[] and its widget), what it refers to (its widget), and its shortest
  path from a GC root through EventBus.LISTENERS; Enter follows a reference
  both ways (into the widget, which the listener is referenced by; out to
  the array) and Backspace comes back the way taken;
- the dominator tree (5) starts with the object that retains most, and
  unfolds; filtered by class it lists the objects of that class no other
  one dominates; 'e' exports those rows;
- 'e' exports the heap classes with the same figures as `heaptop heap`, and
  each class's loader;
- the reference filter narrows the browser's references to a class;
- `heaptop open` reads a gzip dump (jcmd -gz=1) too;
- `heaptop open` on a file that is not a dump exits 1 with one line;
- on a live JVM: H says what a snapshot costs and asks; H again has the
  agent write a dump, which is read into the heap screens (the header names
  it, the live screens go on) and removed; K keeps the file; any other key
  after the first H asks nothing."""
import glob
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()
JCMD = need_jcmd()

wd = Workdir("tuiheap")
facts_path = wd.file("facts")
jvm = start_jvm("KnownHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "KnownHeap built its heap")
    f = read_facts(facts_path)
    dump = wd.file("k.hprof")
    p = subprocess.run([JCMD, str(jvm.pid), "GC.heap_dump", dump], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(dump), "jcmd wrote the dump")
    dumpgz = wd.file("k.hprof.gz")
    p = subprocess.run([JCMD, str(jvm.pid), "GC.heap_dump", "-gz=1", dumpgz], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(dumpgz), "jcmd wrote a gzip dump too")
    jvm.kill()
    jvm.wait()

    out = wd.file("out")
    os.makedirs(out)
    t = Tmux("tuiheap", f"{HEAPTOP} open {dump} --out {out}", cols=150, rows=45)
    s = t.wait_for("snapshot of 20", 60)
    check(s is not None and "compressed oops layout" in s and "[dump file]" in s,
          "the header names the snapshot, its time and layout")
    s = t.wait_for("RETAINED>=", 20)
    check(s is not None, "the heap classes screen is in front")

    # --- heap classes, filtered to the listeners
    t.keys("\\")
    t.text("KnownHeap$Listener")
    t.keys("Enter")
    s = t.wait_until(lambda x: "(1 classes" in x, 10)
    row = [ln for ln in (s or "").splitlines() if ln.rstrip().endswith("KnownHeap$Listener")]
    check(len(row) == 1 and row[0].split()[0] == str(f["listeners"]),
          f"the class filter leaves KnownHeap$Listener with {f['listeners']} instances ({row})")
    t.keys("Enter")
    s = t.wait_for("INSTANCE OF KnownHeap$Listener", 10)
    check(s is not None, "Enter lists the class's instances")
    t.keys("Enter")
    s = t.wait_for("Referenced by (2", 10)
    check(s is not None and "<- java.lang.Object[]" in s and "<- KnownHeap$Widget" in s,
          "the browser: one listener, referenced by the ArrayList's Object[] and its widget")
    check(s is not None and "-> owner: KnownHeap$Widget" in s,
          "... and referring to its widget through the field owner")
    check(s is not None and "-> static LISTENERS: java.util.ArrayList" in s and
          "-> elementData: java.lang.Object[]" in s and "root(" in s,
          "... and its path from a GC root runs through EventBus's static LISTENERS")

    # --- the reference filter: only the referring and referred objects of a class
    t.keys("\\")
    t.text("KnownHeap$Widget")
    t.keys("Enter")
    s = t.wait_for("filtered by class", 10)
    check(s is not None and "<- KnownHeap$Widget" in s and "<- java.lang.Object[]" not in s
          and "-> owner: KnownHeap$Widget" in s and "-> <class>" not in s,
          "the reference filter lists only the widget, both ways")
    t.keys("\\")
    t.keys("C-u")
    t.keys("Enter")
    s = t.wait_until(lambda x: "filtered by class" not in x and "<- java.lang.Object[]" in x, 10)
    check(s is not None, "cleared, every reference is back")

    # --- follow the reference out to the widget: the listener holds it
    lines = s.splitlines()
    t.keys("Home")
    idx = next((i for i, ln in enumerate(lines) if "-> owner: KnownHeap$Widget" in ln), None)
    first = next((i for i, ln in enumerate(lines) if ln.startswith("Fields")), None)
    if idx is not None and first is not None:
        for _ in range(idx - first):
            t.keys("Down", pause=0.05)
    t.keys("Enter")
    s = t.wait_until(lambda x: x.splitlines()[2].startswith("KnownHeap$Widget @"), 10)
    check(s is not None and "<- KnownHeap$Listener" in s,
          "Enter follows the reference: the widget, which the listener refers to")
    t.keys("BSpace")
    s = t.wait_until(lambda x: x.splitlines()[2].startswith("KnownHeap$Listener @"), 10)
    check(s is not None, "Backspace goes back to the listener")

    # --- the dominator tree, unfiltered (the class filter is shared: clear it)
    t.keys("5")
    t.keys("\\")
    t.keys("C-u")
    t.keys("Enter")
    s = t.wait_for("dominator tree:", 10)
    rows = [ln for ln in (s or "").splitlines()[3:] if "@0x" in ln]
    check(rows and "java.lang.Class(KnownHeap) @" in rows[0],
          f"the dominator tree starts with the class KnownHeap, which retains most "
          f"({rows[0].strip()[:80] if rows else None})")
    t.keys("Right")
    s = t.wait_until(lambda x: "KnownHeap$Big @" in x, 10)
    check(s is not None, "Right unfolds it: KnownHeap$Big is among what it dominates")
    # --- filtered: the objects of the class that no other one dominates
    t.keys("\\")
    t.text("KnownHeap$Big")
    t.keys("Enter")
    s = t.wait_until(lambda x: len([ln for ln in x.splitlines()[3:] if "@0x" in ln]) == 1, 10)
    rows = [ln for ln in (s or "").splitlines()[3:] if "@0x" in ln]
    check(len(rows) == 1 and "KnownHeap$Big @" in rows[0],
          f"the class filter on the dominator tree: the one KnownHeap$Big at the top ({rows})")
    t.keys("e")
    check(wait_for(lambda: glob.glob(os.path.join(out, "heaptop-dominators-*.summary.csv")), 20),
          "e on the dominator tree writes heaptop-dominators-*.csv")
    dfiles = [x for x in glob.glob(os.path.join(out, "heaptop-dominators-*.csv"))
              if not x.endswith(".summary.csv")]
    drows = read_csv(dfiles[0])[1] if dfiles else []
    cli = wd.file("cli")
    subprocess.run([HEAPTOP, "heap", dump, "--out", cli], capture_output=True, timeout=120)
    ref = {r["class"]: r for r in read_csv(os.path.join(cli, "histogram.csv"))[1]}
    check(len(drows) == 1 and drows[0]["class"] == "KnownHeap$Big" and
          drows[0]["retained_bytes"] == ref["KnownHeap$Big"]["retained_bytes"],
          f"the export holds that row with its retained size ({drows})")
    cli_doms = [r for r in read_csv(os.path.join(cli, "dominators.csv"))[1]
                if r["class"] == "KnownHeap$Big"]
    check(drows and cli_doms and drows[0]["object_id"].startswith("0x") and
          drows[0]["object_id"] == cli_doms[0]["object_id"],
          f"its object id is hex, as on screen and in heaptop heap's dominators.csv "
          f"({drows[0]['object_id'] if drows else None})")

    # --- export the heap classes (screen 4, the same filter)
    t.keys("4")
    t.keys("Escape")
    t.keys("e")
    done = wait_for(lambda: glob.glob(os.path.join(out, "heaptop-heap-classes-*.summary.csv")), 20)
    check(bool(done), "e on the heap classes writes heaptop-heap-classes-*.csv")
    files = [x for x in glob.glob(os.path.join(out, "heaptop-heap-classes-*.csv"))
             if not x.endswith(".summary.csv")]
    if files:
        rows = read_csv(files[0])[1]
        # the filter matches names containing it: KnownHeap$Big, its node and array
        want = {c: ref[c] for c in ref if "KnownHeap$Big" in c}
        got = {r["class"]: r for r in rows}
        check(set(got) == set(want) and len(want) == 3 and
              all(got[c][k] == want[c][k] for c in want
                  for k in ("instances", "shallow_bytes", "retained_bytes")) and
              all(r["loader"] == "app" for r in rows),
              f"the export holds the filtered rows, as heaptop heap's histogram.csv has them, "
              f"and their loader, app ({sorted(got)})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
    t.kill()
    # --- a gzip dump (jcmd -gz) opens the same way
    t = Tmux("tuiheapgz", f"{HEAPTOP} open {dumpgz}", cols=150, rows=45)
    s = t.wait_for("snapshot of 20", 60)
    check(s is not None and "k.hprof.gz" in s and "KnownHeap$Big" in (t.wait_for("KnownHeap$Big", 10) or ""),
          "heaptop open reads a gzip dump: the same classes")
finally:
    end_tui(t, jvm)

# --- a snapshot of a live JVM: H asks, H takes it
wd2 = Workdir("tuiheaplive")
facts2 = wd2.file("facts")
jvm = start_jvm("KnownHeap", [facts2, 120], agent_opts=f"ipc={wd2.base}", jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_socket(wd2.base) and wait_for(lambda: os.path.exists(facts2), 60),
          "live: KnownHeap under the agent built its heap")
    dumps = wd2.base + ".dumps"
    t = Tmux("tuiheaplive", f"{HEAPTOP} --ipc {wd2.base}", cols=150, rows=45)
    check(t.wait_for("[live]", 20) is not None, "live: connected")
    t.keys("H")
    s = t.wait_for("H: take it", 10)
    check(s is not None and "full GC" in s, "live: H says what a snapshot costs and asks first")
    t.keys("x")  # any other key: not now
    t.keys("H", pause=0.2)
    t.keys("y")  # not now again: this H only asked
    t.keys("H", pause=0.2)  # asks
    t.keys("H")
    s = t.wait_for("snapshot of 20", 60)
    check(s is not None and "1-3 stay live" in s and "[live]" in s,
          "live: the second H takes the snapshot: the header names it, the JVM still live")
    s = t.wait_for("KnownHeap$Big", 10)
    check(s is not None and "RETAINED>=" in s, "live: the heap classes screen shows it")
    check(wait_for(lambda: os.path.isdir(dumps) and not os.listdir(dumps), 10),
          "live: the dump file is removed once read")
    t.keys("1")
    check(t.wait_for("CALL TREE", 10) is not None, "live: the allocation tree is still there")
    t.keys("H")
    t.keys("K")
    kept = lambda: [x for x in os.listdir(dumps) if x.endswith(".hprof")] \
        if os.path.isdir(dumps) else []
    check(wait_for(lambda: kept(), 60) and t.wait_for("snapshot of 20", 30) is not None,
          f"live: H then K takes one and keeps the file ({kept()})")
    # the agent numbers dumps 1, 2, ...: the kept one is the second, so the
    # H pressed after another key only asked
    check(len(kept()) == 1 and kept()[0].endswith("-2.hprof"),
          "live: an H after another key asked again rather than taking a snapshot")
    t.keys("q")
finally:
    end_tui(t, jvm, wd2)

bad = wd.file("bad.hprof")
with open(bad, "w") as fh:
    fh.write("not a dump\n")
p = subprocess.run([HEAPTOP, "open", bad], capture_output=True, text=True, timeout=30)
check(p.returncode == 1 and "not an HPROF file" in p.stderr and len(p.stderr.splitlines()) == 1,
      f"heaptop open on a text file: exit 1, one line ({p.stderr.strip()[:120]})")
wd.cleanup()
finish()
