"""Every file heaptop writes into --out is created safely: as root, against a
second local user who plants symlinks.

- --out must be a directory of heaptop's own user, not a symlink, and not
  writable by others unless sticky: a directory of the other user's, one
  that is a symlink and a 0777 one are refused in one line (naming whose it
  is), before the dump is read; and the symlink the other user planted there
  leads nowhere (the root-only file it points at is unchanged).
- In a root-owned 1777 directory (sticky: accepted) the planted symlinks at
  the final names (histogram.csv, duplicates.csv, summary.csv) are replaced,
  never followed: the victims are unchanged and the CSVs are regular files,
  root's, mode 0600 (duplicates.csv carries heap contents), with no temporary
  file left beside them. `heaptop heap` and `heaptop record --heap` both.
- `record PID --out BAD` refuses before anything touches the JVM: no
  `attaching` line and no agent in it afterwards.
- A full disk (a small tmpfs) leaves no truncated CSV behind: one line, and
  the directory is empty.
One JVM without the agent serves throughout (jcmd's dump, then a record that
attaches)."""
import os
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403

need_root("a second local user plants symlinks in directories heaptop writes in as root")
need_jcmd()
mallory = LocalUser("htm")
wd = Workdir("out-files")
os.chmod(wd.path, 0o711)  # mallory may reach the directories inside, list none of it
SECRET = "root's secret, 0600\n"


def victim(name):
    p = wd.file(name)
    with open(p, "w") as f:
        f.write(SECRET)
    os.chmod(p, 0o600)
    return p


def untouched(p):
    with open(p) as f:
        return f.read() == SECRET


def plant(directory, name, target):
    r = mallory.run(["ln", "-s", target, os.path.join(directory, name)])
    check(r.returncode == 0, f"{mallory.name} plants {name} -> {os.path.basename(target)} "
          f"({r.stderr.strip()})")


def heaptop(*args):
    p = subprocess.run([HEAPTOP, *args], capture_output=True, text=True, timeout=180,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stderr.strip(), p.stdout


def mkdir(name, mode, owner=None):
    p = wd.file(name)
    os.mkdir(p)
    os.chmod(p, mode)
    if owner:
        os.chown(p, owner.uid, owner.gid)
    return p


def has_agent(pid):
    return "libheaptop.so" in open(f"/proc/{pid}/maps").read()


def private_regular(path):
    st = os.lstat(path)
    return stat.S_ISREG(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600


# --- a JVM without the agent, and a small dump of it (jcmd) ---
jvm = stop_at_exit(start_jvm("HeaptopDemo", []))
check(wait_for(lambda: os.path.exists(f"/tmp/hsperfdata_root/{jvm.pid}"), 30),
      "the JVM runs and wrote its perf data")
dump = wd.file("small.hprof")


def dumped():
    try:
        jcmd(jvm.pid, "GC.heap_dump", dump, timeout=60)
        return os.path.exists(dump)
    except RuntimeError:
        return False


check(wait_for(dumped, 60, step=0.5), f"jcmd GC.heap_dump wrote {os.path.basename(dump)}")

# --- record PID --out BAD refuses before it attaches ---
notdir = wd.file("a-file")
touch(notdir)
theirs = mkdir("mallory-out", 0o755, mallory)
for what, out in (("a regular file", notdir), (f"{mallory.name}'s directory", theirs)):
    rc, err, _ = heaptop("record", str(jvm.pid), "--seconds", "1", "--out", out)
    lines = err.splitlines()
    check(rc == 2 and len(lines) == 1 and "attaching" not in err,
          f"record PID --out <{what}>: refused in one line before attaching: exit {rc}: {err}")
check(not has_agent(jvm.pid), "nothing was attached to the JVM by the refused records")

# --- a directory of another user's, with a symlink planted in it ---
v1 = victim("victim1")
plant(theirs, "histogram.csv", v1)
rc, err, out = heaptop("heap", dump, "--out", theirs)
check(rc != 0 and len(err.splitlines()) == 1 and mallory.name in err and "wrote" not in out,
      f"heap --out <{mallory.name}'s directory>: refused in one line naming {mallory.name}: "
      f"exit {rc}: {err}")
check(untouched(v1), "the root-only file the planted histogram.csv points at is unchanged")

# --- --out that others may write to (not sticky), or that is a symlink ---
open_dir = mkdir("open-777", 0o777)
rc, err, _ = heaptop("heap", dump, "--out", open_dir)
check(rc != 0 and len(err.splitlines()) == 1 and "write" in err,
      f"heap --out <a 0777 directory, not sticky>: refused in one line: exit {rc}: {err}")
mine = mkdir("mine", 0o700)
link = wd.file("link-to-mine")
os.symlink(mine, link)
rc, err, _ = heaptop("heap", dump, "--out", link)
check(rc != 0 and len(err.splitlines()) == 1 and "symlink" in err and not os.listdir(mine),
      f"heap --out <a symlink to a directory>: refused in one line, nothing written: "
      f"exit {rc}: {err}")

# --- a sticky 1777 directory of root's: planted symlinks replaced ---
shared = mkdir("shared", 0o1777)
v2, v3 = victim("victim2"), victim("victim3")
plant(shared, "histogram.csv", v2)
plant(shared, "duplicates.csv", v3)
rc, err, out = heaptop("heap", dump, "--out", shared)
check(rc == 0, f"heap --out <root's 1777 directory>: exit {rc}: {err[-300:]}")
check(untouched(v2) and untouched(v3), "the planted symlinks were not followed: both victims "
      "are unchanged")
names = sorted(os.listdir(shared))
check(names == ["behaviour.csv", "behaviour_edges.csv", "dominators.csv", "duplicates.csv",
                "histogram.csv"],
      f"the five CSVs and nothing else (no temporary left): {names}")
check(all(private_regular(os.path.join(shared, n)) for n in names),
      "each is a regular file of root's, mode 0600: " +
      ", ".join(f"{n} {oct(os.lstat(os.path.join(shared, n)).st_mode)}" for n in names))
hist_size = os.path.getsize(os.path.join(shared, "histogram.csv"))

# --- the same for record --heap (it attaches the agent: after the refusals) ---
shared2 = mkdir("shared2", 0o1777)
v4, v5 = victim("victim4"), victim("victim5")
plant(shared2, "summary.csv", v4)
plant(shared2, "duplicates.csv", v5)
rc, err, _ = heaptop("record", str(jvm.pid), "--seconds", "1", "--out", shared2, "--top", "0",
                     "--heap")
check(rc == 0, f"record PID --heap --out <root's 1777 directory>: exit {rc}: {err[-300:]}")
check(untouched(v4) and untouched(v5), "the planted summary.csv and duplicates.csv were not "
      "followed: both victims are unchanged")
names = sorted(os.listdir(shared2))
want = {"sites.csv", "classes.csv", "telemetry.csv", "summary.csv", "histogram.csv",
        "dominators.csv", "duplicates.csv"}
check(want <= set(names) and all(n.endswith(".csv") and not n.startswith(".") for n in names),
      f"every CSV, and no temporary: {names}")
check(all(private_regular(os.path.join(shared2, n)) for n in names),
      "each is a regular file of root's, mode 0600: " +
      ", ".join(f"{n} {oct(os.lstat(os.path.join(shared2, n)).st_mode)}" for n in names))

# --- a full disk: no truncated CSV left ---
full = mkdir("full", 0o700)
size = 8192
m = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", full],
                   capture_output=True, text=True)
if m.returncode != 0:
    print(f"skipped the full-disk case: cannot mount a tmpfs ({m.stderr.strip()})", flush=True)
else:
    try:
        check(hist_size > size, f"the premise: histogram.csv ({hist_size} B) does not fit in "
              f"{size} B")
        rc, err, out = heaptop("heap", dump, "--out", full)
        lines = err.splitlines()
        check(rc == 1 and len(lines) == 1 and "No space left" in err,
              f"heap --out <a full disk>: one line: exit {rc}: {err}")
        left = os.listdir(full)
        check(left == [], f"no truncated CSV or temporary left behind: {left}")
    finally:
        subprocess.run(["umount", full], capture_output=True)

stop_jvm(jvm)
wd.cleanup()
finish()
