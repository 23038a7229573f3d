"""Names that line up across runs: hidden classes (lambdas) carry addresses and
counters that change every run ("Foo$$Lambda$162/0x00007f2bd4119918"), so the
same site would get another name each time and two runs' CSVs would not line
up. Two runs of the same workload must name every site and class alike, with
no address anywhere, while two lambdas created in the same method stay apart
within a run ("Foo$$Lambda", "Foo$$Lambda#2": the number follows the order the
agent first meets them, which sampling makes vary between runs, so runs are
compared by the base name; the allocating line tells the two apart there)."""
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

runs = []
for i in range(2):
    wd = Workdir(f"names{i}")
    r = run_recorded(wd, "LambdaWorkload", "interval=16k", jvm_flags=["-Xmx256m"])
    check(r["jvm_rc"] == 0 and r["rec_rc"] == 0, f"run {i}: workload and record ran "
          f"({r['rec_err'].strip()[-150:]})")
    runs.append(r)
    wd.cleanup()

names = []
for i, r in enumerate(runs):
    rows = [s for s in r["sites"] if "LambdaWorkload" in s["stack"]]
    with_addr = [s for s in rows if "/0x" in s["class"] or "/0x" in s["stack"]]
    check(not with_addr, f"run {i}: no hidden-class address in any class or frame "
          f"({[s['class'] for s in with_addr][:3]})")
    def base(text):
        return re.sub(r"\$\$Lambda#\d+", "$$Lambda", text)
    names.append({(base(s["class"]), base(s["stack"])) for s in rows if int(s["samples"]) >= 20})
    lam = sorted({s["class"] for s in rows if "$$Lambda" in s["class"]})
    check(lam == ["LambdaWorkload$$Lambda", "LambdaWorkload$$Lambda#2"],
          f"run {i}: the two lambdas allocated in run() stay apart: {lam}")
    frames = {s["stack"].split(" <- ")[1] for s in rows if s["class"] == "byte[]"
              and " <- " in s["stack"]}
    check(any(f.startswith("LambdaWorkload$$Lambda") and ".get" in f for f in frames),
          f"run {i}: the lambda's own method shows as a caller: {sorted(frames)[:3]}")
# Sites sampled often enough to appear in both runs carry the same names.
check(names[0] and names[0] == names[1],
      f"both runs name their busy sites alike ({len(names[0])} and {len(names[1])} sites; "
      f"only in one: {sorted(names[0] ^ names[1])[:2]})")
finish()
