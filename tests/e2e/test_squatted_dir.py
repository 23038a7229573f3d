"""Another user squatting the socket directory harms no JVM. Squatted first:
before the JVM's user first runs heaptop, a second local user creates the
default socket directory (mode 777, or a symlink to a trap): a JVM started
with -agentpath must still start and run, without heaptop, after one line that
names the directory's owner. Squatted later: a running agent's directory is
removed (a /tmp cleaner) and re-created by the other user: the watchdog must
not make its sockets in it. The attacker is a user the test creates
(harness.LocalUser); the JVM's user is this test's (root on CI). Needs root."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from harness import *  # noqa: E402,F403

need_root("the attacker is a second local user")
mallory = LocalUser("hts")
wd = Workdir("squat")
xdg = wd.file("xdg")  # stands in for /tmp: sticky, open to all
os.mkdir(xdg)
os.chmod(wd.path, 0o755)
os.chmod(xdg, 0o1777)
env = dict(os.environ, XDG_RUNTIME_DIR=xdg)
squat = os.path.join(xdg, "heaptop")


def jvm_with_agent(args):
    return subprocess.Popen([JAVA, f"-agentpath:{AGENT}", "-cp", JAR, "StressWorkload",
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


# --- squatted first: a directory, then a symlink to a trap
for how, cmd in (("a directory of mode 777", f"mkdir {squat} && chmod 777 {squat}"),
                 ("a symlink to the attacker's trap",
                  f"mkdir -m 777 {xdg}/trap && ln -s {xdg}/trap {squat}")):
    p = mallory.run(["sh", "-c", cmd])
    check(p.returncode == 0, f"the attacker made {squat}: {how}")
    jvm = jvm_with_agent([1, 100, 0])
    _, err = jvm.communicate(timeout=120)
    check(jvm.returncode == 0, f"the JVM starts and runs to its end ({how}; exit {jvm.returncode})")
    lines = [l for l in err.splitlines() if l.startswith("heaptop:")]
    check(len(lines) == 1 and "the JVM runs without it" in lines[0],
          f"one line says heaptop is not started ({lines[:3]})")
    check(f"uid {mallory.uid}" in err or "not a directory" in err or "symbolic link" in err,
          f"it names what is wrong ({lines[:1]})")
    made = os.listdir(f"{xdg}/trap") if os.path.isdir(f"{xdg}/trap") else os.listdir(squat)
    check(not made, f"nothing was made in the attacker's directory ({made})")
    subprocess.run(["rm", "-rf", squat, f"{xdg}/trap"], check=True)

# --- squatted later: removed under a running agent, re-created by the attacker
jvm = jvm_with_agent([1, 200000, 0])
stop_at_exit(jvm)
base = os.path.join(squat, str(jvm.pid))
check(wait_agent(jvm, base), "the agent listens in its own directory")
err_lines = []
threading.Thread(target=lambda: err_lines.extend(jvm.stderr), daemon=True).start()
subprocess.run(["rm", "-rf", squat], check=True)
p = mallory.run(["sh", "-c", f"mkdir {squat} && chmod 777 {squat}"])
check(p.returncode == 0, "the attacker re-made the directory, mode 777")
check(wait_for(lambda: any("not listening again" in l for l in err_lines), 30,
               what="the watchdog's refusal"),
      f"the watchdog says it does not listen again there ({[l.strip() for l in err_lines][-2:]})")
check(not os.listdir(squat), f"no socket was made in the attacker's directory ({os.listdir(squat)})")
check(jvm.poll() is None, "the JVM runs on")
rc = subprocess.run([HEAPTOP, "control", str(jvm.pid), "status"], capture_output=True, text=True,
                    timeout=30, env=env)
check(rc.returncode != 0 and f"belongs to user {mallory.name}" in rc.stderr,
      f"heaptop control names the directory's owner ({rc.stderr.strip()[-200:]})")
stop_jvm(jvm)
subprocess.run(["rm", "-rf", squat])
wd.cleanup()
finish()
