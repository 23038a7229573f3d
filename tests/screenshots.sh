#!/usr/bin/env bash
# Regenerates screenshots/*.png from a real run: the demo service under the
# agent, heaptop in tmux (two heap snapshots of it too), each main screen captured with colours
# (capture-pane -e), turned into HTML by aha and into PNG by headless Chromium.
# Usage: tests/screenshots.sh [BUILD_DIR]
# SHOTS="cputree threads" tests/screenshots.sh BUILD_DIR: only those, and the
# run stops once they are taken (regenerate a screen's own without the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-$ROOT/build}
OUT=$ROOT/screenshots
COLS=110 ROWS=32

need=""
for p in aha chromium fonts-dejavu-core tmux; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi

work=$(mktemp -d /tmp/heaptop-shots-XXXXXX)
chmod 700 "$work"
java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$work/demo" \
    -cp "$BUILD/tests/heaptop-tests.jar" HeaptopDemo 300 >/dev/null 2>&1 &
jvm=$!
T="tmux -L heaptop-shots -f /dev/null"
cleanup() { $T kill-server 2>/dev/null || true; kill $jvm 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do [ -S "$work/demo.ctl" ] && break; sleep 0.1; done
$T new-session -d -s s -x $COLS -y $ROWS "env LANG=C.UTF-8 TERM=tmux-256color $BUILD/tui/heaptop --ipc $work/demo --wait --out $work --source $ROOT/tests/java"
sleep 12 # some seconds of telemetry for the sparklines

keys() { $T send-keys -t s "$@"; sleep 0.8; }
taken=""
shot() {
    local name=$1
    if [ -n "${SHOTS:-}" ] && [[ " $SHOTS " != *" $name "* ]]; then return; fi
    taken="$taken $name"
    $T capture-pane -t s -p -e > "$work/$name.ansi"
    {
        echo '<html><head><meta charset="utf-8"><style>'
        echo 'body{margin:0;background:#000} pre{margin:6px;font-family:"DejaVu Sans Mono",monospace;font-size:14px;line-height:17px;color:#ddd}'
        echo '</style></head><body>'
        echo '<pre>'
        aha --no-header --black < "$work/$name.ansi"
        echo '</pre>'
        echo '</body></html>'
    } > "$work/$name.html"
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/chrome" --hide-scrollbars \
        --window-size=$((COLS * 85 / 10 + 12)),$((ROWS * 17 + 12)) \
        --screenshot="$OUT/$name.png" "file://$work/$name.html" >/dev/null 2>&1
    echo "screenshots/$name.png"
    if [ -n "${SHOTS:-}" ]; then # every one asked for taken: done
        for want in $SHOTS; do [[ " $taken " == *" $want "* ]] || return 0; done
        exit 0
    fi
}

mkdir -p "$OUT"
keys Home; keys '*'; keys Down; keys Down
shot tree
keys t; keys Home; keys Enter; keys Down; keys Enter
shot hotspots
keys t
keys 2
keys '\'; $T send-keys -t s -l 'HeaptopDemo, java.lang., !Object'; keys Enter
keys b; sleep 6; keys E; keys G
shot classes
keys 3
shot telemetry
keys '?'
shot help
keys Escape
# the CPU screens (F2's list: CPU tree, CPU hot spots, threads after the nine
# numbered ones), the demo's threads at the top of the tree
keys F2; for _ in $(seq 9); do keys Down; done; keys Enter
keys g; keys Home; keys Down
shot cputree
keys t
shot cpuhotspots
keys Tab
shot threads
# the Source screen: o on the demo's busiest frame in CPU hot spots
keys BTab; keys Home; keys o
shot source
keys Escape
# a heap snapshot of the demo: H asks, H takes it; wait until it is read
keys 2; keys '\'; $T send-keys -t s C-u; keys Enter
keys H; keys H
for _ in $(seq 240); do
    $T capture-pane -t s -p | grep -q "RETAINED>=" && break
    sleep 0.5
done
keys 4
shot heap
keys 5; keys Right; keys Down; keys Right; keys Down; keys Right
shot dominators
keys 4; keys '\'; $T send-keys -t s -l 'HeaptopDemo$Session'; keys Enter; keys Enter; keys Enter
shot references
# a second snapshot a while later: the Compare screen, the first against it
# (the class filter cleared)
keys H; keys H
for _ in $(seq 240); do
    $T capture-pane -t s -p | grep -q "RETAINED>=" && break
    sleep 0.5
done
keys 8; keys '\'; $T send-keys -t s C-u; keys Enter
shot compare
keys v
shot survivors
keys v
keys 9; keys '\'; $T send-keys -t s C-u; keys Enter
shot duplicates
# the Behaviour screen (Tab after duplicates): the nodes of the demo's heap
# ranked by MCC, once the second snapshot is read (which brings up 4)
for _ in $(seq 300); do
    $T capture-pane -t s -p | grep -q "heap snapshot: " || break
    sleep 0.5
done
keys 9; keys Tab; keys Home
shot behaviour
keys q
sleep 1

# the chooser: heaptop with no argument, beside the demo a JVM without the agent
java -cp "$BUILD/tests/heaptop-tests.jar" HeaptopDemo 300 >/dev/null 2>&1 &
plain=$!
trap 'cleanup; kill $plain 2>/dev/null || true' EXIT
sleep 3
$T new-session -d -s s -x $COLS -y $ROWS "env LANG=C.UTF-8 TERM=tmux-256color $BUILD/tui/heaptop"
for _ in $(seq 60); do
    $T capture-pane -t s -p | grep -q "attachable" && break
    sleep 0.5
done
shot chooser
keys q
sleep 1

# the Console of a program started under heaptop (heaptop run)
$T new-session -d -s s -x $COLS -y $ROWS "env LANG=C.UTF-8 TERM=tmux-256color $BUILD/tui/heaptop run --out $work -- java -cp $BUILD/tests/heaptop-tests.jar ConsoleWorkload 120000 0"
for _ in $(seq 60); do
    $T capture-pane -t s -p | grep -q "console tick 20" && break
    keys 7
done
shot console
keys q; keys s
sleep 1

# the Drag screen: DragWorkload's three sites of known drag (held 2 s after
# the last use, dropped at it, never used), drag mode turned on with D
java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$work/drag,interval=64k" \
    -cp "$BUILD/tests/heaptop-tests.jar" dragwl.DragWorkload "$work/drag.facts" "$work/drag.stop" \
    120 100 100 40 >/dev/null 2>&1 &
dragjvm=$!
trap 'cleanup; kill $plain $dragjvm 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/drag.ctl" ] && break; sleep 0.1; done
$T kill-session -t s 2>/dev/null || true
$T new-session -d -s s -x $COLS -y $ROWS "env LANG=C.UTF-8 TERM=tmux-256color $BUILD/tui/heaptop --ipc $work/drag --out $work"
for _ in $(seq 60); do
    $T capture-pane -t s -p | grep -q "DragWorkload" && break
    sleep 0.5
done
keys D; keys C-u; $T send-keys -t s -l 'dragwl.'; keys Enter
for _ in $(seq 120); do # L's objects die 2 s after their last use
    $T capture-pane -t s -p | grep -q "allocV" && $T capture-pane -t s -p | grep -q "allocL" && break
    sleep 0.5
done
sleep 8
shot drag
keys Enter
shot drag_histogram
keys q
kill $dragjvm 2>/dev/null || true
sleep 1

# a framework's deep stack (about 60 frames, as Tomcat's) at 80x24: the tree
# compresses the indentation, shortens packages, and shows the selected frame
# whole under the list; the deepest frame selected
java -agentpath:"$BUILD/agent/libheaptop.so=ipc=$work/deep,live=off" \
    -cp "$BUILD/tests/heaptop-tests.jar" heaptop.tests.tomcatlike.catalina.connector.TomcatLikeWorkload 120 \
    >/dev/null 2>&1 &
deep=$!
trap 'cleanup; kill $plain $dragjvm $deep 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/deep.ctl" ] && break; sleep 0.1; done
COLS=80 ROWS=24
$T new-session -d -s s -x $COLS -y $ROWS "env LANG=C.UTF-8 TERM=tmux-256color $BUILD/tui/heaptop --ipc $work/deep --out $work"
sleep 8 # the hot path unfolds as the data come
keys /; $T send-keys -t s -l 'attributeAdded'; keys Enter
shot deep_stack
keys q
