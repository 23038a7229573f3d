"""Known sites at the default interval: names, lines, stacks, and estimates.

The truth is the workload's own count of what it allocated at each site, and
the VM's own count of the bytes its thread allocated. A site of n objects of s
bytes, each sampled with p = 1 - exp(-s/I), has an estimated count with a
relative standard error of sqrt((1 - p) / samples) (1/sqrt(samples) for small
objects): every estimate must fall within 4 such standard errors. Besides small
objects, three sites allocate byte arrays of 256 KiB, 512 KiB and 2 MiB, as
large as the 512 KiB interval and larger, where the exact weight 1/p and the
naive I/s differ by 21%, 37% and 75%."""
import math
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

INTERVAL = 512 * 1024
wd = Workdir("accuracy")
r = run_recorded(wd, "AccuracyWorkload", "budget=off", jvm_flags=["-Xmx512m"])
check(r["jvm_rc"] == 0, f"JVM exit code 0 (got {r['jvm_rc']}: {r['jvm_err'][-300:]})")
check(r["rec_rc"] == 0, f"heaptop record exit code 0 (got {r['rec_rc']}: {r['rec_err'][-300:]})")
facts, sites = r["facts"], r["sites"]
check(len(sites) > 0, "sites.csv has rows")
check(len(facts) > 0, "the workload wrote its facts")

SPAN = "AccuracyWorkload.span"
expect = {
    "bytes": ("byte[]", "AccuracyWorkload.allocByteArrays",
              ["AccuracyWorkload.middleBytes", "AccuracyWorkload.outerBytes", SPAN]),
    "points": ("AccuracyWorkload$Point", "AccuracyWorkload.allocPoints",
               ["AccuracyWorkload.middlePoints", SPAN]),
    "longs": ("long[]", "AccuracyWorkload.allocLongArrays", [SPAN]),
    "large256k": ("byte[]", "AccuracyWorkload.allocLarge256k", [SPAN]),
    "large512k": ("byte[]", "AccuracyWorkload.allocLarge512k", [SPAN]),
    "large2m": ("byte[]", "AccuracyWorkload.allocLarge2m", [SPAN]),
}
for marker, (cls, method, callers) in expect.items():
    count = facts.get(f"{marker}.count", 0)
    size = facts.get(f"{marker}.size", 0)  # only the large sites say; small ones are tiny
    line = site_line("AccuracyWorkload.java", marker)
    frame = f"{method}:{line}"
    rows = [s for s in sites if s["frame"] == frame and s["class"] == cls]
    check(len(rows) == 1, f"{marker}: one site row for class {cls} at frame {frame} (got {len(rows)})")
    if not rows:
        continue
    row = rows[0]
    stack = row["stack"].split(" <- ")
    check(stack[0] == frame, f"{marker}: stack starts at the allocating frame ({stack[0]})")
    # Callers appear in order after the leaf, each as pkg.Class.method:line.
    names = [f.rsplit(":", 1)[0] for f in stack]
    pos = [names.index(c) if c in names else -1 for c in callers]
    check(all(p > 0 for p in pos) and pos == sorted(pos),
          f"{marker}: stack goes through {' <- '.join(callers)} ({row['stack'][:200]})")
    check(all(re.match(r"^[\w.$]+\.[\w$<>]+(:\d+)?$", f) for f in stack),
          f"{marker}: every frame looks like pkg.Class.method:line")
    est = float(row["est_instances"])
    samples = int(row["samples"])
    se = count_rel_se(samples, size, INTERVAL)
    err = est / count - 1 if count else 1
    check(abs(err) <= 4 * se, f"{marker}: est_instances {est:.0f} within 4 SE ({4 * se:.2%}) of "
          f"the true {count} (error {err:+.2%} = {err / se:+.1f} SE, {samples} samples)")
    if size:
        # The size the agent was told is the object's size the workload made
        # (est_instances is written rounded to a whole object).
        check(abs(float(row["est_bytes"]) / est / size - 1) < 1 / est, f"{marker}: est_bytes / "
              f"est_instances is the object size {size}")
        naive = samples * INTERVAL / size
        print(f"{marker}: the naive I/s weight would say {naive:.0f} ({naive / count - 1:+.1%})")

span_rows = [s for s in sites if f" <- {SPAN}:" in s["stack"] or s["stack"].startswith(SPAN)]
est_sum = sum(float(s["est_bytes"]) for s in span_rows)
vm = facts.get("span.alloc_bytes", 0)
err = est_sum / vm - 1 if vm else 1
se = sum_rel_se(span_rows, vm, interval=INTERVAL)
check(abs(err) <= 4 * se, f"sum of est_bytes in the span {est_sum:.0f} within 4 SE ({4 * se:.2%}) "
      f"of the VM's {vm} allocated bytes (error {err:+.2%})")

classes = r["classes"]
names = [c["class"] for c in classes]
check("byte[]" in names and "AccuracyWorkload$Point" in names and "long[]" in names,
      "classes.csv names classes as Java writes them")
check([float(c["est_bytes"]) for c in classes] == sorted((float(c["est_bytes"]) for c in classes),
                                                         reverse=True),
      "classes.csv sorted by est_bytes, largest first")
check([float(s["est_bytes"]) for s in sites] == sorted((float(s["est_bytes"]) for s in sites),
                                                       reverse=True),
      "sites.csv sorted by est_bytes, largest first")
tel = r["telemetry"]
check(len(tel) >= 2, f"telemetry.csv has a row a second ({len(tel)} rows)")
if tel:
    last = tel[-1]
    check(int(last["heap_max"]) > 0 and int(last["threads"]) > 0 and int(last["classes"]) > 100,
          "telemetry has heap max, threads and loaded classes")
    check(last["alloc_bytes"] != "" and int(last["alloc_bytes"]) >= vm,
          f"telemetry alloc_bytes (exact, from the VM) covers the span ({last['alloc_bytes']} >= {vm})")
    check(int(last["samples"]) > 0 and int(last["dropped"]) == 0, "samples counted, none dropped")
    ts = [int(t["t_ms"]) for t in tel]
    check(ts == sorted(ts), "telemetry rows in time order")
with open(os.path.join(r["out"], "sites.csv"), "rb") as f:
    raw = f.read()
check(raw.count(b"\r\n") == raw.count(b"\n"), "CSV line ends are CRLF throughout")
check("Top allocation sites" in r["rec_out"], "heaptop record prints its top sites")
wd.cleanup()
finish()
