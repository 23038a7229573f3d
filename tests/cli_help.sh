#!/bin/sh
# heaptop --help lists every subcommand and flag tui/cmd/main.c dispatches
# (`strcmp(cmd, "NAME") == 0`), as `heaptop NAME`: a command added there and
# not to the usage fails here. Usage: cli_help.sh HEAPTOP MAIN_C
heaptop=$1 main_c=$2
[ -x "$heaptop" ] && [ -f "$main_c" ] || { echo "usage: $0 HEAPTOP MAIN_C"; exit 2; }
help=$("$heaptop" --help) || { echo "FAIL heaptop --help: exit $?"; exit 1; }
names=$(sed -n 's/.*strcmp(cmd, "\([a-z-]*\)") == 0.*/\1/p' "$main_c")
[ -n "$names" ] || { echo "FAIL no strcmp(cmd, \"NAME\") in $main_c"; exit 1; }
status=0
for name in $names; do
    case $name in --help | -h) continue ;; esac
    if printf '%s\n' "$help" | grep -qE -- "heaptop $name( |$)"; then
        echo "ok   heaptop --help lists heaptop $name"
    else
        echo "FAIL heaptop --help does not list heaptop $name (main.c dispatches it)"; status=1
    fi
done
# and every long option of the view's command line (view_cmd.c's table) as --NAME
view_c=$(dirname "$main_c")/view_cmd.c
for opt in $(sed -n 's/.*{"\([a-z-]*\)", \(required\|no\)_argument.*/\1/p' "$view_c"); do
    if printf '%s\n' "$help" | grep -q -- "--$opt"; then
        echo "ok   heaptop --help lists --$opt"
    else
        echo "FAIL heaptop --help does not list --$opt (view_cmd.c takes it)"; status=1
    fi
done
# and every command control_cmd.c dispatches (`strcmp(verb, "NAME") == 0`) in
# heaptop control --help
control_c=$(dirname "$main_c")/control_cmd.c
chelp=$("$heaptop" control --help) || { echo "FAIL heaptop control --help: exit $?"; exit 1; }
for verb in $(sed -n 's/.*strcmp(verb, "\([a-z]*\)") == 0.*/\1/p' "$control_c"); do
    if printf '%s\n' "$chelp" | grep -qE -- "(^|[ |])$verb( |\||\$)"; then
        echo "ok   heaptop control --help lists $verb"
    else
        echo "FAIL heaptop control --help does not list $verb (control_cmd.c takes it)"; status=1
    fi
done
exit $status
