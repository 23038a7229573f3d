#!/usr/bin/env python3
"""Drag mode's rewriter on real programs, by hand (not CI): every class of
Debian's FOP, Xalan, Jython and H2 (../shared/workloads) and of the jars on
their class paths rewritten offline (tests/class_rewrite_tool: the call at
the entry of every instance method, a class id each, as the agent would with
the filter set to their whole code base), then the workload run under
-Xverify:all with heaptop/Drag on -Xbootclasspath/a:, and its output
fingerprint compared with an unrewritten run's (also under -Xverify:all).

Usage: tests/bench/drag_rewrite_programs.py BUILD_DIR [WORKLOAD ...]
  BUILD_DIR  a heaptop build (BUILD_DIR/tests/class_rewrite_tool)
  WORKLOAD   fop, xalan, jython, h2 (default: all four)
Environment: WORKLOADS (default /work/shared/workloads), KEEP=1 keeps the
scratch directory. Prints per workload: jars, classes, rewritten, refused,
methods, injected, skipped by reason, both fingerprints and the result; exits
1 when any run failed, any class was refused, a VerifyError was seen or a
fingerprint differs.

How: the jars named in the workload's script ($J/x.jar) and, through their
manifests' Class-Path, the jars those name, are copied into a scratch
directory, their classes rewritten (signature files dropped, absolute
Class-Path entries under /usr/share/java pointed at the copies), and the
workload scripts copied with J= pointing there."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

WL = os.environ.get("WORKLOADS", "/work/shared/workloads")
JDIR = "/usr/share/java"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
JAVA_HOME = os.environ.get("BENCH_JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")


def manifest_class_path(data):
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    main = text.split("\n\n")[0].replace("\n ", "")
    m = re.search(r"^Class-Path:\s*(.*)$", main, re.M)
    return m.group(1).split() if m else []


def rewrap_manifest(data, to):
    """The manifest with absolute Class-Path entries under /usr/share/java moved to to."""
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    parts = text.split("\n\n", 1)
    lines = parts[0].replace("\n ", "").split("\n")
    out = []
    for line in lines:
        if line.startswith("Class-Path:"):
            line = line.replace(JDIR + "/", to + "/")
        b = line.encode()
        out.append(b[:70])
        b = b[70:]
        while b:
            out.append(b" " + b[:69])
            b = b[69:]
    rest = ("\n\n" + parts[1]) if len(parts) > 1 else "\n"
    return b"\n".join(out) + rest.encode()


def jars_of(workload):
    script = open(os.path.join(WL, workload + ".sh")).read()
    todo = re.findall(r"\$J/([\w.+-]+\.jar)", script)
    seen = []
    while todo:
        name = todo.pop(0)
        if name in seen or not os.path.exists(os.path.join(JDIR, name)):
            continue
        seen.append(name)
        with zipfile.ZipFile(os.path.join(JDIR, name)) as z:
            if "META-INF/MANIFEST.MF" in z.namelist():
                for e in manifest_class_path(z.read("META-INF/MANIFEST.MF")):
                    e = e[5:] if e.startswith("file:") else e
                    p = os.path.normpath(e if e.startswith("/") else os.path.join(JDIR, e))
                    if os.path.dirname(p) == JDIR:
                        todo.append(os.path.basename(p))
    return seen


def rewrite_jar(tool, name, outdir, scratch):
    src = os.path.join(JDIR, name)
    tmp = tempfile.mkdtemp(dir=scratch)
    with zipfile.ZipFile(src) as z:
        infos = z.infolist()
        z.extractall(tmp)
    p = subprocess.run([tool, tmp], capture_output=True, text=True)
    counts = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", p.stdout)}
    if p.returncode != 0 or p.stderr.strip():
        print(f"  {name}: {p.stderr.strip()[:1000]}")
    with zipfile.ZipFile(os.path.join(outdir, name), "w", zipfile.ZIP_DEFLATED) as z:
        for i in infos:
            if re.match(r"META-INF/[^/]+\.(SF|RSA|DSA|EC)$", i.filename, re.I):
                continue
            if i.is_dir():
                z.writestr(i, b"")
                continue
            data = open(os.path.join(tmp, i.filename), "rb").read()
            if i.filename == "META-INF/MANIFEST.MF":
                data = rewrap_manifest(data, outdir)
            z.writestr(i, data, zipfile.ZIP_DEFLATED)
    shutil.rmtree(tmp)
    return counts


def run_workload(workload, scripts, java_opts, out):
    env = dict(os.environ, JAVA_OPTS=java_opts, BENCH_OUT=out, BENCH_JAVA_HOME=JAVA_HOME)
    p = subprocess.run(["bash", os.path.join(scripts, workload + ".sh")], env=env,
                       capture_output=True, text=True, timeout=1800)
    f = subprocess.run(["bash", os.path.join(WL, "fingerprint.sh"), workload], env=env,
                       capture_output=True, text=True)
    return p.returncode, p.stderr, f.stdout.strip()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    tool = os.path.join(os.path.abspath(sys.argv[1]), "tests", "class_rewrite_tool")
    workloads = sys.argv[2:] or ["fop", "xalan", "jython", "h2"]
    scratch = tempfile.mkdtemp(prefix="heaptop-drag-rewrite-")
    drag = os.path.join(scratch, "drag")
    subprocess.run([os.path.join(JAVA_HOME, "bin", "javac"), "--release", "17", "-nowarn", "-d",
                    drag, os.path.join(SRC, "agent", "java", "heaptop", "Drag.java")], check=True)
    scripts = os.path.join(scratch, "workloads")
    shutil.copytree(WL, scripts, symlinks=True, ignore=shutil.ignore_patterns("*.pyc"))
    jdir = os.path.join(scratch, "java")
    os.makedirs(jdir)
    common = open(os.path.join(scripts, "common.sh")).read()
    open(os.path.join(scripts, "common.sh"), "w").write(
        common.replace("J=/usr/share/java", "J=" + jdir))
    bad = 0
    done = set()
    for w in workloads:
        jars = jars_of(w)
        total = {}
        for name in jars:
            if name in done:
                continue
            done.add(name)
            for k, v in rewrite_jar(tool, name, jdir, scratch).items():
                total[k] = total.get(k, 0) + v
        base = run_workload(w, WL, "-Xverify:all", os.path.join(scratch, "out-base"))
        got = run_workload(w, scripts, f"-Xverify:all -Xbootclasspath/a:{drag}",
                           os.path.join(scratch, "out-rew"))
        verify = "VerifyError" in got[1] or "ClassFormatError" in got[1]
        same = base[0] == 0 and got[0] == 0 and base[2] == got[2] and base[2] != ""
        ok = same and not verify and total.get("refused", 0) == 0
        bad += not ok
        print(f"{w}: {len(jars)} jars ({', '.join(jars)})")
        print(f"  classes {total.get('classes', 0)} rewritten {total.get('rewritten', 0)} "
              f"unchanged {total.get('unchanged', 0)} refused {total.get('refused', 0)}; "
              f"instance methods {total.get('methods', 0)}: injected {total.get('injected', 0)}, "
              f"skipped past 64 KB {total.get('skipped_long', 0)}, "
              f"skipped for a Code attribute {total.get('skipped_attr', 0)}")
        print(f"  unrewritten: exit {base[0]}, fingerprint {base[2][:120]}")
        print(f"  rewritten:   exit {got[0]}, fingerprint {got[2][:120]}"
              f"{', VerifyError' if verify else ''}")
        if got[0] != 0 or verify:
            print("  " + got[1].strip()[-1500:].replace("\n", "\n  "))
        print(f"  {'ok' if ok else 'FAIL'}", flush=True)
    if os.environ.get("KEEP") == "1":
        print(f"kept {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
