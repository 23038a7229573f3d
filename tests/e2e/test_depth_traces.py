"""depth= and traces= against stacks the workload built. StackWorkload
allocates COUNT objects of StackWorkload$Leaf from each of STACKS stacks, stack
d holding d + 4 frames (leaf, d + 1 down, run, main). At interval=0 (JDK 17
without TLABs) every allocation is sampled, so counts are exact:

- depth=8 keeps the 8 innermost frames: stacks of up to 8 frames stay apart,
  the deeper ones become one stack of leaf and seven down frames, holding all
  their objects; with the default depth every stack is whole;
- traces=16 keeps 16 distinct stacks (the JVM's own start-up fills them): the
  rest go to an overflow row, reported as such, and no object is lost."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

STACKS, COUNT = 12, 2000
FLAGS = ["-XX:-UseTLAB"] if java_version() < 21 else []
LEAF = f"StackWorkload.leaf:{site_line('StackWorkload.java', 'leaf')}"
DOWN = f"StackWorkload.down:{site_line('StackWorkload.java', 'down')}"
RUN = f"StackWorkload.run:{site_line('StackWorkload.java', 'run')}"
OVERFLOW = "[overflow: trace table full]"


def recorded(opts, name):
    """Run StackWorkload STACKS COUNT under the agent with `opts`, recorded."""
    wd = Workdir(name)
    go, facts = wd.file("go"), wd.file("facts")
    jvm = start_jvm("StackWorkload", [go, facts, STACKS, COUNT],
                    agent_opts=f"ipc={wd.base},interval=0,buffer=1048576" + (f",{opts}" if opts else ""),
                    jvm_flags=FLAGS)
    check(wait_agent(jvm, wd.base), f"{opts}: agent socket appears")
    v = Viewer(wd.base, wd.file("out"), "--top", "0")
    check(v.connected(60), f"{opts}: record connected")
    touch(go)
    rc, _, err = v.finish(180)
    jvm.communicate(timeout=60)
    check(rc == 0 and jvm.returncode == 0, f"{opts}: JVM and record exit 0 ({err.strip()[-200:]})")
    r = read_out(wd.file("out"))
    wd.cleanup()
    leaf = [s for s in r["sites"] if s["class"] == "StackWorkload$Leaf"]
    total = sum(int(s["samples"]) + int(s["dropped"]) for s in leaf)
    check(total == STACKS * COUNT, f"{opts}: every Leaf is counted once ({total} == {STACKS * COUNT})")
    return r, leaf


MAIN = f"StackWorkload.main:{site_line('StackWorkload.java', 'main')}"


def frames_of(d):
    """The whole stack of stack d, leaf first."""
    return [LEAF] + [DOWN] * (d + 1) + [RUN, MAIN]


# depth=8: the 8 innermost frames. Stacks of up to 8 frames stay whole; deeper
# ones are cut to their first 8, and those that agree there become one stack.
r, leaf = recorded("depth=8", "depth8")
stacks = {s["stack"]: s for s in leaf}
check(all(len(s.split(" <- ")) <= 8 for s in stacks), "depth=8: no stack holds more than 8 frames")
want = {}
for d in range(STACKS):
    want.setdefault(" <- ".join(frames_of(d)[:8]), []).append(d)
for key, ds in want.items():
    got = stacks.get(key)
    n = COUNT * len(ds)
    which = (f"stack {ds[0]} ({ds[0] + 4} frames) is kept whole" if ds[0] + 4 <= 8 else
             f"stacks {ds[0]}..{ds[-1]} ({ds[0] + 4}..{ds[-1] + 4} frames) are cut to their "
             f"8 innermost frames")
    check(got is not None and int(got["samples"]) + int(got["dropped"]) == n,
          f"depth=8: {which}, holding {n} objects "
          f"({int(got['samples']) + int(got['dropped']) if got else 'no such stack'})")
check(len(stacks) == len(want), f"depth=8: {len(want)} Leaf stacks in all, {STACKS} cut to "
      f"{len(want)} ({len(stacks)})")

# The default depth keeps every stack whole: the control for the above.
r, leaf = recorded("", "depth64")
got = {s["stack"]: int(s["samples"]) + int(s["dropped"]) for s in leaf}
check(got == {" <- ".join(frames_of(d)): COUNT for d in range(STACKS)},
      f"default depth: {STACKS} whole stacks of 4..{STACKS + 3} frames, {COUNT} objects each "
      f"({sorted(len(k.split(' <- ')) for k in got)})")

# traces=16: the table fills (the JVM's start-up alone allocates from more
# than 16 stacks at interval=0); the rest is one overflow row per class.
r, leaf = recorded("traces=16", "traces16")
# ('[no Java stack]' and the overflow row are not stacks of the table)
regular = {s["stack"] for s in r["sites"] if not s["frame"].startswith("[")}
over = [s for s in leaf if s["frame"] == OVERFLOW]
check(len(regular) <= 16, f"traces=16: at most 16 distinct stacks kept ({len(regular)})")
check(len(over) == 1 and int(over[0]["samples"]) > 0,
      f"traces=16: Leaf objects past the table are in a row named '{OVERFLOW}' "
      f"({[s['samples'] for s in over]} samples)")
check(len(over) == 1 and over[0]["stack"] in ("", OVERFLOW),
      f"traces=16: the overflow row claims no stack ({over[0]['stack'] if over else None!r})")
summ = r["summary"]
check(len(summ) == 1 and "traces=16" in summ[0]["options"], "summary.csv shows traces=16")
finish()
