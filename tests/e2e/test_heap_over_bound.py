"""A site's estimated retained bytes above the whole snapshot are marked, never
shown as a plain figure (as a user saw: "screen 1 with R showed RETAINED
239 MiB in a 193 MiB snapshot"; "heap_sites.csv gave one site 319.6 MB
retained in a 279 MB heap").

tests/java/ChainWorkload.java keeps a linked list of 1,000,000 Links made at
one site, each retaining every older Link: a sampled Link stands for
thousands of Links (its weight) and retains up to the whole list, so the
site's estimate is far above the heap though no object retains more than the
list. Another site keeps 8,000 byte[1000], each retaining itself: its
estimate is under the heap. The bound's truth is the JVM's own count of the
heap, `jcmd GC.class_histogram`'s total bytes (taken with the program idle
and everything it made kept):

- `heaptop record --heap`: heap_sites.csv has an over_bound column; the
  Link site's heap_est_retained_bytes is above the histogram's total and
  over_bound names it; the byte[] site's is under it and over_bound is empty;
- the TUI (tmux): after a snapshot (H H), the allocation tree sorted by
  RETAINED (1, R) shows >heap in the RETAINED cells of the Link site's path
  (buildChain, main's line that calls it), says what the mark means on the
  title row, and shows a figure on main's line that calls keepArrays; the
  same at 80x24."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import Listing, parse  # noqa: E402
from tmux import Tmux  # noqa: E402

need_tmux()
need_jcmd()

SRC = "ChainWorkload.java"
LINK, ARRAY = "ChainWorkload$Link", "byte[]"
wd = Workdir("overbound")
ready = wd.file("ready")
jvm = start_jvm("ChainWorkload", [ready, 600], f"ipc={wd.base},interval=64k", ["-Xmx512m"])
stop_at_exit(jvm)
t = None


def rows_named(listing, text):
    return [r for r in listing.rows if text in r["name"]]


try:
    check(wait_for(lambda: os.path.exists(ready) or jvm.poll() is not None, 120, 0.1,
                   what="ChainWorkload's list and arrays")
          and jvm.poll() is None, "ChainWorkload built its list and kept its arrays")
    check(wait_agent(jvm, wd.base), "the agent listens")
    total = sum(b for _, b in class_histogram(jvm.pid).values())
    print(f"the heap as the JVM counts it: {total} bytes")

    # --- heap_sites.csv ---
    out = wd.file("out")
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--heap",
                        "--out", out], capture_output=True, text=True, timeout=300)
    path = os.path.join(out, "heap_sites.csv")
    check(p.returncode == 0 and os.path.exists(path),
          f"record --heap wrote heap_sites.csv ({p.returncode}: {p.stderr.strip()[-300:]})")
    header, rows, _ = read_csv(path) if os.path.exists(path) else ([], [], [])
    check("over_bound" in header, f"heap_sites.csv has an over_bound column ({header})")
    link = [r for r in rows if r["class"] == LINK and r["frame"].startswith("ChainWorkload.link:")]
    arr = [r for r in rows if r["class"] == ARRAY and r["frame"].startswith("ChainWorkload.array:")]
    check(len(link) == 1 and len(arr) == 1, f"one row for each site ({len(link)}, {len(arr)})")
    if link:
        est = float(link[0]["heap_est_retained_bytes"])
        check(est > total, f"the Link site's estimate ({est:.4g} B) is above the heap ({total} B): "
                           "nested retained sets")
        check(link[0].get("over_bound") == "heap_est_retained_bytes",
              f"over_bound names it: {link[0].get('over_bound')!r}")
    if arr:
        est = float(arr[0]["heap_est_retained_bytes"])
        check(0 < est < total, f"the byte[] site's estimate ({est:.4g} B) is under the heap")
        check(arr[0].get("over_bound") == "", f"and not flagged: {arr[0].get('over_bound')!r}")

    # --- the tree, sorted by RETAINED ---
    chain_call = f"ChainWorkload.main:{site_line(SRC, 'chain_call')}"
    keep_call = f"ChainWorkload.main:{site_line(SRC, 'keep_call')}"
    t = Tmux("overbound", f"{HEAPTOP} --ipc {wd.base} --out {wd.path}", cols=120, rows=30)
    check(t.wait_for("CALL TREE", 30) is not None, "the TUI is up")
    t.take_snapshot()
    s = t.wait_for("sampled objects: their sites in the tree", 120)
    check(s is not None, "the snapshot is read, its sampled objects counted")
    t.keys("1")
    t.keys("R")

    def sorted_tree(s):
        lst = Listing(s)
        return (lst.sorted == ("RETAINED", "v") and rows_named(lst, "buildChain")
                and rows_named(lst, keep_call))

    for cols, nrows in ((120, 30), (80, 24)):
        where = f"{cols}x{nrows}"
        if cols != 120:
            t.resize(cols, nrows)
        s = t.wait_until(sorted_tree, 30)
        check(s is not None, f"{where}: the tree sorted by RETAINED shows both paths")
        if s is None:
            print(t.screen())
            continue
        lst = Listing(s)
        print("\n".join(lst.rows[k]["line"].rstrip() for k in range(min(5, len(lst.rows)))))
        for name in ("buildChain", chain_call):
            got = [r["RETAINED"] for r in rows_named(lst, name)]
            check(got == [">heap"], f"{where}: {name}'s RETAINED is marked >heap ({got})")
        kept = [r["RETAINED"] for r in rows_named(lst, keep_call)]
        v = parse("RETAINED", kept[0]) if kept else None
        check(len(kept) == 1 and v is not None and 0 < v < float("inf"),
              f"{where}: {keep_call}'s RETAINED is a figure ({kept})")
        title = s.splitlines()[lst.title_y]
        said = ">heap: above the snapshot's bytes" if cols >= 120 else ">heap"
        check(said in title, f"{where}: the title row says what >heap means ({title.strip()})")
    t.keys("q", pause=0)
finally:
    end_tui(t, jvm, wd, stop=True)
finish()
