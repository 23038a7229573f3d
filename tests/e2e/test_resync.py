"""The stream-gap resync in the client: a viewer that falls behind loses
stream messages (PUB never waits for it), sees the gap in their sequence
numbers and syncs again. GapWorkload allocates at three sites in turn, each an
exact count at interval=0 (JDK 17 without TLABs); `heaptop record` is stopped
(SIGSTOP) while the second site allocates, so everything the agent streams
about that site (its names, its rows) is lost to it. The agent queues at most
viewer_queue=16 messages for a viewer; phase 2 also allocates at 480 other
stacks, so each message of rows is tens of KB, and it lasts until the agent
has published 100 stream messages since the viewer stopped: more than the
queue and the socket hold, whatever the machine's speed. record then follows
the JVM to its exit, which ends without a final sync: what it writes about
site B can only have come through the resync. (When the JVM exits before the
resumed viewer has read its queue, the goodbye and the last site's messages
are lost with the closing socket, "what arrived is still written", and site C
can only be short, never over.)"""
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

COUNTS = {"a": 20_000, "b": 10_000, "c": 20_000}  # b: a batch; phase 2 repeats it
flags = ["-XX:-UseTLAB"] if java_version() < 21 else []
wd = Workdir("resync")
jvm = start_jvm("GapWorkload", [wd.path, COUNTS["a"], COUNTS["b"], COUNTS["c"]],
                agent_opts=f"ipc={wd.base},interval=0,buffer=1048576,viewer_queue=16", jvm_flags=flags)
check(wait_agent(jvm, wd.base), "agent socket appears")
rec = Viewer(wd.base, wd.file("out"), "--top", "0")
check(rec.connected(60), "record connected")


def phase(n, go=True):
    if go:
        touch(wd.file(f"go{n}"))
    done = wd.file(f"done{n}")
    check(wait_for(lambda: os.path.exists(done) or jvm.poll() is not None, 180,
                   what=f"phase {n}") and os.path.exists(done), f"phase {n} ran")
    return int(open(done).read()) if os.path.exists(done) else 0


phase(1)
rec.signal(signal.SIGSTOP)  # the viewer falls behind: nothing it is sent is read


def stream_seq():
    """The agent's stream sequence number now (control status syncs)."""
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=60)
    m = re.search(r"stream message (\d+)", p.stdout)
    return int(m.group(1)) if m else 0


base = stream_seq()
touch(wd.file("go2"))
WANT = 100
check(wait_for(lambda: stream_seq() >= base + WANT, 180, step=0.5,
               what=f"{WANT} stream messages published while the viewer is stopped"),
      f"the agent published {WANT} stream messages while the viewer was stopped")
touch(wd.file("stop2"))
COUNTS["b"] = phase(2, go=False)
rec.signal(signal.SIGCONT)
phase(3)
jvm.communicate(timeout=120)
check(jvm.returncode == 0, f"the workload exits 0 ({jvm.returncode})")
rc, _, err = rec.finish(120)
bye = "stopped (the JVM exited)" in err
check(rc == 0 and (bye or "stopped (the JVM went away without a goodbye)" in err),
      f"record followed the JVM to its end and wrote what arrived ({err.strip()[-200:]})")
m = re.search(r"(\d+) stream messages missed", err)
missed = int(m.group(1)) if m else 0
check(missed > 0, f"the stopped viewer missed stream messages ({missed}): the gap happened")
r = read_out(wd.file("out"))
summ = r["summary"]
check(len(summ) == 1 and int(summ[0]["missed"]) == missed, "summary.csv says how many were missed")
for site, count in COUNTS.items():
    frame = f"GapWorkload.site{site.upper()}:{site_line('GapWorkload.java', site)}"
    rows = [s for s in r["sites"] if s["frame"] == frame]
    got = sum(int(s["samples"]) + int(s["dropped"]) for s in rows)
    if site == "c" and not bye:
        print(f"record was still catching up when the JVM exited: site C has {got} of {count}")
        check(got <= count, f"site C: never counted twice ({got} <= {count})")
        continue
    # (B runs on two threads of its own: its stack goes through their lambda)
    caller = "GapWorkload.lambda$main$" if site == "b" else "GapWorkload.main:"
    check(len(rows) == 1 and got == count and rows[0]["stack"].startswith(f"{frame} <- {caller}"),
          f"site {site.upper()}: named, with its stack, and all {count} objects ({got}"
          f"{', only through the resync' if site == 'b' else ''})")
wd.cleanup()
finish()
