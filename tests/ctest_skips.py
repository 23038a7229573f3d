"""Report the tests ctest skipped, by name and why, from its JUnit output.
Usage: python3 tests/ctest_skips.py JUNIT.xml [LABEL]

A skipped test passes in ctest's count, so a machine without tmux, root or a
second JDK would pass while testing less; this says what was left out. With
the CI environment variable set (to anything but empty), a skipped test that
CI must run is an error: on CI (Debian 12, as root, tmux installed by
tests/run.sh) only the JDK 25 tests may be missing, since CI has no JDK 25."""
import os
import re
import sys
import xml.etree.ElementTree as ET

# Names of the tests CI may skip: everything else must run there.
MAY_SKIP_ON_CI = re.compile(r"_jdk25(_|$)")

path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 else "tests"
try:
    cases = ET.parse(path).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    print(f"heaptop: cannot read ctest's results {path}: {e}", file=sys.stderr)
    sys.exit(1)
ran, skipped = 0, []
for c in cases:
    if c.find("skipped") is None and c.get("status") != "notrun":
        ran += 1
        continue
    out = (c.findtext("system-out") or "").strip().splitlines()
    said = [l for l in out if l.lower().startswith("skipped:")]
    if said:
        why = said[-1].split(":", 1)[1].strip()
    else:
        why = f"no reason given (its last line: {out[-1].strip() if out else 'none'})"
    skipped.append((c.get("name"), why))
print(f"heaptop: {label}: {ran} ran, {len(skipped)} skipped")
for name, why in skipped:
    print(f"heaptop:   skipped {name}: {why}")
if os.environ.get("CI"):
    must = [n for n, _ in skipped if not MAY_SKIP_ON_CI.search(n)]
    if must:
        print(f"heaptop: CI must run every test but the JDK 25 ones; skipped here: "
              f"{', '.join(must)}: this CI run tested less than it claims", file=sys.stderr)
        sys.exit(1)
