"""The CPU budget on a quiet JVM: QuietWorkload allocates about 200 KiB a
second in short bursts and sleeps, so the process's whole CPU is a few
milliseconds a second and the agent's fixed costs (its wake-ups, telemetry,
the periodic sweep) are a large share of it. No interval can lower those, so
the budget must leave the interval at the configured 512 KiB (it once climbed
to its 32 MiB ceiling, sampling all but stopped); and the quiet site is still
sampled. The truth for the rate: the VM's own allocated bytes (telemetry)."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("quiet")
stop, out = wd.file("stop"), wd.file("out")
jvm = start_jvm("QuietWorkload", [120000, stop], agent_opts=f"ipc={wd.base}")
check(wait_agent(jvm, wd.base), "the agent listens (default options: budget 1%)")
r = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "15", "--out", out,
                    "--top", "0"], capture_output=True, text=True, timeout=120)
touch(stop)
jvm.communicate(timeout=60)
check(r.returncode == 0, f"record ran ({r.stderr.strip()[-160:]})")
tel = read_csv(os.path.join(out, "telemetry.csv"))[1]
check(len(tel) >= 10, f"telemetry over the run ({len(tel)} rows)")
rate = (int(tel[-1]["alloc_bytes"]) - int(tel[0]["alloc_bytes"])) / max(
    (int(tel[-1]["t_ms"]) - int(tel[0]["t_ms"])) / 1000, 1)
check(rate < 2 * 1024 * 1024, f"the JVM is quiet: {rate / 1024:.0f} KiB/s allocated")
raised = [(t["t_ms"], t["interval"]) for t in tel if int(t["interval"]) != 512 * 1024]
check(not raised, f"the interval stays at 512 KiB throughout (raised: {raised[:4]})")
sites = read_csv(os.path.join(out, "sites.csv"))[1]
line = site_line("QuietWorkload.java", "request")
check(any(s["frame"] == f"QuietWorkload.main:{line}" for s in sites),
      "the quiet site is sampled")
wd.cleanup()
finish()
