"""Classes unloaded while the CPU sampler samples them (CpuUnloadWorkload,
mode from HEAPTOP_CPU_MODE: on or async; registered on JDK 17 and 25): 30
rounds, each defining CpuUnloadBurner afresh with a loader of its own,
burning 200 ms of CPU in it, then dropping the loader and collecting until
the class is gone. Then a recording, taken after every one of those classes
was unloaded.

- No crash: the JVM lives through the rounds and the recording, says nothing
  fatal, and the classes were unloaded (the VM's own count: the premise).
- Names still right: every frame of the worker that names CpuUnloadBurner is
  CpuUnloadBurner.burn or .applyAsLong at a line of that method's body, and
  below it come CpuUnloadWorkload.round; no frame is unnamed or garbled.
- The burner's CPU is not lost or misplaced: the stacks through
  CpuUnloadBurner hold at most 110% of the CPU the worker timed in it, and
  with the worker's bracketed buckets (a walk that failed, say in code being
  deoptimized) at least 85%."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import *  # noqa: E402,F403

ROUNDS, BURN_MS = 30, 200


def body_lines(java_file, decl, end_marker):
    """The lines from the one holding `decl` to the first after it holding end_marker."""
    with open(os.path.join(JAVA_SRC, java_file)) as f:
        lines = f.read().split("\n")
    first = next(i for i, l in enumerate(lines, 1) if decl in l)
    last = next(i for i, l in enumerate(lines, 1) if i > first and end_marker in l)
    return set(range(first, last + 1))


BURN = body_lines("CpuUnloadBurner.java", "static long burn(", "return x;")
APPLY = body_lines("CpuUnloadBurner.java", "public long applyAsLong(", "SITE:apply")

wd = Workdir(f"cpu-unload-{MODE}")
ready, go, facts = wd.file("ready"), wd.file("go"), wd.file("facts")
jerr_path = wd.file("jvm.err")
jerr = open(jerr_path, "w")
jvm = stop_at_exit(start_jvm("CpuUnloadWorkload", [ready, go, facts, ROUNDS, BURN_MS],
                             agent_opts=f"ipc={wd.base},cpu={MODE},cpu_interval=10ms",
                             jvm_flags=["-Xmx256m", "-XX:+ClassUnloading"],
                             stdout=subprocess.DEVNULL, stderr=jerr))


def jvm_err():
    with open(jerr_path) as f:
        return f.read()


try:
    wait_for(lambda: os.path.exists(wd.base + ".ctl") or jvm.poll() is not None, 60,
             what="the agent's socket")
    if jvm.poll() is not None:
        check(False, f"the JVM runs with cpu={MODE} (exit {jvm.returncode}: {jvm_err().strip()[-300:]})")
        finish()
    check(wait_for(lambda: os.path.exists(ready) or jvm.poll() is not None, 60)
          and os.path.exists(ready), "the workload is READY")
    skip_unless_async(wd.base, jvm_err())  # the sampler runs by now (not before VMInit)
    rec = Viewer(wd.base, wd.file("during"), "--top", "0")  # a viewer watching all along
    check(rec.connected(60), "a recording follows the rounds")
    touch(go)
    done = wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 180,
                    what="the rounds") and os.path.exists(facts)
    check(done, f"the {ROUNDS} rounds ran ({jvm_err().strip()[-300:]})")
    rec.signal(signal.SIGINT)
    rc, _, rerr = rec.finish(60)
    check(rc == 0, f"the recording that followed the rounds ends well ({rc}: {rerr.strip()[-200:]})")
    truth = read_facts(facts) if done else {}
    check(truth.get("collected", 0) >= ROUNDS * 0.8 and truth.get("unloaded", 0) >= truth.get("collected", 0),
          f"the classes were collected and unloaded while sampled (collected {truth.get('collected')}, "
          f"the VM's unloaded count {truth.get('unloaded')} of {ROUNDS})")
    jcmd(jvm.pid, "GC.run")  # the last round's class too, before the names are asked for
    after = snapshot(wd.base, wd.file("after"))
    check(after["rc"] == 0, f"a recording after the unloading ({after['rc']}: {after['err'][-200:]})")
    check(jvm.poll() is None, "the JVM is alive")
    fatal = [l for l in jvm_err().splitlines() if "fatal error" in l.lower() or "SIGSEGV" in l]
    check(not fatal, f"the JVM says nothing fatal ({fatal[:2]})")

    for name, out in (("during", wd.file("during")), ("after", after["out"])):
        cpu, _ = read_cpu(out)
        rows = of_thread(cpu, "unload-worker")
        check(len(rows) > 0, f"{name}: cpu.csv has the worker's rows ({len(rows)})")
        frames = [f for r in rows for f in r["stack"].split(" <- ")]
        check(all(frame_ok(f) for f in frames),
              f"{name}: every frame is named ({[f for f in frames if not frame_ok(f)][:4]})")
        burner = [f for f in frames if "CpuUnloadBurner" in f]
        wrong = [f for f in burner
                 if not ((f.startswith("CpuUnloadBurner.burn:") and int(f.rsplit(":", 1)[1]) in BURN) or
                         (f.startswith("CpuUnloadBurner.applyAsLong:") and int(f.rsplit(":", 1)[1]) in APPLY))]
        check(burner and not wrong, f"{name}: the unloaded classes' frames are CpuUnloadBurner.burn "
              f"(lines {min(BURN)}-{max(BURN)}) or .applyAsLong ({sorted(APPLY)}) "
              f"({len(burner)} frames; wrong: {sorted(set(wrong))[:4]})")
        through = [r for r in rows if "CpuUnloadBurner." in r["stack"]]
        callers = [r for r in through
                   if "CpuUnloadWorkload.round:" not in r["stack"].split("CpuUnloadBurner.", 1)[1]]
        check(through and not callers, f"{name}: below the burner comes CpuUnloadWorkload.round "
              f"({[r['stack'][:160] for r in callers][:2]})")
        if truth:
            t = truth["burn.cpu_ns"] / 1e6
            got = total_ms(through)
            lost = total_ms([r for r in rows if is_bucket(r["frame"])])
            print(f"FIGURE: cpu={MODE} JDK {java_version()} {name}: burner {got:.0f} ms + buckets "
                  f"{lost:.0f} ms of {t:.0f} ms timed ({total_ms(rows):.0f} ms in all the worker's rows)")
            check(got <= 1.10 * t and got + lost >= 0.85 * t,
                  f"{name}: the burner's stacks hold {got:.0f} ms (+{lost:.0f} ms in buckets) of the "
                  f"{t:.0f} ms it used (85%..110%)")
        print_rows(rows, 6)
finally:
    stop_jvm(jvm)
    jerr.close()
wd.cleanup()
finish()
