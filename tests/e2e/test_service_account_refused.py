"""Service accounts and root: an export that fails after the switch, in a
directory the keeper keeps (outdir.h, keeper.h). Root runs `heaptop PID --out
DIR` on the JVM of a second local user the test creates (harness.LocalUser, as
Tomcat runs as `tomcat`); DIR is root's, 0700, kept open by the keeper, and
heaptop goes on as the JVM's user, who cannot enter DIR. Then DIR refuses,
each a way a real directory does after heaptop started:

- a name the export reserves is taken (its .summary.csv, planted by the
  test for every second of the test): the export goes to the next free
  name and leaves no empty file at the taken one (before: the reserved
  heaptop-tree-STAMP.csv stayed, unlink() as the JVM's user was refused);
- DIR's filesystem is full (a small tmpfs mounted on DIR; skipped where the
  test may not mount): the export says it cannot write, and the names it
  reserved are removed, DIR holds nothing new (before: both empty files
  stayed);
- DIR is made immutable (chattr +i: even root may create nothing there):
  `e` says which user could not write where (before: "cannot write in DIR:
  Operation not permitted", no user).
Needs root."""
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403
from tmux import Tmux, status_line  # noqa: E402

# wd is root's, 0700: the service account cannot enter it, nor exports (DIR)
svc, wd, exports, _, jvm = service_jvm("htr", "refused")
# a small filesystem of root's on DIR, to fill; without one the full-disk part is skipped
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", exports],
                         capture_output=True, text=True).returncode == 0
if not mounted:
    print("note: cannot mount a tmpfs here: the full-filesystem part is skipped", flush=True)
immutable = False
t = None


def ours():
    """DIR's heaptop files (not the test's filler)."""
    return sorted(f for f in os.listdir(exports) if f.startswith("heaptop-"))


def status(screen):
    """The status line (one line at 200 columns), spaces squeezed."""
    return " ".join(status_line(screen).split())


last = [""]


def export(t, what, timeout=60):
    """Press e and wait until the status line says how it went (a line
    other than the last export's, which may still show)."""
    t.keys("e", pause=0)
    done = lambda s: (("exported to" in status(s) or "cannot write" in status(s))  # noqa: E731
                      and status(s) != last[0])
    s = t.wait_until(done, timeout)
    line = status(s or t.screen())
    check(s is not None, f"{what}: the status line says how the export went ({line})")
    last[0] = line
    return line


try:
    check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{jvm.pid}/maps").read(), 30),
          f"the service's JVM runs as {svc.name}, without the agent")
    t = Tmux("refused", f"sh -c 'cd {exports} && exec env -u XDG_RUNTIME_DIR {HEAPTOP} "
             f"{jvm.pid} --out {exports}'", cols=200, rows=40)
    s = t.wait_until(lambda s: f"pid {jvm.pid}" in s and "[live]" in s, 90)
    check(s is not None, "heaptop PID reaches the live screen of the service's JVM")
    check(t.wait_for(f"as user {svc.name}", 15) is not None,
          f"heaptop goes on as {svc.name}, who cannot enter DIR")
    check(t.wait_for("LeakWorkload.", 60) is not None, "the tree shows the workload's frames")

    # --- a reserved name taken: the next one is used, no empty file stays
    now = time.time()
    planted = [time.strftime("%Y%m%d-%H%M%S", time.localtime(now + d)) for d in range(-2, 180)]
    for stamp in planted:
        touch(os.path.join(exports, f"heaptop-tree-{stamp}.summary.csv"))
    before = set(ours())
    line = export(t, "a taken summary name")
    check("exported to" in line and "-2.csv" in line,
          f"the export goes to the next free name: {line}")
    new = sorted(set(ours()) - before)
    stray = [f for f in new if any(f == f"heaptop-tree-{s}.csv" for s in planted)]
    check(not stray, f"no empty file left at the name whose summary was taken ({new})")
    check(len(new) == 2 and all(os.path.getsize(os.path.join(exports, f)) > 0 for f in new),
          f"the export and its summary, both written ({new})")
    for f in os.listdir(exports):
        os.unlink(os.path.join(exports, f))

    # --- a full filesystem: nothing of the export stays
    if mounted:
        with open(os.path.join(exports, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        line = export(t, "a full filesystem")
        check("cannot write" in line and "No space left" in line,
              f"the export says it could not write: {line}")
        left = ours()
        check(not left, f"the names it reserved are removed, DIR holds nothing new ({left})")
        for f in os.listdir(exports):
            os.unlink(os.path.join(exports, f))

    # --- DIR made immutable: e says who could not write where
    immutable = subprocess.run(["chattr", "+i", exports], capture_output=True).returncode == 0
    if not immutable:
        print("note: chattr +i is refused here: the immutable part is skipped", flush=True)
    else:
        line = export(t, "an immutable directory")
        want = (f"heaptop runs as {svc.name} (uid {svc.uid}) and cannot write in "
                f"'{exports}': Operation not permitted")
        check(want in line, f"e says which user could not write where: {line}")
        check(not ours(), f"nothing written ({ours()})")
    t.keys("q", pause=1.0)
    check(wait_for(lambda: not t.alive(), 15), "q quits")
finally:
    end_tui(t, jvm, stop=True)
    if immutable:
        subprocess.run(["chattr", "-i", exports], capture_output=True)
    if mounted:  # the keeper holds it until it sees heaptop gone: then it unmounts
        umount = lambda: subprocess.run(["umount", exports],  # noqa: E731
                                        capture_output=True).returncode == 0
        if not wait_for(umount, 30, step=0.5):
            subprocess.run(["umount", "-l", exports], capture_output=True)
    wd.cleanup()
finish()
