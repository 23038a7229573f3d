"""heaptop record --source writes lines.csv, against a real JVM: SourceWorkload
allocates on known lines of its own file (chunk's SITE line) and, through
ArrayList.add, in the JDK's java.util.ArrayList.grow, and its main thread
burns CPU in the loop that calls them (the default cpu=on samples it).

Three recordings of the same run at once:
- --source DIR (the workload's file in a directory): the chunk line's row has
  the file's own text, and its alloc_bytes are what sites.csv says the stacks
  through that line allocated (summed here from sites.csv's stacks, each row
  once); main's call lines have CPU ms, equal to what cpu.csv says the stacks
  through them used (summed here from cpu.csv's stacks, buckets left out);
  ArrayList.grow's line has the text of that line in the JDK's src.zip, which
  record found by itself;
- --source FILE.jar: the same line's text from the jar;
- --source EMPTYDIR: the workload's lines are still written, with their
  figures and no text, and record names the file found nowhere.
And --source naming a missing entry: one line, exit 2, before recording (no
file written)."""
import os
import re
import signal
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("reclines")
src_dir, empty_dir = wd.file("src"), wd.file("empty")
os.mkdir(src_dir)
os.mkdir(empty_dir)
with open(os.path.join(JAVA_SRC, "SourceWorkload.java"), "rb") as f:
    own = f.read()
with open(os.path.join(src_dir, "SourceWorkload.java"), "wb") as f:
    f.write(own)
jar = wd.file("sources.jar")
with zipfile.ZipFile(jar, "w") as z:
    z.writestr("SourceWorkload.java", own)
own_lines = own.decode().split("\n")
chunk = site_line("SourceWorkload.java", "chunk")
calls = [site_line("SourceWorkload.java", m) for m in ("chunk_call", "grow_call")]
FILE = "SourceWorkload.java"  # no package: the file's relative name is its own

# --- a missing entry: refused before anything starts ---
gone_out = wd.file("gone-out")
p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", gone_out, "--seconds", "1",
                    "--source", f"{src_dir}:{wd.file('gone')}"],
                   capture_output=True, text=True, timeout=30)
err = p.stderr.strip().split("\n")
check(p.returncode == 2 and len(err) == 1 and "gone" in err[0] and "No such file" in err[0],
      f"--source with a missing entry: one line, exit 2 ({p.returncode}: {p.stderr.strip()})")
check(not os.path.exists(gone_out), "nothing was recorded or written (--out not even made)")

jvm = start_jvm("SourceWorkload", [240], agent_opts=f"ipc={wd.base}", jvm_flags=["-Xmx256m"])
stop_at_exit(jvm)
check(wait_agent(jvm, wd.base), "agent socket appears")
outs = {k: wd.file(f"out-{k}") for k in ("dir", "jar", "none")}
recs = {"dir": Viewer(wd.base, outs["dir"], "--top", "0", "--source", src_dir),
        "jar": Viewer(wd.base, outs["jar"], "--top", "0", "--source", jar),
        "none": Viewer(wd.base, outs["none"], "--top", "0", "--source", empty_dir)}
for k, r in recs.items():
    check(r.connected(60), f"record --source ({k}) connects")


def stack_lines(stack, frame_re):
    """The line numbers of the frames of a stack text (leaf first, ' <- ')
    that match frame_re, once each."""
    return {int(m.group(1)) for f in stack.split(" <- ") for m in [re.fullmatch(frame_re, f)] if m}


def lines_csv(out):
    header, rows, _ = read_csv(os.path.join(out, "lines.csv"))
    return header, {(r["file"], int(r["line"])): r for r in rows}


def have_cpu(out):
    """cpu.csv has a stack through grow's call line, the one the check below
    wants CPU on (the truth to wait for: waiting for either call line let a
    fresh-clone run record before grow's line had a sample)."""
    path = os.path.join(out, "cpu.csv")
    if not os.path.exists(path):
        return False
    _, rows, _ = read_csv(path)
    return any(calls[1] in stack_lines(r["stack"], r"SourceWorkload\.main:(\d+)")
               for r in rows if not r["stack"].startswith("["))


try:
    # samples of both kinds on the lines: a few seconds of the workload
    probe = wd.file("probe")
    wait_for(lambda: snapshot(wd.base, probe).get("rc") == 0 and have_cpu(probe)
             and any(stack_lines(s["stack"], r"SourceWorkload\.chunk:(\d+)") == {chunk}
                     for s in read_out(probe)["sites"]),
             timeout=60, step=0.5, what="CPU and allocation samples on the workload's lines")
    for r in recs.values():
        r.signal(signal.SIGINT)
    res = {k: r.finish(120) for k, r in recs.items()}
    for k, (rc, _, e) in res.items():
        check(rc == 0, f"record --source ({k}) exits 0 ({rc}: {e.strip()[-300:]})")
        check(re.search(r"wrote \S+/lines\.csv: \d+ lines of \d+ files", e) is not None,
              f"record ({k}) says it wrote lines.csv")

    # --- from the source directory ---
    header, rows = lines_csv(outs["dir"])
    check(header == ["file", "line", "alloc_bytes", "cpu_ms", "text"],
          f"lines.csv's header: {header}")
    row = rows.get((FILE, chunk))
    check(row is not None and row["text"] == own_lines[chunk - 1],
          f"the chunk line's row has the file's text: {row and row['text']!r}")
    # the truth from sites.csv: the bytes of the stacks through the chunk line
    _, sites, _ = read_csv(os.path.join(outs["dir"], "sites.csv"))
    through = [s for s in sites if chunk in stack_lines(s["stack"], r"SourceWorkload\.chunk:(\d+)")]
    want = sum(float(s["est_bytes"]) for s in through)
    got = float(row["alloc_bytes"]) if row else -1
    check(want > 0 and abs(got - want) <= len(through) + 1,
          f"its alloc_bytes are the bytes of sites.csv's stacks through it ({got:.0f} vs {want:.0f}, "
          f"{len(through)} rows)")
    # main's call lines: CPU ms equal to cpu.csv's stacks through them
    _, cpu, _ = read_csv(os.path.join(outs["dir"], "cpu.csv"))
    for line in calls:
        stacks = [c for c in cpu if not c["stack"].startswith("[")
                  and line in stack_lines(c["stack"], r"SourceWorkload\.main:(\d+)")]
        want = sum(float(c["cpu_ms"]) for c in stacks)
        row = rows.get((FILE, line))
        got = float(row["cpu_ms"]) if row else -1
        check(row is not None and row["text"] == own_lines[line - 1],
              f"main's line {line} has a row with its text ({row and row['text']!r})")
        if line == calls[1]:  # grow's loop: where the CPU goes
            check(want > 0, f"cpu.csv has CPU through main's line {line} ({want:.3f} ms)")
        check(abs(got - want) <= 0.001 * (len(stacks) + 1),
              f"line {line}'s cpu_ms are cpu.csv's stacks through it ({got:.3f} vs {want:.3f})")
    check(all(float(r["alloc_bytes"]) > 0 or float(r["cpu_ms"]) > 0 for r in rows.values()),
          "every row has allocation bytes or CPU time")
    keys = list(rows)
    check(keys == sorted(keys, key=lambda k: (k[0], k[1])), "rows in the order of file, then line")

    # --- the JDK's src.zip, found by itself: ArrayList.grow's line ---
    grow_lines = {ln for s in sites for ln in stack_lines(s["stack"], r"java\.util\.ArrayList\.grow:(\d+)")}
    home = os.path.dirname(os.path.dirname(os.path.realpath(JAVA)))
    zpath = os.path.join(home, "lib", "src.zip")
    check(grow_lines and os.path.exists(zpath), f"sites.csv has ArrayList.grow frames, {zpath} exists")
    if grow_lines and os.path.exists(zpath):
        with zipfile.ZipFile(zpath) as z:
            text = z.read("java.base/java/util/ArrayList.java").decode().split("\n")
        for ln in sorted(grow_lines):
            row = rows.get(("java/util/ArrayList.java", ln))
            check(row is not None and row["text"] == text[ln - 1].rstrip("\r")
                  and float(row["alloc_bytes"]) > 0,
                  f"java/util/ArrayList.java:{ln} has src.zip's text and bytes: "
                  f"{row and row['text']!r} {row and row['alloc_bytes']}")

    # --- from a jar ---
    _, jrows = lines_csv(outs["jar"])
    row = jrows.get((FILE, chunk))
    check(row is not None and row["text"] == own_lines[chunk - 1] and float(row["alloc_bytes"]) > 0,
          f"from the jar: the chunk line's text and bytes ({row and row['text']!r})")

    # --- found nowhere: figures, no text, and record says which ---
    _, nrows = lines_csv(outs["none"])
    row = nrows.get((FILE, chunk))
    check(row is not None and row["text"] == "" and float(row["alloc_bytes"]) > 0,
          f"a file found nowhere: its lines with figures and no text ({row})")
    check(re.search(r"found nowhere \(no text\): [^;\n]*SourceWorkload\.java", res["none"][2])
          is not None, "record names the file found nowhere")
finally:
    for r in recs.values():
        r.kill()
    stop_jvm(jvm)
wd.cleanup()
finish()
