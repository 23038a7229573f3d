"""heaptop record: clear failures before any work starts, and data kept when
the JVM dies or the output directory fails at the end."""
import signal
import stat
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403


def record(*args, env=None, timeout=30):
    t0 = time.time()
    try:
        p = subprocess.run([HEAPTOP, "record", *args], capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        p = subprocess.CompletedProcess(e.cmd, None, "", f"(still running after {timeout} s)")
    p.took = time.time() - t0
    return p


def one_line(p):
    return len(p.stderr.strip().splitlines()) == 1


wd = Workdir("recerr")
# 0. Mistyped options: one line naming the option, exit 2, for record and the TUI alike.
for args, want in ((("--bogus", "1"), "'--bogus' is not an option"),
                   (("--seconds",), "'--seconds' needs a value"),
                   (("-x",), "'-x' is not an option")):
    p = record(*args)
    check(p.returncode == 2 and one_line(p) and want in p.stderr,
          f"record {' '.join(args)}: one line, exit 2 ({p.returncode}: {p.stderr.strip()})")
p = subprocess.run([HEAPTOP, "--intervall", "64k", "1"], capture_output=True, text=True, timeout=30)
check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and
      "unknown option '--intervall'" in p.stderr,
      f"heaptop --intervall: one line naming it, exit 2 ({p.returncode}: {p.stderr.strip()[:120]})")
t0 = time.time()
key = wd.file("some.key")  # any key: nobody is there to prove it to
with open(key, "w") as f:
    f.write("0123456789abcdef" * 4 + "\n")
os.chmod(key, 0o600)
p = record("--ipc", "tcp://127.0.0.1:1", "--key", key, "--seconds", "1", "--out", wd.file("otcp"))
check(p.returncode == 1 and one_line(p) and "Connection refused" in p.stderr and p.took < 3,
      f"a TCP endpoint nobody listens on: said at once ({p.took:.2f} s: {p.stderr.strip()})")
# 1. No socket there.
p = record("--ipc", wd.file("nothing"), "--out", wd.file("o1"))
check(p.returncode != 0 and "no heaptop agent at" in p.stderr, f"missing socket: {p.stderr.strip()}")
check(not os.path.exists(wd.file("o1")), "nothing created for a command that cannot run")

# Bad numbers: one line naming the option and the value, exit 2, at once.
for opt, val in (("--seconds", "99999999999999999999"), ("--seconds", "1.5"), ("--seconds", "-1"),
                 ("--seconds", "abc"), ("--seconds", ""), ("--seconds", "31536001"),
                 ("--top", "1e3"), ("--top", "-1"), ("--top", "99999999999999999999"),
                 ("--timeout", "0"), ("--timeout", "2.5"), ("--timeout", "3600001")):
    p = record("--ipc", wd.file("nothing"), opt, val)
    check(p.returncode == 2 and f"bad {opt} '{val}'" in p.stderr and one_line(p),
          f"{opt} {val!r} refused: {p.stderr.strip()}")
p = record("--ipc", wd.file("nothing"), "--seconds", "31536000", "--top", "0", "--timeout", "1")
check(p.returncode == 1 and "bad" not in p.stderr, "the largest --seconds, --top 0, --timeout 1 are accepted")

# Bad process ids, and one that no process has.
for bad in ("12ab", "99999999999999999999", "0", "1.5", "2147483648"):
    p = record(bad)
    check(p.returncode == 2 and p.stderr.strip() == f"heaptop record: '{bad}' is not a process id",
          f"bad pid {bad!r}: {p.stderr.strip()}")
free = next(n for n in range(4_000_000, 3_000_000, -1) if not os.path.exists(f"/proc/{n}"))
p = record(str(free), "--timeout", "3600000")
# "at once": record gave its own answer and did not wait to connect (with an
# hour's --timeout, a wait would end in the subprocess deadline instead)
check(p.returncode == 1 and f"no process with pid {free}" in p.stderr and one_line(p),
      f"no such process, said without waiting ({p.took:.2f} s): {p.stderr.strip()}")

# 2. An agent speaking another protocol version.
fake = subprocess.Popen([os.environ["HEAPTOP_FAKE_AGENT"], wd.file("fake"), "99", "20"])
wait_socket(wd.file("fake"))
p = record("--ipc", wd.file("fake"), "--out", wd.file("o2"), "--timeout", "5000")
fake.kill()
with open(os.path.join(os.path.dirname(__file__), "..", "..", "common", "protocol.h")) as f:
    VERSION = int(re.search(r"#define HT_PROTOCOL_VERSION (\d+)", f.read()).group(1))
check(p.returncode != 0 and "version 99" in p.stderr
      and f"this heaptop speaks version {VERSION}" in p.stderr,
      f"version mismatch named: {p.stderr.strip()}")

# 3. A JVM that does not answer (stopped) before sync.
def answers(base):
    return subprocess.run([HEAPTOP, "control", "--ipc", base, "status"], capture_output=True,
                          text=True, timeout=60).returncode == 0


jvm = start_jvm("StressWorkload", [1, 600000, 0], agent_opts=f"ipc={wd.base}")
check(wait_socket(wd.base) and wait_for(lambda: answers(wd.base), 60, what="the agent answering"),
      "the agent answers before the JVM is stopped")
jvm.send_signal(signal.SIGSTOP)
p = record("--ipc", wd.base, "--out", wd.file("o3"), "--timeout", "1500", "--seconds", "5")
check(p.returncode != 0 and "did not answer" in p.stderr, f"stopped JVM: {p.stderr.strip()}")
jvm.send_signal(signal.SIGCONT)

# --out: checked before connecting, one line, exit 2 (the JVM above is live again).
afile = wd.file("afile")
touch(afile)
for out, says in ((afile, "is a regular file, not a directory"),
                  (os.path.join(afile, "sub"), "is a regular file, not a directory"),
                  ("/sys", "cannot write in '/sys'")):
    p = record("--ipc", wd.base, "--out", out, "--seconds", "20")
    check(p.returncode == 2 and says in p.stderr and one_line(p) and "recording pid" not in p.stderr,
          f"--out {out} refused before recording ({p.took:.1f} s): {p.stderr.strip()}")
# a nested directory that does not exist yet is created (mkdir -p)
nested = wd.file("new/a/b")
p = record("--ipc", wd.base + ".ctl", "--out", nested, "--seconds", "1", "--top", "0")
check(p.returncode == 0 and all(os.path.exists(os.path.join(nested, f)) for f in
                                ("sites.csv", "classes.csv", "telemetry.csv", "summary.csv")),
      f"--out {nested} created, --ipc PATH.ctl accepted: {p.stderr.strip()[-200:]}")

# The output directory fails at the end (here: replaced by a file while recording):
# nothing is lost, everything goes to a private fallback directory, exit 1.
tmp = wd.file("tmp")
os.mkdir(tmp)
gone = wd.file("o6")
rec = subprocess.Popen([HEAPTOP, "record", "--ipc", wd.base, "--out", gone, "--seconds", "2", "--top", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env={**os.environ, "TMPDIR": tmp})
first = rec.stderr.readline()
check("recording pid" in first and gone in first, f"record says it started: {first.strip()}")
shutil.rmtree(gone)
touch(gone)
_, err = rec.communicate(timeout=30)
err = first + err
m = re.search(r"saved the recording in (\S+) instead", err)
saved = m.group(1) if m else ""
check(rec.returncode == 1 and m is not None and saved.startswith(tmp + "/heaptop-record-")
      and f"could not write to {gone}" in err, f"fallback named: {err.strip()[-300:]}")
if saved:
    check(stat.S_IMODE(os.stat(saved).st_mode) == 0o700, "the fallback directory is private (0700)")
    check(str(jvm.pid) in os.path.basename(saved), "its name carries the pid")
    _, rows, _ = read_csv(os.path.join(saved, "sites.csv"))
    _, summ, _ = read_csv(os.path.join(saved, "summary.csv"))
    check(len(rows) > 0 and len(summ) == 1 and os.path.exists(os.path.join(saved, "telemetry.csv"))
          and os.path.exists(os.path.join(saved, "classes.csv")), "every file is in the fallback directory")
jvm.kill()
jvm.communicate()

# 4. The JVM is killed mid-recording: what arrived is still written.
base2 = wd.file("jvm2")
jvm = start_jvm("StressWorkload", [1, 600000, 0], agent_opts=f"ipc={base2}")
wait_socket(base2)
rec = Viewer(base2, wd.file("o4"))
check(rec.connected(60), "record connected")
# Agent time after record synced: rows past it can only reach record by the stream.
since = int(snapshot(base2, wd.file("o4a"))["summary"][0]["start_ms"])
n = [0]


def streamed_rows():
    n[0] += 1
    tel = snapshot(base2, wd.file(f"o4b{n[0]}"))["telemetry"]
    return len([t for t in tel if int(t["t_ms"]) > since]) >= 2


check(wait_for(streamed_rows, 60, step=0.2, what="two telemetry records after record synced"),
      "the agent published two telemetry records while record followed")
jvm.kill()
jvm.communicate()
rc, out, err = rec.finish(30)
check(rc == 0, f"record exits 0 after the JVM died ({err.strip()[-200:]})")
check("without a goodbye" in err, "record says the JVM went away")
if os.path.exists(wd.file("o4/sites.csv")):
    _, rows, _ = read_csv(wd.file("o4/sites.csv"))
    check(len(rows) > 0, f"sites.csv still written with {len(rows)} rows")
    _, tel, _ = read_csv(wd.file("o4/telemetry.csv"))
    late = [t for t in tel if int(t["t_ms"]) > since]
    check(len(late) >= 2, f"telemetry.csv holds the {len(late)} records streamed after the sync")
    _, summ, _ = read_csv(wd.file("o4/summary.csv"))
    check(len(summ) == 1 and int(summ[0]["start_ms"]) <= since
          and late and int(summ[0]["end_ms"]) >= int(late[-1]["t_ms"]),
          f"summary.csv spans the recording: {summ[0]['start_ms']}..{summ[0]['end_ms']} ms" if summ else "summary.csv")
else:
    check(False, "sites.csv written after the JVM died")

# 5. Socket files left by a JVM killed with SIGKILL: removed and said, no waiting.
if os.path.exists(base2 + ".ctl"):
    p = record("--ipc", base2, "--out", wd.file("o5"), "--timeout", "3600000")
    # named without trying the dead sockets: with an hour's --timeout a try
    # would end in the subprocess deadline, not in this one line
    check(p.returncode == 1 and f"removed stale socket files at {base2}" in p.stderr
          and one_line(p), f"stale socket files removed and named ({p.took:.2f} s): {p.stderr.strip()}")
    check(not os.path.exists(base2 + ".ctl") and not os.path.exists(base2 + ".events"),
          "the stale .ctl and .events files are gone")
else:
    check(False, "a SIGKILLed JVM leaves its socket files (the case to test)")
wd.cleanup()
finish()
