"""`heaptop record`'s printed "Top allocation sites" tells apart rows that
would print alike: one allocation site reached from two stacks (StackWorkload,
2 stacks: leaf <- down <- run <- main, and leaf <- down <- down <- run <-
main) gives two rows with the same class and the same allocating frame; each
row then names the first frame where its stack parts from the other's (index
2: run for the first, down for the second), as `... <- via FRAME`. A row
printed like no other gets nothing more."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

LEAF = f"StackWorkload.leaf:{site_line('StackWorkload.java', 'leaf')}"
DOWN = f"StackWorkload.down:{site_line('StackWorkload.java', 'down')}"
RUN = f"StackWorkload.run:{site_line('StackWorkload.java', 'run')}"
CLASS = "StackWorkload$Leaf"

wd = Workdir("topsites")
go, facts = wd.file("go"), wd.file("facts")
jvm = start_jvm("StackWorkload", [go, facts, 2, 20000], agent_opts=f"ipc={wd.base},interval=0")
stop_at_exit(jvm)
try:
    check(wait_agent(jvm, wd.base), "the agent listens")
    v = Viewer(wd.base, wd.file("out"), "--top", "20")
    check(v.connected(60), "record connected")
    touch(go)
    rc, out, err = v.finish(180)
    print(out)
    check(rc == 0, f"record exit 0 ({err.strip()[-200:]})")
    sites = [s for s in read_out(wd.file("out"))["sites"] if s["class"] == CLASS]
    check(len(sites) == 2 and all(s["frame"] == LEAF for s in sites),
          f"sites.csv: two sites of {CLASS} at {LEAF} ({[s['stack'] for s in sites]})")
    rows = [l for l in out.split("\n") if CLASS in l and LEAF in l]
    check(len(rows) == 2, f"two printed rows of {CLASS} at {LEAF} ({len(rows)})")
    texts = [l.split(CLASS, 1)[1].strip() for l in rows]
    check(len(set(texts)) == 2, f"the two rows read differently ({texts})")
    check(any(t.endswith(f"{LEAF} <- ... <- via {RUN}") for t in texts) and
          any(t.endswith(f"{LEAF} <- ... <- via {DOWN}") for t in texts),
          f"each names the first frame where it parts: via {RUN}, via {DOWN}")
    # every printed row: its text from the class column on, without what was added
    lines = out.split("\n")
    head = next((l for l in lines if "est_bytes" in l and "class" in l), "")
    col = head.index("class") if head else 0
    printed = [l for l in lines if "%" in l and l is not head and len(l) > col]
    keys = [l[col:].split(" <- ")[0].rstrip() for l in printed]
    alone = [l for l, k in zip(printed, keys) if keys.count(k) == 1]
    check(alone and all(" <- " not in l for l in alone),
          f"rows printed like no other get nothing ({len(alone)} such rows)")
    alike = [l for l, k in zip(printed, keys) if keys.count(k) > 1]
    check(all(" <- " in l for l in alike), f"every row printed like another is told apart "
          f"({len(alike)} such rows)")
finally:
    stop_jvm(jvm)
    wd.cleanup()
finish()
