#!/usr/bin/env python3
"""The agent's socket appears only once the agent can answer.

CI on a fresh machine (a cold page cache behind a disk busy writing back the
build and the packages) once failed with "the JVM at ... did not answer within
10.0 s": the socket file existed from VMInit on, while the collector thread,
which answers, was still in its JNI set-up, loading the management classes
from the JDK's modules file at the disk's pace (0.6 s at 40 reads a second).

Here the JVM's class loading is made slow on purpose, and the same way for
every thread of it: it logs each class it loads (-Xlog:class+load) to a pipe
of one page, and the test stops reading that pipe for STALL seconds as soon as
the first java.lang.management class is logged (the agent's set-up: the
workload uses none). While the pipe is full, every class load waits, as on a
slow disk. A viewer that finds the socket then must be answered at once: on
the old agent the socket was there during the stall and `control status` ran
into its 5 s timeout."""
import array
import fcntl
import os
import subprocess
import sys
import termios
import threading
import time

from harness import AGENT, HEAPTOP, JAR, JAVA, Workdir, check, finish, stop_jvm, wait_for

STALL = 12.0          # seconds the log pipe is not read: past `control`'s 5 s timeout
F_SETPIPE_SZ = 1031   # fcntl.F_SETPIPE_SZ on Python 3.10+, spelled out for older ones

wd = Workdir("first_answer")
r, w = os.pipe()
fcntl.fcntl(r, F_SETPIPE_SZ, 4096)
jvm = subprocess.Popen([JAVA, "-Xlog:class+load=info:stdout", f"-agentpath:{AGENT}=ipc={wd.base}",
                        "-cp", JAR, "QuietWorkload", "120000", wd.file("stop")],
                       stdout=w, stderr=subprocess.PIPE, text=True)
os.close(w)

state = {"stalled_at": None, "resumed_at": None, "lines": 0}


def pending():
    """Bytes written into the pipe and not read yet."""
    n = array.array("i", [0])
    fcntl.ioctl(r, termios.FIONREAD, n, True)
    return n[0]


def drain():
    buf = b""
    with os.fdopen(r, "rb", buffering=0) as f:
        while True:
            chunk = f.read(512)
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            state["lines"] += len(lines)
            if state["stalled_at"] is None and any(b"java.lang.management." in ln for ln in lines):
                state["stalled_at"] = time.monotonic()
                # held: bytes wait in the pipe and none came for the stall's last 5 s
                time.sleep(STALL - 5.0)
                before = pending()
                time.sleep(5.0)
                state["held"] = before > 0 and pending() == before
                state["resumed_at"] = time.monotonic()


reader = threading.Thread(target=drain, daemon=True)
reader.start()

try:
    ctl = wd.base + ".ctl"
    wait_for(lambda: os.path.exists(ctl) or jvm.poll() is not None, 90, what="the agent's socket")
    seen_at = time.monotonic()
    check(os.path.exists(ctl), "the agent's socket appears")
    t0 = time.monotonic()
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=60)
    took = time.monotonic() - t0
    print(f"status answered in {took:.2f} s (rc {p.returncode}): {p.stderr.strip()[-200:]}")
    wait_for(lambda: state["stalled_at"] is not None, 30, what="the stall")
    if state["stalled_at"]:
        print(f"the socket appeared {seen_at - state['stalled_at']:+.1f} s from the stall's start")
    check(state["stalled_at"] is not None,
          "the agent's set-up loaded java.lang.management classes (the stall began)")
    wait_for(lambda: "held" in state, STALL + 30, what="the end of the stall")
    check(state.get("held"), "the stall held the JVM's class loading (nothing more was logged)")
    check(p.returncode == 0, "a viewer that finds the socket is answered (control status exit 0)")
    check(took < 5.0, f"and at once, not after waiting out the set-up ({took:.2f} s < 5 s)")
finally:
    os.close(os.open(wd.file("stop"), os.O_CREAT | os.O_WRONLY, 0o600))
    stop_jvm(jvm)
    wd.cleanup()
sys.exit(finish())
