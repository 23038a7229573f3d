"""Driving heaptop in a real terminal: tmux send-keys and capture-pane."""
import re
import subprocess
import time


def status_line(screen):
    """A captured screen's status line: the one above the function bar."""
    lines = (screen or "").rstrip("\n").split("\n")
    return lines[-2] if len(lines) >= 2 else ""


class Tmux:
    def __init__(self, name, cmd, cols=120, rows=40):
        self.sock = f"heaptop-{name}"
        self.run("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows),
                 f"env LANG=C.UTF-8 TERM=tmux-256color {cmd}")

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args],
                              capture_output=True, text=True)

    def keys(self, *keys, pause=None):
        """Send keys. By default wait until the screen has changed and held
        still for 0.1 s, or 0.3 s at most (a key that changes nothing on
        screen waits it all). A pause given waits that long: a key whose
        effect comes later (an answer from the agent, a job) is waited for so,
        or better with wait_for."""
        before = self.screen() if pause is None else None
        self.run("send-keys", "-t", "t", *keys)
        if pause is None:
            self.settle(before, 0.3)
        else:
            time.sleep(pause)

    def text(self, *keys):
        """Send literal text (waits as keys() does)."""
        before = self.screen()
        self.run("send-keys", "-t", "t", "-l", *keys)
        self.settle(before, 0.3)

    def settle(self, before, pause, still=0.1):
        end = time.time() + pause
        last, since = None, 0.0
        while time.time() < end:
            s = self.screen()
            now = time.time()
            if s != before:
                if s != last:
                    last, since = s, now
                elif now - since >= still:
                    return
            time.sleep(0.02)

    def screen(self, colors=False):
        args = ["capture-pane", "-t", "t", "-p"] + (["-e"] if colors else [])
        return self.run(*args).stdout

    def status_line(self):
        """What heaptop last said, stripped."""
        return status_line(self.screen()).strip()

    def take_snapshot(self):
        """H, which asks what a heap snapshot costs, then H again: take it."""
        self.keys("H")
        self.wait_for("H: take it", 10)
        self.keys("H")

    def wait_for(self, needle, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if needle in s:
                return s
            time.sleep(0.2)
        return None

    def click(self, x, y, button=0):
        """A mouse press and release at 0-based column x, row y, in the X10
        encoding tmux-256color declares (kmous=\\E[M): ESC [ M b x y, each +32.
        Waits as keys() does; what the click must do is for the caller to wait
        for (wait_until), as a busy machine can take longer."""
        def event(b):
            return "\x1b[M" + chr(32 + b) + chr(33 + x) + chr(33 + y)
        before = self.screen()
        self.run("send-keys", "-t", "t", "-l", event(button))
        if button < 64:
            self.run("send-keys", "-t", "t", "-l", event(3))  # release
        self.settle(before, 0.3)

    def selected_row(self):
        """Index of the highlighted list row (black on cyan), key bar excluded."""
        lines = self.screen(colors=True).rstrip("\n").split("\n")
        for i, line in enumerate(lines[:-1]):
            if re.search(r"\x1b\[(?:\d+;)*46m", line):
                return i
        return None

    def selected_on_screen(self):
        """The highlighted row's index and the plain screen, from one capture:
        rows that move between two captures cannot pair one screen's cursor
        with another's names."""
        colored = self.screen(colors=True)
        lines = colored.rstrip("\n").split("\n")
        sel = next((i for i, line in enumerate(lines[:-1])
                    if re.search(r"\x1b\[(?:\d+;)*46m", line)), None)
        return sel, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", colored)

    def resize(self, cols, rows):
        self.run("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows))
        time.sleep(0.6)

    def alive(self):
        return self.run("has-session", "-t", "t").returncode == 0

    def kill(self):
        self.run("kill-server")

    def wait_until(self, pred, timeout=20, colors=False):
        """Poll the screen until pred(screen) holds; the screen, or None at the deadline."""
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen(colors=colors)
            if pred(s):
                return s
            time.sleep(0.2)
        return None
