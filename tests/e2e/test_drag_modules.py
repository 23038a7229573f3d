"""Drag mode on classes in named modules (issue 25): heaptop/Drag is in the
boot loader's unnamed module, which a named module does not read by
declaration; a call injected there must not throw IllegalAccessError into
the program. HotSpot makes a module whose class a ClassFileLoadHook changed
read the unnamed modules (jdk.internal.module.Modules.transformedByAgent),
so the classes are instrumented like any other. A tiny modular program
(module mdrag, built here with javac --module-source-path, run with
java -p DIR -m mdrag/mdrag.Main) with the agent: `heaptop control drag
mdrag.` on the running JVM retransforms Worker (loaded, its step() called in
a loop), which must count as instrumented (1 class, 1 method); Late is
loaded afterwards (the hook's own path: 2 classes); the program runs to the
end and prints what it prints without the agent, exit 0, no
IllegalAccessError. Every wait has a deadline."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403

MAIN = """package mdrag;

import java.nio.file.Files;
import java.nio.file.Path;

public final class Main {
    public static void main(String[] a) throws Exception {
        Path stop = Path.of(a[0]);
        Worker w = new Worker(3);
        long x = 0, deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            for (int i = 0; i < 1000; i++) x += w.step(i);
            Thread.sleep(5);
        }
        Late l = new Late(7);
        long sum = 0;
        for (int i = 0; i < 100000; i++) sum += w.step(i) + l.twice(i);
        System.out.println("sum=" + sum + " ran=" + (x >= 0));
    }
}

final class Worker {
    private final int k;
    Worker(int k) { this.k = k; }
    int step(int i) { return i * k; }
}

final class Late {
    private final int k;
    Late(int k) { this.k = k; }
    long twice(int i) { return 2L * i + k; }
}
"""

wd = Workdir("drag-modules")
src = wd.file("src")
os.makedirs(os.path.join(src, "mdrag", "mdrag"))
with open(os.path.join(src, "mdrag", "module-info.java"), "w") as f:
    f.write("module mdrag {}\n")
with open(os.path.join(src, "mdrag", "mdrag", "Main.java"), "w") as f:
    f.write(MAIN)
javac = os.path.join(os.path.dirname(os.path.realpath(shutil.which(JAVA) or JAVA)), "javac")
mods = wd.file("mods")
p = subprocess.run([javac, "-d", mods, "--module-source-path", src, "-m", "mdrag"],
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 0, f"javac builds module mdrag ({p.stderr.strip()[-300:]})")

stop = wd.file("stop")
touch(stop)
ref = subprocess.run([JAVA, "-p", mods, "-m", "mdrag/mdrag.Main", stop], capture_output=True,
                     text=True, timeout=120)
check(ref.returncode == 0 and ref.stdout.startswith("sum="),
      f"without the agent the program prints its sum ({ref.stdout.strip()} {ref.stderr[-200:]})")
os.remove(stop)

out_path, err_path = wd.file("out"), wd.file("err")
jvm = stop_at_exit(subprocess.Popen(
    [JAVA, f"-XX:+Use{GC}", f"-agentpath:{AGENT}=ipc={wd.base},interval=64k,live=on",
     "-p", mods, "-m", "mdrag/mdrag.Main", stop],
    stdout=open(out_path, "w"), stderr=open(err_path, "w"), text=True))


def text(path):
    with open(path) as f:
        return f.read()


def status():
    r = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                       text=True, timeout=60)
    m = re.search(r"^drag mode .*$", r.stdout, re.M)
    return m.group(0) if m else ""


def counts():
    m = re.search(r"(\d+) classes, (\d+) methods instrumented.* (\d+) classes failed", status())
    return tuple(map(int, m.groups())) if m else None


check(wait_agent(jvm, wd.base), f"the agent listens ({text(err_path)[-300:]})")
r = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "drag", "mdrag."], capture_output=True,
                   text=True, timeout=60)
check(r.returncode == 0, f"drag mdrag. accepted ({(r.stdout + r.stderr).strip()[-200:]})")
check(wait_for(lambda: counts() == (1, 1, 0), 10, what="Worker instrumented"),
      f"Worker in module mdrag instrumented on the running JVM: 1 class, 1 method, 0 failed "
      f"({status()})")
touch(stop)
check(wait_for(lambda: jvm.poll() is not None or (counts() or (0,))[0] == 2, 60,
               what="Late loaded"), "the program goes on")
check(wait_for(lambda: jvm.poll() is not None, 60, what="the program's end"), "the program ends")
out, err = text(out_path), text(err_path)
check(jvm.returncode == 0, f"the program exits 0 under drag mode (exit {jvm.returncode}: "
      f"{err.strip()[-400:]})")
check("IllegalAccessError" not in err and "Exception" not in err,
      f"no IllegalAccessError, no exception ({err.strip()[-300:]})")
check(out == ref.stdout, f"its output is unchanged ({out.strip()!r} vs {ref.stdout.strip()!r})")
stop_jvm(jvm)
wd.cleanup()
finish()
