#!/usr/bin/env bash
# heaptop's one entry point for set-up on Debian 12:
#   tests/run.sh demo   install what is missing, build, run the demo service
#                       under the agent and open the heaptop TUI on it
#   tests/run.sh record the same, headless: record 15 s and print the top sites
#   tests/run.sh test   install what is missing, build, run every test (ctest)
#   tests/run.sh build  install and build only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${HEAPTOP_BUILD_DIR:-$ROOT/build}
mode=${1:-demo}

PACKAGES="build-essential cmake pkg-config libnng-dev libcsv-dev libncurses-dev zlib1g-dev libsodium-dev
          libzip-dev openjdk-17-jdk-headless openjdk-17-source python3 clang tmux"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "heaptop: installing:$missing" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# Configure quietly, but say which JDKs the tests will run on (and what is left out).
log=$(mktemp)
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
grep -E '^-- heaptop' "$log" || true
grep -E 'CMake Warning' -A3 "$log" || true
rm -f "$log"
cmake --build "$BUILD" -j"$(nproc)"

case "$mode" in
build) ;;
test)
    # The suite, then the benchmarks' --check runs (label bench) apart from it:
    # each says pass or fail on its own, and skipped tests are named, with
    # why. Under CI (CI set) a skipped test CI must run fails the run.
    cd "$BUILD"
    # The unit tests and the fuzzers (a fixed time each) run two at a time:
    # they time nothing. The end-to-end tests run one at a time: several
    # measure CPU shares and rates, and the TUI's are driven at a user's pace.
    suite=0 bench=0
    ctest --output-on-failure -j2 -L '^(unit|fuzz)$' --output-junit "$BUILD/ctest-unit.xml" || suite=1
    python3 "$ROOT/tests/ctest_skips.py" "$BUILD/ctest-unit.xml" "unit tests and fuzzers" || suite=1
    ctest --output-on-failure -j1 -LE '^(bench|unit|fuzz)$' --output-junit "$BUILD/ctest-suite.xml" || suite=1
    python3 "$ROOT/tests/ctest_skips.py" "$BUILD/ctest-suite.xml" "test suite" || suite=1
    ctest --output-on-failure -j1 -L bench --output-junit "$BUILD/ctest-bench.xml" || bench=1
    python3 "$ROOT/tests/ctest_skips.py" "$BUILD/ctest-bench.xml" "benchmark checks" || bench=1
    echo "heaptop: test suite $([ $suite = 0 ] && echo passed || echo FAILED);" \
         "benchmark checks $([ $bench = 0 ] && echo passed || echo FAILED)"
    [ $suite = 0 ] && [ $bench = 0 ]
    ;;
demo)
    # The demo service runs under the agent until you quit heaptop (q or F10).
    dir=$(mktemp -d /tmp/heaptop-demo-XXXXXX)
    chmod 700 "$dir"
    java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$dir/demo" \
        -cp "$BUILD/tests/heaptop-tests.jar" HeaptopDemo >"$dir/demo.log" 2>&1 &
    jvm=$!
    trap 'kill $jvm 2>/dev/null || true' EXIT
    for _ in $(seq 100); do [ -S "$dir/demo.ctl" ] && break; sleep 0.1; done
    "$BUILD/tui/heaptop" --ipc "$dir/demo" --wait --out "$dir"
    echo "heaptop: exports (if any) are in $dir" >&2
    ;;
record)
    # Headless: record the demo for 15 s and print its top sites.
    dir=$(mktemp -d /tmp/heaptop-demo-XXXXXX)
    chmod 700 "$dir"
    java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$dir/demo" \
        -cp "$BUILD/tests/heaptop-tests.jar" HeaptopDemo 15 >"$dir/demo.log" 2>&1 &
    jvm=$!
    trap 'kill $jvm 2>/dev/null || true' EXIT
    for _ in $(seq 100); do [ -S "$dir/demo.ctl" ] && break; sleep 0.1; done
    "$BUILD/tui/heaptop" record --ipc "$dir/demo" --out "$dir" --top 15
    wait $jvm || true
    echo "heaptop: CSV files are in $dir" >&2
    ;;
*) echo "usage: tests/run.sh demo|record|test|build" >&2; exit 2 ;;
esac
