"""Heap used and committed, GC pauses and the GC share in telemetry, against
the VM's own GC log (-Xlog:gc): GcWorkload churns through 3 GB of short-lived
arrays (young collections), calls System.gc() once and then allocates nothing,
so the heap stays as that last collection left it. The log says, for every
pause, the heap used before and after it, the heap committed, and how long it
took. Under G1 (the collector these tests run with by default):

- the agent counts every pause the log shows (one JVMTI GC start/finish each);
- the pause time it measured adds up to the log's within 1 ms + 5%;
- its per-second GC share (gc_pct), times each second's length, adds up the
  same way;
- after the last collection, heap_committed is the log's committed size and
  heap_used the log's "after" figure (the log rounds down to whole MiB; 1 MiB
  more is allowed for what the idle JVM allocates since)."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

MIB = 1 << 20
if GC != "G1GC":
    print(f"skipped: written for G1's log and its one-event-per-pause (collector {GC})")
    sys.exit(77)
wd = Workdir("vmfig")
go, facts, stop, log = wd.file("go"), wd.file("facts"), wd.file("stop"), wd.file("gc.log")
jvm = start_jvm("GcWorkload", [go, facts, 3000, stop], agent_opts=f"ipc={wd.base}",
                jvm_flags=["-Xmx256m", f"-Xlog:gc:file={log}:uptime"])
check(wait_agent(jvm, wd.base), "agent socket appears")
touch(go)
check(wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 180, what="the churn")
      and os.path.exists(facts), "the workload churned and collected")
since = int(snapshot(wd.base, wd.file("s0"))["summary"][0]["start_ms"])
r = {}


def telemetry_after():
    """Two telemetry records after the snapshot: the heap as the last GC left it."""
    r.update(snapshot(wd.base, wd.file("s1")))
    return len([t for t in r["telemetry"] if int(t["t_ms"]) > since]) >= 2


check(wait_for(telemetry_after, 60, step=0.2, what="telemetry after the last collection"),
      "telemetry after the last collection")
touch(stop)
jvm.communicate(timeout=60)
tel = r.get("telemetry", [])
pauses = []
with open(log) as f:
    for line in f:
        m = re.search(r"GC\(\d+\) (Pause .*?) (\d+)M->(\d+)M\((\d+)M\) ([\d.]+)ms$", line.strip())
        if m:
            pauses.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                           float(m.group(5))))
check(len(pauses) > 5 and pauses[-1][0].startswith("Pause Full (System.gc())"),
      f"the GC log shows the collections, the System.gc() last ({len(pauses)} pauses)")
if tel and pauses:
    last = tel[-1]
    log_ms = sum(p[4] for p in pauses)
    tol = 1 + 0.05 * log_ms
    print(f"agent: {last['gc_count']} pauses, {last['gc_time_ms']} ms; GC log: {len(pauses)} pauses, "
          f"{log_ms:.1f} ms")
    check(int(last["gc_count"]) == len(pauses),
          f"the agent counted every pause the log shows ({last['gc_count']} == {len(pauses)})")
    check(abs(int(last["gc_time_ms"]) - log_ms) <= tol,
          f"the agent's GC time {last['gc_time_ms']} ms is the log's {log_ms:.1f} ms within {tol:.1f} ms")
    share = sum(float(b["gc_pct"]) * (int(b["t_ms"]) - int(a["t_ms"])) / 100 for a, b in zip(tel, tel[1:]))
    first_ms = int(tel[0]["gc_time_ms"])  # pauses before the first record (none expected)
    check(abs(share + first_ms - log_ms) <= tol + 0.01 * len(tel),
          f"gc_pct x each record's span adds up to the log's pause time ({share + first_ms:.1f} ms vs "
          f"{log_ms:.1f} ms)")
    _, _, after_mib, committed_mib, _ = pauses[-1]
    used, committed = int(last["heap_used"]), int(last["heap_committed"])
    check(abs(committed - committed_mib * MIB) < MIB,
          f"heap_committed {committed / MIB:.2f} MiB is the log's {committed_mib}M after the last collection")
    check(after_mib * MIB <= used < (after_mib + 2) * MIB,
          f"heap_used {used / MIB:.2f} MiB is the log's {after_mib}M after the last collection "
          f"(+ under 1 MiB of rounding and 1 MiB allocated since)")
    check(int(last["heap_max"]) == 256 * MIB, f"heap_max is -Xmx256m ({last['heap_max']})")
wd.cleanup()
finish()
