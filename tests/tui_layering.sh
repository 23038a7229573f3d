#!/bin/sh
# The viewer's parts may use only what their CMake target links (docs/design.md,
# "Every source file"): the models and the exports never include curses or nng, the
# jobs and the heap analyser neither, the session never curses. A header from
# /usr/include compiles whether or not the target links its library, so the
# includes are checked here. Usage: TUI_SOURCE_DIR
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
[ -d "$tui/model" ] || { echo "FAIL no folder $tui/model"; exit 1; }
for part in model export jobs heap attach; do
    check "$part" 'n?curses(w/)?[a-z_]*\.h|term\.h|nng/' "curses or nng"
done
check session 'n?curses(w/)?[a-z_]*\.h|term\.h' "curses"
exit $status
