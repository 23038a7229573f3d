#!/usr/bin/env python3
"""`cmake --install build --prefix P` gives a heaptop that works away from the
build tree: P/bin/heaptop starts a program under P/lib/libheaptop.so, and
without that file it says where it looked."""
import os
import shutil
import subprocess
import sys

from harness import HEAPTOP, JAR, JAVA, Workdir, check, finish

build = os.path.dirname(os.path.dirname(os.path.realpath(HEAPTOP)))  # BUILD/tui/heaptop
wd = Workdir("install")
prefix = wd.file("prefix")
try:
    p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, f"cmake --install exits 0 ({p.stderr.strip()[-200:]})")
    exe, lib = os.path.join(prefix, "bin", "heaptop"), os.path.join(prefix, "lib", "libheaptop.so")
    check(os.access(exe, os.X_OK), "P/bin/heaptop is installed")
    check(os.path.isfile(lib), "P/lib/libheaptop.so is installed")

    def record(out):
        return subprocess.run([exe, "record", "--seconds", "2", "--out", out, "--", JAVA, "-cp",
                               JAR, "QuietWorkload", "60000", wd.file("stop")],
                              capture_output=True, text=True, timeout=120)

    r = record(wd.file("out1"))
    check(r.returncode == 0 and "recording pid" in r.stderr,
          f"the installed heaptop records a program under the installed agent "
          f"(exit {r.returncode}: {r.stderr.strip()[-300:]})")
    check(os.path.isfile(os.path.join(wd.file("out1"), "classes.csv")), "and writes its CSVs")

    # Without the installed agent it must not quietly use another one (the
    # build tree's is not next to it); it says where it looked.
    if os.path.exists("/usr/local/lib/libheaptop.so"):
        print("skipped the missing-agent half: /usr/local/lib/libheaptop.so exists here")
    else:
        os.rename(lib, lib + ".away")
        r = record(wd.file("out2"))
        check(r.returncode != 0 and "cannot find heaptop's agent" in r.stderr
              and os.path.join(prefix, "bin") in r.stderr,
              f"without P/lib/libheaptop.so it says where it looked ({r.stderr.strip()[-200:]})")
finally:
    shutil.rmtree(prefix, ignore_errors=True)
    wd.cleanup()
sys.exit(finish())
