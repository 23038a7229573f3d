"""`heaptop control heapdump` says what the size it prints is: the dump file's
size, which is more than the objects in it take (ids, class records, names and
stack traces), not "N MiB of live objects". A real JVM (HeapWorkload, a known
heap) dumps with --keep; the size printed is the file's, labelled as such, and
`heaptop heap` on that file counts fewer object bytes than that."""
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("dumpsize")
facts = wd.file("facts")
jvm = start_jvm("HeapWorkload", [facts, 300], agent_opts=f"ipc={wd.base}", jvm_flags=["-Xmx256m"])
stop_at_exit(jvm)
try:
    check(wait_for(lambda: os.path.exists(facts) or jvm.poll() is not None, 120,
                   what="HeapWorkload building its heap") and jvm.poll() is None,
          "HeapWorkload built its heap")
    check(wait_socket(wd.base), "its agent listens")
    p = subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "heapdump", "--keep"],
                       capture_output=True, text=True, timeout=180)
    print(p.stdout.strip())
    m = re.search(r"heap dump \d+ written: (\S+)\n", p.stdout)
    check(p.returncode == 0 and m is not None, f"the dump was written ({p.stderr.strip()[-300:]})")
    path = m.group(1) if m else ""
    size = os.path.getsize(path) if path and os.path.exists(path) else -1
    line = next((l for l in p.stdout.split("\n") if f"({size} bytes)" in l), "")
    check(size > 0 and re.search(rf"file size [\d.]+ \S+ \({size} bytes\)", line),
          f"the size printed is labelled as the file's, and is the file's ({size}): {line!r}")
    check("of live objects" not in line and "of every object" not in line,
          "it is not called the objects' size")
    check("dump of the live objects" in line, "it says what the dump holds: the live objects")
    out = wd.file("heap")
    h = subprocess.run([HEAPTOP, "heap", path, "--out", out], capture_output=True, text=True,
                       timeout=300)
    mo = re.search(r": (\d+) objects, (\d+) bytes,", h.stdout)
    objects = int(mo.group(2)) if mo else -1
    check(h.returncode == 0 and 0 < objects < size,
          f"heaptop heap counts {objects} bytes of objects in the {size}-byte file")
    if path and os.path.exists(path):
        os.unlink(path)
finally:
    stop_jvm(jvm)
    wd.cleanup()
finish()
