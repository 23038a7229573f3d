"""A JVM that stops answering, one that is killed, one that exits, and a
terminal that cannot be drawn on, in tmux against real JVMs:

- SIGSTOP: within a few seconds the header says "no data for N s" instead of
  [live] and greys the allocation rate and GC share; SIGCONT brings [live]
  back;
- SIGKILL: "JVM gone without a goodbye" (not "reconnecting"), the rates cleared, the data still
  browsable on both list screens;
- a JVM that exits (the agent says goodbye): "JVM exited", rates cleared;
- TERM=dumb, or a terminal type terminfo does not know: one line that
  suggests heaptop record, a non-zero exit, nothing left running."""
import re
import signal
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from tmux import Tmux  # noqa: E402

need_tmux()

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def style_at(line, word):
    """The foreground and dim state of a coloured line where `word` starts."""
    fg, dim, pos = None, False, 0
    plain = ""
    for m in SGR.finditer(line + "\x1b[m"):
        plain += line[pos:m.start()]
        if word in plain:
            return fg, dim
        pos = m.end()
        ps = m.group(1).split(";") if m.group(1) else ["0"]
        i = 0
        while i < len(ps):
            p = ps[i]
            if p in ("0", ""):
                fg, dim = None, False
            elif p == "2":
                dim = True
            elif p == "22":
                dim = False
            elif p == "39":
                fg = None
            elif p == "38" and i + 2 < len(ps) and ps[i + 1] == "5":
                fg = "256:" + ps[i + 2]
                i += 2
            elif re.fullmatch(r"3[0-7]|9[0-7]", p):
                fg = p
            i += 1
    return fg, dim


def rates_grey(t):
    line = t.screen(colors=True).split("\n")[1]
    fg, dim = style_at(line, "alloc")
    return fg in ("90", "256:8") or dim


wd = Workdir("tuistale")
jvm = start_jvm("LeakWorkload", [150], agent_opts=f"ipc={wd.base}", jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")

# --- item 5: terminals without cursor addressing are refused at start
for i, term in enumerate(("dumb", "heaptop-no-such-terminal")):
    d = Tmux(f"tuidumb{i}", f"sh -c 'env TERM={term} {HEAPTOP} --ipc {wd.base}; echo EXIT=$?; "
                        f"sleep 60'", cols=160, rows=20)
    try:
        s = d.wait_for("EXIT=", 10)
        lines = [l for l in (s or "").split("\n") if l.strip()]
        said = [l for l in lines if l.startswith("heaptop:")]
        check(s is not None and "EXIT=0" not in s,
              f"TERM={term}: heaptop exits at once, non-zero ({lines[-1] if lines else 'still running'})")
        check(len(said) == 1 and "heaptop record" in said[0],
              f"TERM={term}: one line suggesting heaptop record ({said})")
    finally:
        d.kill()

t = Tmux("tuistale", f"{HEAPTOP} --ipc {wd.base}", cols=120, rows=40)
try:
    s = t.wait_for("LeakWorkload.", 30)
    check(s is not None and "[live]" in s, "live, with the workload on screen")
    check(not rates_grey(t), "live: the rates are not grey")
    # --- item 4: a stopped JVM
    os.kill(jvm.pid, signal.SIGSTOP)
    s = t.wait_for("no data for", 15)
    check(s is not None and "[live]" not in s,
          f"SIGSTOP: 'no data for N s' instead of [live] ({s.split(chr(10))[0][-22:] if s else None})")
    check(t.wait_until(lambda _: rates_grey(t), 5) is not None, "SIGSTOP: the rates are grey")
    os.kill(jvm.pid, signal.SIGCONT)
    s = t.wait_for("[live]", 15)
    check(s is not None and "no data for" not in s, "SIGCONT: [live] again")
    check(t.wait_until(lambda _: not rates_grey(t), 5) is not None, "SIGCONT: the rates are not grey")
    # --- a killed JVM (not reaped yet: a zombie is gone too)
    os.kill(jvm.pid, signal.SIGKILL)
    s = t.wait_for("[JVM gone without a goodbye]", 15)
    check(s is not None and "reconnecting" not in s.split("\n")[0],
          "SIGKILL: [JVM gone without a goodbye]")
    check(s is not None and "alloc -/s" in s and "GC -%" in s, "SIGKILL: the rates are cleared")
    check(s is not None and "LeakWorkload." in s, "the tree is still there")
    t.keys("2", pause=0)
    s = t.wait_until(lambda s: "CLASS" in s and "byte[]" in s, 10)
    check(s is not None, "and the classes")
    jvm.communicate()
    # --- a JVM that exits: the agent says goodbye
    jvm2 = start_jvm("StressWorkload", [1, 6000, 0], agent_opts=f"ipc={wd.base}")
    s = t.wait_for("[live]", 30)
    check(s is not None and "StressWorkload" in s, "a new JVM at the same path: [live]")
    jvm2.communicate(timeout=60)
    s = t.wait_for("[JVM exited]", 15)
    check(s is not None and "alloc -/s" in s, "exit: [JVM exited], rates cleared")
    t.keys("q", pause=0)
finally:
    t.kill()
    for p in (jvm,):
        try:
            os.kill(p.pid, signal.SIGCONT)
        except OSError:
            pass
        p.kill()
wd.cleanup()
finish()
