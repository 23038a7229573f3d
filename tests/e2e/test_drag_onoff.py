"""Drag mode on and off ten times on a running JVM (issue 25): `heaptop
control --ipc BASE drag dragwl.` and `... drag off`, on dragwl.DragWorkload
started with the agent but without drag. Beside heaptop's agent, loaded after
it, runs tests/java/probe/ClassBytesProbe (heaptop-probe.jar): a
retransform-capable java.lang.instrument agent, so the class bytes it is
handed are the output of heaptop's ClassFileLoadHook; on request it
retransforms the classes of dragwl. itself and writes the bytes it saw.

- before drag was ever on, dragwl.Rec's bytes are the class file in the
  workloads' jar;
- at each off, the bytes the JVM defines each dragwl. class from (the probe
  sees them as heaptop's retransformation passes it: DIR/seen) hold no
  "heaptop/Drag" and equal the jar's, or, for a class whose bytes the JVM
  rebuilds differently even without heaptop (it is named), the bytes of the
  first off: the same at every off. dragwl.Rec and dragwl.DragWorkload$Gc
  (whose run() never returns: the JVM keeps its old versions) must be among
  them. Not the probe's own dumps after off: a class loaded with no
  retransform-capable hook changing it has no cached original, and the JVM
  rebuilds it from the running class; for dragwl.DragWorkload (no instance
  method: heaptop never retransforms it), whose main never returns, that
  copy grows by 8 bytes (a duplicated constant) at every retransformation,
  the probe's own, with or without heaptop (6781, 6789, 6797... bytes over
  six dumps of a JVM without heaptop's agent). So heaptop keeps each class's
  bytes as first seen and hands them back at off, and this test holds it to
  them;
- while on: dragwl.Rec's bytes hold "heaptop/Drag" (the injected call);
- across cycles 2 to 10 (the first builds what drag mode keeps: its helper
  class, its arrays) the JVM's threads (/proc/PID/task) grow by at most 2 (the
  JIT's and G1's threads come and go on their own), its
  descriptors (/proc/PID/fd) grow by at most 2, its resident memory by at most
  RSS_MB (the heap is pre-touched; what moves is class metadata and compiled
  code, freed as old class versions go)."""
import sys
import zipfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from cpu_csv import control  # noqa: E402

CYCLES = 10
RSS_MB = 24
PROBE = os.path.join(os.path.dirname(JAR), "heaptop-probe.jar")

wd = Workdir("drag-onoff")
probe_dir = wd.file("probe")
os.mkdir(probe_dir)
facts, stop = wd.file("facts"), wd.file("stop")
jerr_path = wd.file("jvm.err")
cmd = [JAVA, f"-XX:+Use{GC}", "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch",
       f"-agentpath:{AGENT}=ipc={wd.base},interval=64k,live=on",
       f"-javaagent:{PROBE}=dragwl.,{probe_dir}",  # after heaptop's: it sees heaptop's output
       "-cp", JAR, "dragwl.DragWorkload", facts, stop, "600", "200", "200", "50"]
jvm = stop_at_exit(subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                    stderr=open(jerr_path, "w"), text=True))


def jvm_err():
    with open(jerr_path) as f:
        return f.read().strip()[-600:]


with zipfile.ZipFile(JAR) as z:
    original = {n[:-len(".class")].replace("/", "."): z.read(n) for n in z.namelist()
                if n.startswith("dragwl/") and n.endswith(".class")}
check("dragwl.Rec" in original, f"the jar holds dragwl.Rec ({sorted(original)})")
nreq = [0]


def dump():
    """Ask the probe to retransform dragwl.'s classes: {class: bytes}, or an
    error string."""
    nreq[0] += 1
    n = nreq[0]
    touch(os.path.join(probe_dir, f"req-{n}"))
    done = os.path.join(probe_dir, f"done-{n}")
    if not wait_for(lambda: os.path.exists(done) or jvm.poll() is not None, 60,
                    what=f"the probe's dump {n}"):
        return "no answer from the probe"
    if not os.path.exists(done):
        return f"the JVM exited ({jvm_err()})"
    with open(done) as f:
        said = f.read().strip()
    if not said.startswith("classes="):
        return said
    d = os.path.join(probe_dir, f"dump-{n}")
    return {f[:-len(".class")]: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}


def counts():
    pid = jvm.pid
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return len(os.listdir(f"/proc/{pid}/task")), len(os.listdir(f"/proc/{pid}/fd")), rss // 1024


def injected(d):
    return isinstance(d, dict) and b"heaptop/Drag" in d.get("dragwl.Rec", b"")


SEEN = os.path.join(probe_dir, "seen")
first_off = {}  # a class the JVM rebuilds differently: its bytes at the first off


def seen():
    """{class: bytes} the JVM was handed at heaptop's last retransformation."""
    if not os.path.isdir(SEEN):
        return {}
    return {f[:-len(".class")]: open(os.path.join(SEEN, f), "rb").read() for f in os.listdir(SEEN)}


def clear_seen():
    for f in os.listdir(SEEN) if os.path.isdir(SEEN) else []:
        os.remove(os.path.join(SEEN, f))


def expected(c):
    return original.get(c) if ref.get(c) == original.get(c) else first_off.get(c)


def unclean(d):
    """What is wrong with the bytes handed back at an off ([] when nothing)."""
    bad = [f"{c}: not retransformed back" for c in ("dragwl.Rec", "dragwl.DragWorkload$Gc")
           if c not in d]
    for c, b in sorted(d.items()):
        want = expected(c)
        if b"heaptop/Drag" in b or (want is not None and b != want):
            bad.append(f"{c}: {'holds heaptop/Drag' if b'heaptop/Drag' in b else 'differs'} "
                       f"({len(b)} vs {len(want or b'')} bytes "
                       f"{'in the jar' if want == original.get(c) else 'at the first off'})")
    return bad


check(wait_agent(jvm, wd.base), f"the agent listens ({jvm_err()})")
wait_for(lambda: os.path.exists(os.path.join(probe_dir, "load", "dragwl.Rec.class")), 30,
         what="dragwl.Rec loaded")
before = dump()
check(isinstance(before, dict) and "dragwl.Rec" in before, f"the probe retransforms dragwl. "
      f"before drag ({before if isinstance(before, str) else sorted(before)})")
before = before if isinstance(before, dict) else {}
ref = {}
for c, b in before.items():
    ref[c] = original.get(c) if b == original.get(c) else b
    if b != original.get(c):
        print(f"note: {c}: the JVM rebuilds its bytes differently from the jar's without drag "
              f"({len(b)} vs {len(original.get(c, b''))} bytes): held to its bytes before drag")
check(ref.get("dragwl.Rec") == original.get("dragwl.Rec"),
      "before drag, dragwl.Rec's bytes are the jar's")

base_counts = None
for i in range(1, CYCLES + 1):
    rc, out, err = control(wd.base, "drag", "dragwl.")
    on_ok = rc == 0
    got = [None]
    seen_on = wait_for(lambda: injected(got.__setitem__(0, dump()) or got[0]), 10, step=0.2,
                       what=f"cycle {i}: the call injected")
    clear_seen()
    rc2, out2, err2 = control(wd.base, "drag", "off")  # returns once the classes are back
    back = seen()
    for c, b in back.items():
        if i == 1 and ref.get(c) != original.get(c):
            first_off[c] = b
    bad = unclean(back)
    seen_off = not bad
    if i == 1 or not (on_ok and seen_on and rc2 == 0 and seen_off) or i == CYCLES:
        check(on_ok, f"cycle {i}: drag dragwl. accepted (exit {rc}: {(out + err).strip()[-200:]})")
        check(seen_on, f"cycle {i}: while on, dragwl.Rec's bytes hold heaptop/Drag")
        check(rc2 == 0, f"cycle {i}: drag off accepted (exit {rc2}: {(out2 + err2).strip()[-200:]})")
        check(seen_off, f"cycle {i}: at off, every dragwl. class gets its original bytes back "
              f"({bad or f'all {len(back)} equal'})")
    else:
        print(f"cycle {i}: on, injected; off, original bytes", flush=True)
    if i == 1:
        base_counts = counts()
        print(f"after cycle 1: {base_counts[0]} threads, {base_counts[1]} descriptors, "
              f"{base_counts[2]} MB resident", flush=True)
    if jvm.poll() is not None:
        break

if base_counts and jvm.poll() is None:
    end = counts()
    print(f"after cycle {CYCLES}: {end[0]} threads, {end[1]} descriptors, {end[2]} MB resident")
    check(end[0] <= base_counts[0] + 2, f"threads {base_counts[0]} -> {end[0]} (at most +2: "
          f"the JIT's and G1's threads come and go)")
    check(end[1] <= base_counts[1] + 2, f"descriptors {base_counts[1]} -> {end[1]} (at most +2)")
    check(end[2] <= base_counts[2] + RSS_MB,
          f"resident memory {base_counts[2]} -> {end[2]} MB (at most +{RSS_MB} MB)")
check(jvm.poll() is None, f"the JVM ran throughout ({jvm_err()})")
touch(stop)
stop_jvm(jvm)
wd.cleanup()
finish()
