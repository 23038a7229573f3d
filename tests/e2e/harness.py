"""Helpers for heaptop's end-to-end tests: real JVMs with the real agent, the
real heaptop binary, real nng sockets. Paths come from the environment that
ctest sets (see tests/CMakeLists.txt)."""
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

AGENT = os.environ["HEAPTOP_AGENT"]
HEAPTOP = os.environ["HEAPTOP_BIN"]
JAR = os.environ["HEAPTOP_JAR"]
JAVA = os.environ.get("JAVA", "java")
GC = os.environ.get("HEAPTOP_GC", "G1GC")  # the collector the JVMs run with
JAVA_SRC = os.path.join(os.path.dirname(__file__), "..", "java")

failures = []
checks = []


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


def start_jvm(main, args, agent_opts=None, jvm_flags=(), stdout=None, stderr=None):
    cmd = [JAVA, f"-XX:+Use{GC}", *jvm_flags]
    if agent_opts is not None:
        cmd.append(f"-agentpath:{AGENT}" + (f"={agent_opts}" if agent_opts else ""))
    cmd += ["-cp", JAR, main, *map(str, args)]
    return subprocess.Popen(cmd, stdout=stdout or subprocess.PIPE, stderr=stderr or subprocess.PIPE,
                            text=True)


def wait_for(pred, timeout=30, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return False


def wait_socket(base, timeout=30):
    return wait_for(lambda: os.path.exists(base + ".ctl"), timeout)


def start_record(base, outdir, *extra):
    return subprocess.Popen([HEAPTOP, "record", "--ipc", base, "--out", outdir, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, [dict(zip(header, r)) for r in body], rows


def read_facts(path):
    facts = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            facts[k] = int(v)
    return facts


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
    rec = start_record(wd.base, out)
    time.sleep(1.0)  # the viewer connects and syncs well within this
    touch(go)
    rout, rerr = rec.communicate(timeout=timeout)
    jout, jerr = jvm.communicate(timeout=60)
    return {
        "jvm_rc": jvm.returncode, "jvm_err": jerr, "jvm_out": jout,
        "rec_rc": rec.returncode, "rec_out": rout, "rec_err": rerr,
        "facts": read_facts(facts) if os.path.exists(facts) else {},
        "sites": read_csv(os.path.join(out, "sites.csv"))[1] if os.path.exists(os.path.join(out, "sites.csv")) else [],
        "classes": read_csv(os.path.join(out, "classes.csv"))[1] if os.path.exists(os.path.join(out, "classes.csv")) else [],
        "telemetry": read_csv(os.path.join(out, "telemetry.csv"))[1] if os.path.exists(os.path.join(out, "telemetry.csv")) else [],
        "out": out,
    }


def sites_at(sites, frame_prefix, cls=None):
    return [s for s in sites if s["frame"].startswith(frame_prefix) and (cls is None or s["class"] == cls)]


def fnum(s, key):
    return float(s[key]) if s[key] != "" else 0.0
