"""The HPROF reader against the JVM's own count: HeapWorkload builds a known
heap and stands still; `jcmd GC.heap_dump -all=false` (live objects, after a
full GC) is read by hprof_counts (tui/heap/hprof.c), and its instances per
class must equal `jcmd GC.class_histogram`'s, for every class.

A quiet moment is proven, not assumed: a histogram before the dump and one
after must agree (objects only phantom-reachable can still be on their way out
through the Cleaner); otherwise the three are taken again.

With class data sharing on (the default), the archived heap holds mirrors of
classes not loaded yet: the histogram counts them as java.lang.Class, the dump
writes a CLASS DUMP only for loaded classes. So the exact check of every class
runs with -Xshare:off, and a second run with the default flags checks every
class but java.lang.Class exactly, and that one as at most the histogram's."""
import collections
import csv
import shutil
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

COUNTS = os.environ["HEAPTOP_HPROF_COUNTS"]
JCMD = os.path.join(os.path.dirname(os.path.realpath(JAVA)), "jcmd")
if not os.path.exists(JCMD):
    JCMD = shutil.which("jcmd")
if not JCMD:
    print("no jcmd next to the JVM")
    sys.exit(77)


def jcmd(pid, *args):
    p = subprocess.run([JCMD, str(pid), *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"jcmd {' '.join(args)}: {p.stdout.strip()[-300:]} {p.stderr.strip()[-300:]}")
    return p.stdout


def histogram(pid):
    """Instances by class name (two loaders' classes of one name summed)."""
    h = collections.Counter()
    for line in jcmd(pid, "GC.class_histogram").splitlines():
        m = re.match(r"\s*\d+:\s+(\d+)\s+\d+\s+(\S+)", line)
        if m:
            h[m.group(2)] += int(m.group(1))
    return h


def dump_counts(path):
    p = subprocess.run([COUNTS, path], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"hprof_counts {path}: {p.stderr.strip()[-300:]}")
    c = collections.Counter()
    for r in csv.DictReader(p.stdout.splitlines()):
        c[r["class"]] += int(r["instances"])
    return c, p.stderr


def run(name, flags, exact_class):
    wd = Workdir("hprof")
    facts = wd.file("facts")
    jvm = start_jvm("HeapWorkload", [facts, 120], jvm_flags=["-Xmx256m", *flags])
    try:
        built = wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 60)
        built = built and jvm.poll() is None
        check(built, f"{name}: the workload built its heap")
        if not built:
            jvm.kill()
            print(jvm.communicate()[1][-400:])
            return
        f = read_facts(facts)
        jcmd(jvm.pid, "VM.version")  # the attach listener starts before any count
        for attempt in range(1, 4):
            dump = wd.file(f"heap{attempt}.hprof")
            before = histogram(jvm.pid)
            out = jcmd(jvm.pid, "GC.heap_dump", "-all=false", dump)
            after = histogram(jvm.pid)
            if before == after:
                break
            moved = sorted(k for k in set(before) | set(after) if before[k] != after[k])
            print(f"{name}: attempt {attempt}: the heap moved during the dump ({moved[:5]}): again")
        check(before == after, f"{name}: a quiet moment: the histograms before and after the dump "
              f"agree (attempt {attempt})")
        counts, summary = dump_counts(dump)
        print(summary.strip())
        check(os.path.getsize(dump) > 0, f"{name}: jcmd wrote the dump ({out.strip().splitlines()[-1][-60:]})")
        names = set(after) | set(counts)
        wrong = [k for k in sorted(names) if counts[k] != after[k]
                 and (exact_class or k != "java.lang.Class")]
        check(not wrong, f"{name}: instances of every one of {len(names)} classes equal the "
              f"histogram's" + ("" if exact_class else " (java.lang.Class apart)") +
              "".join(f"\n     {k}: dump {counts[k]}, histogram {after[k]}" for k in wrong[:20]))
        if not exact_class:
            k = "java.lang.Class"
            check(0 < counts[k] <= after[k], f"{name}: java.lang.Class in the dump ({counts[k]}) "
                  f"at most the histogram's ({after[k]}, archived mirrors included)")
        check(counts["HeapWorkload$Node"] == f["nodes"] and counts["HeapWorkload$Ring"] == f["ring"],
              f"{name}: the workload's own objects: {counts['HeapWorkload$Node']} nodes, "
              f"{counts['HeapWorkload$Ring']} ring links (it made {f['nodes']} and {f['ring']})")
        lam = [k for k in counts if k.startswith("HeapWorkload$$Lambda$")]
        check(len(lam) == 1 and "/0x" in lam[0], f"{name}: the lambda's hidden class named as "
              f"the histogram names it ({lam})")
    finally:
        jvm.kill()
        jvm.wait()
        wd.cleanup()


run("no CDS", ["-Xshare:off"], exact_class=True)
run("default", [], exact_class=False)
finish()
