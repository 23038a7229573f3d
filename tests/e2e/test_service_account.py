"""Service accounts and root: root on a JVM that runs as another user, the
service account (a second local user the test creates, harness.LocalUser, as
Tomcat runs as `tomcat`):

- the chooser, `heaptop` with no argument run by root, lists that JVM with
  its OWNER; Enter attaches as `heaptop PID` does (heaptop starts again as
  that, and goes on as the JVM's user) and reaches its live screen;
- after that switch, `e` writes its export into root's own private directory
  (the working directory, 0700), as root, mode 0600 (before: "cannot write in
  .: Permission denied");
- `heaptop record PID --out DIR --heap`, DIR in root's private directory,
  writes every CSV there as root (before: refused, DIR not the JVM user's);
- after `heaptop control PID detach`, `control PID status` names the socket
  path that was tried, in the JVM user's directory /tmp/heaptop-UID/, not
  root's /tmp/heaptop-0/.
Needs root."""
import re
import stat
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

# wd is root's, 0700: the service account cannot enter it; its JVM runs without the agent
svc, wd, exports, ENV, jvm = service_jvm("hts", "service")
t = None


def row_of(screen, pid):
    """The chooser's row of pid: (owner, main, agent), or None."""
    for line in (screen or "").split("\n"):
        m = re.match(r"\s*(\d+)\s+(\S+)\s+(\S+)\s+((?:\d+d )?\d\d:\d\d(?::\d\d)?)\s+"
                     r"(-|[\d.]+ \S+)\s+(.*)$", line)
        if m and int(m.group(1)) == pid:
            return m.group(2), m.group(3), m.group(6).strip()
    return None


def select(t, pid):
    """Move the cursor to pid's row with Home and Down, as a user would."""
    t.keys("Home")
    for _ in range(60):
        lines = t.screen().rstrip("\n").split("\n")
        i = t.selected_row()
        if i is not None and re.match(rf"\s*{pid}\b", lines[i]):
            return True
        t.keys("Down", pause=0.15)
    return False


def private_root_file(path):
    st = os.stat(path)
    return st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600


def heaptop(*args, timeout=120):
    p = subprocess.run([HEAPTOP, *args], capture_output=True, text=True, timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr.strip()


try:
    check(wait_for(lambda: "/libjvm.so" in open(f"/proc/{jvm.pid}/maps").read(), 30),
          f"the service's JVM runs as {svc.name}, without the agent")

    # --- the chooser run by root lists it, with its owner
    t = Tmux("service", f"sh -c 'cd {exports} && exec env -u XDG_RUNTIME_DIR {HEAPTOP}'",
             cols=140, rows=30)
    s = t.wait_until(lambda s: (row_of(s, jvm.pid) or ("",) * 3)[2] == "attachable", 40)
    check(s is not None, f"root's chooser lists the JVM of user {svc.name}")
    s = s or t.screen()
    r = row_of(s, jvm.pid)
    check(r is not None and r[0] == svc.name and r[1] == "LeakWorkload",
          f"its row: OWNER {svc.name}, MAIN LeakWorkload ({r})")
    check("OWNER" in s, "the chooser has an OWNER column")
    # Enter: attached as `heaptop PID` would, going on as the JVM's user
    check(select(t, jvm.pid), "the cursor reaches the service's JVM")
    t.keys("Enter", pause=0)
    s = t.wait_until(lambda s: f"pid {jvm.pid}" in s and "[live]" in s, 60)
    check(s is not None, "Enter reaches the live screen of the service's JVM")
    if s is None:
        print(t.screen())
    s = t.wait_for(f"as user {svc.name}", 10)
    check(s is not None, f"the status line says heaptop goes on as {svc.name}")
    with open(f"/proc/{jvm.pid}/maps") as f:
        check("libheaptop" in f.read(), "the agent is loaded in the service's JVM")

    # --- 'e' after the switch writes into root's directory, as root
    check(t.wait_for("LeakWorkload.", 30) is not None, "the tree shows the workload's frames")
    t.keys("e", pause=0)
    done = lambda: [f for f in os.listdir(exports)  # noqa: E731
                    if f.startswith("heaptop-tree-") and f.endswith(".summary.csv") and
                    os.path.getsize(os.path.join(exports, f)) > 0]
    ok = wait_for(lambda: done(), 30, what="the tree export")
    s = t.screen()
    check(ok, f"'e' exported into root's own directory ({t.status_line()})")
    files = sorted(os.listdir(exports))
    check(files and all(private_root_file(os.path.join(exports, f)) for f in files),
          f"the exports are root's, mode 0600 ({files})")
    check(not any(f.startswith(".") for f in files), "no temporary left behind")
    if ok:
        _, rows, _ = read_csv(os.path.join(exports, done()[0][:-len(".summary.csv")] + ".csv"))
        check(len(rows) > 0, f"the tree export has rows ({len(rows)})")
    t.keys("q", pause=1.0)
    check(not t.alive(), "q quits")
    t.kill()
    t = None

    # --- record --out in root's directory, --heap too, written as root
    out = wd.file("rec")  # made by record, in root's 0700 directory
    rc, _, err = heaptop("record", str(jvm.pid), "--seconds", "3", "--out", out, "--heap",
                         "--top", "0", "--timeout", "30000", timeout=240)
    check(rc == 0 and f"heaptop goes on as {svc.name}" in err,
          f"root records the service's JVM into a directory of root's: exit {rc}: {err[-400:]}")
    names = ("sites.csv", "classes.csv", "telemetry.csv", "summary.csv", "histogram.csv",
             "dominators.csv", "duplicates.csv")
    have = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check(all(n in have for n in names), f"every CSV is there ({have})")
    check(have and all(private_root_file(os.path.join(out, f)) for f in have),
          "each is root's, mode 0600")
    check(os.stat(out).st_uid == 0 and stat.S_IMODE(os.stat(out).st_mode) == 0o700,
          "the directory record made is root's, 0700")
    if "sites.csv" in have:
        check(len(read_out(out)["sites"]) > 0, "the recording has sites")

    # --- after a detach, the path tried is the JVM user's
    rc, _, err = heaptop("control", str(jvm.pid), "detach")
    check(rc == 0, f"control PID detach ({err[-200:]})")
    want = f"/tmp/heaptop-{svc.uid}/{jvm.pid}.ctl"
    check(wait_for(lambda: not os.path.exists(want), 30, what="the detached agent's socket gone"),
          f"the detached agent removed {want}")
    rc, _, err = heaptop("control", str(jvm.pid), "status")
    check(rc != 0 and want in err and "/tmp/heaptop-0/" not in err,
          f"control PID status after the detach names {want}: {err}")
finally:
    end_tui(t, jvm, wd, stop=True)
finish()
