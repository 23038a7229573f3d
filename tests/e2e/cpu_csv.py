"""Helpers for the CPU sampler's end-to-end tests (test_cpu_*.py): reading
cpu.csv and threads.csv as `heaptop record` writes them, splitting a thread's
sampled CPU by leaf method, the process's CPU from /proc, and the mode a test
runs in (HEAPTOP_CPU_MODE: on, the default, or async).

cpu.csv: thread,frame,stack,samples,cpu_ms,truncated -- one row per thread
and stack; frame the leaf as sites.csv writes frames (pkg.Class.method:line),
a failed walk a frame in brackets ([unknown_Java]). threads.csv:
thread,state,cpu_ms,samples. Totals count from the agent's start, as every
file of a recording does (docs/csv-formats.md)."""
import os
import re
import subprocess
import sys

from harness import HEAPTOP, check, read_csv

MODE = os.environ.get("HEAPTOP_CPU_MODE", "on")
CPU_COLS = ["thread", "frame", "stack", "samples", "cpu_ms", "truncated"]
THREAD_COLS = ["thread", "state", "cpu_ms", "samples"]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def read_cpu(out):
    """(cpu rows, threads rows) of a recording in out; a missing file or a
    header other than the documented one is a failed check and no rows."""
    got = []
    for name, cols in (("cpu.csv", CPU_COLS), ("threads.csv", THREAD_COLS)):
        path = os.path.join(out, name)
        if not os.path.exists(path):
            check(False, f"{name} written ({path} missing; files: {sorted(os.listdir(out)) if os.path.isdir(out) else 'no dir'})")
            got.append([])
            continue
        header, rows, _ = read_csv(path)
        check(header == cols, f"{name} has the columns {','.join(cols)} (got {','.join(header)})")
        got.append(rows if header == cols else [])
    return got[0], got[1]


# a frame as sites.csv writes one: pkg.Class.method:line, pkg.Class.method
# [native], or pkg.Class.method (no line table); hidden classes (lambdas)
# are Foo$$Lambda#2 (test_names.py)
FRAME_RE = re.compile(r"^[\w.$/#]+\.[\w$<>]+(:\d+| \[native\])?$")


def frame_ok(frame):
    return bool(FRAME_RE.match(frame)) or is_bucket(frame)


def ms(row):
    return float(row["cpu_ms"]) if row["cpu_ms"] != "" else 0.0


def is_bucket(frame):
    """A failed walk's frame: a name in brackets."""
    return frame.startswith("[") and frame.endswith("]")


def method_of(frame):
    """pkg.Class.method of a frame pkg.Class.method:line (or as it is)."""
    head, sep, tail = frame.rpartition(":")
    return head if sep and tail.isdigit() else frame


def of_thread(rows, name):
    return [r for r in rows if r["thread"] == name]


def total_ms(rows):
    return sum(ms(r) for r in rows)


def by_leaf(rows):
    """{leaf method or [bucket]: cpu_ms} over rows."""
    out = {}
    for r in rows:
        k = r["frame"] if is_bucket(r["frame"]) else method_of(r["frame"])
        out[k] = out.get(k, 0.0) + ms(r)
    return out


def thread_row(threads, name):
    rows = [t for t in threads if t["thread"] == name]
    return rows[0] if len(rows) == 1 else None


def proc_cpu_ms(pid):
    """The process's CPU so far (utime + stime of /proc/PID/stat), in ms."""
    with open(f"/proc/{pid}/stat") as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK


def control(base, *words, timeout=30):
    """heaptop control --ipc BASE WORDS...: (exit code, stdout, stderr)."""
    p = subprocess.run([HEAPTOP, "control", "--ipc", base, *words], capture_output=True,
                       text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def mode_in_force(status):
    """The CPU mode `heaptop control ... status` says is in force ("CPU
    sampling async, every 10 ms; ..."), or None."""
    m = re.search(r"^CPU sampling (\w+)", status, re.M)
    return m.group(1) if m else None


def async_refused(status, said=""):
    """None when status says cpu=async is in force; else why not: the agent
    keeps cpu=on where it refuses async and says so in one line (on the
    JVM's stderr: said), which a test in async mode is skipped with."""
    if mode_in_force(status) == "async":
        return None
    lines = [l.strip() for l in said.splitlines() if "async" in l.lower()]
    return (lines[-1] if lines else "the agent did not say why") + \
        f" (control status: CPU sampling {mode_in_force(status)})"


def settled_status(base, timeout=10):
    """control status once the CPU sampler has taken its mode (it says off
    until its thread has started, after VMInit), or the last answer."""
    import time
    end = time.time() + timeout
    while True:
        _, status, err = control(base, "status")
        if mode_in_force(status) not in (None, "off") or time.time() > end:
            return status + err
        time.sleep(0.2)


def skip_unless_async(base, said):
    """In async mode, skip (exit 77) with the agent's line when it refused."""
    if MODE != "async":
        return
    why = async_refused(settled_status(base), said)
    if why:
        from harness import java_version
        skip(f"cpu=async refused on JDK {java_version()}: {why}")


def skip(why):
    print(f"skipped: {why}", flush=True)
    sys.exit(77)


def print_rows(rows, limit=12):
    for r in sorted(rows, key=ms, reverse=True)[:limit]:
        print(f"  {r['thread'][:20]:<20} {ms(r):9.1f} ms {int(r['samples']):6d}  {r['stack'][:150]}")
