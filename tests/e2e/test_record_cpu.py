"""heaptop record writes the CPU sampler's files: cpu.csv and threads.csv
present and well-formed, the busy method on top, and summary.csv's CPU mode,
tick and where frames are taken.

A JVM runs CpuSplitWorkload bench (one thread "bench-0" looping spinA, then
spinB with half the steps: spinA's share of its CPU is twice spinB's by
construction) with cpu=on, cpu_interval=20ms and budget=off (so the tick in
force is the configured one). Once the agent has sampled the busy thread,
`heaptop record --seconds 2` records it:

- cpu.csv: the header thread,frame,stack,samples,cpu_ms,truncated; every row
  complete; samples whole, cpu_ms with three decimals, truncated 0 or 1;
  frames as sites.csv writes them (or a [bucket] whose stack is its name); a
  stack's first frame is the row's frame; rows most CPU first; the top row is
  bench-0 in CpuSplitWorkload.spinA, and spinA's CPU is more than spinB's;
- the rows of bench-0 sum to its CPU in threads.csv (cpu=on weighs each
  stack by the thread's exact CPU since its previous one: within 10%);
- threads.csv: the header thread,state,cpu_ms,samples; states by name;
  bench-0 RUNNABLE with more CPU than any other thread, and no more than
  the whole process used (from /proc);
- summary.csv: cpu_mode on, cpu_interval_ms 20, cpu_attribution saying
  safepoints; after `heaptop control cpu off`, a second recording says off,
  and its cpu.csv still holds what was sampled before."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import CPU_COLS, THREAD_COLS, control, frame_ok, is_bucket, method_of, ms, \
    proc_cpu_ms  # noqa: E402

STATES = {"NEW", "RUNNABLE", "NATIVE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED"}
DONTINLINE = [f"-XX:CompileCommand=dontinline,CpuSplitWorkload::{m}" for m in ("spinA", "spinB")]

wd = Workdir("record-cpu")
jerr_path = wd.file("jvm.err")
jerr = open(jerr_path, "w")
jvm = stop_at_exit(start_jvm(
    "CpuSplitWorkload", ["bench", 1, 120, 1000],
    agent_opts=f"ipc={wd.base},cpu=on,cpu_interval=20ms,budget=off",
    jvm_flags=["-Xmx128m", "-XX:CompileCommand=quiet", *DONTINLINE],
    stdout=subprocess.DEVNULL, stderr=jerr))


def jvm_err():
    with open(jerr_path) as f:
        return f.read().strip()[-400:]


def cpu_samples():
    """The agent's CPU samples so far, as control status prints them (or -1)."""
    rc, out, _ = control(wd.base, "status")
    m = re.search(r"^CPU samples ([\d,]+) ", out, re.M)
    return int(m.group(1).replace(",", "")) if rc == 0 and m else -1


def record(name):
    """heaptop record --seconds 2 into wd/name: (exit code, stderr, out dir)."""
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "2", "--out", out,
                        "--top", "0"], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr, out


def read_file(out, name, cols):
    path = os.path.join(out, name)
    check(os.path.exists(path), f"{name} written ({sorted(os.listdir(out))})")
    if not os.path.exists(path):
        return []
    header, rows, raw = read_csv(path)
    check(header == cols, f"{name}: the header is {','.join(cols)} (got {','.join(header)})")
    check(all(len(r) == len(cols) for r in raw),
          f"{name}: every row has {len(cols)} fields ({[r for r in raw if len(r) != len(cols)][:2]})")
    return rows if header == cols else []


def summary_of(out):
    path = os.path.join(out, "summary.csv")
    rows = read_csv(path)[1] if os.path.exists(path) else []
    check(len(rows) == 1, f"summary.csv has one row ({len(rows)})")
    return rows[0] if rows else {}


check(wait_agent(jvm, wd.base), f"the agent listens ({jvm_err()})")
check(wait_for(lambda: cpu_samples() >= 20, 60, step=0.5, what="20 CPU samples"),
      f"the agent samples the busy thread (control status: {cpu_samples()} CPU samples)")
rc, err, out = record("on")
proc_ms = proc_cpu_ms(jvm.pid)
check(rc == 0, f"record exits 0 ({rc}: {err.strip()[-300:]})")
check("CPU sampling cpu=on every 20 ms, frames taken at safepoints" in err,
      "record's stderr gives the CPU mode, tick and where frames are taken")
cpu = read_file(out, "cpu.csv", CPU_COLS)
threads = read_file(out, "threads.csv", THREAD_COLS)

# --- cpu.csv well-formed ---
check(len(cpu) > 0, f"cpu.csv has rows ({len(cpu)})")
bad = [r for r in cpu if not (r["samples"].isdigit() and re.fullmatch(r"\d+\.\d{3}", r["cpu_ms"])
                              and r["truncated"] in ("0", "1") and r["thread"] != "")]
check(not bad, f"samples whole, cpu_ms with three decimals, truncated 0/1, a thread ({bad[:2]})")
bad = [r for r in cpu if not frame_ok(r["frame"])]
check(not bad, f"every frame as sites.csv writes one, or a [bucket] ({[r['frame'] for r in bad][:3]})")
bad = [r for r in cpu if not (r["stack"] == r["frame"] if is_bucket(r["frame"])
                              else r["stack"].split(" <- ")[0] == r["frame"])]
check(not bad, f"a stack starts with its frame, a bucket's stack is its name ({bad[:2]})")
order = [ms(r) for r in cpu]
check(order == sorted(order, reverse=True), "rows most CPU first")
for r in cpu[:6]:
    print(f"  {r['thread'][:16]:<16} {ms(r):10.1f} ms {int(r['samples']):5d}  {r['stack'][:110]}")

# --- the busy method on top ---
top = cpu[0] if cpu else {"thread": "", "frame": ""}
check(top["thread"] == "bench-0" and method_of(top["frame"]) == "CpuSplitWorkload.spinA",
      f"the top row is bench-0 in CpuSplitWorkload.spinA ({top['thread']}, {top['frame']})")
bench = [r for r in cpu if r["thread"] == "bench-0"]
a = sum(ms(r) for r in bench if method_of(r["frame"]) == "CpuSplitWorkload.spinA")
b = sum(ms(r) for r in bench if method_of(r["frame"]) == "CpuSplitWorkload.spinB")
print(f"FIGURE: bench-0 spinA {a:.0f} ms, spinB {b:.0f} ms (2:1 by construction)")
check(a > b > 0, f"spinA has more of bench-0's CPU than spinB ({a:.0f} ms, {b:.0f} ms)")

# --- threads.csv ---
check(len(threads) > 0 and all(t["state"] in STATES for t in threads),
      f"threads.csv: rows, each state by name ({sorted({t['state'] for t in threads})})")
check(all(re.fullmatch(r"\d+\.\d{3}", t["cpu_ms"]) and t["samples"].isdigit() for t in threads),
      "threads.csv: cpu_ms with three decimals, samples whole")
tb = [t for t in threads if t["thread"] == "bench-0"]
check(len(tb) == 1 and tb[0]["state"] == "RUNNABLE",
      f"bench-0 is listed once, RUNNABLE ({tb})")
if tb:
    tms = ms(tb[0])
    check(all(ms(t) <= tms for t in threads), "bench-0 used more CPU than any other thread")
    check(0 < tms <= proc_ms + 50, f"bench-0's {tms:.0f} ms of CPU are no more than the "
          f"process's {proc_ms:.0f} ms (/proc)")
    rows_ms = sum(ms(r) for r in bench)
    check(abs(rows_ms - tms) <= 0.10 * tms, f"bench-0's rows in cpu.csv sum to its CPU in "
          f"threads.csv within 10% ({rows_ms:.0f} ms, {tms:.0f} ms)")
    check(sum(int(r["samples"]) for r in bench) == int(tb[0]["samples"]),
          "bench-0's samples in cpu.csv add up to its samples in threads.csv")

# --- the summary's CPU mode and tick ---
s = summary_of(out)
check(s.get("cpu_mode") == "on" and s.get("cpu_interval_ms") == "20",
      f"summary.csv: cpu_mode on, cpu_interval_ms 20 ({s.get('cpu_mode')}, "
      f"{s.get('cpu_interval_ms')})")
check("safepoint" in s.get("cpu_attribution", ""),
      f"summary.csv says frames are taken at safepoints ({s.get('cpu_attribution')!r})")

# --- cpu off: the summary says so, what was sampled stays ---
rc, cout, cerr = control(wd.base, "cpu", "off")
check(rc == 0 and cout.strip() == "CPU sampling off", f"control cpu off ({rc}: {cout}{cerr})")
check(wait_for(lambda: "CPU sampling off" in control(wd.base, "status")[1], 15, step=0.2,
               what="status saying off"), "the agent's telemetry says CPU sampling is off")
rc, err, out2 = record("off")
check(rc == 0, f"a second record exits 0 ({rc}: {err.strip()[-300:]})")
s2 = summary_of(out2)
check(s2.get("cpu_mode") == "off" and s2.get("cpu_attribution") == "",
      f"summary.csv after cpu off: cpu_mode off, no attribution ({s2.get('cpu_mode')}, "
      f"{s2.get('cpu_attribution')!r})")
cpu2 = read_file(out2, "cpu.csv", CPU_COLS)
a2 = sum(ms(r) for r in cpu2 if r["thread"] == "bench-0"
         and method_of(r["frame"]) == "CpuSplitWorkload.spinA")
check(a2 >= a, f"cpu.csv after cpu off still holds bench-0's spinA ({a2:.0f} ms >= {a:.0f} ms)")

check(jvm.poll() is None, f"the JVM is alive ({jvm_err()})")
stop_jvm(jvm)
jerr.close()
wd.cleanup()
finish()
