"""Duplicate groups (objects of one class with the same contents) on the known
heap (tests/java/KnownHeap.java), against what KnownHeap made and jcmd
GC.class_histogram says, not what heaptop computed:

- `heaptop heap`'s duplicates.csv: its columns, rows most wasted first, and
  wasted = (copies - 1) x bytes each on every row;
- the DUP_STRINGS equal Strings "duplicate-value" are one group of exactly
  that many copies, and so are their byte[]s (each String has one of its
  own); the DUP_ARRAYS equal int[]s are one group of that many; the cache's
  entries are two groups (those holding an int[] and those not), whose
  copies add up to CACHE_ENTRIES;
- sizes: an Entry with no int[] is the Entry (its size from the histogram:
  every Entry is one size), its String (likewise) and that String's byte[];
  a String copy is the String and its byte[]; an Entry with an int[] adds it;
- nothing is grouped that KnownHeap made different: no ring node, listener,
  widget or Big node, and no class object;
- the Duplicates screen (9) in tmux: the String group with its count and
  text; filtered to KnownHeap$Entry, the two entry groups; Enter on a group:
  who holds the copies ("5,000 copies held by KnownHeap$Entry.text"); Enter
  on a holder opens a copy in the reference browser, 8 comes back to the
  holders and Esc to the groups; e exports the rows shown, equal to
  duplicates.csv's."""
import glob
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()
JCMD = need_jcmd()
COLUMNS = ["class", "copies", "bytes_each", "wasted_bytes", "preview"]

wd = Workdir("heapdup")
facts_path = wd.file("facts")
jvm = start_jvm("KnownHeap", [facts_path, 120], jvm_flags=["-Xmx256m"])
t = None
try:
    check(wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60)
          and jvm.poll() is None, "KnownHeap built its heap")
    f = read_facts(facts_path)
    dump = wd.file("k.hprof")
    jcmd(jvm.pid, "GC.heap_dump", dump)
    hist = class_histogram(jvm.pid)
    jvm.kill()
    jvm.wait()

    def each(cls):
        """The size of one instance of a class all of whose instances are one size."""
        n, b = hist[cls]
        return b // n

    out = wd.file("out")
    p = subprocess.run([HEAPTOP, "heap", dump, "--out", out], capture_output=True, text=True,
                       timeout=300)
    print(p.stdout.strip())
    check(p.returncode == 0 and "duplicates.csv" in p.stdout,
          f"heaptop heap writes duplicates.csv ({p.stderr.strip()[-200:]})")
    header, rows, _ = read_csv(os.path.join(out, "duplicates.csv"))
    check(header == COLUMNS, f"duplicates.csv's columns ({header})")
    wasted = [int(r["wasted_bytes"]) for r in rows]
    check(wasted == sorted(wasted, reverse=True), "rows most wasted first")
    check(all(int(r["wasted_bytes"]) == (int(r["copies"]) - 1) * int(r["bytes_each"]) and
              int(r["copies"]) >= 2 for r in rows),
          "every row: at least two copies, wasted = (copies - 1) x bytes each")

    text = "duplicate-value"
    strings = [r for r in rows if r["class"] == "java.lang.String" and r["preview"] == f'"{text}"']
    check(len(strings) == 1 and int(strings[0]["copies"]) == f["dup_strings"],
          f"one group of the equal Strings, {f['dup_strings']} copies "
          f"({[r['copies'] for r in strings]})")
    want_bytes = "[15] {" + ", ".join(str(ord(c)) for c in text) + "}"
    byte_rows = [r for r in rows if r["class"] == "byte[]" and r["preview"] == want_bytes]
    check(len(byte_rows) == 1 and int(byte_rows[0]["copies"]) == f["dup_strings"],
          f"one group of their byte[]s (each String has its own), {f['dup_strings']} copies "
          f"({[r['copies'] for r in byte_rows]})")
    want_ints = "[16] {" + ", ".join(str(k * k + 7) for k in range(f["dup_array_length"])) + "}"
    int_rows = [r for r in rows if r["class"] == "int[]" and r["preview"] == want_ints]
    check(len(int_rows) == 1 and int(int_rows[0]["copies"]) == f["dup_arrays"],
          f"one group of the equal int[]s, {f['dup_arrays']} copies "
          f"({[r['copies'] for r in int_rows]})")
    entries = sorted((r for r in rows if r["class"] == "KnownHeap$Entry"),
                     key=lambda r: int(r["copies"]))
    check([int(r["copies"]) for r in entries] ==
          sorted([f["dup_arrays"], f["cache_entries"] - f["dup_arrays"]]),
          f"the entries: two groups, with an int[] ({f['dup_arrays']}) and without "
          f"({[r['copies'] for r in entries]})")
    if strings and byte_rows and int_rows and len(entries) == 2:
        b, i, s = (int(r[0]["bytes_each"]) for r in (byte_rows, int_rows, strings))
        check(15 < b <= 15 + 24 and 64 < i <= 64 + 24,
              f"an array copy is its header and its elements (byte[15] {b}, int[16] {i})")
        check(s == each("java.lang.String") + b,
              f"a String copy is the String ({each('java.lang.String')} bytes, from the "
              f"histogram) and its byte[] ({s})")
        with_int = [r for r in entries if "data=int[]" in r["preview"]]
        without = [r for r in entries if "data=null" in r["preview"]]
        e = each("KnownHeap$Entry")
        check(len(without) == 1 and int(without[0]["bytes_each"]) == e + s,
              f"an Entry copy without an int[]: the Entry ({e}) and its String "
              f"({without and without[0]['bytes_each']})")
        check(len(with_int) == 1 and int(with_int[0]["bytes_each"]) == e + s + i,
              f"with one: and the int[] ({with_int and with_int[0]['bytes_each']})")
    made_different = ("KnownHeap$RingNode", "KnownHeap$Listener", "KnownHeap$Widget",
                      "KnownHeap$BigNode", "KnownHeap$Big", "java.lang.Class")
    check(not [r for r in rows if r["class"] in made_different],
          "no group of ring nodes, listeners, widgets, Big nodes or class objects")

    # --- the screen
    tout = wd.file("tui")
    os.makedirs(tout)
    t = Tmux("heapdup", f"{HEAPTOP} open {dump} --out {tout}", cols=160, rows=45)
    check(t.wait_for("RETAINED>=", 60) is not None, "heaptop open read the dump")
    t.keys("9")
    s = t.wait_for("groups of equal objects", 10)
    line = [ln for ln in (s or "").splitlines() if f'java.lang.String  "{text}"' in ln]
    check(len(line) == 1 and line[0].split()[0] == f"{f['dup_strings']:,}",
          f"the Duplicates screen: the Strings, {f['dup_strings']:,} copies ({line})")
    t.keys("\\")
    t.text("KnownHeap$Entry")
    t.keys("Enter")
    s = t.wait_until(lambda x: "(2 groups" in x, 10)
    got = sorted(ln.split()[0] for ln in (s or "").splitlines()[3:] if "KnownHeap$Entry  {" in ln)
    check(got == sorted([f"{f['dup_arrays']:,}", f"{f['cache_entries'] - f['dup_arrays']:,}"]),
          f"filtered to KnownHeap$Entry: its two groups ({got})")
    t.keys("e")
    check(wait_for(lambda: glob.glob(os.path.join(tout, "heaptop-duplicates-*.summary.csv")), 20),
          "e writes heaptop-duplicates-*.csv")
    files = [x for x in glob.glob(os.path.join(tout, "heaptop-duplicates-*.csv"))
             if not x.endswith(".summary.csv")]
    if files:
        eh, erows, _ = read_csv(files[0])
        check(eh == COLUMNS and erows == [r for r in rows if r["class"] == "KnownHeap$Entry"],
              f"the export: duplicates.csv's columns and its KnownHeap$Entry rows ({len(erows)})")
    # who holds the Strings
    t.keys("\\")
    t.keys("C-u")
    t.text("java.lang.String")
    t.keys("Enter")
    s = t.wait_until(lambda x: "java.lang.String  " in x and "KnownHeap$Entry  {" not in x, 10)
    lines = (s or "").splitlines()
    at = next((k for k, ln in enumerate(lines) if f'java.lang.String  "{text}"' in ln), None)
    first = next((k for k, ln in enumerate(lines) if "groups of equal objects" in ln), None)
    check(at is not None and first is not None, "the String group among the String groups")
    if at is not None and first is not None:
        t.keys("Home")
        for _ in range(at - first - 1):
            t.keys("Down", pause=0.05)
        t.keys("Enter")
        s = t.wait_for("who holds them", 10)
        check(s is not None and f"{f['dup_strings']:,} copies held by KnownHeap$Entry.text" in s,
              "Enter: the copies held by KnownHeap$Entry.text, all of them")
        t.keys("Enter")
        s = t.wait_until(lambda x: x.splitlines()[2].startswith("java.lang.String @"), 10)
        check(s is not None and "<- KnownHeap$Entry" in s and f'"{text}"' in s,
              "Enter on the holder opens a copy in the reference browser, held by an Entry")
        t.keys("9")
        check(t.wait_for("who holds them", 10) is not None, "8 goes back to the group's holders")
        t.keys("Escape")
        check(t.wait_for("groups of equal objects", 10) is not None, "Esc: the groups again")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10), "q quits")
finally:
    end_tui(t, jvm, wd)
finish()
