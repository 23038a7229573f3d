"""The note "add -XX:-UseTLAB for exact counts" (interval=0 on a JDK older than
21) is printed only when TLABs are in use, as the VM itself sees the flag,
wherever it was set: the command line, JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS,
_JAVA_OPTIONS or an @argfile. Skipped (77) when the configured JDK is 21 or
later, where no note is due."""
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

NOTE = "add -XX:-UseTLAB for exact counts"
version = subprocess.run([JAVA, "-version"], capture_output=True, text=True).stderr
m = re.search(r'version "(\d+)', version)
if not m or int(m.group(1)) >= 21:
    print(f"JDK {m.group(1) if m else '?'}: no note is due; skipped")
    sys.exit(77)

wd = Workdir("note")
with open(wd.file("args"), "w") as f:
    f.write("-XX:-UseTLAB\n")
cases = [  # label, JVM flags, environment, note expected
    ("TLABs on (the default)", [], {}, True),
    ("-XX:-UseTLAB", ["-XX:-UseTLAB"], {}, False),
    ("-XX:-UseTLAB then -XX:+UseTLAB", ["-XX:-UseTLAB", "-XX:+UseTLAB"], {}, True),
    ("JAVA_TOOL_OPTIONS=-XX:-UseTLAB", [], {"JAVA_TOOL_OPTIONS": "-XX:-UseTLAB"}, False),
    ("JDK_JAVA_OPTIONS=-XX:-UseTLAB", [], {"JDK_JAVA_OPTIONS": "-XX:-UseTLAB"}, False),
    ("_JAVA_OPTIONS=-XX:-UseTLAB", [], {"_JAVA_OPTIONS": "-XX:-UseTLAB"}, False),
    ("@argfile with -XX:-UseTLAB", ["@" + wd.file("args")], {}, False),
]
for i, (label, flags, env, expected) in enumerate(cases):
    base = os.path.join(wd.path, f"run{i}", "jvm")  # the agent makes run{i}/ when it loads
    clean = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")}
    p = subprocess.run([JAVA, *flags, f"-agentpath:{AGENT}=ipc={base},interval=0", "-cp", JAR,
                        "StressWorkload", "1", "100", "0"], capture_output=True, text=True, timeout=120,
                       env={**clean, **env})
    loaded = p.returncode == 0 and os.path.isdir(os.path.dirname(base))
    check(loaded, f"[{label}] the JVM ran with the agent ({p.returncode}: {p.stderr.strip()[-200:]})")
    check((NOTE in p.stderr) == expected,
          f"[{label}] the note is {'printed' if expected else 'not printed'}")
wd.cleanup()
finish()
