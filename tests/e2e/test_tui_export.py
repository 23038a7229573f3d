"""Exports from the TUI and what they say, in tmux against a real JVM whose
agent keeps 2048 frames while one thread allocates 2100 calls deep, another
two calls deep, and a third in native methods:

- two 'e' in the same second write two files, neither overwritten, each with
  a .summary.csv naming the JVM, the time span, the mark, the sort and the
  filters of the screen;
- a stack as deep as the agent's depth is flagged: "[stack cut at depth 2048]"
  at the outer end of the tree, truncated=1 in the tree export and in
  record's sites.csv (0 for the shallow one);
- the tree of 2048-frame stacks exports in rows that name their parent by id:
  a few hundred kB, not tens of MB;
- native frames say so: "java.lang.Throwable.fillInStackTrace [native]" on
  the screen, in the tree export and in record's CSVs."""
import glob
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

DEPTH = 2048
NATIVE = "java.lang.Throwable.fillInStackTrace [native]"
CUT = f"[stack cut at depth {DEPTH}]"
wd = Workdir("tuiexport")
jvm = start_jvm("DeepWorkload", [DEPTH + 52, 150],
                agent_opts=f"ipc={wd.base},depth={DEPTH},interval=16k", jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")
out = wd.file("out")
os.makedirs(out)
t = Tmux("tuiexport", f"{HEAPTOP} --ipc {wd.base} --out {out}", cols=120, rows=40)


def files(view):
    """Finished exports: data files whose summary is written (it comes last)."""
    sums = sorted(f for f in glob.glob(os.path.join(out, f"heaptop-{view}-*.summary.csv"))
                  if os.path.getsize(f) > 0)
    return [f[:-len(".summary.csv")] + ".csv" for f in sums], sums


def summary_of(path):
    _, rows, raw = read_csv(path[:-4] + ".summary.csv")
    return rows[0] if rows and len(raw) == 2 and len(raw[0]) == len(raw[1]) else {}


try:
    rec = start_record(wd.base, wd.file("rec"), "--seconds", "4")
    # --- the cut stack on screen: a pseudo-frame at the outer end, top-down
    s = t.wait_for(CUT, 40)
    check(s is not None, f"top-down: '{CUT}' at the outer end")
    # --- a native frame on screen (hot spots: allocating frames at the top)
    t.keys("t", pause=0)
    s = t.wait_for(NATIVE, 20)
    check(s is not None, f"hot spots: '{NATIVE}'")
    t.keys("t", pause=0)
    check(t.wait_for("CALL TREE", 10) is not None, "back to the top-down tree")

    # --- two exports in the same second: two files, none overwritten
    t.keys("e", "e", pause=0)
    check(wait_for(lambda: len(files("tree")[0]) >= 2, 30),
          f"two 'e': two tree exports ({[os.path.basename(f) for f in files('tree')[0]]})")
    data, sums = files("tree")
    every = [f for f in glob.glob(os.path.join(out, "heaptop-tree-*.csv"))
             if not f.endswith(".summary.csv")]
    check(len(sums) == len(every) == 2, f"each with its .summary.csv ({len(sums)}, {len(every)})")
    stamps = {os.path.basename(f)[len("heaptop-tree-"):][:15] for f in data}
    print(f"     stamps of the two exports: {sorted(stamps)}")
    sizes = [os.path.getsize(f) for f in data]
    check(all(n > 0 for n in sizes) and len(data) == 2, f"neither is empty or lost ({sizes})")
    # the summary: JVM, span, mark, view, sort, filters
    sm = summary_of(data[0]) if data else {}
    check(sm.get("pid") == str(jvm.pid) and sm.get("main_class") == "DeepWorkload",
          f"summary names the JVM ({sm.get('pid')}, {sm.get('main_class')})")
    check(sm.get("view") == "tree" and sm.get("sort") == "BYTES desc"
          and sm.get("file") == os.path.basename(data[0]),
          f"summary names the view, its sort and its file ({sm.get('view')}, {sm.get('sort')}, {sm.get('file')})")
    check(sm.get("start_time", "").endswith("Z") and int(sm.get("end_ms") or 0) > 0
          and sm.get("mark") == "none" and sm.get("depth") == str(DEPTH),
          f"summary has the time span, the mark and the depth ({sm.get('start_time')}, {sm.get('end_ms')} ms, {sm.get('mark')}, {sm.get('depth')})")

    # --- the tree export: ids, parents, cut and native rows, a small file
    if data:
        _, rows, raw = read_csv(data[0])
        check(raw[0][:5] == ["id", "parent", "depth", "kind", "name"] and "path" not in raw[0],
              f"tree export: id and parent instead of the path ({raw[0][:6]})")
        ids = {r["id"]: r for r in rows}
        check(all(r["parent"] == "0" or r["parent"] in ids for r in rows),
              "every parent id is a row of the file")
        deepest = max(int(r["depth"]) for r in rows)
        mb = os.path.getsize(data[0]) / 1e6
        check(deepest > DEPTH and mb < 3, f"{len(rows)} rows {deepest} deep in {mb:.2f} MB")
        cut = [r for r in rows if r["kind"] == "cut"]
        check(len(cut) == 1 and cut[0]["name"] == CUT and cut[0]["truncated"] == "1"
              and cut[0]["parent"] == "0", f"the cut pseudo-frame is a top row, flagged ({cut[:1]})")
        shallow = [r for r in rows if r["name"].startswith("DeepWorkload.shallow:")]
        check(shallow and all(r["truncated"] == "0" for r in shallow), "the shallow stack is not flagged")
        check(any(r["name"] == NATIVE for r in rows), "the native frame in the tree export")

    # --- the screen's filters go to the summary
    t.keys("\\", pause=0)
    t.text("Deep")
    t.keys("Enter", pause=0)
    check(t.wait_for("frame filter: Deep", 10) is not None, "a frame filter")
    before = len(files("tree")[0])
    t.keys("e", pause=0)
    check(wait_for(lambda: len(files("tree")[0]) > before, 30), "a third export")
    done = files("tree")[0]
    sm = summary_of(max(done, key=os.path.getmtime)) if done else {}
    check(sm.get("frame_filter") == "Deep" and sm.get("class_filter") == "",
          f"the summary names the filters ({sm.get('frame_filter')!r}, {sm.get('class_filter')!r})")

    # --- record's CSVs: truncated and [native]
    rec.communicate(timeout=60)
    _, sites, raw = read_csv(wd.file("rec/sites.csv"))
    check(raw[0][-1] == "truncated", "sites.csv has a truncated column")
    deep = [r for r in sites if r["frame"].startswith("DeepWorkload.descend:")]
    flat = [r for r in sites if r["frame"].startswith("DeepWorkload.shallow:")]
    check(deep and all(r["truncated"] == "1" for r in deep), f"sites.csv: the deep site flagged ({len(deep)})")
    check(flat and all(r["truncated"] == "0" for r in flat), f"sites.csv: the shallow one not ({len(flat)})")
    nat = [r for r in sites if r["frame"] == NATIVE]
    check(nat and all(NATIVE in r["stack"] for r in nat), f"sites.csv: native frames say so ({len(nat)})")
    t.keys("q", pause=0)
finally:
    t.kill()
    jvm.kill()
    jvm.communicate()
wd.cleanup()
finish()
