"""The mark through the TUI's keys (b Begin, E End, c Continue) against counts
the workload made: MarkWorkload allocates MarkWorkload$Item in phases of
exactly COUNT objects when the test asks. Begin, a phase, End, a phase (not
counted), Continue, a phase, End: the classes screen's export must show a diff
of the two phases the mark ran over, within 4 standard errors (the diff's
samples are diff_instances x p, p = 1 - exp(-size/I); relative SE sqrt((1 -
p) / samples)), and exactly the diff the agent holds. Every wait is on the
screen, a file or the agent, with a deadline."""
import glob
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

INTERVAL = 64 * 1024
COUNT = 4_000_000
wd = Workdir("tuimarks")
jvm = start_jvm("MarkWorkload", [wd.path, COUNT], agent_opts=f"ipc={wd.base},interval=64k",
                jvm_flags=["-Xmx256m"])
check(wait_socket(wd.base), "agent socket appears")
FRAME = f"MarkWorkload.phase:{site_line('MarkWorkload.java', 'item')}"
phases = 0


def phase():
    global phases
    phases += 1
    done = wd.file(f"done{phases}")
    touch(wd.file(f"go{phases}"))
    ok = wait_for(lambda: os.path.exists(done) or jvm.poll() is not None, 120,
                  what=f"phase {phases} of the workload")
    check(ok and os.path.exists(done), f"phase {phases} ran")
    return int(open(done).read()) if os.path.exists(done) else 0


def near(est, truth, size, what):
    p = -math.expm1(-size / INTERVAL)
    se = count_rel_se(max(est, 1) * p, size, INTERVAL)
    err = est / truth - 1 if truth else 1.0
    check(abs(err) <= 4 * se, f"{what}: {est:.0f} within 4 SE ({4 * se:.1%}) of {truth} "
          f"({err:+.2%}, {err / se:+.1f} SE)")


# A server name of its own: a leftover tmux server of another run cannot answer.
t = Tmux(f"tuimarks-{os.getpid()}", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}")
try:
    check(t.wait_for("[live]", 30) is not None, "the TUI connects and shows [live]")
    n1 = phase()  # before any mark
    t.keys("b")
    check(t.wait_for("MARK running", 20) is not None, "b: the header shows MARK running")
    n2 = phase()
    t.keys("E")
    check(t.wait_for("MARK ended", 20) is not None, "E: the header shows MARK ended")
    n3 = phase()  # not counted: the mark is ended
    t.keys("c")
    check(t.wait_for("MARK running", 20) is not None, "c: the header shows MARK running again")
    n4 = phase()
    t.keys("E")
    check(t.wait_for("MARK ended", 20) is not None, "E: MARK ended again")
    # What the agent holds now: the truth for what the TUI must show.
    snap = snapshot(wd.base, wd.file("snap"))
    rows = [s for s in snap["sites"] if s["frame"] == FRAME and s["class"] == "MarkWorkload$Item"]
    check(len(rows) == 1, "the agent has the Item row")
    agent = rows[0] if rows else {"est_instances": "-1", "diff_instances": "-1", "est_bytes": "1"}
    t.keys("2")
    check(t.wait_for("CLASS", 20) is not None, "screen 2: classes")

    def exported():
        """Export the classes screen (e); its Item row once it shows the agent's totals."""
        pattern = os.path.join(wd.path, "heaptop-classes-*.csv")
        for f in glob.glob(pattern):
            os.unlink(f)
        t.keys("e", pause=0.1)
        if not wait_for(lambda: glob.glob(pattern), 10, what="the export file"):
            return None
        try:
            got = [r for r in read_csv(glob.glob(pattern)[0])[1] if r["class"] == "MarkWorkload$Item"]
        except (IndexError, OSError):  # caught half-written: export again
            return None
        return got[0] if got and got[0]["est_instances"] == agent["est_instances"] else None

    row = None
    end = time.time() + 30
    while row is None and time.time() < end:
        row = exported()
    check(row is not None, f"the exported classes screen reaches the agent's totals "
          f"(est_instances {agent['est_instances']}) within 30 s")
    if row and n1 and n2 and n3 and n4:
        size = float(agent["est_bytes"]) / float(agent["est_instances"])
        check(row["diff_instances"] == agent["diff_instances"],
              f"the TUI's diff is the agent's ({row['diff_instances']} == {agent['diff_instances']})")
        near(float(row["diff_instances"]), n2 + n4, size,
             "diff_instances: the two phases the mark ran over (b..E and c..E)")
        near(float(row["est_instances"]), n1 + n2 + n3 + n4, size, "est_instances: every phase")
    t.keys("q")
    check(wait_for(lambda: not t.alive(), 10, what="the TUI quitting on q"), "q quits")
finally:
    t.kill()
    touch(wd.file("stop"))
    try:
        jvm.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        jvm.kill()
        jvm.communicate()
wd.cleanup()
finish()
