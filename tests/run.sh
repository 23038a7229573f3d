#!/usr/bin/env bash
# heaptop's one entry point for set-up on Debian 12:
#   tests/run.sh demo   install what is missing, build, run the demo workload
#                       under the agent and record it with heaptop
#   tests/run.sh test   install what is missing, build, run every test (ctest)
#   tests/run.sh build  install and build only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${HEAPTOP_BUILD_DIR:-$ROOT/build}
mode=${1:-demo}

PACKAGES="build-essential cmake pkg-config libnng-dev libcsv-dev libncurses-dev
          openjdk-17-jdk-headless python3 clang tmux"
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

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)"

case "$mode" in
build) ;;
test)
    cd "$BUILD"
    ctest --output-on-failure -j1
    ;;
demo)
    secs=${HEAPTOP_DEMO_SECONDS:-15}
    dir=$(mktemp -d /tmp/heaptop-demo-XXXXXX)
    chmod 700 "$dir"
    echo "heaptop: running the demo service for ${secs}s under the agent..." >&2
    java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$dir/demo" \
        -cp "$BUILD/tests/heaptop-tests.jar" HeaptopDemo "$secs" &
    jvm=$!
    trap 'kill $jvm 2>/dev/null || true' EXIT
    for _ in $(seq 100); do [ -S "$dir/demo.ctl" ] && break; sleep 0.1; done
    "$BUILD/tui/heaptop" record --ipc "$dir/demo" --out "$dir" --top 15
    wait $jvm || true
    echo "heaptop: CSV files are in $dir" >&2
    ;;
*) echo "usage: tests/run.sh demo|test|build" >&2; exit 2 ;;
esac
