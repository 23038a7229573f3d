"""How sure each estimate is: the samples every figure rests on, on the
classes screen and in every CSV that carries estimates.

SamplesWorkload runs at interval=0, where every allocation is a sample, and
allocates a class a known number of times (2,000 SamplesWorkload$Counted,
all kept, then a System.gc() that proves them alive) and another 3 times
(SamplesWorkload$Rare). The truth is the workload's own count, not anything
the viewer computed:

- the classes screen shows SAMPLES and LIVE SMP columns, and the row resting
  on 3 samples is dimmed while the one on 2,000 is not;
- the TUI's classes export (`e`) has samples, live_samples, young_samples and
  over_bound columns: samples 2,000 and 3, live_samples 2,000 once the
  collection has proven them, over_bound empty;
- `heaptop record`'s classes.csv says the same, and its sites.csv gives the
  two sites the same samples.

JDK 17's HotSpot skips about a quarter of TLAB allocations at interval 0
(test_interval0): the JVM runs without TLABs on a JDK older than 21."""
import glob
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

COUNTED, RARE = "SamplesWorkload$Counted", "SamplesWorkload$Rare"
flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
wd = Workdir("samples")
go, facts_file, stop = wd.file("go"), wd.file("facts"), wd.file("stop")
out = wd.file("out")
os.makedirs(out)
jvm = start_jvm("SamplesWorkload", [go, facts_file, stop],
                agent_opts=f"ipc={wd.base},interval=0", jvm_flags=flags)
check(wait_agent(jvm, wd.base), "the agent listens (interval=0: every allocation a sample)")
t = Tmux("samples", f"{HEAPTOP} --ipc {wd.base} --out {out}", cols=160, rows=40)


def exports():
    """Finished classes exports (their summary is written last), oldest first."""
    sums = sorted((f for f in glob.glob(os.path.join(out, "heaptop-classes-*.summary.csv"))
                   if os.path.getsize(f) > 0), key=os.path.getmtime)
    return [f[:-len(".summary.csv")] + ".csv" for f in sums]


def export_rows():
    """Press e on the classes screen; the new file's header and rows by class."""
    before = len(exports())
    t.keys("e", pause=0)
    if not wait_for(lambda: len(exports()) > before, 30, what="a classes export"):
        return [], {}
    header, rows, _ = read_csv(exports()[-1])
    return header, {r["class"]: r for r in rows}


try:
    check(t.wait_for("CALL TREE", 30) is not None, "the TUI is up")
    t.keys("2")
    check(t.wait_for(" CLASS", 10) is not None, "the classes screen")
    touch(go)
    check(wait_for(lambda: os.path.exists(facts_file), 60, what="the workload's facts"),
          "the workload allocated its objects")
    facts = read_facts(facts_file)
    count, few = facts.get("counted.count"), facts.get("rare.count")
    check(t.wait_for(COUNTED, 30) is not None, f"{COUNTED} on the screen")

    # the file: samples exactly the workload's counts; live once proven
    header, rows = [], {}
    def proven():
        global header, rows
        header, rows = export_rows()
        return rows.get(COUNTED, {}).get("live_samples") == str(count)
    wait_for(proven, 60, step=1.0, what="2,000 live samples in an export")
    for col in ("samples", "live_samples", "young_samples", "over_bound"):
        check(col in header, f"the classes export has a {col} column")
    c, r = rows.get(COUNTED, {}), rows.get(RARE, {})
    check(c.get("samples") == str(count), f"{COUNTED}: samples {c.get('samples')} == {count} allocated")
    check(r.get("samples") == str(few), f"{RARE}: samples {r.get('samples')} == {few} allocated")
    check(c.get("live_samples") == str(count),
          f"{COUNTED}: live_samples {c.get('live_samples')} == {count} kept, after a GC proved them")
    check(c.get("over_bound") == "" and r.get("over_bound") == "",
          f"no figure above the heap's used bytes (over_bound '{c.get('over_bound')}', '{r.get('over_bound')}')")
    check(c and abs(float(c["est_instances"]) - count) < 0.5,
          f"and at interval=0 the estimate is the count ({c.get('est_instances')})")

    # the screen: the columns, and the row on 3 samples dimmed, not the one on
    # 2,000 (the class filter keeps them on screen below byte[], the cursor's)
    t.keys("\\", pause=0)
    t.text("SamplesWorkload$,byte[]")
    t.keys("Enter", pause=0)
    check(t.wait_for(RARE, 10) is not None, "filtered: both classes and byte[] on screen")
    s = t.screen()
    title = next((ln for ln in s.split("\n") if " CLASS" in ln), "")
    check("SAMPLES" in title and "LIVE SMP" in title, f"SAMPLES and LIVE SMP columns ({title.strip()[:100]})")
    lines = t.screen(colors=True).rstrip("\n").split("\n")
    sel = t.selected_row()
    at = {name: next((i for i, ln in enumerate(lines) if name + "\x1b" in ln or ln.rstrip().endswith(name)), None)
          for name in (COUNTED, RARE)}

    def attrs(i):
        """The escape sequences that open row i, its attributes."""
        m = re.match(r"((?:\x1b\[[0-9;]*m)+)", lines[i]) if i is not None else None
        return m.group(1) if m else ""
    check(at[COUNTED] is not None and at[RARE] is not None and sel not in at.values(),
          f"both rows on screen, neither under the cursor (rows {at}, cursor {sel})")
    dim, plain = attrs(at[RARE]), attrs(at[COUNTED])
    check(re.search(r"\x1b\[(?:\d+;)*34m", dim) and dim != plain,
          f"the row on {few} samples is dimmed (blue), not the one on {count} ({dim!r} vs {plain!r})")

    # record's files say the same
    rec = wd.file("rec")
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "2", "--out", rec,
                        "--top", "0"], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"record ran ({p.stderr.strip()[-200:]})")
    _, classes, _ = read_csv(os.path.join(rec, "classes.csv"))
    byc = {x["class"]: x for x in classes}
    check(byc.get(COUNTED, {}).get("samples") == str(count)
          and byc.get(COUNTED, {}).get("live_samples") == str(count)
          and byc.get(RARE, {}).get("samples") == str(few),
          f"record's classes.csv: samples and live_samples as counted ({byc.get(COUNTED, {}).get('samples')}, "
          f"{byc.get(COUNTED, {}).get('live_samples')}, {byc.get(RARE, {}).get('samples')})")
    _, sites, _ = read_csv(os.path.join(rec, "sites.csv"))
    for cls, marker, n in ((COUNTED, "counted", count), (RARE, "rare", few)):
        frame = f"SamplesWorkload.main:{site_line('SamplesWorkload.java', marker)}"
        got = [x for x in sites if x["class"] == cls and x["frame"] == frame]
        check(len(got) == 1 and got[0]["samples"] == str(n) and got[0]["over_bound"] == "",
              f"sites.csv: {frame} has {n} samples, none over a bound ({[g['samples'] for g in got]})")
    t.keys("q", pause=0)
finally:
    t.kill()
    touch(stop)
    try:
        jvm.communicate(timeout=60)
    except Exception:
        jvm.kill()
        jvm.communicate()
wd.cleanup()
finish()
