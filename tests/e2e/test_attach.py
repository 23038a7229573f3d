"""`heaptop PID` and `heaptop record PID` on a JVM started without the agent
load it through HotSpot's dynamic attach (tui/attach, in C: no jcmd), then
connect as usual: record gets sites with known frames, --interval reaches the
agent, the TUI reaches a live frame (the time it takes is printed), and a
second viewer reuses the running agent (no second load, options said not to
be applied)."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

wd = Workdir("attach")
ENV = {**os.environ, "XDG_RUNTIME_DIR": wd.path}  # the default socket path inside wd
os.mkdir(os.path.join(wd.path, "heaptop"), 0o700)
BODY = site_line("HeaptopDemo.java", "body")


def run(*argv, timeout=90):
    p = subprocess.run([HEAPTOP, *argv], capture_output=True, text=True, timeout=timeout, env=ENV,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def agent_threads(pid):
    """The agent's collector threads in pid (comm is cut at 15 bytes)."""
    n = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            n += open(f"/proc/{pid}/task/{t}/comm").read().startswith("heaptop-collec")
        except OSError:
            pass
    return n


def mapped(pid, lib):
    return lib in open(f"/proc/{pid}/maps").read()


def start_plain():
    jvm = start_jvm("HeaptopDemo", [], stdout=subprocess.DEVNULL)
    check(wait_for(lambda: mapped(jvm.pid, "/libjvm.so"), 20, what="the JVM's libjvm.so"),
          f"a JVM without the agent runs (pid {jvm.pid})")
    check(not mapped(jvm.pid, "libheaptop.so"), "it has no heaptop agent mapped")
    return jvm


def stop(jvm):
    jvm.kill()
    _, err = jvm.communicate(timeout=30)
    return err


# --- record PID attaches, with --interval passed through ---
jvm = start_plain()
out = wd.file("rec1")
rc, _, err = run("record", str(jvm.pid), "--seconds", "3", "--out", out, "--top", "0",
                 "--interval", "64k")
lines = err.splitlines()
check(rc == 0, f"heaptop record PID on an agentless JVM exits 0 ({rc}): {err.strip()[-300:]}")
check(lines and lines[0] == f"heaptop record: attaching to pid {jvm.pid} (HeaptopDemo) ...",
      f"it says it attaches, once, naming the main class: {lines[:1]}")
check(sum("attaching" in l for l in lines) == 1, "one attaching line")
check(mapped(jvm.pid, "libheaptop.so"), "the JVM now maps libheaptop.so")
sites = read_out(out)["sites"]
body = [r for r in sites if r["frame"] == f"HeaptopDemo.parseRequest:{BODY}" and r["class"] == "byte[]"]
check(len(sites) > 0 and body, f"the recording has sites ({len(sites)}), among them "
      f"HeaptopDemo.parseRequest:{BODY} (the demo's request body)")
rc, status, err2 = run("control", str(jvm.pid), "status")
check(rc == 0 and "interval=65536" in status and "interval 65536 bytes" in status,
      f"--interval 64k reached the agent (control status: {status.splitlines()[1:3]} {err2.strip()})")

# --- a second record reuses the agent: options not applied, nothing loaded twice ---
rc, _, err = run("record", str(jvm.pid), "--seconds", "1", "--out", wd.file("rec2"), "--top", "0",
                 "--interval", "1m")
check(rc == 0 and "attaching" not in err, f"a second record connects without attaching ({rc})")
check(f"pid {jvm.pid} already runs heaptop's agent" in err and "interval=1m not applied" in err,
      f"it says the options were not applied: {err.splitlines()[:1]}")
rc, status, _ = run("control", str(jvm.pid), "status")
check("interval=65536" in status, "the interval is still the first one")
check(agent_threads(jvm.pid) == 1, f"one agent collector thread ({agent_threads(jvm.pid)})")
jerr = stop(jvm)
check("already" not in jerr and "not loaded" not in jerr,
      f"the JVM's stderr has no second load: {jerr.strip()[-200:]!r}")

# --- --agent-opts passes through (and is checked first) ---
jvm = start_plain()
rc, _, err = run("record", str(jvm.pid), "--seconds", "1", "--out", wd.file("rec3"), "--top", "0",
                 "--agent-opts", "depth=8,live=off")
rc2, status, _ = run("control", str(jvm.pid), "status")
check(rc == 0 and "depth=8" in status and "live=off" in status,
      f"--agent-opts depth=8,live=off reached the agent ({rc}; {status.splitlines()[1:2]})")
stop(jvm)

# --- the TUI on `heaptop PID`: attach, then a live frame; how long it takes ---
if shutil.which("tmux"):
    jvm = start_plain()
    after = wd.file("tui.exit")
    t0 = time.time()
    t = Tmux(f"attach-{os.getpid()}",
             f"sh -c 'XDG_RUNTIME_DIR={wd.path} {HEAPTOP} {jvm.pid} 2>{wd.file('tui.err')}; "
             f"echo EXIT=$? > {after}'")
    try:
        s = t.wait_until(lambda s: "[live]" in s and "HeaptopDemo" in s, 30)
        took = time.time() - t0
        check(s is not None, f"heaptop PID attaches and shows a live frame of HeaptopDemo")
        print(f"FIGURE: heaptop PID to the first live frame: {took:.2f} s (attach included)",
              flush=True)
        check(took < 10, f"within 10 s ({took:.2f} s)")
        check(agent_threads(jvm.pid) == 1, "one agent thread with the TUI connected")
        # the JVM killed under the TUI: said once, no endless retrying, data
        # kept (the premise: the demo's frames on screen before the kill; the
        # first live frame can come before the first sample)
        had = t.wait_for("HeaptopDemo.", 20) is not None
        jvm.kill()
        jvm.communicate()
        s = t.wait_for("JVM gone without a goodbye", 15)
        check(had and s is not None and "HeaptopDemo." in s,
              "the JVM killed: the TUI says it is gone and keeps its data"
              + ("" if had else " (no frame of the demo was shown before the kill)"))
        time.sleep(2.5)  # the stimulus: two more reconnect periods
        s = t.screen()
        check("JVM gone without a goodbye" in s and "retrying" not in s,
              "and stops trying to reconnect to a pid that is gone")
        t.keys("q")
        wait_for(lambda: os.path.exists(after), 10)
    finally:
        t.kill()
    terr = open(wd.file("tui.err")).read()
    check(f"heaptop: attaching to pid {jvm.pid} (HeaptopDemo) ..." in terr,
          f"the TUI said it attaches: {terr.strip()[-200:]!r}")
else:
    print("no tmux: the TUI part is not run")

wd.cleanup()
finish()
