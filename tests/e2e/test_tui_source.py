"""The Source screen in a real terminal (tmux) against a real JVM:
SourceWorkload allocates on known lines of its own file and, through
ArrayList.add, in the JDK's java.util.ArrayList.grow. o on a frame of the
allocation tree opens its file at the frame's line:

- from a source directory (--source DIR): the title names the file there, the
  highlighted line is the frame's line of the file, marked '>', and the last
  row gives the bytes allocated through it; a line of 100 KB is cut at the
  right edge and bytes that are not UTF-8 show as '?', and the screen keeps
  its shape (no wrapped garbage); Esc returns to the tree;
- from the JDK's src.zip, found by itself from the JVM's java home: the
  title says src.zip!java.base/java/util/ArrayList.java and the highlighted
  line is the zip's own text of ArrayList.grow's line;
- from a jar of sources (--source FILE.jar): the title says jar!entry;
- o on a frame of the CPU tree (cpu=on, the default, samples the main thread
  in grow's loop): from the directory, the frame's line with the CPU ms
  through it in the margin and in the last row (an allocation line says "no
  samples" when it has none, never "not sampled", since the sampler runs);
  from the JDK's src.zip, a java.util.ArrayList frame of the CPU tree at the
  zip's own line; from the jar, jar!entry;
- a frame whose file is on no path: the message names the paths searched;
- --source naming a missing entry: one line, exit 2, before any screen."""
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

COLS, ROWS, GUTTER = 120, 40, 27  # the margin, the line number and its mark
wd = Workdir("tuisrc")
src_dir = wd.file("src")
os.mkdir(src_dir)
with open(os.path.join(JAVA_SRC, "SourceWorkload.java"), "rb") as f:
    own = f.read()
# past the class's end, so the frames' lines stay: bytes that are not
# UTF-8, and a line of 100 KB
long_line = b'    String s = "' + b"x" * 100_000 + b'";'
with open(os.path.join(src_dir, "SourceWorkload.java"), "wb") as f:
    f.write(own + b"// \xff\xfe not UTF-8\n" + long_line + b"\n// after it\n// the end\n")
jar = wd.file("sources.jar")
with zipfile.ZipFile(jar, "w") as z:
    z.writestr("SourceWorkload.java", own)
lines = own.decode().split("\n")
chunk = site_line("SourceWorkload.java", "chunk")

jvm = start_jvm("SourceWorkload", [240], agent_opts=f"ipc={wd.base}", jvm_flags=["-Xmx256m"])
stop_at_exit(jvm)
check(wait_socket(wd.base), "agent socket appears")
t = None


def viewer(name, source):
    opt = f" --source {source}" if source else ""
    t = Tmux(name, f"{HEAPTOP} --ipc {wd.base}{opt}", cols=COLS, rows=ROWS)
    check(t.wait_for("SourceWorkload.", 40) is not None, f"{name}: the tree shows the workload")
    return t


def open_frame(t, text, timeout=30):
    """Search the tree for a frame and press o on it: the Source screen. The
    frame's line, as the tree shows it (its package may be shortened)."""
    shown = ".".join(text.split(".")[-2:])
    row = ""
    end = time.time() + timeout
    while time.time() < end:  # until the frame has a sample
        t.keys("/")
        t.text(text)
        t.keys("Enter")
        sel = t.selected_row()
        row = t.screen().split("\n")[sel] if sel is not None else ""
        if shown in row:
            break
        time.sleep(0.5)
    check(shown in row, f"the search puts the cursor on {text} ({row.strip()[:90]})")
    m = re.search(re.escape(shown) + r"(\d+)", row)
    t.keys("o")
    return int(m.group(1)) if m else None


def cpu_tree(t):
    """The CPU tree, through the screen list (F2; it has no number key)."""
    t.keys("F2")
    s = t.wait_for("Enter opens it", 10) or ""
    rows = s.split("\n")
    top = next((i for i, l in enumerate(rows) if "Enter opens it" in l), 0)
    at = next((i for i, l in enumerate(rows) if l.strip().endswith("CPU tree")), None)
    check(at is not None, "the screen list has the CPU tree")
    for _ in range((at or top + 1) - top - 1):
        t.keys("Down")
    t.keys("Enter")
    check(t.wait_for("CPU TREE", 10) is not None, "the CPU tree is shown")


def cpu_margin(row):
    """The CPU ms column of a Source screen row (ALLOC is 10 wide, CPU ms 9)."""
    return row[10:19].strip()


def title(s):
    return next((l for l in s.split("\n") if "ALLOC" in l and "CPU ms" in l), "")


def highlighted(t):
    sel = t.selected_row()
    return t.screen().split("\n")[sel] if sel is not None else ""


try:
    # --- a source directory ---
    t = viewer("tuisrc", src_dir)
    line = open_frame(t, "SourceWorkload.chunk:")
    check(line == chunk, f"the tree's frame is on the marked line ({line} == {chunk})")
    s = t.wait_for(f"line {chunk}:", 20)
    check(s is not None and os.path.join(src_dir, "SourceWorkload.java") in title(s),
          f"the title names the file in the directory: {title(s or '').strip()}")
    row = highlighted(t)
    check(row[GUTTER:].rstrip() == lines[chunk - 1].rstrip(),
          f"the highlighted row is line {chunk} of the file: {row.strip()[:100]!r}")
    check(re.search(rf"\s{chunk}>", row[:GUTTER]) is not None, "the frame's line is marked '>'")
    m = re.search(rf"line {chunk}: ([\d.]+ [KMG]?i?B) allocated through it", s or "")
    check(m is not None and not m.group(1).startswith("0 "),
          f"the last row gives the bytes allocated through the line ({m.group(1) if m else None})")
    check(re.match(r"\s*[\d.]+ [KMG]?i?B\s", row) is not None,
          f"the margin shows them beside the line: {row[:GUTTER]!r}")
    # the file's end: the 100 KB line cut at the edge, the bad bytes as '?'
    t.keys("End")
    s = t.wait_for(f"line {len(lines) + 3}:", 10)
    rows = (s or "").rstrip("\n").split("\n")
    bad = next((r for r in rows if "not UTF-8" in r), "")
    longr = next((r for r in rows if 'String s = "xxx' in r), "")
    check(s is not None and "// ?? not UTF-8" in bad,
          f"bytes that are not UTF-8 show as '?': {bad[GUTTER:].strip()!r}")
    after = next((r for r in rows if "// after it" in r), "")
    check(len(longr) <= COLS and longr.rstrip().endswith("x"),
          f"the 100 KB line is cut at the right edge ({len(longr)} columns)")
    check(after.rstrip().endswith("// after it"),
          f"nothing of it runs into the row below: {after[GUTTER:].rstrip()[:60]!r}")
    check(len(rows) == ROWS and "F10Quit" in rows[-1].replace(" ", ""),
          "the screen keeps its shape: no line wrapped into the rows below")
    check("CPU: not sampled" not in (s or "") and "CPU: not sampled" not in t.screen(),
          "with the CPU sampler running the last row never says 'not sampled'")
    t.keys("Escape")
    check(t.wait_for("CALL TREE", 10) is not None, "Esc returns to the tree")

    # --- the JDK's src.zip, found by itself ---
    line = open_frame(t, "java.util.ArrayList.grow:")
    s = t.wait_for("src.zip!java.base/java/util/ArrayList.java", 30)
    check(s is not None, f"the title says src.zip!entry: {title(t.screen()).strip()}")
    zpath = re.search(r"(\S+/src\.zip)!", title(s or "")) if s else None
    want = ""
    if zpath and line:
        with zipfile.ZipFile(zpath.group(1)) as z:
            text = z.read("java.base/java/util/ArrayList.java").decode()
        want = text.split("\n")[line - 1].expandtabs(4).rstrip()[:COLS - GUTTER]
    row = highlighted(t)
    check(want != "" and row[GUTTER:].rstrip() == want,
          f"the highlighted row is ArrayList.java's line {line} in the zip: {row.strip()[:90]!r}")
    t.keys("q")
    check(t.wait_for("CALL TREE", 10) is not None, "q returns to the tree (it does not quit)")

    # --- a frame of the CPU tree, from the directory: the CPU ms in the margin ---
    cpu_tree(t)
    line = open_frame(t, "SourceWorkload.grow:", 90)
    s = t.wait_for(f"line {line}:", 20) if line else None
    check(s is not None and os.path.join(src_dir, "SourceWorkload.java") in title(s),
          f"o on the CPU tree's frame opens the file in the directory: {title(s or '').strip()}")
    row = highlighted(t)
    check(line is not None and row[GUTTER:].rstrip() == lines[line - 1].rstrip(),
          f"the highlighted row is the CPU frame's line {line}: {row.strip()[:100]!r}")
    m = re.search(rf"line {line}: .*; CPU (\d+) ms through it, (\d+) ms in it", s or "")
    last = next((r for r in (s or "").split("\n") if f" line {line}: " in r), "")
    check(m is not None, f"the last row gives the CPU ms through the line: {last.strip()[:110]!r}")
    check(re.fullmatch(r"\d+", cpu_margin(row)) is not None,
          f"the margin's CPU ms column shows them beside the line: {row[:GUTTER]!r}")
    t.keys("Escape")
    check(t.wait_for("CPU TREE", 10) is not None, "Esc returns to the CPU tree")

    # --- a JDK frame of the CPU tree: ArrayList.java in the JDK's src.zip ---
    row, end = "", time.time() + 90
    while time.time() < end:  # until grow's loop has a sample inside ArrayList
        t.keys("/")
        t.text("java.util.ArrayList.")
        t.keys("Enter")
        row = highlighted(t)
        if re.search(r"ArrayList\.\w+:\d+", row):
            break
        time.sleep(0.5)
    m = re.search(r"ArrayList\.(\w+):(\d+)", row)
    check(m is not None, f"the CPU tree has a java.util.ArrayList frame with a line: {row.strip()[:90]!r}")
    t.keys("o")
    s = t.wait_for("src.zip!java.base/java/util/ArrayList.java", 30)
    check(s is not None, f"o opens it from src.zip: {title(t.screen()).strip()}")
    want = ""
    zpath = re.search(r"(\S+/src\.zip)!", title(s or "")) if s else None
    if zpath and m:
        with zipfile.ZipFile(zpath.group(1)) as z:
            text = z.read("java.base/java/util/ArrayList.java").decode()
        want = text.split("\n")[int(m.group(2)) - 1].expandtabs(4).rstrip()[:COLS - GUTTER]
    row = highlighted(t)
    check(want != "" and row[GUTTER:].rstrip() == want,
          f"the highlighted row is ArrayList.{m and m.group(1)}'s line {m and m.group(2)} in the zip: "
          f"{row.strip()[:90]!r}")
    t.keys("Escape")
    t.kill()

    # --- a jar of sources ---
    t = viewer("tuisrcjar", jar)
    open_frame(t, "SourceWorkload.chunk:")
    s = t.wait_for(f"line {chunk}:", 20)
    check(s is not None and f"{jar}!SourceWorkload.java" in title(s),
          f"the title says jar!entry: {title(s or '').strip()}")
    check(highlighted(t)[GUTTER:].rstrip() == lines[chunk - 1].rstrip(),
          "the highlighted row is the jar's line")
    t.keys("Escape")
    check(t.wait_for("CALL TREE", 10) is not None, "Esc returns to the tree")
    cpu_tree(t)
    line = open_frame(t, "SourceWorkload.grow:", 60)
    s = t.wait_for(f"line {line}:", 20) if line else None
    check(s is not None and f"{jar}!SourceWorkload.java" in title(s)
          and highlighted(t)[GUTTER:].rstrip() == lines[line - 1].rstrip(),
          f"a CPU frame from the jar: jar!entry at its line {line}: {title(s or '').strip()}")
    t.kill()

    # --- no path has it ---
    t = viewer("tuisrcnone", None)
    open_frame(t, "SourceWorkload.chunk:")
    s = t.wait_for("not found", 20)
    flat = re.sub(r"\s+", "", s or "")
    check(s is not None and "SourceWorkload.javanotfound;searched:" in flat and "src.zip" in flat,
          "a file on no path: the message names the paths searched")
    t.kill()
    t = None

    # --- a missing entry: one line before any screen ---
    p = subprocess.run([HEAPTOP, "--ipc", wd.base, "--source", f"{src_dir}:{wd.file('gone')}"],
                       capture_output=True, text=True, timeout=30)
    err = p.stderr.strip().split("\n")
    check(p.returncode == 2 and len(err) == 1 and "gone" in err[0] and "No such file" in err[0],
          f"--source with a missing entry: one line, exit 2 ({p.returncode}: {p.stderr.strip()})")
finally:
    end_tui(t, jvm, stop=True)
wd.cleanup()
finish()
