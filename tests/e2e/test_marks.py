"""The mark (Begin / End / Continue) against counts the workload made, end to
end through the scripted marks of `heaptop record --mark-begin-after S
--mark-end-after S` and through `heaptop control PID mark begin|end|continue`.

MarkWorkload allocates one class, MarkWorkload$Item, at one site, in phases of
exactly COUNT objects, each when the test asks. The diff columns must hold the
phases that ran while the mark ran (within 4 standard errors: the diff's
samples are diff_instances x p, p = 1 - exp(-size/I), and the relative SE is
sqrt((1 - p) / samples)); End must freeze them, bit for bit, while the class
goes on being allocated; Continue must add the next phase to them."""
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

INTERVAL = 64 * 1024
COUNT = 4_000_000
wd = Workdir("marks")
jvm = start_jvm("MarkWorkload", [wd.path, COUNT], agent_opts=f"ipc={wd.base},interval=64k",
                jvm_flags=["-Xmx256m"])
check(wait_socket(wd.base), "agent socket appears")
FRAME = f"MarkWorkload.phase:{site_line('MarkWorkload.java', 'item')}"
phases = 0
snaps = 0


def phase():
    """Run the workload's next phase; returns how many Items it allocated."""
    global phases
    phases += 1
    done = wd.file(f"done{phases}")
    touch(wd.file(f"go{phases}"))
    if not wait_for(lambda: os.path.exists(done) or jvm.poll() is not None, 120,
                    what=f"phase {phases} of the workload") or not os.path.exists(done):
        check(False, f"phase {phases} ran (the JVM {'exited: ' + jvm.stderr.read()[-300:] if jvm.poll() is not None else 'is still running'})")
        return 0
    return int(open(done).read())


def item(rows):
    got = [s for s in rows if s["frame"] == FRAME and s["class"] == "MarkWorkload$Item"]
    return got[0] if len(got) == 1 else None


def snap(what):
    """The Item row as the agent has it now (a sync through `heaptop record`)."""
    global snaps
    snaps += 1
    r = snapshot(wd.base, wd.file(f"snap{snaps}"))
    row = item(r["sites"])
    check(r["rc"] == 0 and row is not None, f"{what}: a snapshot with the Item row"
          + ("" if r["rc"] == 0 else f" ({r['err'].strip()[-200:]})"))
    return row or {k: "0" for k in ("samples", "est_bytes", "est_instances", "diff_instances",
                                    "diff_bytes")}, r


def near(est, truth, size, what):
    """est within 4 SE of truth; the SE from the samples behind est."""
    p = -math.expm1(-size / INTERVAL)
    se = count_rel_se(max(est, 1) * p, size, INTERVAL)
    err = est / truth - 1 if truth else 1.0
    check(abs(err) <= 4 * se, f"{what}: {est:.0f} within 4 SE ({4 * se:.1%}) of {truth} "
          f"({err:+.2%}, {err / se:+.1f} SE, ~{est * p:.0f} samples)")


def ctl(*words):
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, *words], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


# --- Scripted marks: record begins the mark 1 s in and ends it 3 s in.
n1 = phase()  # before the mark
rec = Viewer(wd.base, wd.file("rec"), "--mark-begin-after", "1", "--mark-end-after", "3",
             "--top", "0")
check(rec.connected(60), "record connected")
line = rec.wait_line("heaptop record: mark begun at", 60)
check(line is not None and line.strip().endswith("at 1 s"), f"record begins the mark 1 s in: {line}")
# Hold record while the phase runs, so its End comes after the phase whatever
# the machine's speed: a stopped process sends nothing.
rec.signal(signal.SIGSTOP)
early = "mark ended" in rec.err()
check(not early, "the End had not come before the phase (record held in time)")
n2 = phase()  # while the mark runs
rec.signal(signal.SIGCONT)
line = rec.wait_line("heaptop record: mark ended at", 60)
m = re.search(r"ended at (\d+) s", line or "")
check(m is not None and int(m.group(1)) >= 3, f"record ends the mark 3 s in or later: {line}")
end_row, _ = snap("right after the scripted End")
n3 = phase()  # after the End: the class goes on being allocated
after_row, _ = snap("after the next phase")
rec.signal(signal.SIGINT)
rc, _, err = rec.finish(60)
check(rc == 0, f"record exit 0 ({err.strip()[-200:]})")
r = read_out(wd.file("rec"))
row = item(r["sites"])
check(row is not None, "record's sites.csv has the Item row")
if row and n1 and n2 and n3:
    size = float(row["est_bytes"]) / float(row["est_instances"])
    print(f"Item: {size:.0f} bytes an object; phases of {n1}, {n2}, {n3}")
    near(float(row["diff_instances"]), n2, size, "scripted mark: diff_instances is the phase the mark ran over")
    near(float(row["diff_bytes"]) / size, n2, size, "scripted mark: diff_bytes / object size")
    near(float(row["est_instances"]), n1 + n2 + n3, size, "est_instances counts every phase")
    check(end_row["diff_instances"] == after_row["diff_instances"] == row["diff_instances"]
          and end_row["diff_bytes"] == after_row["diff_bytes"] == row["diff_bytes"],
          f"End freezes the diff while Items go on being allocated ({end_row['diff_instances']}, "
          f"{after_row['diff_instances']}, {row['diff_instances']})")
    near(float(after_row["est_instances"]) - float(end_row["est_instances"]), n3, size,
         "the phase after the End still counts in est_instances")
summ = r["summary"]
check(len(summ) == 1 and summ[0]["mark"] == "ended" and int(summ[0]["mark_ms"] or 0) >= 1000,
      f"summary.csv names the ended mark and its length ({summ[0]['mark'] if summ else None}, "
      f"{summ[0]['mark_ms'] if summ else None} ms)")

# --- heaptop control: Begin zeroes, End freezes, Continue adds the next phase.
rc, out = ctl("mark", "begin")
check(rc == 0 and "mark running" in out, f"control mark begin: {out.strip()}")
begin_row, _ = snap("right after Begin")
check(float(begin_row["diff_instances"]) == 0 and float(begin_row["diff_bytes"]) == 0,
      f"Begin zeroes the diff ({begin_row['diff_instances']})")
n4 = phase()
rc, out = ctl("mark", "end")
check(rc == 0 and "mark ended" in out, f"control mark end: {out.strip()}")
end1, _ = snap("after the first End")
n5 = phase()  # while the mark is ended
frozen, _ = snap("after a phase while ended")
rc, out = ctl("mark", "continue")
check(rc == 0 and "mark running" in out, f"control mark continue: {out.strip()}")
n6 = phase()
rc, out = ctl("mark", "end")
check(rc == 0 and "mark ended" in out, f"control mark end again: {out.strip()}")
end2, _ = snap("after the second End")
rc, out = ctl("status")
check(rc == 0 and re.search(r"mark ended, [\d.]+ s counted", out) is not None,
      f"status shows the ended mark: {out.strip().splitlines()[-1:]}")
if n4 and n5 and n6 and float(end2["est_instances"]) > 0:
    size = float(end2["est_bytes"]) / float(end2["est_instances"])
    near(float(end1["diff_instances"]), n4, size, "control mark: diff_instances after Begin, phase, End")
    check(frozen["diff_instances"] == end1["diff_instances"] and frozen["diff_bytes"] == end1["diff_bytes"],
          f"End freezes the diff while Items go on being allocated ({end1['diff_instances']} -> "
          f"{frozen['diff_instances']})")
    near(float(frozen["est_instances"]) - float(end1["est_instances"]), n5, size,
         "the phase while ended counts in est_instances")
    near(float(end2["diff_instances"]), n4 + n6, size,
         "Continue adds the next phase: diff_instances covers both phases the mark ran over")
    near(float(end2["diff_instances"]) - float(end1["diff_instances"]), n6, size,
         "what Continue added is the phase after it")
touch(wd.file("stop"))
jvm.communicate(timeout=60)
check(jvm.returncode == 0, f"the workload exits 0 ({jvm.returncode})")
wd.cleanup()
finish()
