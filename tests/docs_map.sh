#!/bin/sh
# docs/design.md is the map of the sources ("Every source file"): each .c file
# under agent/, common/ and tui/ is named there, as `name.c`. Fails naming
# every file that is not, so a file added or moved comes with its line.
# The files are git's (git ls-files); outside a git checkout, the tree's.
# Usage: docs_map.sh SOURCE_DIR
src=$1
design="$src/docs/design.md"
[ -f "$design" ] || { echo "FAIL no $design"; exit 1; }
files=$(git -C "$src" ls-files 'agent/*.c' 'common/*.c' 'tui/*.c' 2>/dev/null)
[ -n "$files" ] || files=$(cd "$src" && find agent common tui -name '*.c' | sort)
[ -n "$files" ] || { echo "FAIL no .c files under $src/agent, common, tui"; exit 1; }
status=0 n=0
for f in $files; do
    n=$((n + 1))
    if ! grep -qF "\`$(basename "$f")\`" "$design"; then
        echo "FAIL $f is not named in docs/design.md (a line in its folder's table: | \`$(basename "$f")\` | what it does |)"
        status=1
    fi
done
[ $status = 0 ] && echo "ok   the $n .c files under agent/, common/ and tui/ are named in docs/design.md"
exit $status
