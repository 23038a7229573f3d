#!/bin/sh
# The viewer's parts may use only what their CMake target links (docs/design.md,
# "Every source file"): the models and the exports never include curses or nng, the
# source files' part (tui/source), the jobs and the heap analyser neither, the
# session never curses. A header from
# /usr/include compiles whether or not the target links its library, so the
# includes are checked here. Inside the heap analyser the layers go one way,
# reader <- graph <- analysis (tui/heap/CMakeLists.txt): a reader file includes
# no header of the graph or the analyses, a graph file none of the analyses',
# by any path ("../analysis/paths.h" too, which the include paths would let
# through). Usage: TUI_SOURCE_DIR
tui=$1
status=0
check() { # folder, forbidden include pattern, what it is
    hits=$(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($2)" "$tui/$1"/*.c "$tui/$1"/*.h 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "FAIL tui/$1 may not include $3:"; echo "$hits"; status=1
    else
        echo "ok   tui/$1 includes no $3"
    fi
}
# The headers of heap layer $1 as an include pattern: "(.*/)?(snapshot|values|...)\.h"
headers() {
    names=$(cd "$tui/heap/$1" && ls *.h 2>/dev/null | sed 's/\.h$//' | paste -sd'|' -)
    [ -n "$names" ] || { echo "FAIL no headers in $tui/heap/$1" >&2; exit 1; }
    echo "(.*/)?($names)\.h\""
}
for d in model source heap/reader heap/graph heap/analysis; do
    [ -d "$tui/$d" ] || { echo "FAIL no folder $tui/$d"; exit 1; }
done
graph_h=$(headers graph) || exit 1
analysis_h=$(headers analysis) || exit 1
for part in model export source jobs heap/reader heap/graph heap/analysis attach; do
    check "$part" 'n?curses(w/)?[a-z_]*\.h|term\.h|nng/' "curses or nng"
done
check session 'n?curses(w/)?[a-z_]*\.h|term\.h' "curses"
check heap/reader "$graph_h|$analysis_h" "graph or analysis header"
check heap/graph "$analysis_h" "analysis header"
exit $status
