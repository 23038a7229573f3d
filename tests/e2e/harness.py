"""Helpers for heaptop's end-to-end tests: real JVMs with the real agent, the
real heaptop binary, real nng sockets. Paths come from the environment that
ctest sets (see tests/CMakeLists.txt)."""
import atexit
import csv
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

AGENT = os.environ["HEAPTOP_AGENT"]
HEAPTOP = os.environ["HEAPTOP_BIN"]
JAR = os.environ["HEAPTOP_JAR"]
JAVA = os.environ.get("JAVA", "java")
GC = os.environ.get("HEAPTOP_GC", "G1GC")  # the collector the JVMs run with
JAVA_SRC = os.path.join(os.path.dirname(__file__), "..", "java")

failures = []
checks = []


def java_version(java=None):
    """The feature release (17, 25, ...) of a java launcher, from `java -version`."""
    java = java or JAVA
    p = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    m = re.search(r'version "(\d+)(?:\.(\d+))?', p.stderr)
    if not m:
        raise RuntimeError(f"cannot tell the version of {java}: {p.stderr.strip()[:200]}")
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 else major


# Which JDK this test runs on goes into its output, so a log says what ran.
print(f"harness: JAVA={JAVA} (JDK {java_version()}), collector {GC}", flush=True)


def check(cond, what):
    """Record one assertion; the test goes on so every failure is listed."""
    checks.append(what)
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def finish():
    print(f"{len(checks) - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


class Workdir:
    """A private (0700) scratch directory holding sockets, signals and CSVs."""

    def __init__(self, name):
        self.path = tempfile.mkdtemp(prefix=f"heaptop-{name}-")
        os.chmod(self.path, 0o700)
        self.base = os.path.join(self.path, "jvm")

    def file(self, name):
        return os.path.join(self.path, name)

    def cleanup(self):
        shutil.rmtree(self.path, ignore_errors=True)


def site_line(java_file, marker):
    """Line number of the `// SITE:marker` comment in a workload source."""
    with open(os.path.join(JAVA_SRC, java_file)) as f:
        for i, line in enumerate(f, 1):
            if f"// SITE:{marker}" in line:
                return i
    raise KeyError(marker)


def start_jvm(main, args, agent_opts=None, jvm_flags=(), stdout=None, stderr=None, gc=None):
    """A JVM running tests/java's MAIN, with the agent when agent_opts is not
    None; gc names a collector for a test that needs one (SerialGC), else
    HEAPTOP_GC's."""
    cmd = [JAVA, f"-XX:+Use{gc or GC}", *jvm_flags]
    if agent_opts is not None:
        cmd.append(f"-agentpath:{AGENT}" + (f"={agent_opts}" if agent_opts else ""))
    cmd += ["-cp", JAR, main, *map(str, args)]
    return subprocess.Popen(cmd, stdout=stdout or subprocess.PIPE, stderr=stderr or subprocess.PIPE,
                            text=True)


def wait_for(pred, timeout=30, step=0.05, what=None):
    """Poll pred until it is true or the deadline passes. With `what`, a
    missed deadline is printed naming the condition that never came."""
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    if pred():
        return True
    if what:
        print(f"deadline: {what} did not happen within {timeout} s", flush=True)
    return False


def count_rel_se(samples, size=0, interval=524288):
    """Relative standard error of an estimated count from `samples` samples of
    objects of `size` bytes: each object is sampled with p = 1 - exp(-size/I),
    so the count estimate n_hat has Var = n (1 - p) / p and a relative error of
    sqrt((1 - p) / (n p)) = sqrt((1 - p) / samples). For objects much smaller
    than the interval p -> 0 and this is the Poisson 1/sqrt(samples)."""
    p = -math.expm1(-size / interval) if size and interval else 0.0
    return math.sqrt((1 - p) / max(samples, 1))


def sum_rel_se(rows, total, key="est_bytes", interval=524288):
    """Relative standard error of a sum of independent site estimates: each row
    of equal-size objects contributes (its estimate)^2 (1 - p) / samples."""
    var = 0.0
    for r in rows:
        n = int(r["samples"])
        if n <= 0:
            continue
        v = float(r[key])
        size = float(r["est_bytes"]) / float(r["est_instances"]) if float(r["est_instances"]) else 0
        p = -math.expm1(-size / interval) if size else 0.0
        var += v * v * (1 - p) / n
    return math.sqrt(var) / total if total else 1.0


def wait_socket(base, timeout=30):
    return wait_for(lambda: os.path.exists(base + ".ctl"), timeout)


def wait_agent(jvm, base, timeout=60):
    """The agent's socket appears; False at once (saying why) if the JVM exits first."""
    wait_for(lambda: os.path.exists(base + ".ctl") or jvm.poll() is not None, timeout,
             what="the agent's socket")
    if os.path.exists(base + ".ctl"):
        return True
    if jvm.poll() is not None:
        err = jvm.stderr.read() if jvm.stderr else ""
        print(f"the JVM exited ({jvm.returncode}) before its agent listened: {err.strip()[-400:]}")
    return False


def start_record(base, outdir, *extra):
    return subprocess.Popen([HEAPTOP, "record", "--ipc", base, "--out", outdir, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Viewer:
    """`heaptop record` in the background, its stderr read line by line as it
    comes, so a test can wait for what it says (connected, mark begun, ...)."""

    def __init__(self, base, outdir, *extra, env=None):
        self.out = outdir
        self.p = subprocess.Popen([HEAPTOP, "record", "--ipc", base, "--out", outdir, *extra],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        self.pid = self.p.pid
        self.lines, self.stdout = [], []
        self.lock = threading.Lock()
        self.readers = [threading.Thread(target=self._read, args=(self.p.stderr, self.lines),
                                         daemon=True),
                        threading.Thread(target=self._read, args=(self.p.stdout, self.stdout),
                                         daemon=True)]
        for t in self.readers:
            t.start()

    def _read(self, stream, into):
        for line in stream:
            with self.lock:
                into.append(line)

    def err(self):
        with self.lock:
            return "".join(self.lines)

    def wait_line(self, needle, timeout=30):
        """The first stderr line holding `needle`, or None when record ended
        without it or the deadline passed (then say which)."""
        end = time.time() + timeout
        while True:
            with self.lock:
                hit = next((l for l in self.lines if needle in l), None)
            if hit is not None:
                return hit
            if self.p.poll() is not None and not self.readers[0].is_alive():
                with self.lock:
                    hit = next((l for l in self.lines if needle in l), None)
                if hit is None:
                    print(f"record exited ({self.p.returncode}) without saying '{needle}': "
                          f"{self.err().strip()[-300:]}", flush=True)
                return hit
            if time.time() > end:
                print(f"deadline: record did not say '{needle}' within {timeout} s", flush=True)
                return None
            time.sleep(0.02)

    def connected(self, timeout=30):
        """record prints 'recording pid N' once it has synced with the agent."""
        return self.wait_line("heaptop record: recording pid", timeout) is not None

    def signal(self, sig):
        self.p.send_signal(sig)

    def finish(self, timeout=60):
        """Wait for record to end; returns (exit code, stdout, stderr)."""
        self.p.wait(timeout=timeout)
        for t in self.readers:
            t.join(timeout=10)
        with self.lock:
            return self.p.returncode, "".join(self.stdout), "".join(self.lines)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def read_out(out):
    """The four files of a recording (empty lists for a file that is missing)."""
    def rows(name):
        path = os.path.join(out, name)
        return read_csv(path)[1] if os.path.exists(path) else []
    return {"sites": rows("sites.csv"), "classes": rows("classes.csv"),
            "telemetry": rows("telemetry.csv"), "summary": rows("summary.csv"), "out": out}


def snapshot(base, out, timeout=30):
    """The agent's state now, as `heaptop record` writes it: connect (a full
    sync), then Ctrl-C, which ends with one more sync and writes the files.
    Returns read_out(out) plus record's exit code and stderr."""
    v = Viewer(base, out, "--top", "0")
    ok = v.connected(timeout)
    if ok:
        v.signal(signal.SIGINT)
    else:
        v.kill()
    rc, _, err = v.finish(timeout)
    r = read_out(out)
    r.update(rc=rc if ok else None, err=err)
    return r


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, [dict(zip(header, r)) for r in body], rows


def need_jcmd():
    """The jcmd next to the JVM (or on PATH); a test without one is skipped."""
    path = os.path.join(os.path.dirname(os.path.realpath(JAVA)), "jcmd")
    if not os.path.exists(path):
        path = shutil.which("jcmd")
    if not path:
        print("no jcmd next to the JVM")
        sys.exit(77)
    return path


def need_tmux():
    """The TUI tests drive heaptop in tmux; a test without one is skipped."""
    if not shutil.which("tmux"):
        print("tmux is not installed")
        sys.exit(77)


def jcmd(pid, *args, timeout=120):
    """jcmd PID ARGS...: its output, or RuntimeError with what it said."""
    p = subprocess.run([need_jcmd(), str(pid), *args], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"jcmd {' '.join(args)}: {p.stdout.strip()[-300:]} "
                           f"{p.stderr.strip()[-300:]}")
    return p.stdout


def class_histogram(pid, rename=None):
    """jcmd GC.class_histogram as {class: (instances, bytes)}, two loaders'
    classes of one name summed; rename maps a name to the one to count it as."""
    h = {}
    for line in jcmd(pid, "GC.class_histogram").splitlines():
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m:
            k = (rename or {}).get(m.group(3), m.group(3))
            i, b = h.get(k, (0, 0))
            h[k] = (i + int(m.group(1)), b + int(m.group(2)))
    return h


def read_facts(path):
    facts = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            facts[k] = int(v)
    return facts


def as_user(pw):
    """A preexec_fn: become pw's user (its group, no supplementary groups),
    to start a JVM or run heaptop as another user (tests run as root)."""
    def become():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    return become


def need_root(why):
    """A test that needs root (to create a second user, to act as it) is
    skipped elsewhere, saying why; CI runs as root, where it must run."""
    if os.geteuid() != 0:
        print(f"skipped: needs root ({why})", flush=True)
        sys.exit(77)


class LocalUser:
    """A second local user the test creates (useradd, no home, no login) and
    removes when the test exits, whatever the way out: the attacker of the
    security tests. .pw is its passwd entry; .run() and .popen() run a command
    as it (its own group, no supplementary groups). Needs root."""

    def __init__(self, prefix="htx"):
        import pwd
        need_root("a second local user is created for the test")
        self.name = f"{prefix}{os.getpid() % 100000}"
        subprocess.run(["userdel", self.name], capture_output=True)
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--user-group", self.name], check=True, capture_output=True)
        atexit.register(self.remove)
        self.pw = pwd.getpwnam(self.name)
        self.uid, self.gid = self.pw.pw_uid, self.pw.pw_gid

    def remove(self):
        subprocess.run(["pkill", "-KILL", "-u", self.name], capture_output=True)
        subprocess.run(["userdel", self.name], capture_output=True)

    def popen(self, args, **kw):
        return subprocess.Popen(args, preexec_fn=as_user(self.pw), **kw)

    def run(self, args, timeout=60, **kw):
        return subprocess.run(args, preexec_fn=as_user(self.pw), capture_output=True,
                              text=True, timeout=timeout, **kw)


def service_jvm(prefix, name):
    """The set-up of a service-account test (needs root and tmux, skipped
    without): a second local user (LocalUser(prefix)) runs LeakWorkload
    without the agent, started as a service is, in /tmp and with no
    XDG_RUNTIME_DIR; root's 0700 Workdir(name) holds an empty 0700 directory
    `exports` that user cannot enter. The JVM is stopped when the test exits.
    Returns (user, workdir, exports, env without XDG_RUNTIME_DIR, jvm)."""
    need_root("the service account is a second local user")
    need_tmux()
    svc = LocalUser(prefix)
    wd = Workdir(name)
    exports = wd.file("exports")
    os.mkdir(exports, 0o700)
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    jvm = svc.popen([JAVA, f"-XX:+Use{GC}", "-cp", JAR, "LeakWorkload", "300"], cwd="/tmp",
                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop_at_exit(jvm)
    return svc, wd, exports, env, jvm


_stop_at_exit = []


def stop_jvm(jvm):
    """A normal exit (SIGTERM), then SIGKILL after 10 s: a JVM killed with
    SIGKILL leaves its attach socket in /tmp, where a later JVM of another
    user with the same pid meets it (test_attach_stale_socket). Returns what
    communicate() does."""
    jvm.terminate()
    try:
        return jvm.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        jvm.kill()
        return jvm.communicate(timeout=30)


def end_tui(t, jvm=None, wd=None, stop=False):
    """The end of a TUI test, in its finally: the terminal t killed, the JVM
    killed if it still runs (stop: stopped with stop_jvm instead, a normal
    exit first), then wd removed. Any of them may be None."""
    if t:
        t.kill()
    if jvm and stop:
        stop_jvm(jvm)
    elif jvm and jvm.poll() is None:
        jvm.kill()
        jvm.wait()
    if wd:
        wd.cleanup()


def stop_at_exit(jvm):
    """Stop jvm (stop_jvm) when the test exits, after an exception too: one left
    running would show in later tests' lists of JVMs."""
    _stop_at_exit.append(jvm)
    return jvm


@atexit.register
def _stop_leftovers():
    for j in _stop_at_exit:
        if j.poll() is None:
            stop_jvm(j)


def touch(path):
    open(path, "w").close()


def run_recorded(wd, main, agent_opts, jvm_flags=(), timeout=180):
    """Start `main GO FACTS` under the agent, attach `heaptop record`, give the go
    signal once the viewer is in, and wait for both to finish."""
    go, facts = wd.file("go"), wd.file("facts")
    jvm = start_jvm(main, [go, facts], agent_opts=f"ipc={wd.base}," + agent_opts if agent_opts
                    else f"ipc={wd.base}", jvm_flags=jvm_flags)
    if not wait_socket(wd.base):
        jvm.kill()
        raise RuntimeError("agent socket never appeared: " + jvm.communicate()[1])
    out = wd.file("out")
    rec = Viewer(wd.base, out)
    # the go signal only once the viewer has synced: it sees the whole workload
    if not rec.connected(60):
        rec.kill()
        jvm.kill()
        raise RuntimeError("heaptop record never connected: " + rec.err())
    touch(go)
    rec_rc, rout, rerr = rec.finish(timeout)
    jout, jerr = jvm.communicate(timeout=60)
    r = read_out(out)
    r.update({
        "jvm_rc": jvm.returncode, "jvm_err": jerr, "jvm_out": jout, "jvm_pid": jvm.pid,
        "rec_rc": rec_rc, "rec_out": rout, "rec_err": rerr,
        "facts": read_facts(facts) if os.path.exists(facts) else {},
    })
    return r


def sites_at(sites, frame_prefix, cls=None):
    return [s for s in sites if s["frame"].startswith(frame_prefix) and (cls is None or s["class"] == cls)]


def fnum(s, key):
    return float(s[key]) if s[key] != "" else 0.0
