"""A heap snapshot survives the viewer's connection being cut while the JVM
writes it. The agent's socket files are deleted mid-dump and something else
takes their place for a while: the agent's watchdog restarts its listeners,
which cuts the viewer off, and listens on new files once the paths are free;
the viewer connects again. The agent never stopped writing, so the viewer
must follow the dump to its end after the reconnect and read it, not say
"the JVM went away" and leave the file unread.

The workload (tests/java/PauseWorkload.java, SerialGC with heap
verification) makes a dump's full collection last seconds, longer than the
watchdog takes to restart the listeners. Truths: the pause the workload
measured (the premise), the JVM's own log (the files were deleted, the
listeners are new), the status line (cut off, reconnecting; then the dump
written and being read) and the dump directory (the file read and removed)."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()


PAUSE_MS = 4000  # the watchdog needs about 3 s to restart both listeners
wd = Workdir("dumpreconn")
facts = wd.file("facts")
err_path = wd.file("jvm.err")
err_file = open(err_path, "w")
jvm = start_jvm("PauseWorkload", [facts, PAUSE_MS, 0, 4_000_000, 40_000_000, 240],
                agent_opts=f"ipc={wd.base}", gc="SerialGC", stderr=err_file,
                jvm_flags=["-Xmx1g", "-Xms1g", "-XX:+UnlockDiagnosticVMOptions",
                           "-XX:+VerifyBeforeGC"])
t = None
try:
    check(wait_agent(jvm, wd.base) and wait_for(lambda: os.path.exists(facts), 180,
                                                what="the workload's heap"),
          "PauseWorkload built its heap")
    f = read_facts(facts)
    check(f["pause_ms"] >= PAUSE_MS,
          f"the premise: a full collection stops the JVM {PAUSE_MS} ms or more "
          f"({f['pause_ms']} ms)")
    t = Tmux("dumpreconn", f"{HEAPTOP} --ipc {wd.base}", cols=150, rows=40)
    check(t.wait_for("[live]", 20) is not None, "connected")
    t.take_snapshot()
    check(t.wait_for("JVM is writing the dump", 20) is not None, "the JVM writes the dump")
    # in place of each file a directory: the agent's new listeners cannot
    # bind until it goes, so the viewer stays cut off (an nng redial could
    # otherwise slip in before the viewer looks) and must say so
    for suffix in (".ctl", ".events"):
        os.unlink(wd.base + suffix)
        os.mkdir(wd.base + suffix)
    statuses = []

    def says(*what):
        def pred():
            ln = t.status_line()
            if ln and ln not in statuses:
                statuses.append(ln)
            return any(w in ln for w in what)
        return pred
    cut = wait_for(says("cut off while the JVM writes the dump", "went away"), 30, step=0.1)
    check(cut and "cut off" in statuses[-1],
          f"cut off mid-dump, the viewer says it is reconnecting to follow it ({statuses[-3:]})")
    for suffix in (".ctl", ".events"):
        os.rmdir(wd.base + suffix)
    wait_for(says("reading it", "went away"), 120, step=0.1)
    read = "reading it" in statuses[-1]
    # reading millions of objects is other tests' business: Esc stops it, and
    # the file goes as it would once read
    if read:
        t.keys("Escape")
    check(read, "after the reconnect the viewer followed the dump to its end and began reading "
          f"it ({statuses[-3:]})")
    dumps = wd.base + ".dumps"
    left = lambda: [x for x in os.listdir(dumps) if x.endswith(".hprof")] \
        if os.path.isdir(dumps) else []
    check(wait_for(lambda: not left(), 60), f"and removed it, as an H snapshot is ({left()})")
    t.keys("q")
finally:
    end_tui(t, jvm)
    err_file.close()
said = [l for l in open(err_path).read().splitlines() if l.startswith("heaptop:")]
check(any("socket file" in l and "deleted" in l for l in said),
      f"the JVM's log: the socket files were deleted and made again ({said[-2:]})")
wd.cleanup()
finish()
