"""Prompts and Esc as htop has them, in tmux against a real JVM: Esc in the
filter prompt cancels the edit (the filter goes back to what it was when the
prompt opened, though it applied as it was typed), Ctrl-U clears the line in
the filter and search prompts, and Esc on the tree of one class (opened with
Enter on the class table) returns to the class table, on the same row."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403
from screen import Listing  # noqa: E402
from tmux import Tmux, status_line  # noqa: E402

need_tmux()

wd = Workdir("tuiprompt")
jvm = start_jvm("LeakWorkload", [150], agent_opts=f"ipc={wd.base},interval=64k",
                jvm_flags=["-Xmx512m"])
check(wait_socket(wd.base), "agent socket appears")
t = Tmux("tuiprompt", f"{HEAPTOP} --ipc {wd.base}", cols=120, rows=40)


def header(s):
    return "\n".join(s.split("\n")[:4])


try:
    check(t.wait_for("LeakWorkload.", 30) is not None, "the tree shows the workload")
    # a filter, accepted with Enter
    t.keys("\\", pause=0)
    t.text("churn")
    t.keys("Enter", pause=0)
    s = t.wait_for("frame filter: churn", 10)
    check(s is not None, "Enter accepts a filter")
    # edit it, see it apply as typed, then Esc: the old filter is back
    t.keys("\\", pause=0)
    s = t.wait_for("Frame filter: churn_", 5)
    check(s is not None, "the prompt opens on the current filter")
    t.text("XYZ")
    s = t.wait_until(lambda s: "frame filter: churnXYZ" in header(s), 10)
    check(s is not None and "nothing matches" in s, "the edit applies as it is typed")
    t.keys("Escape", pause=0)
    s = t.wait_until(lambda s: "Frame filter:" not in status_line(s)
                     and "churnXYZ" not in s and "frame filter: churn" in header(s), 10)
    check(s is not None, "Esc cancels the edit: the filter is 'churn' again")
    check(s is not None and "nothing matches" not in s, "and the rows are back")
    # Ctrl-U clears the line; Enter then removes the filter
    t.keys("\\", pause=0)
    t.wait_for("Frame filter: churn_", 5)
    t.keys("C-u", pause=0)
    s = t.wait_until(lambda s: status_line(s).startswith("Frame filter: _"), 5)
    check(s is not None, f"Ctrl-U clears the filter line ({status_line(t.screen()).strip()!r})")
    t.keys("Enter", pause=0)
    s = t.wait_until(lambda s: "frame filter:" not in header(s), 10)
    check(s is not None, "and Enter on the empty line removes the filter")
    # the search prompt too
    t.keys("/", pause=0)
    t.text("leak")
    t.wait_for("Search: leak_", 5)
    t.keys("C-u", pause=0)
    s = t.wait_until(lambda s: status_line(s).startswith("Search: _"), 5)
    check(s is not None, "Ctrl-U clears the search line")
    t.keys("Escape", pause=0)
    t.wait_until(lambda s: "Search:" not in status_line(s), 5)
    # Enter on a class opens its tree; Esc comes back to the class table
    t.keys("2", pause=0)
    t.wait_until(lambda s: len(Listing(s).rows) >= 4 and "CLASS" in s, 15)
    top = Listing(t.screen()).rows[0]["name"]
    t.keys("Down", "Down", pause=0)
    # the cursor stays on its class as rows move (the workload allocates on),
    # so the class is read from the capture that shows the cursor
    sel, s = None, ""
    end = time.time() + 5
    while time.time() < end and (sel is None or sel <= Listing(s).title_y + 1):
        sel, s = t.selected_on_screen()
    L = Listing(s)
    chosen = next((r["name"] for r in L.rows if r["y"] == sel), None)
    check(chosen is not None and chosen != top, f"Down Down moves the cursor to another class "
          f"({chosen}, row {sel if sel is None else sel - L.title_y}; the first was {top})")
    t.keys("Enter", pause=0)
    s = t.wait_for(f"class: {chosen}", 10)
    check(s is not None and "CALL TREE" in s, f"Enter opens the tree of {chosen}")
    t.keys("Escape", pause=0)
    s = t.wait_until(lambda s: "CLASS" in s and "CALL TREE" not in s, 10)
    check(s is not None, "Esc returns to the class table")
    check(s is not None and "class: " not in header(s), "showing every class again")
    sel, s = t.selected_on_screen()
    back = next((r["name"] for r in Listing(s).rows if r["y"] == sel), None)
    check(back == chosen, f"on the same class ({back})")
    t.keys("q", pause=0)
finally:
    t.kill()
    jvm.kill()
    jvm.communicate()
wd.cleanup()
finish()
