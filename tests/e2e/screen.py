"""Reading heaptop's list screens (allocation tree, classes) from a captured
terminal: the title row gives each numeric column's right edge (titles are
right-aligned over their columns, the sorted one followed by v or ^), rows are
cut at those edges, and the figures are read back into numbers."""
import re

TITLES = ["BYTES", "%", "INST", "SAMPLES", "LIVE B", "LIVE I", "LIVE SMP", "YOUNG B", "DIFF B",
          "DIFF I", "GROWTH B", "HEAP OBJ", "RETAINED"]
_TITLE_RE = re.compile(r"(?<![\w%])(" + "|".join(re.escape(t) for t in
                       sorted(TITLES, key=len, reverse=True)) + r")([v^]?)(?= |$)")
_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
_COUNT = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


class Listing:
    """One list screen: .columns [(title, marker, start, end)], .rows [dict]."""

    def __init__(self, text):
        lines = text.rstrip("\n").split("\n")
        self.title_y = next((i for i, l in enumerate(lines)
                             if "BYTES" in l and ("CLASS" in l or "CALL TREE" in l or "HOT SPOTS" in l)),
                            None)
        self.columns, self.rows, self.sorted = [], [], None
        if self.title_y is None:
            return
        title = lines[self.title_y]
        start = 0
        for m in _TITLE_RE.finditer(title):
            if m.start() < start:
                continue
            self.columns.append((m.group(1), m.group(2), start, m.end()))
            if m.group(2):
                self.sorted = (m.group(1), m.group(2))
            start = m.end() + 1
        self.name_x = start
        rest = title[start:].strip()
        if rest.startswith("CLASS") and rest[5:6] in ("v", "^"):
            self.sorted = ("CLASS", rest[5])
        # data rows: up to the status line and key bar
        for y in range(self.title_y + 1, len(lines) - 2):
            line = lines[y]
            if not line.strip():
                break
            row = {"y": y, "line": line, "cells": {}}
            for t, _, a, b in self.columns:
                row["cells"][t] = line[a:b]
                row[t] = line[a:b].strip()
            # the name area: a space, two per level, the fold marker (or a
            # space on a leaf), a space, the name
            name = line[self.name_x:]
            stripped = name.lstrip(" ")
            pos = len(name) - len(stripped)
            folding = stripped[:2] in ("+ ", "- ")
            row["indent"] = pos if folding else pos - 2
            row["name"] = stripped[2:].strip() if folding else stripped.strip()
            self.rows.append(row)

    def has(self, title):
        return any(c[0] == title for c in self.columns)

    def aligned(self):
        """Every non-blank cell is a number of its column's kind, right-aligned
        in it, with a space after it: what misaligned columns break."""
        bad = []
        for r in self.rows:
            for t, _, a, b in self.columns:
                cell = r["cells"][t]
                if not cell.strip():
                    continue
                ok = len(cell) == b - a and cell[-1] != " " and parse(t, cell) is not None
                ok = ok and (len(r["line"]) <= b or r["line"][b] == " ")
                if not ok:
                    bad.append((t, r["line"]))
        return bad


def parse(title, text):
    """A cell's figure as a number, or None when it is not one."""
    text = text.strip()
    if text == ">heap":  # an estimate above the heap's used bytes (columns.c)
        return float("inf")
    if title == "%":
        m = re.fullmatch(r"(-?\d+(?:\.\d)?)%", text)
        return float(m.group(1)) if m else None
    if title in ("INST", "LIVE I", "DIFF I", "SAMPLES", "LIVE SMP", "HEAP OBJ"):
        m = re.fullmatch(r"(\d+(?:\.\d)?)([kMG]?)", text)
        return float(m.group(1)) * _COUNT[m.group(2)] if m else None
    m = re.fullmatch(r"(-?\d+(?:\.\d)?) (B|KiB|MiB|GiB|TiB)", text)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else None


def value(row, title):
    v = parse(title, row.get(title, ""))
    return 0.0 if v is None else v


def siblings_sorted(listing, title, descending=True, slack=0.02):
    """Rows that share a parent (same indent, nothing shallower between them)
    come in column order, within the rounding of the display."""
    last = {}  # indent -> value of the previous sibling at that indent
    for r in listing.rows:
        ind = r["indent"]
        for k in [k for k in last if k > ind]:
            del last[k]
        v = value(r, title)
        if ind in last:
            prev = last[ind]
            if descending and v > prev * (1 + slack) + 1:
                return False, f"{r['name']} ({v:.0f}) after {prev:.0f}"
            if not descending and v * (1 + slack) + 1 < prev:
                return False, f"{r['name']} ({v:.0f}) after {prev:.0f}"
        last[ind] = v
    return True, ""
