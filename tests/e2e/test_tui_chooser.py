"""`heaptop` with no argument: the chooser lists the user's JVMs (PID, OWNER,
MAIN, UPTIME, HEAP USED, AGENT) in a real terminal. Three real JVMs: one started
with heaptop's agent, one without, one without and with attach switched off;
the AGENT column must say what each was started with. Filter and the cursor
keys work on the list; Enter on the agent's JVM reaches its live screen;
Enter on the agentless one attaches heaptop's agent (a job, "attaching to pid
N ...") and reaches its live screen, and while it is stopped (SIGSTOP) the
list says it cannot be attached; Enter on the one that cannot be attached
says why and stays. An empty list says so plainly (a user without JVMs)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

wd = Workdir("chooser")
# default socket paths inside wd, for the JVMs' agents and for heaptop
os.environ["XDG_RUNTIME_DIR"] = wd.path
CMD = f"env XDG_RUNTIME_DIR={wd.path} {HEAPTOP}"

with_agent = start_jvm("LeakWorkload", [300], agent_opts="")
# its stdout unread: a SIGQUIT (the attach) may make it print a thread dump
without = start_jvm("HeaptopDemo", [300], stdout=subprocess.DEVNULL)
no_attach = start_jvm("LeakWorkload", [300], jvm_flags=["-XX:+DisableAttachMechanism"])
jvms = [with_agent, without, no_attach]
t = None


def row_of(screen, pid, owner=False):
    """The chooser's row of pid: (main, uptime, heap, agent), or None; with
    owner, the OWNER column's text alone."""
    for line in (screen or "").split("\n"):
        m = re.match(r"\s*(\d+)\s+(\S+)\s+(\S+)\s+((?:\d+d )?\d\d:\d\d(?::\d\d)?)\s+"
                     r"(-|[\d.]+ \S+)\s+(.*)$", line)
        if m and int(m.group(1)) == pid:
            return m.group(2) if owner else (m.group(3), m.group(4), m.group(5),
                                             m.group(6).strip())
    return None


def listed(screen, *pids):
    return all(row_of(screen, p) for p in pids)


def select(t, pid):
    """Move the cursor to pid's row with Home and Down, as a user would."""
    t.keys("Home")
    for _ in range(60):
        lines = t.screen(colors=True).rstrip("\n").split("\n")
        i = t.selected_row()
        if i is not None and re.match(rf"\s*(?:\x1b\[[\d;]*m)*\s*{pid}\b",
                                      re.sub(r"\x1b\[[\d;]*m", "", lines[i])):
            return True
        t.keys("Down", pause=0.15)
    return False


try:
    base = os.path.join(wd.path, "heaptop", str(with_agent.pid))
    check(wait_agent(with_agent, base), "the JVM started with -agentpath has its agent listening")
    t = Tmux("chooser", CMD, cols=160, rows=30)  # other JVMs listed may widen MAIN
    pids = [j.pid for j in jvms]
    s = t.wait_until(lambda s: listed(s, *pids) and "attachable" in (row_of(s, without.pid) or
                                                                       ("",) * 4)[3], 30)
    check(s is not None, "all three JVMs are listed")
    s = s or t.screen()
    print(s)
    check("PID" in s and "OWNER" in s and "MAIN" in s and "UPTIME" in s and "HEAP USED" in s and
          "AGENT" in s, "the columns are PID, OWNER, MAIN, UPTIME, HEAP USED, AGENT")
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    check(all(row_of(s, p, owner=True) == me for p in pids),
          f"OWNER names the JVMs' user, {me}")
    a, b, c = row_of(s, with_agent.pid), row_of(s, without.pid), row_of(s, no_attach.pid)
    check(a is not None and a[0] == "LeakWorkload" and a[3] == "heaptop",
          f"the JVM started with the agent: LeakWorkload, AGENT heaptop ({a})")
    check(b is not None and b[0] == "HeaptopDemo" and b[3] == "attachable",
          f"the JVM started without it: HeaptopDemo, AGENT attachable ({b})")
    check(c is not None and c[0] == "LeakWorkload" and c[3].startswith("not attachable:") and
          "DisableAttachMechanism" in c[3],
          f"the JVM with attach switched off: not attachable, and why ({c})")
    # HotSpot's counters of heap use move at collections (and some, ZGC's,
    # only then): the workloads allocate, a collection comes within seconds
    s2 = t.wait_until(lambda s: all((row_of(s, p) or ("-",) * 4)[2] != "-"
                                    for p in (with_agent.pid, without.pid)), 30)
    check(s2 is not None, "HEAP USED comes from the perf data")
    check(not os.path.exists(os.path.join(wd.path, "heaptop", str(without.pid) + ".ctl")),
          "listing attached nothing")

    # the filter narrows the list as other lists' filters do, Esc puts it back
    t.keys("\\")
    t.text("Demo")
    s = t.wait_until(lambda s: not listed(s, with_agent.pid) and listed(s, without.pid), 5)
    check(s is not None and "JVM filter" in s, "the filter narrows the list to HeaptopDemo")
    t.keys("Escape", pause=0.6)
    s = t.wait_until(lambda s: listed(s, *pids), 5)
    check(s is not None, "Esc cancels the filter: all three again")

    # a JVM that cannot be attached: Enter says why and stays
    check(select(t, no_attach.pid), "Down reaches the JVM that cannot be attached")
    t.keys("Enter", pause=0.6)
    s = t.screen()
    check("cannot be attached" in s and "DisableAttachMechanism" in s and "PID" in s,
          "Enter on it says why, and the chooser stays")

    # the JVM with the agent: Enter connects as `heaptop PID` does
    check(select(t, with_agent.pid), "the cursor reaches the JVM with the agent")
    t.keys("Enter")
    s = t.wait_until(lambda s: f"pid {with_agent.pid}" in s and "[live]" in s, 20)
    check(s is not None and "LeakWorkload" in s, "Enter reaches the live screen of that JVM")
    t.keys("q", pause=1.0)
    check(not t.alive(), "q quits")

    # the JVM without: stopped, it cannot answer an attach, and the list says so
    # (with --interval 64k: the options of the command line go with an attach)
    t = Tmux("chooser2", CMD + " --interval 64k", cols=160, rows=30)
    os.kill(without.pid, signal.SIGSTOP)
    s = t.wait_until(lambda s: "stopped" in (row_of(s, without.pid) or ("",) * 4)[3], 15)
    check(s is not None, "a stopped JVM is not attachable, and the row says it is stopped")
    os.kill(without.pid, signal.SIGCONT)
    s = t.wait_until(lambda s: (row_of(s, without.pid) or ("",) * 4)[3] == "attachable", 15)
    check(s is not None, "continued, it is attachable again")
    # Enter attaches (a job, the status line says so), then its live screen
    check(select(t, without.pid), "the cursor reaches the JVM without an agent")
    # Stopped just after Enter, the JVM cannot answer: the attach job waits
    # for it (the status line says so for as long as it waits) or refuses it
    # at once as stopped (the error line says so); neither on the UI thread.
    t.keys("Enter", pause=0)
    os.kill(without.pid, signal.SIGSTOP)
    s = t.wait_for(f"attaching to pid {without.pid}", 10)
    check(s is not None, "the status line says 'attaching to pid N ...'")
    print(s)
    t.keys("Down", pause=0.3)  # the UI still answers while the attach waits or after it failed
    check(t.alive() and "PID" in t.screen(), "the chooser stays responsive meanwhile")
    os.kill(without.pid, signal.SIGCONT)
    s = t.wait_until(lambda s: f"pid {without.pid}" in s and "[live]" in s or
                     f"attaching to pid {without.pid} failed" in s, 15)
    if s is not None and "failed" in s and "[live]" not in s:
        check("stopped" in s, "a failed attach says why on the status line (stopped)")
        t.wait_until(lambda s: (row_of(s, without.pid) or ("",) * 4)[3] == "attachable", 15)
        check(select(t, without.pid), "the cursor is back on it")
        t.keys("Enter")
    s = t.wait_until(lambda s: f"pid {without.pid}" in s and "[live]" in s, 30)
    check(s is not None and "HeaptopDemo" in s,
          "after the attach, the live screen of the JVM that had no agent")
    if s is None:
        print(t.screen())
    check(os.path.exists(os.path.join(wd.path, "heaptop", str(without.pid) + ".ctl")),
          "the attached agent listens where `heaptop PID` looks")
    p = subprocess.run([HEAPTOP, "control", "--ipc", os.path.join(wd.path, "heaptop",
                        str(without.pid)), "status"], capture_output=True, text=True, timeout=30)
    check("interval 65536 bytes" in p.stdout,
          f"the attach took the command line's --interval 64k ({p.stdout.strip()[:200]})")
    t.keys("q", pause=1.0)
    t.kill()

    # a user without JVMs: the list says so plainly
    if os.geteuid() == 0 and shutil.which("setpriv"):
        t = Tmux("chooser3", f"setpriv --reuid=nobody --regid=nogroup --clear-groups "
                             f"env XDG_RUNTIME_DIR= HOME=/ {HEAPTOP}", cols=100, rows=20)
        s = t.wait_for("no JVMs of user nobody are running; start one, or give a PID", 15)
        check(s is not None, "no JVMs: 'no JVMs of user nobody are running; start one, or give a PID'")
        if s is None:
            print(t.screen())
        t.keys("q", pause=0.8)
        check(not t.alive(), "q quits the empty chooser")
        t.kill()
finally:
    if t:
        t.kill()
    for j in jvms:
        if j.poll() is None:
            j.kill()
        j.wait()
    wd.cleanup()
finish()
