"""The CPU screens in a real terminal (tmux) against a real JVM with the
agent's default CPU sampling (cpu=on). CpuTuiWorkload burns CPU in
CpuTuiWorkload.burn on the thread "tui-burner" (and allocates there too),
while "tui-sleeper" waits on a monitor, using none:

- the CPU tree (reached through the screen list, F2) says that cpu=on takes
  its frames at safepoints, and its hot path ends in burn, on the line of
  the loop, with most of the CPU as its own (SELF);
- CPU hot spots (t) put burn first, with most of the CPU;
- the threads table shows tui-burner RUNNABLE with CPU (ms and % now) and
  tui-sleeper WAITING at 0 ms and 0%; the thread filter leaves only the
  sleeper; Enter on the burner shows its stacks in the CPU tree, Esc comes
  back;
- `heaptop control cpu off`: both screens say CPU sampling is off;
- x on burn in CPU hot spots opens the allocation tree on burn's
  allocating line, and x there comes back to the CPU hot spots on burn;
- o on burn in the CPU tree opens CpuTuiWorkload.java (--source) at the
  line of the frame selected."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

COLS, ROWS = 130, 40
BURN = site_line("CpuTuiWorkload.java", "burn")
BURN_ALLOC = site_line("CpuTuiWorkload.java", "burnalloc")
wd = Workdir("tuicpu")
jvm = stop_at_exit(start_jvm("CpuTuiWorkload", [240], agent_opts=f"ipc={wd.base}"))
check(wait_socket(wd.base), "agent socket appears")
t = None


def selected(t):
    sel = t.selected_row()
    return t.screen().split("\n")[sel] if sel is not None else ""


def rows_of(s):
    return (s or "").split("\n")


def open_screen(t, title):
    """F2, then Enter on the row of the screen titled `title`."""
    t.keys("F2")
    s = t.wait_for("Enter opens it", 10) or ""
    lines = rows_of(s)
    top = next(i for i, l in enumerate(lines) if "Enter opens it" in l)
    at = next((i for i, l in enumerate(lines) if l.strip().endswith(title)), None)
    check(at is not None, f"the screen list has {title}")
    for _ in range((at or top + 1) - top - 1):
        t.keys("Down")
    t.keys("Enter")


def pct(row):
    """The first percentage on a row (-1: none)."""
    m = re.findall(r"([\d.]+)%", row)
    return float(m[0]) if m else -1.0


try:
    t = Tmux("tuicpu", f"{HEAPTOP} --ipc {wd.base} --source {JAVA_SRC}", cols=COLS, rows=ROWS)
    check(t.wait_for("CpuTuiWorkload", 40) is not None, "the viewer connects")

    # --- the CPU tree: the hot path ends in burn, its own CPU ---
    open_screen(t, "CPU tree")
    s = t.wait_until(lambda s: f"CpuTuiWorkload.burn:{BURN}" in s and "CPU TREE" in s, 40)
    check(s is not None, f"the CPU tree's hot path reaches CpuTuiWorkload.burn:{BURN}")
    check("cpu=on: frames at safepoints" in (s or ""), "the title says cpu=on takes frames at safepoints")
    burn_row = next((l for l in rows_of(s) if f"CpuTuiWorkload.burn:{BURN}" in l), "")
    nums = re.match(r"\s*(\d+)\s+([\d.]+)%\s+(\d+)\s+([\d.]+)%", burn_row)
    check(nums is not None and float(nums.group(2)) > 80 and float(nums.group(4)) > 80,
          f"burn has most of the CPU, as its own (CPU %, SELF %): {burn_row.strip()[:80]!r}")

    # --- hot spots: burn first ---
    t.keys("t")
    s = t.wait_for("CPU HOT SPOTS", 10)
    first = next((l for l in rows_of(s)[3:] if l.strip()), "")
    check("CpuTuiWorkload.burn:" in first and pct(first) > 80,
          f"CPU hot spots put burn first with most of the CPU: {first.strip()[:90]!r}")

    # --- x: the allocation tree at burn, and back ---
    t.keys("Home")
    t.keys("x")
    s = t.wait_for("CALL TREE", 10) or t.wait_for("HOT SPOTS (callers", 1)
    row = selected(t)
    check(f"CpuTuiWorkload.burn:{BURN_ALLOC}" in row,
          f"x opens the allocation tree on burn's allocating line {BURN_ALLOC}: {row.strip()[:90]!r}")
    t.keys("x")
    check(t.wait_for("CPU ", 10) is not None, "x there comes back to a CPU screen")
    row = selected(t)
    # the same method, at the allocating line when the CPU tree has samples
    # there too (a safepoint poll at the allocation), else its busiest line
    check(f"CpuTuiWorkload.burn:{BURN}" in row or f"CpuTuiWorkload.burn:{BURN_ALLOC}" in row,
          f"on burn again: {row.strip()[:90]!r}")

    # --- o: burn's source at the selected frame's line ---
    m = re.search(r"CpuTuiWorkload\.burn:(\d+)", row)
    at = int(m.group(1)) if m else BURN
    t.keys("o")
    s = t.wait_for(f"line {at}:", 20)
    check(s is not None and "CpuTuiWorkload.java" in (s or ""), "o opens CpuTuiWorkload.java")
    src = open(os.path.join(JAVA_SRC, "CpuTuiWorkload.java")).read().split("\n")
    row = selected(t)
    check(src[at - 1].strip() in row, f"at burn's line {at}: {row.strip()[:90]!r}")
    t.keys("Escape")
    check(t.wait_for("CPU ", 10) is not None, "Esc returns to the CPU screen")

    # --- the threads table ---
    open_screen(t, "threads (CPU)")

    def thread_row(s, name):
        return next((l for l in rows_of(s) if l.rstrip().endswith(name) or f" {name} " in l), "")

    pat = r"\s*(\S+)\s+([\d.]+)%\s+(\d+)\s+(\d+)"

    def burner_busy(s):
        m = re.match(pat, thread_row(s, "tui-burner"))
        return m is not None and int(m.group(3)) > 1000 and float(m.group(2)) > 30

    s = t.wait_until(lambda s: burner_busy(s) and "tui-sleeper" in s, 30)
    b = re.match(pat, thread_row(s, "tui-burner")) if s else None
    check(b is not None and b.group(1) == "RUNNABLE",
          f"tui-burner RUNNABLE with CPU: {thread_row(s, 'tui-burner').strip()[:90]!r}")
    z = re.match(pat, thread_row(s, "tui-sleeper")) if s else None
    check(z is not None and z.group(1) == "WAITING" and z.group(3) == "0" and float(z.group(2)) == 0,
          f"tui-sleeper WAITING at 0 ms, 0%: {thread_row(s, 'tui-sleeper').strip()[:90]!r}")
    check("cpu=on: CPU exact, frames at safepoints" in (s or ""), "the table says what cpu=on is")
    # the thread filter
    t.keys("\\")
    t.text("sleeper")
    t.keys("Enter")
    s = t.wait_until(lambda s: "tui-burner" not in s and "tui-sleeper" in s, 10)
    check(s is not None and "thread filter: sleeper" in s, "the thread filter leaves the sleeper")
    t.keys("\\", "C-u", "Enter")
    check(t.wait_until(lambda s: "tui-burner" in s, 10) is not None, "cleared, the burner is back")
    # Enter on the burner: its stacks; Esc back
    t.keys("/")
    t.text("tui-burner")
    t.keys("Enter")
    check("tui-burner" in selected(t), "the search selects the burner")
    t.keys("Enter")
    s = t.wait_until(lambda s: "thread tui-burner" in s and "CpuTuiWorkload.burn:" in s, 10)
    check(s is not None, "Enter shows the burner's stacks in the CPU tree")
    t.keys("Escape")
    check(t.wait_for("THREAD ", 10) is not None, "Esc comes back to the threads table")

    # --- sampling switched off: said on both screens ---
    r = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "cpu", "off"], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 0, f"heaptop control cpu off: {(r.stdout + r.stderr).strip()[:100]}")
    check(t.wait_for("CPU sampling is off", 15) is not None, "the threads table says it is off")
    open_screen(t, "CPU tree")
    check(t.wait_for("CPU sampling is off", 10) is not None, "the CPU tree says it is off")
finally:
    end_tui(t, jvm, wd)
finish()
