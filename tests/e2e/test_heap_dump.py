"""Heap dumps on request: the JVM writes an HPROF file into the agent's
private directory, on a thread of the agent's own, while the agent goes on
answering and streaming.

- `heaptop control PID heapdump` (the default socket path): the file is 0600
  in a 0700 directory of ours next to the sockets, its size is the one
  printed, and `heaptop heap` reads from it exactly the objects HeapWorkload
  made (its FACTS); --all and --keep; the JVM's descriptors are the same after
  five dumps; at the JVM's exit the agent removes the dumps not kept and
  leaves the kept one.
- A dump of seconds (DumpWorkload, 20 M objects): the agent reports on the
  stream about once a second while the JVM writes it, answers `status` and
  refuses a second dump ("a heap dump is already being written") at once, a
  `heaptop record` viewer stays connected, and the watchdog never restarts a
  listener.
- `heaptop record --seconds 2 --heap`: histogram.csv, dominators.csv, duplicates.csv beside
  sites.csv, with the workload's exact count, and the dump removed (kept with
  --keep).
- Not enough disk space: the agent's sockets (and so its dump directory) on
  an 8 MiB tmpfs, a heap of ~30 MB: refused before any dump, naming the free
  space and the heap's used bytes. Then room for the heap's bytes but not
  for the dump: the JVM's IOException is reported and the partial file
  removed.
"""
import csv
import glob
import signal
import stat
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def fewest_fds(pid, n=10):
    """The fewest descriptors over a second (the watchdog's probes come and go)."""
    least = None
    for _ in range(n):
        k = fds(pid)
        least = k if least is None else min(least, k)
        time.sleep(0.1)
    return least


def control(target, *words, timeout=120):
    t0 = time.time()
    p = subprocess.run([HEAPTOP, "control", *target, *words], capture_output=True, text=True,
                       timeout=timeout)
    p.seconds = time.time() - t0
    return p


def written(p):
    """(path, bytes, ms) from `control heapdump`'s output, or None."""
    m = re.search(r"heap dump \d+ written: (\S+)\n.*\((\d+) bytes\).*took (\d+) ms", p.stdout)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def histogram(path, wd, name):
    """heaptop heap's histogram.csv of a dump: {class: instances}."""
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "heap", path, "--out", out], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        print(f"heaptop heap {path}: {p.stderr.strip()[-300:]}")
        return {}
    return {r["class"]: int(r["instances"]) for r in read_csv(os.path.join(out, "histogram.csv"))[1]}


def start_and_wait(main, args, agent_opts, flags, facts, timeout=120):
    jvm = start_jvm(main, args, agent_opts=agent_opts, jvm_flags=flags)
    ok = wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, timeout,
                  what=f"{main} building its heap") and jvm.poll() is None
    if not ok:
        jvm.kill()
        print(jvm.communicate()[1][-500:])
    return jvm, ok


def default_base(pid):
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    d = os.path.join(xdg, "heaptop") if xdg and xdg.startswith("/") else f"/tmp/heaptop-{os.geteuid()}"
    return os.path.join(d, str(pid))


def by_pid():
    """control PID heapdump on the default path: privacy, the dump's content,
    --all, --keep, descriptors, removal at exit."""
    wd = Workdir("dump-pid")
    facts = wd.file("facts")
    jvm, ok = start_and_wait("HeapWorkload", [facts, 300], "", ["-Xmx256m"], facts)
    check(ok, "pid: HeapWorkload built its heap")
    if not ok:
        return
    kept = None
    try:
        f = read_facts(facts)
        base = default_base(jvm.pid)
        check(wait_agent(jvm, base), f"pid: the agent listens at the default path {base}")
        target = [str(jvm.pid)]
        before = fewest_fds(jvm.pid)

        p = control(target, "heapdump")
        w = written(p)
        check(p.returncode == 0 and w is not None,
              f"pid: `control PID heapdump` wrote a dump ({p.returncode}: {p.stdout.strip()} "
              f"{p.stderr.strip()[-300:]})")
        if not w:
            return
        path, size, ms = w
        print(p.stdout.strip())
        d = os.path.dirname(path)
        st, dst = os.stat(path), os.lstat(d)
        check(d == os.path.realpath(base + ".dumps"), f"pid: the dump is in {base}.dumps ({d})")
        check(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid(),
              f"pid: the dump file is ours, mode 0600 ({oct(stat.S_IMODE(st.st_mode))})")
        check(stat.S_ISDIR(dst.st_mode) and stat.S_IMODE(dst.st_mode) == 0o700 and
              dst.st_uid == os.geteuid(),
              f"pid: its directory is ours, mode 0700 ({oct(stat.S_IMODE(dst.st_mode))})")
        check(size == st.st_size and size > 0, f"pid: the size printed ({size}) is the file's "
              f"({st.st_size})")
        check(0 < ms < 60000 and "live objects" in p.stdout, f"pid: a live dump, the JVM took "
              f"{ms} ms")
        check("removes it when the JVM exits" in p.stdout, "pid: says the agent removes it")
        h = histogram(path, wd, "csv1")
        node, ring = h.get("HeapWorkload$Node"), h.get("HeapWorkload$Ring")
        check(node == f["nodes"] and ring == f["ring"],
              f"pid: heaptop heap reads the workload's objects from it: {node} nodes, {ring} "
              f"ring links (it made {f['nodes']} and {f['ring']})")

        p = control(target, "heapdump", "--all")
        w_all = written(p)
        check(p.returncode == 0 and w_all and "every object" in p.stdout,
              f"pid: --all writes a dump of every object ({p.stdout.strip()[-200:]} "
              f"{p.stderr.strip()[-200:]})")
        if w_all:
            h = histogram(w_all[0], wd, "csv2")
            check(h.get("HeapWorkload$Node", 0) >= f["nodes"],
                  f"pid: the --all dump holds the nodes too ({h.get('HeapWorkload$Node')})")
        p = control(target, "heapdump", "--keep")
        w_keep = written(p)
        check(p.returncode == 0 and w_keep and "kept after the JVM exits" in p.stdout,
              f"pid: --keep says the dump is kept ({p.stdout.strip()[-200:]})")
        kept = w_keep[0] if w_keep else None
        paths = [path] + [w[0] for w in (w_all,) if w]
        for i in range(2):
            p = control(target, "heapdump")
            if written(p):
                paths.append(written(p)[0])
        check(len(set(paths + [kept])) == 5, f"pid: five dumps, five files "
              f"({len(set(paths + [kept]))})")
        after = None

        def settled():
            nonlocal after
            after = fds(jvm.pid)
            return after <= before
        check(wait_for(settled, 10, 0.1),
              f"pid: no descriptor leaked by five dumps ({before} before, {after} after)")
        p = control(target, "status")
        check(p.returncode == 0 and re.search(r"last heap dump 5: \S+, \d+ bytes in \d+ ms",
                                              p.stdout),
              f"pid: status names the last dump ({p.stdout.strip().splitlines()[-1:]})")

        jvm.send_signal(signal.SIGTERM)
        jvm.wait(timeout=60)
        gone = [x for x in paths if os.path.exists(x)]
        check(not gone, f"pid: the dumps not kept are removed when the JVM exits (left: {gone})")
        check(kept and os.path.exists(kept), f"pid: the kept dump stays ({kept})")
        check(os.path.isdir(d), "pid: so does its directory")
    finally:
        if jvm.poll() is None:
            jvm.kill()
            jvm.wait()
        if kept and os.path.exists(kept):
            os.unlink(kept)
        shutil.rmtree(default_base(jvm.pid) + ".dumps", ignore_errors=True)
        wd.cleanup()


class Lines:
    """A process whose stderr is read line by line as it comes, with the time
    each line arrived. Its stdout has a reader of its own: finish() must not
    use communicate(), which would read stderr too and take lines from this
    reader (it cost the dump's progress reports their middle once)."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines, self.lock = [], threading.Lock()
        self.out = []
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t_out = threading.Thread(target=lambda: self.out.append(self.p.stdout.read()),
                                      daemon=True)
        self.t.start()
        self.t_out.start()

    def _read(self):
        for line in self.p.stderr:
            with self.lock:
                self.lines.append((time.time(), line))

    def finish(self, timeout):
        """Wait for the process to exit and both readers to reach the end; its stdout."""
        self.p.wait(timeout)
        self.t.join(10)
        self.t_out.join(10)
        return "".join(self.out)

    def find(self, pattern):
        with self.lock:
            return [(t, m) for t, l in self.lines for m in [re.search(pattern, l)] if m]


def while_dumping():
    """A dump of seconds: the agent answers and streams while the JVM writes it."""
    wd = Workdir("dump-long")
    facts = wd.file("facts")
    # 30 M objects: 2-6 s of dump. With 20 M, JDK 25 took 1.5 s on CI and JDK 17
    # here once 1.6 s, too short for the report a second in and the requests after
    items = 30_000_000
    jvm, ok = start_and_wait("DumpWorkload", [facts, items, 300], f"ipc={wd.base}",
                             ["-Xmx3g", "-Xms3g"], facts, timeout=180)
    check(ok, f"long: DumpWorkload built {items:,} objects")
    if not ok:
        return
    path = None
    try:
        check(wait_agent(jvm, wd.base), "long: the agent listens")
        target = ["--ipc", wd.base]
        viewer = Viewer(wd.base, wd.file("rec"), "--top", "0")
        check(viewer.connected(30), "long: a heaptop record viewer is connected")
        first = Lines([HEAPTOP, "control", *target, "heapdump"])
        check(wait_for(lambda: first.find(r"heap dump 1 being written, 0\.0 s"), 30,
                       what="the dump's first report"), "long: the first report came at once")
        # a second into it the JVM is inside the dump's safepoint (before it: finding
        # the MXBean, ~0.2 s), where any JNI or JVMTI call of the collector would wait
        check(wait_for(lambda: first.find(r"being written, [1-9]\d*\.\d s"), 30,
                       what="a report a second into the dump"),
              f"long: a report a second in ({[l.strip() for _, l in first.lines][-4:]})")
        second = control(target, "heapdump", timeout=30)
        status = control(target, "status", timeout=30)
        still = first.p.poll() is None
        check(second.returncode == 1 and "a heap dump is already being written" in second.stderr
              and second.seconds < 2,
              f"long: a second request is refused in {second.seconds:.2f} s "
              f"({second.stderr.strip()[-200:]})")
        check(status.returncode == 0 and "heap dump 1 being written" in status.stdout and
              status.seconds < 2, f"long: status answers in {status.seconds:.2f} s and names the "
              f"running dump ({status.stdout.strip().splitlines()[-1:]})")
        check(still, "long: both answered while the dump was still being written")
        out = first.finish(120)
        m = re.search(r"heap dump 1 written: (\S+)\n.*\((\d+) bytes\).*took (\d+) ms", out)
        check(first.p.returncode == 0 and m, f"long: the dump was written ({out.strip()[-200:]})")
        if not m:
            return
        path, ms = m.group(1), int(m.group(3))
        reports = [float(x.group(1)) for _, x in first.find(r"heap dump 1 being written, (\S+) s")]
        periodic = [r for r in reports if r > 0]
        print(f"long: {os.path.getsize(path):,} bytes in {ms} ms; reports at {reports} s")
        # more than a second, for the report a second in (JDK 25 wrote these
        # 20 M objects in 1.5 s on CI; the report at 1.x s above is the proof)
        check(ms >= 1200, f"long: the dump took long enough to show the stream flowing ({ms} ms)")
        # one a second: the collector wakes at least every 50 ms, so no gap
        # between reports (or after the last, to the end) passes 1.6 s. The
        # gaps of 2 s and more once seen here were this test's own: communicate()
        # read the client's stderr beside the Lines reader and took lines from it
        marks = [0.0] + periodic + [ms / 1000]
        gaps = [round(b - a, 1) for a, b in zip(marks, marks[1:])]
        check(periodic and max(gaps) <= 1.6,
              f"long: a report about every second while the JVM wrote it ({len(periodic)} "
              f"reports in {ms} ms: {periodic}; longest gap {max(gaps)} s)")
        os.unlink(path)
        # telemetry resumes after the dump (none while it ran: the JVM was stopped)
        at = telemetry_at(wd.base)
        check(wait_for(lambda: telemetry_at(wd.base) >= at + 1.5, 30, 0.2,
                       what="telemetry after the dump"), "long: telemetry goes on after the dump")
        viewer.signal(signal.SIGINT)
        rc, _, err = viewer.finish(60)
        r = read_out(wd.file("rec"))
        t_ms = [int(x["t_ms"]) for x in r["telemetry"]]
        check(rc == 0 and "interrupted" in err, f"long: the viewer stayed connected through the "
              f"dump ({rc}: {err.strip().splitlines()[-1:] if err.strip() else ''})")
        gaps = [b - a for a, b in zip(t_ms, t_ms[1:])]
        check(gaps and max(gaps) >= ms - 1500 and t_ms[-1] - t_ms[0] > ms,
              f"long: telemetry resumed after the dump (longest gap {max(gaps or [0])} ms, "
              f"the dump {ms} ms; {len(t_ms)} rows)")
    finally:
        jvm.send_signal(signal.SIGTERM)
        try:
            _, jerr = jvm.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            jvm.kill()
            _, jerr = jvm.communicate()
        print("long: the agent said: " + " | ".join(l for l in jerr.splitlines() if "heaptop" in l))
        check("heaptop: heap dump 1 written" in jerr, "long: the agent logged the dump")
        check("restarted the" not in jerr, "long: the watchdog restarted no listener during the "
              "dump")
        if path and os.path.exists(path):
            os.unlink(path)
        wd.cleanup()


def record_heap():
    """record --heap: the analysis beside sites.csv, the dump removed; --keep."""
    wd = Workdir("dump-record")
    facts = wd.file("facts")
    items = 200_000
    jvm, ok = start_and_wait("DumpWorkload", [facts, items, 300], f"ipc={wd.base}",
                             ["-Xmx512m"], facts)
    check(ok, "record: DumpWorkload built its heap")
    if not ok:
        return
    try:
        check(wait_agent(jvm, wd.base), "record: the agent listens")
        p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--keep", "--out", wd.file("x")],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 2 and "--keep keeps the heap dump of --heap" in p.stderr,
              f"record: --keep without --heap is refused ({p.stderr.strip()})")
        out = wd.file("out")
        p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "2", "--heap",
                            "--top", "0", "--out", out], capture_output=True, text=True,
                           timeout=300)
        print(p.stderr.strip())
        check(p.returncode == 0, f"record --heap exits 0 ({p.returncode})")
        names = sorted(os.listdir(out)) if os.path.isdir(out) else []
        check({"sites.csv", "histogram.csv", "dominators.csv", "duplicates.csv"} <= set(names),
              f"record: histogram.csv, dominators.csv and duplicates.csv beside sites.csv ({names})")
        if "histogram.csv" in names:
            h = {r["class"]: r for r in read_csv(os.path.join(out, "histogram.csv"))[1]}
            item = h.get("DumpWorkload$Item", {})
            check(int(item.get("instances", 0)) == items,
                  f"record: histogram.csv has the workload's {items:,} items "
                  f"({item.get('instances')})")
        if "dominators.csv" in names:
            rows = read_csv(os.path.join(out, "dominators.csv"))[1]
            big = [r for r in rows if int(r["retained_bytes"]) >= items * 24]
            check(big, f"record: dominators.csv has an object retaining the {items:,} items "
                  f"({len(rows)} rows, top {rows[:1]})")
        m = re.search(r"removed the heap dump (\S+)", p.stderr)
        check(m and not os.path.exists(m.group(1)),
              f"record: the dump was removed after the analysis ({m.group(1) if m else None})")
        left = glob.glob(wd.base + ".dumps/*")
        check(not left, f"record: nothing left in the dump directory ({left})")

        out2 = wd.file("out2")
        p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--heap",
                            "--keep", "--top", "0", "--out", out2], capture_output=True,
                           text=True, timeout=300)
        m = re.search(r"kept the heap dump (\S+)", p.stderr)
        check(p.returncode == 0 and m and os.path.exists(m.group(1)) and
              os.path.exists(os.path.join(out2, "histogram.csv")),
              f"record --keep: the analysis, and the dump kept ({m.group(1) if m else p.stderr[-300:]})")
    finally:
        jvm.kill()
        jvm.wait()
        wd.cleanup()


def telemetry_at(base):
    """The agent time (s) of the last telemetry reading, as `status` says."""
    p = control(["--ipc", base], "status")
    m = re.search(r"heap used \d+ bytes.*\(at ([\d.]+) s\)", p.stdout)
    return float(m.group(1)) if m else 0.0


def heap_used(base):
    p = control(["--ipc", base], "status")
    m = re.search(r"heap used (\d+) bytes", p.stdout)
    return int(m.group(1)) if m else 0


def disk_short():
    """The agent's directory on an 8 MiB tmpfs, a heap of ~30 MB: refused
    before the dump, naming both figures."""
    wd = Workdir("dump-disk")
    small = wd.file("small")
    os.mkdir(small)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", small],
                       capture_output=True, text=True)
    if m.returncode != 0:
        # the only honest way to a full disk here is a small filesystem
        check(os.geteuid() != 0 and not os.environ.get("CI"),
              f"disk: cannot mount a small tmpfs ({m.stderr.strip()}); not root, so not tested")
        wd.cleanup()
        return
    facts = wd.file("facts")
    base = os.path.join(small, "jvm")
    jvm = None
    try:
        jvm, ok = start_and_wait("DumpWorkload", [facts, 1_000_000, 300], f"ipc={base}",
                                 ["-Xmx512m"], facts)
        check(ok and wait_agent(jvm, base), "disk: the agent listens on the small tmpfs")
        # the agent compares with its last telemetry reading: one after the build
        check(wait_for(lambda: heap_used(base) >= 24_000_000, 30, 0.2, what="a reading of the "
                       "built heap"), "disk: the agent has read the built heap's used bytes")
        p = control(["--ipc", base], "heapdump")
        vs = os.statvfs(small)
        free = vs.f_bavail * vs.f_frsize
        print(p.stderr.strip())
        r = re.search(r"has \S+ \S+ free \((\d+) bytes\), less than the heap uses, \S+ \S+ \((\d+) bytes\)",
                      p.stderr)
        check(p.returncode == 1 and "not enough disk space" in p.stderr and r,
              f"disk: refused for lack of disk space ({p.returncode})")
        if r:
            said_free, said_used = int(r.group(1)), int(r.group(2))
            check(abs(said_free - free) <= 1 << 20, f"disk: the free space named ({said_free:,}) "
                  f"is the filesystem's ({free:,})")
            check(said_used >= 1_000_000 * 24 > free, f"disk: the heap's used bytes named "
                  f"({said_used:,}) hold the 24,000,000 bytes of items")
        check(not glob.glob(base + ".dumps/*"), "disk: no file was started")
        p = control(["--ipc", base], "status")
        check(p.returncode == 0 and "heap dump" not in p.stdout,
              "disk: the agent is not busy after the refusal")
        # room for the heap's used bytes but not for the dump (HPROF takes ~1.7x the
        # heap here): the check passes, the JVM fails mid-way, nothing is left
        used = heap_used(base)
        size = (used * 13 // 10) >> 20 << 20
        m = subprocess.run(["mount", "-o", f"remount,size={size}", small], capture_output=True,
                           text=True)
        check(m.returncode == 0, f"disk: the tmpfs grown to {size:,} bytes ({m.stderr.strip()})")
        p = control(["--ipc", base], "heapdump")
        print(p.stderr.strip())
        check(p.returncode == 1 and "heap dump 1 failed" in p.stderr and
              "No space left on device" in p.stderr,
              "disk: a dump that fills the disk fails with the JVM's reason")
        check(not glob.glob(base + ".dumps/*"), f"disk: its partial file is removed "
              f"({glob.glob(base + '.dumps/*')})")
        vs = os.statvfs(small)
        check((vs.f_blocks - vs.f_bfree) * vs.f_frsize < 1 << 20, "disk: the space is free again")
        p = control(["--ipc", base], "status")
        check(p.returncode == 0 and "last heap dump 1 failed" in p.stdout,
              f"disk: status says the last dump failed ({p.returncode}: "
              f"{(p.stdout + p.stderr).strip().splitlines()[-2:]})")
    finally:
        if jvm:
            jvm.kill()
            jvm.wait()
        subprocess.run(["umount", small], capture_output=True)
        wd.cleanup()


by_pid()
record_heap()
disk_short()
while_dumping()
finish()
