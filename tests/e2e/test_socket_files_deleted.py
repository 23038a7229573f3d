"""Someone deletes the agent's socket files under a running JVM (a tmp cleaner,
a careless `rm`): the agent notices (its watchdog's probes no longer reach the
files) and creates them again, so a viewer can still connect, and the JVM's
log says what happened. The truths: the files on disk, a viewer's reply, and
the JVM's own stderr."""
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

wd = Workdir("sockdel")
go, done = wd.file("go"), wd.file("done")
jvm = start_jvm("PhaseWorkload", [go, done], agent_opts=f"ipc={wd.base}")
check(wait_agent(jvm, wd.base), "the agent listens")


def status():
    return subprocess.run([HEAPTOP, "control", "--ipc", wd.base, "status"], capture_output=True,
                          text=True, timeout=30)


# the file exists from bind(), a moment before listen(): wait for an answer
check(wait_for(lambda: status().returncode == 0, 15, step=0.2), "a viewer reaches the agent")
for rnd in (1, 2):
    os.unlink(wd.base + ".ctl")
    os.unlink(wd.base + ".events")
    p = status()
    check(p.returncode != 0 and "no heaptop agent" in p.stderr,
          f"round {rnd}: without the files a viewer is told plainly ({p.stderr.strip()[:120]})")
    back = wait_for(lambda: os.path.exists(wd.base + ".ctl") and
                    os.path.exists(wd.base + ".events"), 15, what="the socket files again")
    check(back, f"round {rnd}: the agent creates both socket files again")
    if back:
        check(oct(os.stat(wd.base + ".ctl").st_mode & 0o777) == oct(0o600),
              f"round {rnd}: the new .ctl is private (0600)")
    p = None

    def answers():
        global p
        p = status()
        return p.returncode == 0
    check(wait_for(answers, 15, step=0.2), f"round {rnd}: a viewer reaches the agent again "
          f"({p.stderr.strip()[:120] if p else ''})")
    rec = wd.file(f"rec{rnd}")
    r = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--out", rec],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and os.path.exists(os.path.join(rec, "sites.csv")),
          f"round {rnd}: and records through the stream ({r.stderr.strip()[-160:]})")
check(jvm.poll() is None, "the JVM runs on")
jvm.kill()
_, err = jvm.communicate()
said = [l for l in err.splitlines() if "heaptop" in l]
check(sum("ctl socket file" in l and "deleted" in l for l in said) == 2 and
      sum("events socket file" in l and "deleted" in l for l in said) == 2,
      f"the JVM's log says, each time, that each file was deleted: {said[:4]}")
wd.cleanup()
finish()
