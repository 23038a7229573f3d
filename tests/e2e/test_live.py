"""Live tracking: a site that keeps a quarter of its objects through GC, and a
site whose objects all die. interval=64k gives ~1500 live samples for the kept
site; its LIVE estimate must be within 4 standard errors of what the workload
retained, the relative SE being 1/sqrt(live samples) (Poisson sampling of
equal-size objects, 2,016 bytes each, p = 3% at 64 KiB). Runs with G1 by
default, and under ZGC and Parallel GC too (HEAPTOP_GC), since deaths are found
after GC pauses."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("live")
r = run_recorded(wd, "LiveWorkload", "interval=64k", jvm_flags=["-Xmx1g"])
check(r["jvm_rc"] == 0, f"JVM exit code 0 ({r['jvm_err'][-300:]})")
check(r["rec_rc"] == 0, f"heaptop record exit code 0 ({r['rec_err'][-300:]})")
facts, sites = r["facts"], r["sites"]

keep = [s for s in sites if s["frame"] == f"LiveWorkload.keepSome:{site_line('LiveWorkload.java', 'keep')}"
        and s["class"] == "byte[]"]
drop = [s for s in sites if s["frame"] == f"LiveWorkload.dropAll:{site_line('LiveWorkload.java', 'drop')}"
        and s["class"] == "byte[]"]
check(len(keep) == 1 and len(drop) == 1, "both sites found")
check(len(facts) > 0, "the workload wrote its facts")
if keep and drop and facts:
    k, d = keep[0], drop[0]
    retained = facts["keep.retained_bytes"]
    live = float(k["live_est_bytes"])
    n_live = int(k["live_samples"])
    se = count_rel_se(n_live, 2016, 64 * 1024)
    err = live / retained - 1
    check(abs(err) <= 4 * se, f"kept site: live_est_bytes {live:.0f} within 4 SE ({4 * se:.1%}) of "
          f"retained {retained} (error {err:+.2%} = {err / se:+.1f} SE, {n_live} live samples)")
    inst = float(k["live_est_instances"])
    ierr = inst / facts["keep.retained_objects"] - 1
    check(abs(ierr) <= 4 * se, f"kept site: live_est_instances {inst:.0f} within 4 SE of "
          f"{facts['keep.retained_objects']} (error {ierr:+.2%})")
    dl = float(d["live_est_bytes"])
    check(dl <= 0.01 * float(d["est_bytes"]), f"dropped site: live_est_bytes {dl:.0f} near zero "
          f"(<1% of its {float(d['est_bytes']):.0f} allocated)")
    check(int(k["live_samples"]) <= int(k["samples"]), "live samples never exceed samples")
classes = {c["class"]: c for c in r["classes"]}
check("byte[]" in classes and float(classes["byte[]"]["live_est_bytes"]) > 0,
      "classes.csv carries live bytes per class")
# Telemetry against what the JVM reports about itself (LiveWorkload's facts,
# read after its three System.gc() calls, before its last second of sleep).
tel = r["telemetry"]
check(len(tel) > 0, f"telemetry.csv has rows ({len(tel)})")
if tel and facts:
    last = tel[-1]
    gcs = int(last["gc_count"])
    print(f"collector {GC}: the agent counted {gcs} pauses, the VM's beans {facts['vm.gc_count']}")
    # G1's beans count one collection per pause; Parallel's full GC holds a
    # scavenge and a full collection in one pause, and ZGC's beans count cycles too.
    check(gcs >= 3 and (GC != "G1GC" or gcs >= facts["vm.gc_count"]),
          f"GC pauses counted by the agent ({gcs}) include the 3 System.gc() calls "
          f"(and with G1 every collection the VM counted, {facts['vm.gc_count']})")
    # ZGC's pauses are tens of microseconds: their sum may round to 0 ms.
    check((GC == "ZGC" or int(last["gc_time_ms"]) > 0) and int(last["gc_time_ms"]) < int(last["t_ms"]),
          f"GC pause time measured ({last['gc_time_ms']} ms)")
    used, committed, hmax = int(last["heap_used"]), int(last["heap_committed"]), int(last["heap_max"])
    check(hmax == facts["vm.heap_max"], f"heap_max is Runtime.maxMemory ({hmax})")
    check(0 < used <= committed <= hmax, f"heap used <= committed <= max ({used}, {committed}, {hmax})")
    check(abs(int(last["threads"]) - facts["vm.threads"]) <= 2,
          f"live threads {last['threads']} match the VM's count {facts['vm.threads']}")
    allocs = [int(t["alloc_bytes"]) for t in tel]
    check(allocs == sorted(allocs) and allocs[-1] >= 2 * 200_000 * 2016,
          f"allocated bytes only grow and cover the workload ({allocs[-1]})")
wd.cleanup()
finish()
