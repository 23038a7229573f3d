"""heaptop control PID cpu on|off|async [--interval T], and the CPU sampler
in control status, on a JVM whose thread "bench-0" burns CPU throughout
(CpuSplitWorkload bench; cpu=on, cpu_interval=10ms, budget=off so the tick in
force is the one asked for).

- status shows the mode, the tick in force, where frames are taken, the CPU
  samples (failed ones) and the CPU sampler's cost beside the agent's;
- cpu off: the ACK's mode is printed; once the telemetry says off, no new
  CPU samples while bench-0 burns a further second of CPU (/proc), and the
  CPU sampler's cost is 0;
- cpu on --interval 20ms: sampling resumes (samples grow) at the new tick;
- cpu async: either it runs (status says async, samples grow) or it is
  refused in one line naming async, exit 1, and cpu=on stays in force;
- a tick out of range, or a mode that is none, is one line and exit 2,
  without asking the agent."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import control, proc_cpu_ms  # noqa: E402

DONTINLINE = [f"-XX:CompileCommand=dontinline,CpuSplitWorkload::{m}" for m in ("spinA", "spinB")]

wd = Workdir("control-cpu")
jerr_path = wd.file("jvm.err")
jerr = open(jerr_path, "w")
jvm = stop_at_exit(start_jvm(
    "CpuSplitWorkload", ["bench", 1, 240, 1000],
    agent_opts=f"ipc={wd.base},cpu=on,cpu_interval=10ms,budget=off",
    jvm_flags=["-Xmx128m", "-XX:CompileCommand=quiet", *DONTINLINE],
    stdout=subprocess.DEVNULL, stderr=jerr))

STATUS_MODE = re.compile(r"^CPU sampling (on|off|async)(?:, every ([\d.]+ m?s))?(?:.*frames taken "
                         r"(.*))?$|^CPU sampling off \(tick ([\d.]+ m?s) when on\)$", re.M)
STATUS_SAMPLES = re.compile(r"^CPU samples ([\d,]+) \(([\d,]+) failed: no stack, counted in "
                            r"\[buckets\]\), (\d+) threads, (\d+) stacks; the CPU sampler used "
                            r"([\d.]+) ms of CPU in the last second \(([\d.]+) ms of it in "
                            r"JVMTI's GetStackTrace\), of the agent's ([\d.]+) ms$",
                            re.M)


def jvm_err():
    with open(jerr_path) as f:
        return f.read().strip()[-400:]


def status():
    """control status: (mode, tick, attribution, samples, failed, sampler ms/s,
    agent ms/s, the whole output); None fields when a line is missing."""
    rc, out, err = control(wd.base, "status")
    m, s = STATUS_MODE.search(out), STATUS_SAMPLES.search(out)
    mode = m.group(1) if m and m.group(1) else ("off" if m else None)
    tick = (m.group(2) or m.group(4)) if m else None
    return {"rc": rc, "mode": mode, "tick": tick, "attribution": m.group(3) if m else None,
            "samples": int(s.group(1).replace(",", "")) if s else None,
            "failed": int(s.group(2).replace(",", "")) if s else None,
            "sampler": float(s.group(5)) if s else None, "floor": float(s.group(6)) if s else None,
            "agent": float(s.group(7)) if s else None,
            "out": out + err}


def samples():
    v = status()["samples"]
    return -1 if v is None else v


def burn(ms_more, timeout=60):
    """Wait until the process used ms_more more ms of CPU (/proc): bench-0 runs."""
    start = proc_cpu_ms(jvm.pid)
    return wait_for(lambda: proc_cpu_ms(jvm.pid) >= start + ms_more, timeout, step=0.1,
                    what=f"{ms_more} ms more of the process's CPU")


check(wait_agent(jvm, wd.base), f"the agent listens ({jvm_err()})")
check(wait_for(lambda: samples() >= 20, 60, step=0.3, what="20 CPU samples"),
      f"the agent samples the busy thread ({samples()} CPU samples)")

# --- status shows the CPU fields ---
s = status()
print(s["out"])
check(s["rc"] == 0 and s["mode"] == "on" and s["tick"] == "10 ms",
      f"status: CPU sampling on, every 10 ms ({s['mode']}, {s['tick']})")
check(s["attribution"] and "safepoint" in s["attribution"],
      f"status says cpu=on's frames are taken at safepoints ({s['attribution']!r})")
check(s["samples"] is not None and s["failed"] is not None and s["failed"] <= s["samples"],
      f"status gives the CPU samples and the failed ones ({s['samples']}, {s['failed']})")
check(s["sampler"] is not None and s["agent"] is not None and s["sampler"] > 0
      and s["sampler"] <= s["agent"] + 0.01,
      f"status gives the CPU sampler's ms/s beside the agent's ({s['sampler']}, {s['agent']})")
# the JVMTI floor (time inside GetStackTrace) is part of the sampler's CPU, and
# a busy thread's stacks take some of it
check(s["floor"] is not None and 0 < s["floor"] <= s["sampler"] + 0.01,
      f"status gives the part of it in GetStackTrace ({s['floor']} of {s['sampler']} ms/s)")

# --- cpu off: no new samples while bench-0 burns CPU ---
rc, out, err = control(wd.base, "cpu", "off")
check(rc == 0 and out.strip() == "CPU sampling off", f"cpu off: the ACK says off ({rc}: {out}{err})")
check(wait_for(lambda: status()["mode"] == "off", 15, step=0.2, what="status saying off"),
      "status says CPU sampling off (the agent's telemetry)")
# one more telemetry second, so the count read is one taken after sampling stopped
first = samples()
burn(1200)
off0 = samples()
check(burn(1000), "bench-0 burns another second of CPU while sampling is off")
s = status()
print(f"FIGURE: CPU samples {first} when off was seen, {off0} a second later, {s['samples']} "
      f"after another second of CPU")
check(s["samples"] == off0, f"no new CPU samples while off ({off0} -> {s['samples']})")
check(s["sampler"] is not None and s["sampler"] < 0.05,
      f"the CPU sampler costs nothing while off ({s['sampler']} ms/s)")

# --- cpu on again, at another tick: samples resume ---
rc, out, err = control(wd.base, "cpu", "on", "--interval", "20ms")
check(rc == 0 and out.startswith("CPU sampling on, every 20 ms; frames taken at safepoints"),
      f"cpu on --interval 20ms: the ACK says on, every 20 ms ({rc}: {out}{err})")
check(wait_for(lambda: samples() >= off0 + 20, 30, step=0.2, what="20 new CPU samples"),
      f"CPU samples resume ({off0} -> {samples()})")
# the telemetry comes once a second
check(wait_for(lambda: (status()["mode"], status()["tick"]) == ("on", "20 ms"), 15, step=0.2,
               what="status saying on, every 20 ms"),
      f"status: on, every 20 ms ({status()['mode']}, {status()['tick']})")

# --- cpu async: runs, or is refused in one line ---
before = samples()
rc, out, err = control(wd.base, "cpu", "async")
if rc == 0:
    check(out.startswith("CPU sampling async"), f"cpu async: the ACK says async ({out})")
    check(wait_for(lambda: status()["mode"] == "async", 15, step=0.2, what="status saying async"),
          "status says async")
    check(wait_for(lambda: samples() >= before + 20, 30, step=0.2, what="async samples"),
          f"cpu=async samples ({before} -> {samples()})")
    # from off straight to async: every thread this JVM started since the agent
    # came has its timer, so no stack is taken by JVMTI (GetStackTrace's time,
    # the status's floor, stays at zero once a whole second has passed)
    control(wd.base, "cpu", "off")
    rc, out, err = control(wd.base, "cpu", "async")
    check(rc == 0, f"cpu async from off ({rc}: {err})")
    before = samples()
    check(wait_for(lambda: samples() >= before + 50, 30, step=0.2, what="async samples from off"),
          f"cpu=async samples from off ({before} -> {samples()})")
    floors = []
    check(wait_for(lambda: floors.append(status()["floor"]) or (len(floors) >= 3 and
                                                                 floors[-1] == 0.0), 15, step=0.5,
                   what="a second without JVMTI stacks"),
          f"from off to async, the threads are armed: no JVMTI stack ({floors[-3:]} ms/s)")
    rc, out, err = control(wd.base, "cpu", "on")
    check(rc == 0, f"cpu on again after async ({rc}: {err})")
else:
    lines = err.splitlines()
    print(f"cpu async refused: {err.strip()}")
    check(rc == 1 and len(lines) == 1 and lines[0].startswith("heaptop control: ")
          and "async" in lines[0] and out == "",
          f"cpu async refused in one line naming async, exit 1 ({rc}: {err!r})")
    s = status()
    check(s["mode"] == "on", f"cpu=on stays in force after the refusal ({s['mode']})")
    check(wait_for(lambda: samples() >= before + 10, 30, step=0.2, what="samples after refusal"),
          f"and samples on ({before} -> {samples()})")

# --- pause stops CPU samples too; resume starts them again ---
rc, out, err = control(wd.base, "pause")
check(rc == 0, f"pause ({rc}: {err})")
seen = [samples()]  # telemetry comes once a second: the count holds over more than one
check(wait_for(lambda: seen.append(samples()) or (len(seen) > 2 and seen[-1] == seen[-2]), 10, step=1.2,
               what="the CPU samples holding still after pause"), "CPU samples stop after pause")
paused_at = seen[-1]
check(not wait_for(lambda: samples() > paused_at, 2, step=0.2),
      f"no CPU samples while paused ({seen} then {paused_at} -> {samples()}; {status()['mode']})")
rc, out, err = control(wd.base, "resume")
check(rc == 0, f"resume ({rc}: {err})")
check(wait_for(lambda: samples() >= paused_at + 10, 15, step=0.2, what="CPU samples after resume"),
      f"CPU samples again after resume ({paused_at} -> {samples()})")

# --- refused before asking the agent ---
for words, what in ((["cpu", "on", "--interval", "5s"], "a tick past 1 s"),
                    (["cpu", "on", "--interval", "10"], "a tick without a unit"),
                    (["cpu", "fast"], "a mode that is none")):
    rc, out, err = control(wd.base, *words)
    check(rc == 2 and len(err.splitlines()) == 1 and out == "",
          f"{what}: one line, exit 2 ({rc}: {err.strip()})")
# (after async, the next telemetry says on: a second at most)
check(wait_for(lambda: (status()["mode"], status()["tick"]) == ("on", "20 ms"), 15, step=0.2,
               what="status saying on, every 20 ms"),
      f"after the refused ones: still on, every 20 ms ({status()['mode']}, {status()['tick']})")

check(jvm.poll() is None, f"the JVM is alive ({jvm_err()})")
stop_jvm(jvm)
jerr.close()
wd.cleanup()
finish()
