"""The socket files go with the JVM, however it leaves, as long as any code of
the agent's can still run then.

A JVM that fails to start after the agent loaded (a heap it cannot reserve, the
agent given twice, another agent failing to load after it) leaves through
HotSpot's vm_abort, an _exit: the files must not exist yet (they are created at
VMInit). A JVM that dies of OutOfMemoryError, with or without
-XX:+ExitOnOutOfMemoryError (an exit() up to JDK 17, so the transport's exit
hook runs), must remove them. From JDK 18 on (JDK-8274136),
-XX:+ExitOnOutOfMemoryError ends the JVM with _exit: no code of the agent runs,
as after SIGKILL, and that case is not checked there. Each scenario runs on the
configured JDK and on a JDK 25 when one is installed."""
import glob
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import harness  # noqa: E402
from harness import *  # noqa: E402,F403

javas = [harness.JAVA] + sorted(glob.glob("/usr/lib/jvm/*25*/bin/java"))[:1]


def leftovers(base):
    return [s for s in (".ctl", ".events") if os.path.exists(base + s)]


def start_failure(java, label, flags, agents, expect):
    wd = Workdir("exitclean")
    base = os.path.join(wd.path, "sub", "jvm")  # the agent creates sub/ when it loads
    cmd = [java, *flags, *[a.replace("BASE", base) for a in agents], "-cp", JAR, "OomWorkload", "-"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    said = (p.stdout + p.stderr).strip()
    check(p.returncode != 0 and expect in said,
          f"[{label}] the JVM fails to start ({p.returncode}: {said.splitlines()[-1:]})")
    check(os.path.isdir(os.path.dirname(base)), f"[{label}] the agent was loaded (it made the socket directory)")
    check(not leftovers(base), f"[{label}] no socket file left ({leftovers(base)})")
    wd.cleanup()


def oom(java, label, flags, expect_rc):
    wd = Workdir("exitclean")
    go = wd.file("go")
    cmd = [java, "-Xmx48m", *flags, f"-agentpath:{AGENT}=ipc={wd.base}", "-cp", JAR, "OomWorkload", go]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(wait_socket(wd.base) and len(leftovers(wd.base)) == 2, f"[{label}] both socket files exist while it runs")
    touch(go)
    out, err = p.communicate(timeout=120)
    check(p.returncode == expect_rc and "OutOfMemoryError" in out + err,
          f"[{label}] the JVM dies of OutOfMemoryError (exit {p.returncode})")
    check(not leftovers(wd.base), f"[{label}] no socket file left ({leftovers(wd.base)})")
    wd.cleanup()


def feature_version(java):
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else 0


def path_in_use(java, label):
    """A second JVM given the path of a running one refuses to load and leaves
    the first one's files alone (they are not the ones it created)."""
    wd = Workdir("exitclean")
    first = subprocess.Popen([java, f"-agentpath:{AGENT}=ipc={wd.base}", "-cp", JAR, "StressWorkload",
                              "1", "60000", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(wait_socket(wd.base), f"[{label}] the first JVM listens")
    p = subprocess.run([java, f"-agentpath:{AGENT}=ipc={wd.base}", "-cp", JAR, "OomWorkload", "-"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode != 0 and "in use" in p.stderr, f"[{label}] a second JVM at the same path is refused "
                                                     f"({p.stderr.strip().splitlines()[:1]})")
    check(len(leftovers(wd.base)) == 2, f"[{label}] the first JVM's socket files are still there")
    first.kill()
    first.communicate()
    wd.cleanup()


ours = f"-agentpath:{AGENT}=ipc=BASE"
for java in javas:
    v = os.path.basename(os.path.dirname(os.path.dirname(java))) if java != "java" else "java"
    start_failure(java, f"{v}: heap that cannot be reserved", ["-Xmx200000t"], [ours],
                  "Could not reserve enough space")
    start_failure(java, f"{v}: agent given twice", [], [ours, ours], "already loaded")
    start_failure(java, f"{v}: another agent fails after ours", [],
                  [ours, "-agentpath:/nonexistent/libnone.so"], "Could not find agent library")
    path_in_use(java, f"{v}: path in use")
    oom(java, f"{v}: OutOfMemoryError", [], 1)
    if feature_version(java) < 18:
        oom(java, f"{v}: -XX:+ExitOnOutOfMemoryError", ["-XX:+ExitOnOutOfMemoryError"], 3)
    else:
        print(f"[{v}] -XX:+ExitOnOutOfMemoryError not checked: this JDK leaves through _exit")
finish()
