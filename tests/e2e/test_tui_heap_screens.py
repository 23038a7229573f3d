"""The heap screens on a dump `jcmd GC.heap_dump` wrote (tests/java/
DupsHeap.java: a million equal Longs held by one array), opened with
`heaptop open`, in a real tmux:

- one spelling of class names: the heap classes screen names array classes
  as Java does (int[], java.lang.Long[]) and its class filter finds them
  written either way (int[] or [I; [Ljava.lang.Long; or java.lang.Long[]);
- the duplicates screen's COPIES column holds "1,000,000" with a space
  before it: the number does not touch the screen's left edge;
- the compare screen, with one snapshot from a file, does not tell the user
  to press H (a file session has no JVM): it names heaptop open A B."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

JCMD = need_jcmd()

wd = Workdir("tuiheapscr")
facts_path = wd.file("facts")
dump = wd.file("dups.hprof")
jvm = start_jvm("DupsHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "DupsHeap built its heap")
    f = read_facts(facts_path)
    p = subprocess.run([JCMD, str(jvm.pid), "GC.heap_dump", dump], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(dump), f"jcmd wrote the dump ({p.stdout[-100:]})")
finally:
    jvm.kill()
    jvm.wait()

copies = f"{f['copies']:,}"
t = Tmux("tuiheapscr", f"{HEAPTOP} open {dump}", cols=120, rows=40)
try:
    check(t.wait_for("RETAINED>=", 60) is not None, "heaptop open: the heap classes screen")

    def filtered(text, name):
        """The heap classes screen's rows after the class filter `text`: the
        row named `name`, or None."""
        t.keys("\\")
        t.keys("C-u")
        t.text(text)
        t.keys("Enter")
        s = t.wait_until(lambda x: "(1 classes" in x or "no class matches" in x or
                         f" {name}\n" in x + "\n", 10) or ""
        rows = [ln for ln in s.splitlines() if ln.rstrip().endswith(" " + name)]
        return rows[0] if rows else None, s

    for text, name in (("int[]", "int[]"), ("[I", "int[]"), ("java.lang.Long[]", "java.lang.Long[]"),
                       ("[Ljava.lang.Long;", "java.lang.Long[]")):
        row, s = filtered(text, name)
        check(row is not None and "no class matches" not in s,
              f"heap classes: the filter {text!r} finds the class named {name} ({row})")
    t.keys("\\")
    t.keys("C-u")
    t.keys("Enter")

    t.keys("9")
    s = t.wait_for(copies, 30) or ""
    rows = [ln for ln in s.splitlines() if copies in ln and "java.lang.Long" in ln]
    check(rows and rows[0].startswith(" ") and rows[0].split()[0] == copies,
          f"duplicates: COPIES {copies} stands clear of the left edge ({rows[:1]})")
    title = [ln for ln in s.splitlines() if "COPIES" in ln and "WASTED" in ln]
    check(title and rows and title[0].index("COPIES") + len("COPIES") ==
          rows[0].index(copies) + len(copies),
          "... right-aligned under its title")

    t.keys("8")
    s = t.wait_for("one snapshot only", 10) or ""
    check("heaptop open A.hprof B.hprof" in s and "press H for a second" not in s,
          f"compare with one snapshot of a file: names heaptop open A B, does not say press H "
          f"({[ln.strip() for ln in s.splitlines() if 'snapshot' in ln or 'hprof' in ln][:4]})")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    t.kill()
    wd.cleanup()
finish()
