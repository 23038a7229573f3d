"""The CPU budget (budget=1%, the default): an allocation rate that steps up
tenfold or more and back to the same paced rate (the CPU stays busy throughout). The sampling interval must rise while the rate is high and
come back to the configured 512 KiB after, and the estimates must stay
unbiased through the changes: two known sites within 10% (and 4 standard
errors) of the workload's own counts, and everything the workload's threads
allocated within 5% of the VM's own count for those threads."""
import math
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

BASE = 512 * 1024
PHASES = (4, 8, 10)  # seconds: paced, flat out, paced
wd = Workdir("budget")
go, facts_file, out = wd.file("go"), wd.file("facts"), wd.file("out")
# cpu=off: the CPU sampler's stacks share the budget (budget.h), and this
# workload's threads stay busy throughout, so with it on the interval has less
# room to come back to 512 KiB; what is tested here is allocation sampling's
# own response (the CPU sampler's share: cpu_overhead.py, test_cpu_*)
jvm = start_jvm("StepWorkload", [go, facts_file, *PHASES], agent_opts=f"ipc={wd.base},cpu=off",
                jvm_flags=["-Xmx256m"])
check(wait_socket(wd.base), "agent socket appears")
rec = start_record(wd.base, out, "--top", "0")
touch(go)
_, rerr = rec.communicate(timeout=180)
_, jerr = jvm.communicate(timeout=60)
check(jvm.returncode == 0 and rec.returncode == 0, f"workload and record ran ({rerr[-200:]})")
facts = read_facts(facts_file)
sites = read_csv(os.path.join(out, "sites.csv"))[1]
tel = read_csv(os.path.join(out, "telemetry.csv"))[1]
check(len(tel) >= 10, f"telemetry over the run ({len(tel)} rows)")
# The workload's premise, from the VM's count of what its threads allocated in
# each phase: the step is tenfold or more, and the two paced phases allocate at
# one rate (a pace by share of time once made the second ~15x the first).
rate = [facts[f"phase{p}.bytes"] / s for p, s in enumerate(PHASES)]
print("allocated by phase, MB/s:", [round(r / 1e6) for r in rate])
check(rate[1] >= 10 * max(rate[0], rate[2]), "the rate stepped up tenfold or more")
check(0.75 <= rate[2] / rate[0] <= 1.33, "the paced phases allocate at one rate (within a third)")
fast = [t for t in tel if facts["fast.start_ms"] + 2000 <= int(t["t_ms"]) <= facts["fast.end_ms"]]
after = [t for t in tel if int(t["t_ms"]) >= facts["fast.end_ms"] + 7000]
check(all(int(t["base_interval"]) == BASE and float(t["budget_pct"]) == 1.0 for t in tel),
      "every row says the budget (1%) and the configured interval (512 KiB)")
raised = max((int(t["interval"]) for t in fast), default=0)
slow = [t for t in tel if int(t["t_ms"]) < facts["fast.start_ms"]]
print("interval by second:", [int(t["interval"]) // 1024 for t in tel], "KiB")
print("agent CPU % by second:", [round(float(t["agent_cpu_pct"]), 2) for t in tel])
check(slow and all(int(t["interval"]) == BASE for t in slow),
      "while the rate was low the interval stayed at 512 KiB")
check(raised > BASE, f"the interval rose while the rate was high ({raised // 1024} KiB)")
# Down again once the rate falls, to the configured interval: the paced phase
# after the step allocates at the rate of the one before it (checked below from
# the VM's own counts), where sampling at 512 KiB cost well under half the budget.
last = int(after[-1]["interval"]) if after else raised
check(after and last == BASE,
      f"and came back down after ({[int(t['interval']) // 1024 for t in after]} KiB)")
changes = sum(1 for a, b in zip(tel, tel[1:]) if a["interval"] != b["interval"])
check(changes <= len(tel) // 2, f"changes stay rare, at most one a second ({changes} in {len(tel)} s)")

# The estimates through the changes.
for marker, cls, size, key in (("small", "byte[]", 64, "small.count"),
                               ("large", "long[]", 496, "large.count")):
    frame = f"StepWorkload.batch:{site_line('StepWorkload.java', marker)}"
    # one row per calling stack (the three phases call from three lines)
    rows = [s for s in sites if s["frame"] == frame and s["class"] == cls]
    check(len(rows) >= 1, f"{marker}: site {frame} found")
    if not rows:
        continue
    n, samples = facts[key], sum(int(s["samples"]) for s in rows)
    tol = max(0.10, 4 / math.sqrt(max(samples, 1)))
    for what, est, truth in (("instances", sum(float(s["est_instances"]) for s in rows), n),
                             ("bytes", sum(float(s["est_bytes"]) for s in rows), n * size)):
        err = est / truth - 1
        check(abs(err) <= 0.10 and abs(err) <= tol,
              f"{marker}: est {what} {est:.0f} within 10% of {truth} ({err:+.2%}, "
              f"{samples} samples)")
work = [s for s in sites if "StepWorkload.work" in s["stack"]]
est = sum(float(s["est_bytes"]) for s in work)
truth = facts["threads.bytes"]
check(abs(est / truth - 1) <= 0.05, f"everything the threads allocated: {est:.0f} within 5% of "
      f"the VM's {truth} ({est / truth - 1:+.2%})")

# heaptop control sets the budget, and says what it is.
base2 = wd.file("jvm2")
jvm = start_jvm("StressWorkload", [1, 60000, 0], agent_opts=f"ipc={base2}")
check(wait_socket(base2), "second agent socket appears")


def control(*words):
    p = subprocess.run([HEAPTOP, "control", "--ipc", base2, *words], capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stdout + p.stderr


rc, out = control("status")
check(rc == 0 and "budget 1.00% of CPU" in out and "the agent used" in out,
      f"status says the default budget: {out.strip().splitlines()[3:5]}")
m = re.search(r"the agent used ([\d.]+) ms of CPU in the last second, ([\d.]+)% of the process's",
              out)
check(m is not None, f"status gives the agent's CPU in ms a second beside its share ({m and m.group(0)})")
rc, out = control("budget", "2.5%")
check(rc == 0 and "budget 2.50%" in out, f"budget 2.5%: {out.strip()}")
check(wait_for(lambda: "budget 2.50% of CPU" in control("status")[1], 10),
      "status shows the new budget")
rc, out = control("budget", "off")
check(rc == 0 and "budget off" in out, f"budget off: {out.strip()}")
check(wait_for(lambda: "budget off (fixed interval)" in control("status")[1], 10),
      "status shows the interval is fixed")
rc, out = control("budget", "60%")
check(rc == 2 and "bad budget '60%'" in out, f"a budget past 50% is refused: {out.strip()}")

# The TUI's header says when the budget has raised the interval, and stops
# saying it when the interval is fixed again.
from tmux import Tmux  # noqa: E402
t = Tmux("tuibudget", f"{HEAPTOP} --ipc {base2}", cols=120, rows=40)
check(t.wait_for("interval 512"), "the TUI shows the configured interval")
check("raised by budget" not in t.screen(), "budget off: the header does not say raised")
rc, out = control("budget", "0.05%")
check(rc == 0, f"budget 0.05%: {out.strip()}")
check(t.wait_for("(raised by budget)", 30),
      f"a budget of 0.05% raises the interval and the header says so: {t.screen().splitlines()[1]}")
rc, out = control("budget", "off")
check(rc == 0 and wait_for(lambda: "raised by budget" not in t.screen(), 10),
      f"budget off again: the header no longer says raised: {t.screen().splitlines()[1]}")
t.keys("q")
t.kill()
jvm.kill()
jvm.communicate()
wd.cleanup()
finish()
