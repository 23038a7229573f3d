"""The CPU budget on a quiet JVM: QuietWorkload allocates about 200 KiB a
second in short bursts and sleeps, so the process's whole CPU is a few
milliseconds a second and the agent's fixed costs (its wake-ups, telemetry,
the periodic sweep) are a large share of it. No interval can lower those, so
the budget must leave the interval at the configured 512 KiB (it once climbed
to its 32 MiB ceiling, sampling all but stopped); and the quiet site is still
sampled. The truth for the rate: the VM's own allocated bytes (telemetry).

Then the same JVM at interval=16k with a budget of 0.02%: about 12 samples a
second, whose cost (~0.2 ms a second) is 0.08% of even a quarter of a core,
four times that budget, but far under the 1 ms a second below which sampling
is too cheap to be worth fewer samples (budget.h, HT_BUDGET_MIN_COST_NS): the
interval must stay at 16 KiB (it rose to 56, 88, then 158 KiB before). Both
runs: telemetry.csv gives the agent's CPU in ms a second beside its share,
and on an idle JVM that is a few ms, whatever the share says."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403


def run(name, opts, seconds):
    """QuietWorkload under `opts`, recorded for `seconds`: telemetry.csv and sites.csv rows."""
    wd = Workdir(name)
    stop, out = wd.file("stop"), wd.file("out")
    jvm = start_jvm("QuietWorkload", [120000, stop], agent_opts=f"ipc={wd.base}{opts}")
    check(wait_agent(jvm, wd.base), f"the agent listens ({opts or 'default options: budget 1%'})")
    r = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", str(seconds), "--out",
                        out, "--top", "0"], capture_output=True, text=True, timeout=120)
    touch(stop)
    jvm.communicate(timeout=60)
    check(r.returncode == 0, f"record ran ({r.stderr.strip()[-160:]})")
    tel = read_csv(os.path.join(out, "telemetry.csv"))[1]
    sites = read_csv(os.path.join(out, "sites.csv"))[1]
    wd.cleanup()
    return tel, sites


def cpu_figures(tel, what):
    """The agent's CPU, share and ms a second, in every row; small in ms."""
    check(all("agent_cpu_ms_per_s" in t for t in tel), f"{what}: telemetry.csv has agent_cpu_ms_per_s")
    ms = [float(t.get("agent_cpu_ms_per_s") or -1) for t in tel]
    pct = [float(t["agent_cpu_pct"]) for t in tel]
    print(f"{what}: agent CPU % by second:", [round(p, 1) for p in pct])
    print(f"{what}: agent CPU ms/s by second:", [round(m, 2) for m in ms])
    later = ms[2:]
    check(later and all(m >= 0 for m in ms) and sorted(later)[len(later) // 2] < 20,
          f"{what}: the agent's CPU on a quiet JVM is a few ms a second (median "
          f"{sorted(later)[len(later) // 2] if later else -1:.2f} ms/s)")
    # a share needs a figure behind it: wherever the agent used CPU, ms/s says how much
    check(all((p > 0) == (m > 0) for p, m in zip(pct[1:], ms[1:])),
          f"{what}: a share beside every non-zero ms/s, and none without")


tel, sites = run("quiet", "", 15)
check(len(tel) >= 10, f"telemetry over the run ({len(tel)} rows)")
rate = (int(tel[-1]["alloc_bytes"]) - int(tel[0]["alloc_bytes"])) / max(
    (int(tel[-1]["t_ms"]) - int(tel[0]["t_ms"])) / 1000, 1)
check(rate < 2 * 1024 * 1024, f"the JVM is quiet: {rate / 1024:.0f} KiB/s allocated")
raised = [(t["t_ms"], t["interval"]) for t in tel if int(t["interval"]) != 512 * 1024]
check(not raised, f"the interval stays at 512 KiB throughout (raised: {raised[:4]})")
line = site_line("QuietWorkload.java", "request")
check(any(s["frame"] == f"QuietWorkload.main:{line}" for s in sites),
      "the quiet site is sampled")
cpu_figures(tel, "default options")

tel, sites = run("quiet-small", ",interval=16k,budget=0.02%", 15)
check(len(tel) >= 10, f"telemetry over the run ({len(tel)} rows)")
check(all(int(t["base_interval"]) == 16384 and float(t["budget_pct"]) == 0.02 for t in tel),
      "every row says the budget (0.02%) and the configured interval (16 KiB)")
samples = (int(tel[-1]["samples"]) - int(tel[1]["samples"])) / max(
    (int(tel[-1]["t_ms"]) - int(tel[1]["t_ms"])) / 1000, 1)
print("interval by second:", [int(t["interval"]) // 1024 for t in tel], "KiB")
check(samples >= 4, f"sampled often enough to cost something: {samples:.1f} samples a second")
raised = [(t["t_ms"], int(t["interval"]) // 1024) for t in tel if int(t["interval"]) != 16384]
check(not raised, f"too cheap to matter: the interval stays at 16 KiB (raised: {raised[:4]})")
cpu_figures(tel, "interval=16k,budget=0.02%")
finish()
