"""LIVE means what a leak hunter needs, while the program churns: objects a
collection has proven alive, never the garbage in eden. ChurnWorkload keeps
128 MiB of byte[1008] reachable while two threads allocate short-lived objects
as fast as they can (young collections every few tens of ms; it never calls
System.gc()). The truths the agent did not compute: the workload's own count
of what it keeps, and the heap the VM's own GC log says is left after each
collection. Then half the set is dropped and the test collects from outside
(`jcmd PID GC.run`, a GC the VM reports finished when jcmd returns): LIVE must
reflect it within a second. Runs under G1 by default, and under ZGC and
Parallel GC too (HEAPTOP_GC)."""
import math
import re
import shutil
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

JCMD = need_jcmd()

KEEP_MB = 128
wd = Workdir("churn")
go, facts, drop, gclog = wd.file("go"), wd.file("facts"), wd.file("drop"), wd.file("gc.log")
jvm = start_jvm("ChurnWorkload", [go, facts, 60, KEEP_MB, drop],
                agent_opts=f"ipc={wd.base},interval=64k",
                jvm_flags=["-Xmx512m", f"-Xlog:gc:file={gclog}:uptime"])
check(wait_socket(wd.base), "agent socket appears")
touch(go)
check(wait_for(lambda: os.path.exists(facts), 60), "the workload built its live set")
keep_line = site_line("ChurnWorkload.java", "keep")
churn_line = site_line("ChurnWorkload.java", "churn")


def after_gc_mib():
    """Heap left after each collection, from the VM's own log (G1/Parallel:
    'A M->B M(C M)'; ZGC: 'A M(x%)->B M(y%)')."""
    out = []
    with open(gclog) as f:
        for line in f:
            m = re.search(r"(\d+)M(?:\(\d+%\))?->(\d+)M", line)
            if m:
                out.append(int(m.group(2)))
    return out


def collections_logged():
    return len(after_gc_mib())


def snapshot(name):
    """A consistent snapshot of the sites now: record syncs, follows the stream
    for a second and syncs again at the end."""
    out = wd.file(name)
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--out", out,
                        "--top", "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"{name}: record exit 0 ({p.stderr.strip()[-200:]})")
    return read_csv(os.path.join(out, "sites.csv"))[1]


def site(sites, line):
    rows = [s for s in sites if s["frame"] == f"ChurnWorkload.{line[0]}:{line[1]}"
            and s["class"] == "byte[]"]
    return rows[0] if rows else None


def live_total():
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=30)
    m = re.search(r"live (\d+) bytes in (\d+) samples", p.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


kept = read_facts(facts)["keep.bytes"]
for i in range(3):
    # a few young collections between snapshots, so each sees another moment
    n = collections_logged()
    check(wait_for(lambda: collections_logged() >= n + 5, 30), f"snapshot {i}: collections go on")
    sites = snapshot(f"snap{i}")
    k, c = site(sites, ("keep", keep_line)), site(sites, ("churn", churn_line))
    if not k or not c:
        check(False, f"snapshot {i}: both sites found")
        continue
    live, n_live = float(k["live_est_bytes"]), int(k["live_samples"])
    tol = 4 / math.sqrt(max(n_live, 1))  # four standard errors of a Poisson sample
    check(abs(live / kept - 1) <= tol,
          f"snapshot {i}: kept site LIVE {live:.0f} within 4 SE ({tol:.1%}) of the {kept} bytes "
          f"the workload keeps ({live / kept - 1:+.2%}, {n_live} samples)")
    check(int(k["young_samples"]) == 0, f"snapshot {i}: the kept objects are no longer YOUNG "
          f"({k['young_samples']} young samples)")
    churn_live = float(c["live_est_bytes"])
    check(churn_live < 0.02 * kept, f"snapshot {i}: the churn site's garbage is not LIVE "
          f"({churn_live:.0f} bytes live of {float(c['est_bytes']):.0f} allocated)")
    total = sum(float(s["live_est_bytes"]) for s in sites)
    n_total = sum(int(s["live_samples"]) for s in sites)
    heap_after = max(after_gc_mib()[-5:]) * 1024 * 1024
    tol = 4 / math.sqrt(max(n_total, 1))
    check(total <= heap_after * (1 + tol),
          f"snapshot {i}: LIVE summed over all sites ({total / 2**20:.1f} MiB) is no more than "
          f"the heap the VM kept after its last collections ({heap_after / 2**20:.0f} MiB)")
    young = sum(float(s["young_est_bytes"]) for s in sites)
    print(f"snapshot {i}: LIVE {total / 2**20:.1f} MiB, YOUNG {young / 2**20:.1f} MiB, "
          f"heap after GC {heap_after / 2**20:.0f} MiB")

# The kept set is steady and proven now (no YOUNG samples left), and nothing
# else the workload allocates lives: LIVE must stay where it is while the churn
# goes on. Watched every 25 ms, so a batch of garbage counted LIVE for a
# fraction of a second shows. Under generational ZGC that happened a few
# times a minute (dead objects from before a major cycle, alive to JNI until
# the next one; see ht_gc_proof): 20 s there, 5 s elsewhere.
watch_s = 20 if GC == "ZGC" else 5
seen_live = []
end = time.time() + watch_s
while time.time() < end:
    total, _ = live_total()
    if total is not None:
        seen_live.append(total)
    time.sleep(0.025)
spread = max(seen_live) - min(seen_live) if seen_live else None
check(spread is not None and spread <= 0.01 * kept,
      f"LIVE steady while the program churns: {len(seen_live)} readings over {watch_s} s, "
      f"from {min(seen_live or [0]) / 2**20:.1f} to {max(seen_live or [0]) / 2**20:.1f} MiB "
      f"(the kept set is {kept / 2**20:.1f} MiB; at most 1% of it may move)")

# Three times, half of what is kept becomes garbage (no collection the
# workload asks for), then the test collects from outside. Three rounds, so a
# sweep that happened to fall right after the collection cannot pass for the
# guarantee.
for rnd in (1, 2, 3):
    before, _ = live_total()
    touch(drop + str(rnd))
    check(wait_for(lambda: os.path.exists(f"{drop}{rnd}.facts"), 30),
          f"round {rnd}: the workload dropped half of its set")
    now_kept = read_facts(f"{drop}{rnd}.facts")["keep.bytes"]
    p = subprocess.run([JCMD, str(jvm.pid), "GC.run"], capture_output=True, text=True, timeout=60)
    done = time.time()
    check(p.returncode == 0, f"round {rnd}: jcmd GC.run ran ({p.stdout.strip()[-80:]})")
    # LIVE must show the collection within a second: poll until it falls past
    # the midpoint between what was kept and what is kept now.
    seen = None
    while time.time() - done < 5:
        total, n = live_total()
        if total is not None and total < (kept + now_kept) / 2:
            seen = time.time() - done
            break
        time.sleep(0.02)
    check(seen is not None and seen <= 1.0,
          f"round {rnd}: LIVE reflects the collection "
          f"{seen if seen is None else round(seen, 3)} s after jcmd returned (at most 1 s; LIVE "
          f"was {before} bytes before)")
    sites = snapshot(f"after{rnd}")
    k = site(sites, ("keep", keep_line))
    if k:
        live, n_live = float(k["live_est_bytes"]), int(k["live_samples"])
        tol = 4 / math.sqrt(max(n_live, 1))
        check(abs(live / now_kept - 1) <= tol,
              f"round {rnd}: kept site LIVE {live:.0f} within 4 SE ({tol:.1%}) of the {now_kept} "
              f"bytes still kept ({live / now_kept - 1:+.2%}, {n_live} samples)")
    kept = now_kept
jvm.kill()
jvm.communicate()
wd.cleanup()
finish()
