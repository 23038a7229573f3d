"""heaptop record: clear failures, and data kept when the JVM dies."""
import signal
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("recerr")
# 1. No socket there.
p = subprocess.run([HEAPTOP, "record", "--ipc", wd.file("nothing"), "--out", wd.file("o1")],
                   capture_output=True, text=True, timeout=30)
check(p.returncode != 0 and "no heaptop agent at" in p.stderr, f"missing socket: {p.stderr.strip()}")
p = subprocess.run([HEAPTOP, "record", "12ab"], capture_output=True, text=True, timeout=30)
check(p.returncode != 0 and "not a process id" in p.stderr, f"bad pid: {p.stderr.strip()}")
p = subprocess.run([HEAPTOP, "record", "--ipc", "x", "--seconds", "abc"], capture_output=True, text=True)
check(p.returncode == 2 and "--seconds" in p.stderr, "bad --seconds is a usage error")

# 2. An agent speaking another protocol version.
fake = subprocess.Popen([os.environ["HEAPTOP_FAKE_AGENT"], wd.file("fake"), "99", "20"])
wait_socket(wd.file("fake"))
p = subprocess.run([HEAPTOP, "record", "--ipc", wd.file("fake"), "--out", wd.file("o2"), "--timeout", "5000"],
                   capture_output=True, text=True, timeout=30)
fake.kill()
check(p.returncode != 0 and "version 99" in p.stderr and "version 1" in p.stderr,
      f"version mismatch named: {p.stderr.strip()}")

# 3. A JVM that does not answer (stopped) before sync.
jvm = start_jvm("StressWorkload", [1, 30000, 0], agent_opts=f"ipc={wd.base}")
wait_socket(wd.base)
time.sleep(0.5)
jvm.send_signal(signal.SIGSTOP)
p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--out", wd.file("o3"), "--timeout", "1500"],
                   capture_output=True, text=True, timeout=30)
check(p.returncode != 0 and "did not answer" in p.stderr, f"stopped JVM: {p.stderr.strip()}")
jvm.send_signal(signal.SIGCONT)
jvm.kill()
jvm.communicate()

# 4. The JVM is killed mid-recording: what arrived is still written.
base2 = wd.file("jvm2")
jvm = start_jvm("StressWorkload", [1, 30000, 0], agent_opts=f"ipc={base2}")
wait_socket(base2)
rec = start_record(base2, wd.file("o4"))
time.sleep(2.5)
jvm.kill()
jvm.communicate()
out, err = rec.communicate(timeout=30)
check(rec.returncode == 0, f"record exits 0 after the JVM died ({err.strip()[-200:]})")
check("without a goodbye" in err, "record says the JVM went away")
if os.path.exists(wd.file("o4/sites.csv")):
    _, rows, _ = read_csv(wd.file("o4/sites.csv"))
    check(len(rows) > 0, f"sites.csv still written with {len(rows)} rows")
    _, tel, _ = read_csv(wd.file("o4/telemetry.csv"))
    check(len(tel) >= 2, f"telemetry.csv still written with {len(tel)} rows")
else:
    check(False, "sites.csv written after the JVM died")

# 5. Socket files left by a JVM killed with SIGKILL: told at once, no timeout.
if os.path.exists(base2 + ".ctl"):
    t0 = time.time()
    p = subprocess.run([HEAPTOP, "record", "--ipc", base2, "--out", wd.file("o5")],
                       capture_output=True, text=True, timeout=30)
    took = time.time() - t0
    check(p.returncode == 1 and f"removed stale socket files at {base2}" in p.stderr and took < 2,
          f"stale socket files removed and named in {took:.2f} s: {p.stderr.strip()}")
    check(not os.path.exists(base2 + ".ctl") and not os.path.exists(base2 + ".events"),
          "the stale .ctl and .events files are gone")
else:
    check(False, "a SIGKILLed JVM leaves its socket files (the case to test)")
wd.cleanup()
finish()
