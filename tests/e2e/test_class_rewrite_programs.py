"""Drag mode's bytecode rewriter (agent/class_rewrite.c) on real class files in
a real JVM, what the unit test cannot check: the workloads' jar extracted
twice, one copy rewritten offline by tests/class_rewrite_tool (every class,
a class id each, as the agent would with every class in the filter), then run
with -Xverify:all and heaptop/Drag (compiled from agent/java/heaptop/Drag.java,
javac --release 17) on -Xbootclasspath/a:
- RewriteProgram (switches at every alignment, try/catch/finally, loops back
  to offset 0, frames holding uninitialized objects, inner classes, lambdas,
  records, a long method) prints the same as the unrewritten run;
- LoadAllClasses loads and initializes (so verifies) every class of the jar:
  the same outcome per class, no VerifyError or ClassFormatError;
- javap finds the call at the entry of as many methods as the tool injected.
On JDK 25 too when one is installed under /usr/lib/jvm."""
import glob
import os
import re
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from harness import JAR, JAVA, Workdir, check, finish  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOL = os.path.join(os.path.dirname(JAR), "class_rewrite_tool")
BIN = os.path.dirname(os.path.realpath(shutil.which(JAVA) or JAVA))


def run(cmd, timeout=120):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


w = Workdir("rewrite")
orig, rew, drag = (os.path.join(w.path, d) for d in ("orig", "rew", "drag"))
for d in (orig, rew):
    with zipfile.ZipFile(JAR) as z:
        z.extractall(d)
rc, _, err = run([os.path.join(BIN, "javac"), "--release", "17", "-nowarn", "-d", drag,
                  os.path.join(SRC, "agent", "java", "heaptop", "Drag.java")])
check(rc == 0, f"heaptop/Drag compiles with javac --release 17 {err.strip()[:300]}")

rc, out, err = run([TOOL, rew])
print(out.strip(), err.strip()[:2000])
counts = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", out))
check(rc == 0 and counts.get("classes", 0) >= 50,
      f"the tool read and wrote every class of the jar ({counts.get('classes')})")
check(counts.get("refused", -1) == 0, f"no class refused as malformed ({counts.get('refused')})")
check(counts.get("injected", 0) >= 60, f"the call injected in {counts.get('injected')} methods")
check(counts.get("injected") == counts.get("methods"),
      "every instance method has it (none past 64 KB or with type annotations in the jar)")

# javap: as many entries with the call as the tool counted, none in the originals
classes = sorted(os.path.relpath(p, rew)[:-6] for p in glob.glob(f"{rew}/**/*.class", recursive=True))
for tree, want in ((rew, counts.get("injected")), (orig, 0)):
    rc, out, err = run([os.path.join(BIN, "javap"), "-c", "-p", "-cp", tree] + classes, timeout=180)
    entries = len(re.findall(r"\n\s+0: aload_0\n\s+1: sipush\s+\d+\n\s+4: invokestatic\s+#\d+\s+"
                             r"// Method heaptop/Drag\.touch:\(Ljava/lang/Object;I\)V\n\s+7: nop\n", out))
    check(rc == 0 and entries == want,
          f"javap on {os.path.basename(tree)}: {entries} methods start with the call, want {want}")

javas = [JAVA] + sorted(glob.glob("/usr/lib/jvm/*25*/bin/java"))[:1]
for java in javas:
    name = "JDK " + os.path.basename(os.path.dirname(os.path.dirname(os.path.realpath(java))))
    for main, args in (("RewriteProgram", []), ("LoadAllClasses", [rew])):
        base = run([java, "-Xverify:all", "-cp", orig, main] + [orig if a == rew else a for a in args])
        got = run([java, "-Xverify:all", f"-Xbootclasspath/a:{drag}", "-cp", rew, main] + args)
        bad = re.findall(r"\S*(?:VerifyError|ClassFormatError)\S*", got[1] + got[2])
        check(base[0] == 0 and got[0] == 0 and not bad,
              f"{name}: {main} runs rewritten under -Xverify:all (exit {got[0]}, {bad[:3]}) "
              f"{got[2].strip()[:500]}")
        check(got[1] == base[1] and len(base[1].splitlines()) > 10,
              f"{name}: {main} prints what the unrewritten run does "
              f"({len(base[1].splitlines())} lines)")
        if got[1] != base[1]:
            for a, b in zip(base[1].splitlines(), got[1].splitlines()):
                if a != b:
                    print(f"  first difference: {a!r} / {b!r}")
                    break
finish()
