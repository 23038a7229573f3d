#!/usr/bin/env python3
"""Hostile dump files stay bounded: a FIFO is refused before anything blocks,
a gzip bomb is refused at its stated cap without its inflated size in memory,
a dump truncated while it is read is one error line (not SIGBUS), and crafted
class structures cost what a plain dump of their size costs.

The crafted files are written by make_hprof_seeds --hostile (the unit
tests' builders, tests/unit/hprof_builder.h), the bomb here with zlib. Each
`heaptop heap` runs as a child whose own CPU time and peak RSS come from
wait4(2)."""
import os
import pty
import subprocess
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from harness import HEAPTOP, JAR, Workdir, check, finish  # noqa: E402

SEEDS = os.path.join(os.path.dirname(JAR), "make_hprof_seeds")
MB = 1 << 20


class Run:
    """One child run to its end: exit code (negative: the signal), output,
    CPU seconds, peak RSS in bytes and wall seconds."""

    def __init__(self, args, timeout, during=None, **popen):
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        t0 = time.monotonic()
        popen.setdefault("stdout", out_w)
        popen.setdefault("stderr", err_w)
        p = subprocess.Popen(args, **popen)
        os.close(out_w)
        os.close(err_w)
        chunks = {out_r: [], err_r: []}
        readers = [threading.Thread(target=self._drain, args=(fd, chunks[fd])) for fd in chunks]
        for r in readers:
            r.start()
        killer = threading.Timer(timeout, lambda: p.kill())
        killer.start()
        if during:
            during(p)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        killer.cancel()
        for r in readers:
            r.join()
        self.wall = time.monotonic() - t0
        self.timed_out = self.wall >= timeout
        self.rc = p.returncode
        self.out = b"".join(chunks[out_r]).decode(errors="replace")
        self.err = b"".join(chunks[err_r]).decode(errors="replace")
        self.cpu = ru.ru_utime + ru.ru_stime
        self.rss = ru.ru_maxrss * 1024
        self.errlines = [l for l in self.err.splitlines() if l.strip()]

    @staticmethod
    def _drain(fd, into):
        with os.fdopen(fd, "rb") as f:
            for b in iter(lambda: f.read(65536), b""):
                into.append(b)

    def __str__(self):
        return (f"exit {self.rc}, {self.wall:.2f} s wall, {self.cpu:.2f} s CPU, "
                f"{self.rss / MB:.1f} MiB RSS, stderr {self.err.strip()[:300]!r}")


def heap(path, w, timeout=120, during=None):
    out = w.file("out-" + os.path.basename(path).replace(".", "-"))
    return Run([HEAPTOP, "heap", path, "--out", out], timeout, during)


def one_error(r, what, *words):
    """Exit 1, one stderr line holding every word, no CSV written."""
    check(r.rc == 1 and len(r.errlines) == 1 and all(x in r.err for x in words),
          f"{what}: one error line with {words} and exit 1 ({r})")


def fifo(w):
    """A FIFO is not waited on: `heap` and `open` refuse it at once."""
    path = w.file("fifo.hprof")
    os.mkfifo(path)
    r = heap(path, w, timeout=10)
    check(not r.timed_out, f"heap on a FIFO returns before 10 s ({r})")
    one_error(r, "heap on a FIFO", "not a regular file")
    # open checks the file before it starts the screen: it needs a terminal
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm")
    r = Run([HEAPTOP, "open", path], 10, stdin=slave, stdout=slave, env=env)
    os.close(slave)
    os.close(master)
    check(not r.timed_out, f"open on a FIFO returns before 10 s ({r})")
    one_error(r, "open on a FIFO", "not a regular file")


def bomb(w):
    """An HPROF header, then 1 GiB of zeros, gzip'd (1 MiB): refused at
    the cap the message states, in bounded memory and time."""
    path = w.file("bomb.hprof.gz")
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    zero = bytes(16 * MB)
    with open(path, "wb") as f:
        f.write(z.compress(b"JAVA PROFILE 1.0.2\0" + (4).to_bytes(4, "big") + bytes(8)))
        for _ in range(64):
            f.write(z.compress(zero))
        f.write(z.flush())
    size = os.path.getsize(path)
    r = heap(path, w, timeout=120)
    print(f"bomb: {size} bytes gzip'd, 1 GiB inflated: {r}", flush=True)
    one_error(r, "heap on a gzip bomb", "gzip", "MiB", "refused")
    check(r.rss < 64 * MB, f"heap on a gzip bomb stays under 64 MiB of RSS ({r.rss / MB:.1f} MiB)")


def shrink(w):
    """big.hprof (138 MB) truncated to 1 MB once `heaptop heap` has it
    mapped (seen in /proc/PID/maps): one line, exit 1, no SIGBUS."""
    path = w.file("big.hprof")
    seen = {}

    def truncate_once_mapped(p):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/maps") as f:
                    if path in f.read():
                        os.truncate(path, 1000000)
                        seen["at"] = time.monotonic()
                        return
            except FileNotFoundError:
                return
            time.sleep(0.001)  # a poll, not a wait for time to pass

    r = heap(path, w, timeout=120, during=truncate_once_mapped)
    print(f"shrink: {r}", flush=True)
    check("at" in seen, "the dump was truncated while heaptop had it mapped")
    check(r.rc != -7 and r.rc != 135, f"heap on a shrinking dump does not die of SIGBUS ({r})")
    one_error(r, "heap on a shrinking dump", "shrank while it was read")


def crafted(w):
    """One class of 65,535 boolean fields with 100,000 empty subclasses,
    and a chain of 4,000 classes of 8 reference fields, cost no more than a
    plain dump of their size (within 8x its CPU plus 1.5 s, 64 MiB of RSS
    above it)."""
    base = heap(w.file("plain.hprof"), w)
    print(f"plain.hprof ({os.path.getsize(w.file('plain.hprof'))} bytes): {base}", flush=True)
    check(base.rc == 0, f"the plain dump is read ({base})")
    for name in ("wide.hprof", "chain.hprof"):
        r = heap(w.file(name), w, timeout=150)
        print(f"{name} ({os.path.getsize(w.file(name))} bytes): {r}", flush=True)
        check(r.rc == 0, f"{name} is read ({r})")
        check(r.cpu < 8 * base.cpu + 1.5,
              f"{name} takes at most 8x the plain dump's CPU plus 1.5 s "
              f"({r.cpu:.2f} s against {base.cpu:.2f} s)")
        check(r.rss < base.rss + 64 * MB,
              f"{name} takes at most 64 MiB of RSS above the plain dump "
              f"({r.rss / MB:.1f} MiB against {base.rss / MB:.1f} MiB)")


def main():
    w = Workdir("hostile")
    try:
        subprocess.run([SEEDS, "--hostile", w.path], check=True, timeout=120)
        fifo(w)
        bomb(w)
        shrink(w)
        crafted(w)
    finally:
        w.cleanup()
    finish()


if __name__ == "__main__":
    main()
